"""Malformed records and HTTP requests for the web board's fuzz test (issue 23: no input may
produce a 500).

``random_record`` gives PSQ and SGF texts: records of random legal games, then cut, nested,
bracketed, with huge or negative numbers, foreign games, bad UTF-8 look-alikes and so on.
``random_request`` gives ``(method, path, headers, body bytes)`` for every route of
``zeroplay.play.server``: valid-looking requests with wrong types, extra or missing fields,
deeply nested JSON, non-JSON bodies, junk paths and ``Host`` headers. Searches are kept cheap
(the game ids given have small playout budgets; analysis playouts are junk or small), so that
thousands of requests take seconds, not hours.
"""

from __future__ import annotations

import json
import random

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _legal_moves(rng: random.Random, size: int, count: int) -> list[tuple[int, int]]:
    cells = [(x, y) for x in range(size) for y in range(size)]
    rng.shuffle(cells)
    return cells[:count]


def _sgf(rng: random.Random) -> str:
    size = rng.choice([5, 9, 15, 19, 25, 26, 30])
    moves = _legal_moves(rng, min(size, 26), rng.randint(0, 12))
    body = "".join(f";{'BW'[i % 2]}[{_LETTERS[x]}{_LETTERS[y]}]{_analysis(rng)}" for i, (x, y) in enumerate(moves))
    head = rng.choice(["(;FF[4]GM[4]", "(;GM[1]", "(;", "(;FF[4]GM[4]AB[aa]", "(;GM[x]", "(;AB[aa][bb]AW[cc]PL[W]",
                       "(;PL[x]", "(;AW[aa]AW[aa]"])
    if rng.random() < 0.3:  # variations (the web board reads them all)
        body += "".join(f"(;{rng.choice('BW')}[{rng.choice(_LETTERS)}{rng.choice(_LETTERS)}])"
                        for _ in range(rng.randint(1, 5)))
    return f"{head}SZ[{rng.choice([str(size), f'{size}:{size + 1}', 'x', '', '-3', '9' * 30])}]{body})"


def _analysis(rng: random.Random) -> str:
    """The web board's per-position analysis properties (``play.review``), often junk."""
    if rng.random() < 0.6:
        return ""
    value = rng.choice(["0.5", "1", "0", "-0.1", "2", "nan", "inf", "x", "", "0.3333333", "1e309"])
    best = rng.choice(["hh", "aa", "zz", "a", "", "hhh", "ii"])
    return (f"ZW[{value}]ZB[{best}]ZV[{rng.choice(['10', '-5', 'x', '9' * 30])}]"
            f"ZP[{''.join(rng.choice(_LETTERS) for _ in range(rng.randint(0, 200)))}]")


def _psq(rng: random.Random) -> str:
    size = rng.choice([5, 9, 15, 20, 26, 0, -1])
    moves = _legal_moves(rng, max(size, 1), rng.randint(0, 12))
    lines = [f"Piskvorky {size}x{size}, 11:11, 0"] + [f"{x + 1},{y + 1},0" for x, y in moves] + ["-1"]
    return "\n".join(lines)


def _mutate_text(text: str, rng: random.Random) -> str:
    k = rng.random()
    if not text or k < 0.15:
        return text[: rng.randint(0, len(text))]
    if k < 0.30:
        i = rng.randint(0, len(text))
        junk = rng.choice(["(", ")", "[", "]", ";", "\\", ",", "\n", "\x00", "é", "\ufffd"])
        return text[:i] + junk * rng.randint(1, 50) + text[i:]
    if k < 0.40:
        return "(" * rng.choice([100, 1000, 3000, 20000]) + text
    if k < 0.50:
        return "(;SZ[15]" + "(;B[hh]" * rng.choice([10, 2000]) + ")" * rng.randint(0, 3000)
    if k < 0.60:
        i = rng.randint(0, len(text))
        return text[:i] + str(rng.choice([-1, 0, 10**6, 10**40, 2**63])) + text[i:]
    if k < 0.70:
        return text.replace("\n", rng.choice(["\r\n", "\r", "", " "]))
    if k < 0.80:
        return "".join(c for c in text if rng.random() > 0.1)
    if k < 0.90:
        return text * rng.randint(2, 20)
    return "".join(chr(rng.randint(0, 0x2FF)) for _ in range(rng.randint(0, 200)))


def random_record(rng: random.Random) -> str:
    """A PSQ or SGF text, valid or (mostly) not."""
    text = _sgf(rng) if rng.random() < 0.5 else _psq(rng)
    for _ in range(rng.randint(0, 3)):
        text = _mutate_text(text, rng)
    return text


def _junk_value(rng: random.Random):
    return rng.choice([None, True, False, 0, -1, 1, 7, 25, 26, 10**30, -(10**30), 1.5, float("nan"), "",
                       "h8", "7,7", "z99", "a" * 5000, "\x00", [], {}, [1, 2], {"a": 1}, "black", "white",
                       "gomoku", "tictactoe", "connect4", "freestyle", "standard", "renju", "psq", "sgf"])


