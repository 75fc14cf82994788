"""Random and mutated Gomocup protocol lines, and a checker of the engine's replies.

Used by the CI fuzz test (a slice) and ``scripts/fuzz_pbrain.py`` (100,000+ lines). The lines
mix valid commands with bad coordinates, occupied cells, huge numbers, binary junk, BOARD
without DONE, commands out of order and mutations (cut, doubled, case-changed, characters
replaced) of valid lines.
"""

from __future__ import annotations

import random
import re

REPLY = re.compile(r"^(OK|\d+,\d+|UNKNOWN( .*)?|ERROR( .*)?|DEBUG( .*)?|MESSAGE( .*)?|FORBID (\d{4})*\.|name=\".*)$")
"""Every line the engine may print."""

_KEYWORDS = ["START", "RECTSTART", "RESTART", "BEGIN", "TURN", "BOARD", "DONE", "TAKEBACK", "INFO",
             "ABOUT", "PLAY", "SWAP2BOARD", "SUGGEST", "YXBOARD", "YXNBEST", "YXSTOP", "YXSHOWFORBID", "start", "Turn", "board", "done"]
_INFO_KEYS = ["timeout_turn", "timeout_match", "time_left", "max_memory", "game_type", "rule", "evaluate",
              "folder", "some_future_key", "TIMEOUT_TURN", ""]


def _number(rng: random.Random) -> str:
    return rng.choice([
        str(rng.randint(0, 30)), str(rng.randint(-5, 5)), str(rng.randint(0, 10**6)), "9" * rng.randint(10, 40),
        "-1", "0", "", " ", "x", "1e3", "0x10", "٣", str(rng.random()),
    ])


def _coord(rng: random.Random) -> str:
    if rng.random() < 0.7:
        return f"{rng.randint(0, 24)},{rng.randint(0, 24)}"
    return rng.choice([f"{_number(rng)},{_number(rng)}", _number(rng), f"{_number(rng)},", ",",
                       f"{rng.randint(0, 20)} , {rng.randint(0, 20)}", f"{rng.randint(0, 20)},{rng.randint(0, 20)},1"])


def valid_like_line(rng: random.Random) -> str:
    """A command that is valid or nearly so (the arguments may be out of range)."""
    k = rng.random()
    if k < 0.12:
        return f"START {rng.choice([15, 15, 20, 9, 5, 25, 4, 26, 0, 100])}"
    if k < 0.16:
        return f"RECTSTART {rng.randint(3, 27)},{rng.randint(3, 27)}"
    if k < 0.20:
        return "RESTART"
    if k < 0.24:
        return "BEGIN"
    if k < 0.50:
        return f"TURN {_coord(rng)}"
    if k < 0.56:
        return "BOARD"
    if k < 0.68:
        return f"{_coord(rng)},{rng.choice([1, 2, 3, 1, 2, 0, 4])}"
    if k < 0.72:
        return "DONE"
    if k < 0.76:
        return f"TAKEBACK {_coord(rng)}"
    if k < 0.92:
        key = rng.choice(_INFO_KEYS)
        value = rng.choice([str(rng.choice([0, 1, 2, 4, 8, 3, 5, 16])), _number(rng)]) if key == "rule" else _number(rng)
        return f"INFO {key} {value}"
    if k < 0.95:
        return "ABOUT"
    return rng.choice(_KEYWORDS) + " " + _number(rng)


def junk_line(rng: random.Random) -> str:
    """Binary junk, long lines, control characters, other scripts."""
    k = rng.random()
    if k < 0.4:
        return bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 40))).decode("latin-1")
    if k < 0.6:
        return "".join(rng.choice("\x00\x01\x1b\t\r \u00e9\u4e2d\ufffd,0123456789") for _ in range(rng.randint(0, 30)))
    if k < 0.7:
        return rng.choice(_KEYWORDS) + " " + "9" * rng.randint(100, 3000)
    if k < 0.8:
        return "," * rng.randint(1, 50)
    return "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ ") for _ in range(rng.randint(1, 20)))


def mutate(line: str, rng: random.Random) -> str:
    """One random mutation of ``line``."""
    if not line:
        return junk_line(rng)
    k = rng.random()
    i = rng.randrange(len(line))
    if k < 0.2:
        return line[:i]
    if k < 0.4:
        return line[:i] + chr(rng.randint(0, 0x2FF)) + line[i + 1:]
    if k < 0.55:
        return line + " " + line
    if k < 0.7:
        return line.swapcase()
    if k < 0.85:
        return line.replace(",", rng.choice([" ", ";", ",,", ""]))
    return "  " + line + "\t "


def random_lines(rng: random.Random, count: int):
    """``count`` protocol lines: about 55 % valid-like, 25 % mutated, 20 % junk. END never comes."""
    for _ in range(count):
        k = rng.random()
        if k < 0.55:
            line = valid_like_line(rng)
        elif k < 0.80:
            line = mutate(valid_like_line(rng), rng)
        else:
            line = junk_line(rng)
        if line.strip().upper().startswith("END"):
            line = "X" + line
        yield line + rng.choice(["\n", "\r\n", "\n", "\r\n", ""])


def reset_and_check(engine, replies: list[str], rng: random.Random | None = None) -> str | None:
    """After fuzzing: set a fresh 15x15 game and a known position; None if the engine answers a
    legal move (an empty cell), else what went wrong. ``replies`` is the engine's output list."""
    rng = rng or random.Random(0)
    for line in ("DONE", "INFO rule 1", "INFO timeout_turn 0", "START 15"):
        engine.handle(line + "\r\n")
    del replies[:]
    own = [(3, 5), (4, 5), (5, 5), (6, 5), (8, 5)]
    opp = [(0, 14), (2, 14), (4, 14), (6, 14), (8, 14)]
    engine.handle("BOARD\n")
    for x, y in own:
        engine.handle(f"{x},{y},1\n")
    for x, y in opp:
        engine.handle(f"{x},{y},2\n")
    engine.handle("DONE\n")
    if replies != ["2,5"]:
        return f"exactly-five case after fuzzing answered {replies!r}, expected ['2,5']"
    del replies[:]
    engine.handle("RESTART\n")
    x, y = rng.randint(0, 14), rng.randint(0, 14)
    engine.handle(f"TURN {x},{y}\n")
    if replies[:1] != ["OK"] or len(replies) != 2 or not re.fullmatch(r"\d+,\d+", replies[1]):
        return f"RESTART + TURN answered {replies!r}"
    mx, my = (int(v) for v in replies[1].split(","))
    if not (0 <= mx < 15 and 0 <= my < 15) or (mx, my) == (x, y):
        return f"illegal reply {replies[1]} to TURN {x},{y}"
    return None
