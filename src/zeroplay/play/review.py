"""Game review for the web board: mistakes by the drop in win rate, the winning line, and the
analysis carried in SGF records.

Mistakes (thresholds on the drop of the mover's win rate, in [0, 1], from the position before a
move to the position after it, both as analysed; colours from KaTrain's evaluation scale)::

    blunder     drop >= 0.20   purple  #72216b
    mistake     drop >= 0.10   red     #cc0000
    inaccuracy  drop >= 0.05   orange  #e6661a

A record keeps the analysis in SGF private properties (SGF FF[4] allows any upper-case name; the
``games.records`` reader keeps those it does not interpret), on the node of the position they
describe (the root node: the start position)::

    ZW[0.5432]   Black's win rate in [0, 1] at this position (4 decimals)
    ZB[hh]       the analysis' best move from this position (SGF letters: column, row from the top)
    ZV[120]      the root visits N of that analysis
    ZP[hhihjh]   its principal variation (SGF letters, two per move)

Lizzie keeps its analysis in an ``LZ`` property and KaTrain in ``KT``; neither format is
documented as a standard, so zeroplay writes its own names and reads back only those. A
``C[...]`` comment says the same in words ("Black 54.3 %, best h8") for other SGF viewers.
"""

from __future__ import annotations

import math

from zeroplay.play.gametree import NONE, PV_LEN, ROOT, GameTree

MISTAKES = (("blunder", 0.20, "#72216b"), ("mistake", 0.10, "#cc0000"), ("inaccuracy", 0.05, "#e6661a"))
"""(name, least drop of the mover's win rate, colour), worst first."""
MAX_REVIEW_PLAYOUTS = 5000
"""Most playouts per position a review may ask for."""
DEFAULT_REVIEW_PLAYOUTS = 200
"""Playouts per position when a review request gives none."""
MAX_REVIEW_SECONDS = 300.0
"""A review stops after this many seconds whatever is left (``stopped_by`` "seconds")."""
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def move_drop(tree: GameTree, node: int, ply: int, first_mover: int = 0) -> float | None:
    """How much the move into ``node`` (the ``ply``-th move, from 1) lowered its mover's win rate,
    in [-1, 1] (negative: it raised it); None when either position was never analysed.
    ``first_mover``: the side to move at the start (0 Black; 1 White after a set-up)."""
    if node == ROOT:
        return None
    before, after = tree.winrate(int(tree.parent[node])), tree.winrate(node)
    if before is None or after is None:
        return None
    mover_is_black = (first_mover + ply - 1) % 2 == 0
    return (before - after) if mover_is_black else (after - before)


def mistake(drop: float | None) -> str | None:
    """The mistake class of a drop (``MISTAKES``), or None below the smallest threshold."""
    if drop is None:
        return None
    for name, least, _colour in MISTAKES:
        if drop >= least:
            return name
    return None


def winning_line(board, width: int, height: int, last: int | None, n_in_row: int | None) -> list[int]:
    """The cells of the line that won: the longest run of the last mover's stones through
    ``last`` that is at least ``n_in_row`` long; [] when there is none (a draw, no last move, a
    game without lines). ``board``: flat (width * height,) with 0 empty, 1 Black, 2 White."""
    if last is None or not n_in_row:
        return []
    colour = int(board[last])
    if colour == 0:
        return []
    x0, y0 = last % width, last // width
    best: list[int] = []
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = [last]
        for sign in (1, -1):
            x, y = x0 + sign * dx, y0 + sign * dy
            while 0 <= x < width and 0 <= y < height and int(board[y * width + x]) == colour:
                run.append(y * width + x)
                x, y = x + sign * dx, y + sign * dy
        if len(run) >= n_in_row and len(run) > len(best):
            best = sorted(run)
    return best


# --- SGF properties -----------------------------------------------------------------------------
def _sgf_cell(cell: int, width: int) -> str:
    return _LETTERS[cell % width] + _LETTERS[cell // width]


def analysis_props(tree: GameTree, node: int, width: int, fmt) -> dict[str, str]:
    """The SGF properties of ``node``'s analysis (the module docstring); {} when none.
    ``fmt(cell)``: the move in the board's notation, for the comment."""
    w = tree.winrate(node)
    if w is None:
        return {}
    props = {"ZW": f"{w:.4f}"}
    words = f"Black {100 * w:.1f} %"
    best = int(tree.best_move[node])
    if best != NONE:
        props["ZB"] = _sgf_cell(best, width)
        props["ZV"] = str(int(tree.visits[node]))
        pv = tree.pv_of(node)
        if pv:
            props["ZP"] = "".join(_sgf_cell(m, width) for m in pv)
        words += f", best {fmt(best)} ({int(tree.visits[node])} visits)"
    props["C"] = words
    return props


def read_analysis_props(tree: GameTree, node: int, props: dict[str, str], width: int, cells: int) -> None:
    """Store a record node's ``ZW``/``ZB``/``ZV``/``ZP`` in ``tree`` at ``node``; values that do not
    read (a number out of range, letters off the board) are left out, never an error."""
    try:
        w = float(props.get("ZW", "nan"))
    except ValueError:
        return
    if not (math.isfinite(w) and 0.0 <= w <= 1.0):
        return

    def cell(text: str) -> int | None:
        if len(text) != 2 or text[0] not in _LETTERS[:width] or text[1] not in _LETTERS:
            return None
        c = _LETTERS.index(text[1]) * width + _LETTERS.index(text[0])
        return c if c < cells else None

    best = cell(props.get("ZB", ""))
    try:
        visits = max(0, min(int(props.get("ZV", "0")), 2**31 - 1))
    except ValueError:
        visits = 0
    letters = props.get("ZP", "")
    pv: list[int] = []
    for i in range(0, min(len(letters), 2 * PV_LEN), 2):
        c = cell(letters[i : i + 2])
        if c is None:
            break
        pv.append(c)
    tree.set_analysis(node, w, visits=visits, best=best, pv=tuple(pv))
