"""GTP's text (Go Text Protocol 2.0, G. Farnebäck): input lines as the protocol preprocesses
them, colours, the fixed handicap vertices, and the ``info`` lines of the analysis commands
(Leela Zero's and KataGo's formats). Pure functions: ``play.gtp`` holds the session."""

from __future__ import annotations

import re

MAX_LINE = 65536
"""Characters of one command line kept; a longer one is answered as a syntax error."""
_DECIMAL = re.compile(r"\d+(\.\d*)?|\.\d+")
COLORS = {"b": 0, "black": 0, "w": 1, "white": 1}
"""GTP colour words (case-insensitive) -> player: 0 Black, 1 White."""


class GtpFailure(Exception):
    """A command that fails: answered ``? message``."""


def clean_line(raw: str) -> str:
    """A raw input line as GTP 2.0 section 3.1 preprocesses it (may return "")."""
    raw = raw[:MAX_LINE + 1]
    out = "".join(" " if ch == "\t" else ch for ch in raw if ch == "\t" or (ord(ch) >= 32 and ord(ch) != 127))
    return out.split("#", 1)[0].strip()


def handicap_points(size: int, n: int) -> list[str]:
    """GTP's fixed handicap vertices (spec section 4.1.1) for ``n`` stones on a size x size board.

    Raises:
        GtpFailure: ``n`` not in 2..9, or more than the board allows (4 on even sizes and 7x7,
            none below 7x7).
    """
    if not 2 <= n <= 9:
        raise GtpFailure("invalid number of stones")
    limit = 0 if size < 7 else (4 if size % 2 == 0 or size == 7 else 9)
    if n > limit:
        raise GtpFailure("invalid number of stones")
    edge = 2 if size < 13 else 3
    lo, hi, mid = edge, size - 1 - edge, size // 2
    # (x, y) with y from the bottom, in the spec's order
    corners = [(lo, lo), (hi, hi), (lo, hi), (hi, lo)]
    sides = [(lo, mid), (hi, mid)]
    middle_rows = [(mid, lo), (mid, hi)]
    points = corners[: min(n, 4)]
    if n >= 6:
        points += sides
    if n >= 8:
        points += middle_rows
    if n in (5, 7, 9):
        points.append((mid, mid))
    from zeroplay.games.go import COLUMNS

    return [f"{COLUMNS[x]}{y + 1}" for x, y in points]


def analysis_interval(args: list[str]) -> float:
    """The reporting interval of an analysis command's arguments, centiseconds (default 100, in
    1..100000; decimals taken, ``50.0``): the number after ``interval``, after the colour, or first."""
    interval = 100.0
    for i, a in enumerate(args):
        if _DECIMAL.fullmatch(a) and (i == 0 or args[i - 1].lower() == "interval" or args[i - 1].lower() in COLORS):
            interval = float(a)
    return min(max(interval, 1.0), 100_000.0)


def analysis_flag(args: list[str], key: str) -> bool:
    """Whether an analysis command's arguments turn ``key`` on: KataGo's ``KEY true`` (``ownership
    true``); ``KEY false``, or ``KEY`` absent, is off."""
    return any(a.lower() == key and i + 1 < len(args) and args[i + 1].lower() == "true"
               for i, a in enumerate(args))


def analysis_count(args: list[str], key: str) -> int | None:
    """The count after ``key`` in an analysis command's arguments (KataGo's ``maxmoves N``), None
    when absent or not a non-negative integer."""
    for i, a in enumerate(args[:-1]):
        if a.lower() == key and args[i + 1].isdigit():
            return int(args[i + 1])
    return None


def info_line(state, stats, style: str, ownership=None) -> str:
    """One ``info move ...`` line for ``stats`` (``MoveStats``, most visited first) of ``state``:
    Leela Zero's fields (``style`` ``"lz"``: win rate and prior in 1/100 %) or KataGo's (``"kata"``:
    fractions and score fields). Win rates are the side to move's, in [0, 1]. ``prior`` is the
    move's network prior (uniform over the legal moves for an engine without one, flat
    Monte-Carlo); ``pv`` its principal variation (the move alone where the engine has none).
    ``ownership``: None, or float (cells,) in [-1, 1] from the side to move's view, cells in the
    board's order (row-major from the top-left, A19 first on 19x19): appended as KataGo's
    ``ownership v1 v2 ...`` after the moves (``"kata"`` only)."""
    uniform = 1.0 / max(len(state.legal_moves()), 1)
    parts = []
    for order, s in enumerate(stats):
        v = state.game.format_move(s.move)
        prior = uniform if s.prior is None else s.prior
        pv = " ".join(state.game.format_move(a) for a in s.pv) if s.pv else v
        if style == "lz":
            parts.append(f"info move {v} visits {s.visits} winrate {round(s.winrate * 10000)} "
                         f"prior {round(prior * 10000)} lcb {round(max(s.lcb, 0) * 10000)} order {order} pv {pv}")
        else:
            score = "" if s.score_mean is None else (
                f"scoreMean {s.score_mean:.3f} scoreStdev {s.score_stdev:.3f} scoreLead {s.score_mean:.3f} "
                f"scoreSelfplay {s.score_mean:.3f} ")
            parts.append(f"info move {v} visits {s.visits} utility {2 * s.winrate - 1:.6f} winrate {s.winrate:.6f} "
                         f"{score}prior {prior:.6f} lcb {max(s.lcb, 0):.6f} "
                         f"utilityLcb {2 * max(s.lcb, 0) - 1:.6f} order {order} pv {pv}")
    if ownership is not None and style == "kata":
        parts.append("ownership " + " ".join(f"{float(v):.6f}" for v in ownership))
    return " ".join(parts)
