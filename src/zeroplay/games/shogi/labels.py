"""dlshogi's move labels: 27 move classes x 81 destination squares = 2,187 policy outputs.

Source: dlshogi (``make_move_label`` in cppshogi), whose policy head has one output per
(class, destination). Everything is seen from the mover: for White, squares are rotated by 180
degrees (sq -> 80 - sq), so Black's 7g7f and White's 3c3d are the same label (59).

Classes 0..9 are board moves by direction, from the mover's view: UP, UP_LEFT, UP_RIGHT, LEFT,
RIGHT, DOWN, DOWN_LEFT, DOWN_RIGHT, UP2_LEFT, UP2_RIGHT (the knight's jumps); 10..19 the same
with promotion; 20..26 drops of P, L, N, S, B, R, G (cshogi's piece type order, as dlshogi). ``label = class * 81 + destination``.
Among the legal moves of one position labels are distinct (a direction and a destination leave
one origin square for the piece that can make that move).

Moves are cshogi's 32-bit move numbers: destination bits 0..6, origin bits 7..13 (80 + piece
type for a drop: P 1, L 2, N 3, S 4, B 5, R 6, G 7), promotion bit 14.
"""

from __future__ import annotations

import numpy as np

NUM_SQUARES = 81
NUM_MOVE_CLASSES = 27
NUM_LABELS = NUM_MOVE_CLASSES * NUM_SQUARES
"""2,187: length of the shogi policy vector."""

UP, UP_LEFT, UP_RIGHT, LEFT, RIGHT, DOWN, DOWN_LEFT, DOWN_RIGHT, UP2_LEFT, UP2_RIGHT = range(10)
PROMOTE_OFFSET = 10
DROP_OFFSET = 20

# drop origin 80 + piece type (P 1 .. G 7) -> class 20 + piece type - 1
_DROP_CLASS = np.full(128, -1, dtype=np.int64)
_DROP_CLASS[81:88] = DROP_OFFSET + np.arange(7)


def _compute_labels(moves, color: int) -> np.ndarray:
    """The labels by dlshogi's rule, vectorised (builds ``LABEL_TABLE``)."""
    m = np.asarray(moves, dtype=np.int64)
    to_sq = m & 0x7F
    from_sq = (m >> 7) & 0x7F
    drop = from_sq >= NUM_SQUARES
    if color:
        to_sq = 80 - to_sq
        from_sq = np.where(drop, from_sq, 80 - from_sq)
    # x = file index (0 = file 1), y = rank index (0 = rank a); "up" is towards rank a
    dir_x = from_sq // 9 - to_sq // 9
    dir_y = to_sq % 9 - from_sq % 9
    klass = np.select(
        [
            (dir_y < 0) & (dir_x == 0),
            (dir_y == -2) & (dir_x == -1),
            (dir_y == -2) & (dir_x == 1),
            (dir_y < 0) & (dir_x < 0),
            (dir_y < 0) & (dir_x > 0),
            (dir_y == 0) & (dir_x < 0),
            (dir_y == 0) & (dir_x > 0),
            (dir_y > 0) & (dir_x == 0),
            (dir_y > 0) & (dir_x < 0),
        ],
        [UP, UP2_LEFT, UP2_RIGHT, UP_LEFT, UP_RIGHT, LEFT, RIGHT, DOWN, DOWN_LEFT],
        DOWN_RIGHT,
    )
    klass = klass + PROMOTE_OFFSET * ((m >> 14) & 1)
    klass = np.where(drop, _DROP_CLASS[np.minimum(from_sq, 127)], klass)
    return klass * NUM_SQUARES + to_sq


_CODES = np.arange(1 << 15, dtype=np.int64)
LABEL_TABLE = np.stack([_compute_labels(_CODES, 0), _compute_labels(_CODES, 1)])
"""int64 (2, 32768): label of a move by [mover, move & 0x7FFF] (destination, origin, promotion);
entries of codes that are no move are unused."""
LABEL_TABLE.setflags(write=False)


def move_labels(moves, color: int) -> np.ndarray:
    """Labels in [0, 2187) of cshogi moves played by ``color`` (0 Black, 1 White).

    Args:
        moves: int array-like (n,) of cshogi move numbers.
        color: the mover.

    Returns:
        int64 (n,) labels.
    """
    return LABEL_TABLE[color][np.asarray(moves, dtype=np.int64) & 0x7FFF]


def move_label(move: int, color: int) -> int:
    """Label of one cshogi move (see ``move_labels``)."""
    return int(move_labels(np.array([move]), color)[0])


def label_lookup() -> tuple[list[int], list[int]]:
    """``LABEL_TABLE`` as two Python lists (one list read per move where a numpy call would cost
    more: the search loops)."""
    return LABEL_TABLE[0].tolist(), LABEL_TABLE[1].tolist()
