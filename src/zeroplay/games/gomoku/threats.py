"""Threat features of Gomoku as network input planes (issue 20; KataGo-style hand features).

For each side and each empty cell: would a stone of that side there make a five, an open four,
a four, or an open three? The eight planes, float32 0/1, in this order (``THREAT_PLANE_NAMES``)::

    0 mover five        4 opponent five
    1 mover open four   5 opponent open four
    2 mover four        6 opponent four
    3 mover open three  7 opponent open three

"Mover" is the side to move, so the planes are from the side to move's view like the stone
planes. Occupied cells are 0 on every plane.

Definitions, per line direction d (horizontal, vertical, two diagonals) through the cell c, with
the stone placed at c, following the usual threat-space terms (Allis 1994, "Searching for
solutions in games and artificial intelligence", ch. 4): a *five cell* of c in d is an empty cell
f on that line such that c and f with the side's stones make n in a row through c (free-style:
n or more; ``"standard"``: exactly n, an overline does not count; ``"renju"``: exactly five for
Black, five or more for White; Black's forbidden points are not marked out).

- **five**: c itself completes n in a row in some direction.
- **open four**: in some direction c has two or more five cells (a straight four ``.XXXX.``, or
  a line that one stone cannot block), so the side wins next move whatever the reply.
- **four**: in some direction c has exactly one five cell.
- **open three**: in some direction c has no five cell, but some empty cell e of that line makes
  two or more five cells of c and e in it (a three that becomes an open four: ``.XXX.``, and the
  broken ``.X.XX.``, ``.XX.X.``).

A cell can carry several flags from different directions (a four-three has both the four and
the open-three flag); a five is only a five. The planes commute with the board's symmetries
(a line maps to a line), so augmented training samples stay consistent.

Cost: one window of 2n + 1 cells per (cell, direction, side), skipped at once when the side has
too few stones in it; bit masks inside the window (bit ``n`` is c).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.games.gomoku.layout import P_N_IN_ROW, P_RULE, RULE_RENJU, RULE_STANDARD
from zeroplay.games.layout import I_TO_PLAY, P_HEIGHT, P_WIDTH

THREAT_PLANE_NAMES = ("mover five", "mover open four", "mover four", "mover open three",
                      "opponent five", "opponent open four", "opponent four", "opponent open three")
THREAT_PLANES = len(THREAT_PLANE_NAMES)
"""Planes ``threat_planes_batch`` writes (four shapes for each side)."""

FIVE, OPEN_FOUR, FOUR, OPEN_THREE = 1, 2, 4, 8
"""Bit flags of ``cell_shapes`` (and the plane order within a side: five, open four, four, open three)."""

_DX = (1, 0, 1, -1)
_DY = (0, 1, 1, 1)


@njit(cache=True, inline="always")
def _popcount(x):
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count


@njit(cache=True)
def _line_masks(board, width, height, n, cell, dx, dy):
    """Bit masks (black, white, off board) of the 2n + 1 cells centred on ``cell`` along
    (dx, dy): bit i is the cell i - n steps away, bit n the cell itself."""
    x0 = cell % width
    y0 = cell // width
    black = 0
    white = 0
    off = 0
    for i in range(2 * n + 1):
        x = x0 + (i - n) * dx
        y = y0 + (i - n) * dy
        if x < 0 or x >= width or y < 0 or y >= height:
            off |= 1 << i
        else:
            s = board[y * width + x]
            if s == 1:
                black |= 1 << i
            elif s == 2:
                white |= 1 << i
    return black, white, off


@njit(cache=True)
def _line_shape(own, blocked, n, exact, pairs):
    """Flags (FIVE, OPEN_FOUR, FOUR or OPEN_THREE; 0 none) of a stone placed at bit n of a line
    window: ``own`` the side's stones with bit n set, ``blocked`` the opponent's stones and the
    cells off the board. ``pairs``: int64 scratch of at least n + 1 entries."""
    if _popcount(own & ~(1 | (1 << (2 * n)))) < n - 2:
        return 0  # too few stones of the side near c for any shape
    window = (1 << n) - 1
    five_cells = 0
    num_pairs = 0
    for start in range(1, n + 1):  # the n windows of n cells through bit n (c)
        span = window << start
        if span & blocked:
            continue
        if exact and (own & (1 << (start - 1)) or own & (1 << (start + n))):
            continue  # would be an overline: not a five under the standard rule
        stones = _popcount(own & span)
        if stones == n:
            return FIVE
        if stones == n - 1:
            five_cells |= span & ~own
        elif stones == n - 2:
            pairs[num_pairs] = span & ~own
            num_pairs += 1
    count = _popcount(five_cells)
    if count >= 2:
        return OPEN_FOUR
    if count == 1:
        return FOUR
    for p in range(num_pairs):  # e: each empty cell of a window two short of n
        rest = pairs[p]
        while rest:
            e = rest & -rest
            rest ^= e
            made = 0
            for q in range(num_pairs):
                if pairs[q] & e:
                    made |= pairs[q] & ~e
            if _popcount(made) >= 2:
                return OPEN_THREE
    return 0


@njit(cache=True)
def cell_shapes(params, board, cell, pairs):
    """Flags of the empty ``cell`` for Black and for White: ``(black_flags, white_flags)``, each the
    OR of ``_line_shape`` over the four directions (FIVE alone when a direction makes five)."""
    n = params[P_N_IN_ROW]
    rule = params[P_RULE]
    exact_black = rule == RULE_STANDARD or rule == RULE_RENJU  # renju: Black's five is exactly five
    exact_white = rule == RULE_STANDARD
    width = params[P_WIDTH]
    height = params[P_HEIGHT]
    centre = 1 << n
    black_flags = 0
    white_flags = 0
    for d in range(4):
        black, white, off = _line_masks(board, width, height, n, cell, _DX[d], _DY[d])
        if black_flags != FIVE:
            f = _line_shape(black | centre, white | off, n, exact_black, pairs)
            black_flags = FIVE if f == FIVE else black_flags | f
        if white_flags != FIVE:
            f = _line_shape(white | centre, black | off, n, exact_white, pairs)
            white_flags = FIVE if f == FIVE else white_flags | f
    return black_flags, white_flags


@njit(cache=True)
def threat_planes_batch(params, boards, infos, out):
    """Threat planes of a batch: boards int8 (B, cells) (0 empty, 1 Black, 2 White), infos int64
    (B, INFO_SIZE) -> out float32 (B, 8, height, width), overwritten; plane order in the module
    docstring, side to move first. ``out`` may be a slice of a larger plane array."""
    width = params[P_WIDTH]
    n = params[P_N_IN_ROW]
    pairs = np.empty(n + 1, dtype=np.int64)
    for b in range(boards.shape[0]):
        out[b] = 0.0
        board = boards[b]
        black_first = infos[b, I_TO_PLAY] == 0
        for cell in range(board.shape[0]):
            if board[cell] != 0:
                continue
            y = cell // width
            x = cell % width
            black_flags, white_flags = cell_shapes(params, board, cell, pairs)
            mover_flags = black_flags if black_first else white_flags
            other_flags = white_flags if black_first else black_flags
            for shape in range(4):
                if mover_flags & (1 << shape):
                    out[b, shape, y, x] = 1.0
                if other_flags & (1 << shape):
                    out[b, 4 + shape, y, x] = 1.0


def threat_planes(state) -> np.ndarray:
    """float32 (8, height, width) threat planes of one Gomoku ``State`` (side to move's view)."""
    game = state.game
    pos = state._pos
    out = np.empty((1, THREAT_PLANES, game.height, game.width), dtype=np.float32)
    threat_planes_batch(game.params, pos.board[None, :], pos.info[None, :], out)
    return out[0]