def _nested(rng: random.Random) -> bytes:
    depth = rng.choice([50, 1000, 100_000])
    return ("[" * depth + "]" * depth).encode() if rng.random() < 0.5 else ('{"a":' * depth + "1" + "}" * depth).encode()


def _body(rng: random.Random, fields: dict) -> bytes:
    k = rng.random()
    if k < 0.5:
        body = {key: (value if rng.random() < 0.6 else _junk_value(rng)) for key, value in fields.items()
                if rng.random() < 0.85}
        if rng.random() < 0.15:
            body[rng.choice(["extra", "Size", "move ", ""])] = _junk_value(rng)
        try:
            return json.dumps(body).encode()
        except ValueError:
            return b"{}"
    if k < 0.6:
        return _nested(rng)
    if k < 0.7:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
    if k < 0.8:
        return json.dumps(_junk_value(rng)).encode() if rng.random() < 0.9 else b"NaN"
    if k < 0.9:
        return json.dumps(fields).encode()[: rng.randint(0, 40)]
    return b""


def random_request(rng: random.Random, game_ids: list[str]) -> tuple[str, str, dict, bytes]:
    """One request ``(method, path, headers, body)``; ``game_ids``: existing games to aim at
    (besides unknown and junk ids)."""
    gid = rng.choice([*game_ids, *game_ids, "0" * 16, "nope", "..", "%00", "a" * 300, ""])
    kind = rng.random()
    if kind < 0.25:
        fields = {"game": "gomoku", "size": rng.randint(3, 27), "n_in_row": rng.randint(2, 27),
                  "rule": "freestyle", "color": "white", "playouts": rng.randint(0, 3)}
        if rng.random() < 0.3:  # a set-up start position
            fields["setup"] = {"black": [rng.randint(-2, 700) for _ in range(rng.randint(0, 6))],
                               "white": [rng.randint(-2, 700) for _ in range(rng.randint(0, 6))],
                               "to_play": rng.choice(["black", "white", None, "red", 1])}
        method, path, body = "POST", "/api/games", _body(rng, fields)
    elif kind < 0.5:
        fields = {"text": random_record(rng), "format": rng.choice(["auto", "psq", "sgf", "xml"]),
                  "n_in_row": rng.randint(2, 6), "rule": "standard", "playouts": rng.randint(0, 3)}
        method, path, body = "POST", "/api/games/load", _body(rng, fields)
    elif kind < 0.7:
        move = rng.choice([f"{_LETTERS[rng.randint(0, 25)]}{rng.randint(-1, 27)}", f"{rng.randint(-2, 30)},{rng.randint(-2, 30)}",
                           rng.randint(-5, 700), "pass", "h8"])
        method, path, body = "POST", f"/api/games/{gid}/move", _body(rng, {"move": move})
        if rng.random() < 0.35:  # stepping through the game: a ply of the line or a node of the tree
            fields = {"ply": rng.choice([0, 1, 3, -1, 700, 10**12]), "node": rng.choice([0, 1, 2, -1, 2048, 10**9])}
            path, body = f"/api/games/{gid}/goto", _body(rng, fields)
    elif kind < 0.8:
        where = rng.choice(["undo", "engine", "nothing", "mainline", "promote", "review/cancel"])
        method, path, body = "POST", f"/api/games/{gid}/{where}", _body(rng, {})
    elif kind < 0.9:
        query = rng.choice(["", "?playouts=0", "?playouts=2", "?playouts=x", "?playouts=99999999999999",
                            "?format=psq", "?format=sgf", "?format=docx", "?playouts=-1"])
        where = rng.choice(["", "/record", "/analyze/stream", "/engine/stream", "/review/stream", "/zz"])
        if where == "/engine/stream" and rng.random() < 0.5:
            query = rng.choice(["?either_side=true", "?either_side=x", "?either_side=1"])  # engine vs engine
        if where == "/review/stream" and query in ("", "?format=psq", "?format=sgf", "?format=docx"):
            query = "?playouts=2"  # a review's default (200 a position) would make thousands take minutes
        method, path, body = rng.choice(["GET", "GET", "DELETE", "PUT"]), f"/api/games/{gid}{where}{query}", b""
    else:
        method = rng.choice(["GET", "POST", "PATCH", "OPTIONS", "HEAD"])
        path = rng.choice(["/", "/api/health", "/api/defaults", "/static/app.js", "/static/../server.py",
                           "/static/%2e%2e/server.py", "/api/" + "x" * 2000, "/api/games/", "//", "/favicon.ico"])
        body = _body(rng, {"a": 1}) if method in ("POST", "PATCH") else b""
    headers = {"content-type": rng.choice(["application/json"] * 8 + ["text/plain", "application/x-www-form-urlencoded"])}
    if rng.random() < 0.05:
        headers["host"] = rng.choice(["evil.example", "localhost.evil.example", "127.0.0.1.nip.io", "[::1", ""])
    return method, path, headers, body
