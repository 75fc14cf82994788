"""dlshogi's network input, computed here (numba) from a position's pieces and hands.

Source: dlshogi's ``make_input_features`` (cppshogi). Everything is from the mover's view: the
mover's planes first, and for White the board is rotated by 180 degrees (square s -> 80 - s).

``features1`` (62 planes = 2 colours x 31): per colour, 14 piece-type planes (P L N S B R G K
+P +L +N +S +B +R, 1 where such a piece stands), 14 attack planes (1 where a piece of that
type attacks, own pieces' squares included, sliders stopping at the first piece) and 3
attack-count planes (1 where at least 1, 2, 3 of the colour's pieces attack).
``features2`` (57 planes): per colour 28 hand planes (P 8, L 4, N 4, S 4, G 4, B 2, R 2: plane k of
a type is all ones when the colour holds more than k of it; pawns beyond 8 are not shown), then
one plane of ones when the mover is in check.

Planes are (9, 9) indexed [file index, rank index] (square ``file * 9 + rank``), the layout
cshogi's ``cshogi.dlshogi.make_input_features`` fills; ``planes`` stacks both into (119, 9, 9).
"""

from __future__ import annotations

import numpy as np
from numba import njit

FEATURES1 = 62
FEATURES2 = 57
NUM_PLANES = FEATURES1 + FEATURES2
HAND_PLANES = (8, 4, 4, 4, 4, 2, 2)
"""Planes per hand type (cshogi's order P L N S G B R); dlshogi's MAX_PIECES_IN_HAND."""

# (file step, rank step) for Black; White's are negated. "Up" (towards rank a) is rank - 1.
_GOLD = ((0, -1), (-1, -1), (1, -1), (-1, 0), (1, 0), (0, 1))
_STEPS = {
    1: ((0, -1),),
    3: ((-1, -2), (1, -2)),
    4: ((0, -1), (-1, -1), (1, -1), (-1, 1), (1, 1)),
    7: _GOLD, 9: _GOLD, 10: _GOLD, 11: _GOLD, 12: _GOLD,
    8: ((0, -1), (-1, -1), (1, -1), (-1, 0), (1, 0), (0, 1), (-1, 1), (1, 1)),
    13: ((0, -1), (-1, 0), (1, 0), (0, 1)),
    14: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
}
_SLIDES = {2: ((0, -1),), 5: ((-1, -1), (1, -1), (-1, 1), (1, 1)), 6: ((0, -1), (-1, 0), (1, 0), (0, 1)),
           13: ((-1, -1), (1, -1), (-1, 1), (1, 1)), 14: ((0, -1), (-1, 0), (1, 0), (0, 1))}


def _direction_table(table):
    out = np.zeros((15, 8, 2), dtype=np.int64)
    count = np.zeros(15, dtype=np.int64)
    for piece_type, steps in table.items():
        count[piece_type] = len(steps)
        for i, (df, dr) in enumerate(steps):
            out[piece_type, i] = (df, dr)
    return out, count


STEP_DIRS, STEP_COUNT = _direction_table(_STEPS)
SLIDE_DIRS, SLIDE_COUNT = _direction_table(_SLIDES)
HAND_PLANE_COUNTS = np.array(HAND_PLANES, dtype=np.int64)


@njit(cache=True)
def fill_features(pieces, hands, turn, in_check, step_dirs, step_count, slide_dirs, slide_count, hand_planes, out):
    """Fill ``out`` float32 (119, 81), zeroed by the caller, with dlshogi's planes.

    Args:
        pieces: int64 (81,) cshogi piece codes (1..14 Black, 17..30 White). hands: int64 (2, 7).
        turn: the mover, 0 or 1. in_check: 1 when the mover is in check.
    """
    counts = np.zeros((2, 81), dtype=np.int64)
    for square in range(81):
        code = pieces[square]
        if code == 0:
            continue
        color = 1 if code >= 16 else 0
        piece_type = code - 16 * color
        view = 0 if color == turn else 1
        sign = 1 if color == 0 else -1
        base = 31 * view
        target = square if turn == 0 else 80 - square
        out[base + piece_type - 1, target] = 1.0
        file = square // 9
        rank = square % 9
        for i in range(step_count[piece_type]):
            f = file + sign * step_dirs[piece_type, i, 0]
            r = rank + sign * step_dirs[piece_type, i, 1]
            if 0 <= f < 9 and 0 <= r < 9:
                s = f * 9 + r
                out[base + 14 + piece_type - 1, s if turn == 0 else 80 - s] = 1.0
                counts[color, s] += 1
        for i in range(slide_count[piece_type]):
            df = sign * slide_dirs[piece_type, i, 0]
            dr = sign * slide_dirs[piece_type, i, 1]
            f = file + df
            r = rank + dr
            while 0 <= f < 9 and 0 <= r < 9:
                s = f * 9 + r
                out[base + 14 + piece_type - 1, s if turn == 0 else 80 - s] = 1.0
                counts[color, s] += 1
                if pieces[s] != 0:
                    break
                f += df
                r += dr
    for color in range(2):
        base = 31 * (0 if color == turn else 1)
        for s in range(81):
            n = min(3, counts[color, s])
            for k in range(n):
                out[base + 28 + k, s if turn == 0 else 80 - s] = 1.0
        plane = 62 + 28 * (0 if color == turn else 1)
        for hand_type in range(7):
            n = min(hands[color, hand_type], hand_planes[hand_type])
            for k in range(n):
                out[plane + k, :] = 1.0
            plane += hand_planes[hand_type]
    if in_check:
        out[118, :] = 1.0


def dlshogi_planes(board) -> np.ndarray:
    """float32 (119, 9, 9) planes of a cshogi Board (see the module docstring)."""
    out = np.zeros((NUM_PLANES, 81), dtype=np.float32)
    fill_features(np.array(board.pieces, dtype=np.int64), np.array(board.pieces_in_hand, dtype=np.int64),
                  int(board.turn), int(board.is_check()), STEP_DIRS, STEP_COUNT, SLIDE_DIRS, SLIDE_COUNT,
                  HAND_PLANE_COUNTS, out)
    return out.reshape(NUM_PLANES, 9, 9)
