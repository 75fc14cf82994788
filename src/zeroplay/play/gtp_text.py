"""GTP's text (Go Text Protocol 2.0, G. Farnebäck): input lines as the protocol preprocesses
them, colours, the fixed handicap vertices, and the ``info`` lines of the analysis commands
(Leela Zero's and KataGo's formats). Pure functions: ``play.gtp`` holds the session."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

MAX_LINE = 65536
"""Characters of one command line kept; a longer one is answered as a syntax error."""
_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")  # ASCII: re's \d takes "١٢"
COLORS = {"b": 0, "black": 0, "w": 1, "white": 1}
"""GTP colour words (case-insensitive) -> player: 0 Black, 1 White."""


class GtpFailure(Exception):
    """A command that fails: answered ``? message``."""


def decimal(text: str) -> float | None:
    """``text`` as a finite decimal number (``7.5``, ``-3``, ``+3``, ``1e2``), ASCII digits only;
    None for anything else (``float`` also takes ``7_5``, ``nan``, ``inf`` and other scripts'
    digits)."""
    if not _NUMBER.fullmatch(text):
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def is_count(text: str) -> bool:
    """True for ASCII digits only (``str.isdigit`` also takes ``²`` and ``١٢``, which ``int``
    refuses or reads as another number)."""
    return text.isascii() and text.isdigit()


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


@dataclass(frozen=True)
class AnalysisArgs:
    """An analysis command's arguments (``lz-analyze``, ``kata-analyze``, ``*genmove_analyze``).

    ``color``: 0 Black, 1 White, None when not given. ``interval``: centiseconds between
    ``info`` lines, in [1, 100000] (default 100; 0 and fractions below 1 become 1, the engine's
    shortest report period). ``max_moves``: the N best moves per line (KataGo's ``maxmoves``;
    None: all, 0: no lines). The booleans are KataGo's ``ownership``, ``ownershipStdev``,
    ``movesOwnership``, ``pvVisits``, ``pvEdgeVisits`` and ``rootInfo`` (``true``)."""

    color: int | None = None
    interval: float = 100.0
    max_moves: int | None = None
    ownership: bool = False
    ownership_stdev: bool = False
    moves_ownership: bool = False
    pv_visits: bool = False
    pv_edge_visits: bool = False
    root_info: bool = False


_COUNT_KEYS = ("minmoves", "maxmoves")
_BOOL_KEYS = {"ownership": "ownership", "ownershipstdev": "ownership_stdev", "movesownership": "moves_ownership",
              "movesownershipstdev": None, "pvvisits": "pv_visits", "pvedgevisits": "pv_edge_visits",
              "rootinfo": "root_info"}
"""KataGo's boolean analysis keys (lower case) and the ``AnalysisArgs`` field each sets (None:
accepted, shows nothing)."""
_BOOLS = {"true": True, "false": False}
MAX_COUNT = 1_000_000_000
MAX_INTERVAL = 100_000.0


def parse_analysis(args: list[str], *, kata: bool) -> AnalysisArgs:
    """Parse an analysis command's arguments as KataGo does (``gtp.cpp``, ``parseAnalyzeCommand``):
    an optional colour, an optional interval (centiseconds; any decimal number, ``50``, ``12.5``,
    ``1e2``), then key-value pairs: ``interval X``, ``minmoves N``, ``maxmoves N`` and, for
    ``kata`` commands, the booleans ``ownership``, ``ownershipStdev``, ``movesOwnership``,
    ``movesOwnershipStdev``, ``pvVisits``, ``pvEdgeVisits``, ``rootInfo`` (``true`` / ``false``).
    ``movesOwnershipStdev`` is accepted so that GUIs that send it work, and shows nothing (a
    move's map here is one network evaluation, with no spread to report), as does ``minmoves``
    (lines hold the moves searched, at least one). Two differences from KataGo, both lenient: keys and
    booleans are case-insensitive, and without an interval the lines come every 100 cs (KataGo's
    then come only at the end).

    Raises:
        GtpFailure: a key without a value, an unknown key (``avoid`` / ``allow`` included: root
            move restrictions are not supported), a value that does not parse or is out of range
            (interval in [0, 100000], counts in [0, 10^9)). The message names the argument.
    """
    color = None
    i = 0
    if i < len(args) and args[i].lower() in COLORS:
        color = COLORS[args[i].lower()]
        i += 1
    interval = 100.0
    first = decimal(args[i]) if i < len(args) else None
    if first is not None and 0 <= first <= MAX_INTERVAL:
        interval = max(first, 1.0)
        i += 1
    max_moves = None
    flags: dict[str, bool] = {}
    while i < len(args):
        key = args[i]
        low = key.lower()
        if low in ("avoid", "allow"):
            raise GtpFailure(f"syntax error: {key} (root move restrictions) is not supported")
        if not (low == "interval" or low in _COUNT_KEYS or (kata and low in _BOOL_KEYS)):
            raise GtpFailure(f"syntax error: unknown analysis argument {key!r}")
        if i + 1 >= len(args):
            raise GtpFailure(f"syntax error: {key} needs a value")
        value = args[i + 1]
        i += 2
        if low == "interval":
            number = decimal(value)
            if number is None or not 0 <= number <= MAX_INTERVAL:
                raise GtpFailure(f"syntax error: interval must be a number of centiseconds in [0, "
                                 f"{MAX_INTERVAL:g}], got {value!r}")
            interval = max(number, 1.0)
        elif low in _COUNT_KEYS:
            value = value[1:] if value.startswith("+") else value  # (KataGo reads +3 as 3)
            if not is_count(value) or int(value) >= MAX_COUNT:
                raise GtpFailure(f"syntax error: {low} must be an integer in [0, {MAX_COUNT}), got {value!r}")
            if low == "maxmoves":
                max_moves = int(value)
        else:  # one of KataGo's booleans (a kata command: checked above)
            if value.lower() not in _BOOLS:
                raise GtpFailure(f"syntax error: {key} must be true or false, got {value!r}")
            field = _BOOL_KEYS[low]
            if field is not None:
                flags[field] = _BOOLS[value.lower()]
    return AnalysisArgs(color, interval, max_moves, **flags)


def info_line(state, stats, style: str, ownership=None, *, pv_visits: bool = False, pv_edge_visits: bool = False,
              moves_ownership=None, root: str | None = None, ownership_stdev=None) -> str:
    """One ``info move ...`` line for ``stats`` (``MoveStats``, most visited first) of ``state``:
    Leela Zero's fields (``style`` ``"lz"``: win rate and prior in 1/100 %) or KataGo's (``"kata"``:
    fractions, and the score fields where ``score_mean`` is set, ``scoreStdev`` where
    ``score_stdev`` is). Win rates are the side to move's, in [0, 1]. ``prior`` is the
    move's network prior (uniform over the legal moves for an engine without one, flat
    Monte-Carlo); ``pv`` its principal variation (the move alone where the engine has none).

    KataGo's optional fields (``"kata"`` only), in KataGo's order: after each move's ``pv``,
    ``pvVisits`` (``pv_visits``: N of the node each PV move reaches, ``MoveStats.pv_visits``;
    the move's own visits where the engine keeps no tree), ``pvEdgeVisits`` (``pv_edge_visits``:
    the edges' visits) and ``movesOwnership`` (``moves_ownership``: None, or ``f(move)`` -> the
    map after that move, or None to show none); after the moves, ``root`` (a ``root_info``
    text), ``ownership`` (None, or float (cells,) in [-1, 1] from the side to move's view, cells
    in the board's order, row-major from the top-left, A19 first on 19x19) and
    ``ownershipStdev`` (``ownership_stdev``: None, or float (cells,) in [0, 1])."""
    kata = style == "kata"
    uniform = 1.0 / max(len(state.legal_moves()), 1)
    parts = []
    for order, s in enumerate(stats):
        v = state.game.format_move(s.move)
        prior = uniform if s.prior is None else s.prior
        line = tuple(s.pv) if s.pv else (s.move,)
        pv = " ".join(state.game.format_move(a) for a in line)
        if not kata:
            parts.append(f"info move {v} visits {s.visits} winrate {round(s.winrate * 10000)} "
                         f"prior {round(prior * 10000)} lcb {round(max(s.lcb, 0) * 10000)} order {order} pv {pv}")
            continue
        stdev = "" if s.score_stdev is None else f"scoreStdev {s.score_stdev:.3f} "
        score = "" if s.score_mean is None else (
            f"scoreMean {s.score_mean:.3f} {stdev}scoreLead {s.score_mean:.3f} scoreSelfplay {s.score_mean:.3f} ")
        parts.append(f"info move {v} visits {s.visits} utility {2 * s.winrate - 1:.6f} winrate {s.winrate:.6f} "
                     f"{score}prior {prior:.6f} lcb {max(s.lcb, 0):.6f} "
                     f"utilityLcb {2 * max(s.lcb, 0) - 1:.6f} order {order} pv {pv}")
        if pv_visits:
            parts.append("pvVisits " + " ".join(str(n) for n in _line_counts(s, s.pv_visits, len(line))))
        if pv_edge_visits:
            parts.append("pvEdgeVisits " + " ".join(str(n) for n in _line_counts(s, s.pv_edge_visits, len(line))))
        owned = None if moves_ownership is None else moves_ownership(int(s.move))
        if owned is not None:
            parts.append("movesOwnership " + _map_text(owned))
    if kata and root is not None:
        parts.append(root)
    if ownership is not None and kata:
        parts.append("ownership " + _map_text(ownership))
    if ownership_stdev is not None and kata:
        parts.append("ownershipStdev " + _map_text(ownership_stdev))
    return " ".join(parts)


def _line_counts(s, counts, length: int) -> tuple[int, ...]:
    """``counts`` (one per PV move) when the engine gave them, else the move's own visits for a
    line that is the move alone (flat Monte-Carlo keeps no tree below the root)."""
    if counts and len(counts) == length:
        return tuple(int(n) for n in counts)
    return (int(s.visits),) + (0,) * (length - 1)


def _map_text(values) -> str:
    return " ".join(f"{float(v):.6f}" for v in values)


def root_info(stats, root: tuple[int, float] | None = None) -> str | None:
    """KataGo's ``rootInfo`` fields for the root statistics ``stats`` (all the root's visited
    moves). ``root``: the search's own (root visits N, win rate in [0, 1], side to move's; a
    proven root's 1, 0 or 1/2), where the engine keeps them; else ``visits`` is the sum of the
    moves' visits and ``winrate`` their visit-weighted mean, as the root's mean value Q is.
    ``utility`` is 2 * winrate - 1. The score fields are the visit-weighted mean of the moves
    that have one (``score_mean``, points, side to move's view), left out where none has (an
    engine without a score estimate: KataGo always has one). None without a visited move."""
    seen = [s for s in stats if s.visits > 0]
    total = sum(s.visits for s in seen)
    if total <= 0:
        return None
    winrate = sum(s.visits * s.winrate for s in seen) / total
    if root is not None:
        total, winrate = int(root[0]), float(root[1])
    text = f"rootInfo visits {total} utility {2 * winrate - 1:.6f} winrate {winrate:.6f}"
    scored = [s for s in seen if s.score_mean is not None]
    weight = sum(s.visits for s in scored)
    if weight > 0:
        lead = sum(s.visits * s.score_mean for s in scored) / weight
        text += f" scoreMean {lead:.3f} scoreLead {lead:.3f} scoreSelfplay {lead:.3f}"
    return text
