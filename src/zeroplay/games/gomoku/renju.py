"""Renju's forbidden points for Black, compiled (numba): overline, double-four, double-three.

The definitions follow the RIF rules (Renju International Federation, 1996/1998 revision):

* A *five* is exactly five black stones in a row; a move that makes one wins, even when it also
  makes a pattern that would otherwise be forbidden. Six or more (an *overline*) is forbidden.
* A *four* on a line is a set of four black stones that one more stone (the *five-point*) turns
  into a five. A straight four (``.XXXX.``) has two five-points but is one four; two fours on
  one line (``X.XXX.X``, ``XX.XX.XX`` ...) count as two. Two or more fours made by one move form a
  *double-four*: forbidden.
* A *three* is a line that one more stone turns into a straight four -- and only when the point
  that does so is itself not forbidden (checked recursively). Two or more threes made by one
  move form a *double-three*: forbidden, also together with a four (4-3-3); a four-three is
  allowed.

Only Black has forbidden points; White wins with five or more. The kernels work on a writable
scratch copy of the board (int8[cells], 0 empty, 1 Black, 2 White): they place stones to test a
point and take them off again, so the scratch is unchanged on return. Five in a row is fixed by
the rule (``Gomoku`` refuses renju with another ``n_in_row``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

BLACK = 1
FIVE = 5

ALLOWED = 0
"""Reason code of an empty point Black may play (or that makes a five)."""
OVERLINE = 1
DOUBLE_FOUR = 2
DOUBLE_THREE = 3
REASONS = ("allowed", "overline", "double-four", "double-three")
"""Text of each reason code, indexed by the code."""

MAX_NESTING = 12
"""Deepest chain of "is the straight-four point of this three itself forbidden?" followed. Each
level adds a black stone to the test, so the chain is finite on any board; the cap only bounds
the time of an adversarial position. Past it the point is taken as allowed (not seen in real
play: the deepest published renju cases nest 3-4 levels)."""

_DX = np.array([1, 0, 1, -1], dtype=np.int64)
_DY = np.array([0, 1, 1, 1], dtype=np.int64)


@njit(cache=True, inline="always")
def _black_run(board, w, h, x, y, dx, dy):
    """Black stones contiguous from (x + dx, y + dy) on along (dx, dy)."""
    n = 0
    x += dx
    y += dy
    while 0 <= x < w and 0 <= y < h and board[y * w + x] == BLACK:
        n += 1
        x += dx
        y += dy
    return n


@njit(cache=True, inline="always")
def _cannot_be_forbidden(board, w, h, x, y):
    """A cheap test that rules most cells out: a forbidden point needs four black stones within
    five cells on one line (an overline, two fours on a line) or two black stones within four
    cells on each of two lines (a double-four or double-three across lines)."""
    busy = 0
    for d in range(4):
        near4 = 0
        near5 = 0
        for sign in (-1, 1):
            dx = sign * _DX[d]
            dy = sign * _DY[d]
            for k in range(1, 6):
                cx = x + k * dx
                cy = y + k * dy
                if not (0 <= cx < w and 0 <= cy < h):
                    break
                if board[cy * w + cx] == BLACK:
                    near5 += 1
                    if k <= 4:
                        near4 += 1
        if near5 >= 4:
            return False
        if near4 >= 2:
            busy += 1
    return busy < 2


@njit(cache=True)
def _five_points(board, w, h, x, y, dx, dy, out):
    """Offsets k (-4..4) along (dx, dy) of the empty cells where one black stone makes exactly
    five through the black stone on (x, y); written to ``out`` (at most 3), count returned."""
    found = 0
    for k in range(-4, 5):
        if k == 0:
            continue
        ex = x + k * dx
        ey = y + k * dy
        if not (0 <= ex < w and 0 <= ey < h) or board[ey * w + ex] != 0:
            continue
        fwd = _black_run(board, w, h, ex, ey, dx, dy)
        back = _black_run(board, w, h, ex, ey, -dx, -dy)
        # the five must hold (x, y): k's run reaches offset 0
        if fwd + back + 1 == FIVE and k - back <= 0 <= k + fwd and found < out.shape[0]:
            out[found] = k
            found += 1
    return found


@njit(cache=True, inline="always")
def _fours_from(points, found):
    """Fours given the five-points of one line: a pair five apart is one straight four."""
    if found == 2 and abs(points[1] - points[0]) == FIVE:
        return 1
    return min(found, 2)


PENDING = -1  # internal: the stone is placed, its threes are still to be counted


@njit(cache=True)
def _open(board, w, h, cell, four_dirs):
    """First stage of the test of ``cell``: ALLOWED, OVERLINE or DOUBLE_FOUR (the board as it
    was), or PENDING with a black stone left on ``cell`` and the lines holding a four as bits
    in ``four_dirs[0]``."""
    x = cell % w
    y = cell // w
    if _cannot_be_forbidden(board, w, h, x, y):
        return ALLOWED
    board[cell] = BLACK
    over = False
    for d in range(4):
        total = 1 + _black_run(board, w, h, x, y, _DX[d], _DY[d]) + _black_run(board, w, h, x, y, -_DX[d], -_DY[d])
        if total == FIVE:
            board[cell] = 0
            return ALLOWED  # a five wins, whatever else the move makes
        if total > FIVE:
            over = True
    if over:
        board[cell] = 0
        return OVERLINE
    points = np.empty(3, np.int64)
    fours = 0
    bits = 0
    for d in range(4):
        f = _fours_from(points, _five_points(board, w, h, x, y, _DX[d], _DY[d], points))
        if f > 0:
            fours += f
            bits |= 1 << d
    if fours >= 2:
        board[cell] = 0
        return DOUBLE_FOUR
    four_dirs[0] = bits
    return PENDING


@njit(cache=True, inline="always")
def _makes_straight_four(board, w, h, x, y, dx, dy, e, points):
    """True if a black stone on the empty cell ``e`` turns the line through (x, y) along
    (dx, dy) into a straight four (two five-points five apart) holding (x, y)."""
    board[e] = BLACK
    found = _five_points(board, w, h, x, y, dx, dy, points)
    board[e] = 0
    for i in range(found):
        for j in range(i + 1, found):
            if abs(points[j] - points[i]) == FIVE:
                return True
    return False


@njit(cache=True)
def forbidden_reason(board, w, h, cell):
    """Why Black may not play the empty ``cell``: ALLOWED, OVERLINE, DOUBLE_FOUR or DOUBLE_THREE.

    Args:
        board: int8 (w * h,) writable scratch (0 empty, 1 Black, 2 White); restored on return.
        w, h: board width and height.
        cell: an empty cell, ``y * w + x``.

    The recursion of the three rule (is the point that makes the straight four itself
    forbidden?) runs on an explicit stack of MAX_NESTING + 1 frames, one per black stone placed
    for the test: numba's cached code and self-recursion do not mix.
    """
    if _cannot_be_forbidden(board, w, h, cell % w, cell // w):
        return ALLOWED  # most cells, before any allocation
    four_dirs = np.zeros(1, np.int64)
    first = _open(board, w, h, cell, four_dirs)
    if first != PENDING:
        return first
    frame_cell = np.empty(MAX_NESTING + 1, np.int64)
    frame_dir = np.empty(MAX_NESTING + 1, np.int64)
    frame_k = np.empty(MAX_NESTING + 1, np.int64)
    frame_threes = np.empty(MAX_NESTING + 1, np.int64)
    frame_fours = np.empty(MAX_NESTING + 1, np.int64)
    points = np.empty(3, np.int64)
    top = 0
    frame_cell[0] = cell
    frame_dir[0] = 0
    frame_k[0] = -3
    frame_threes[0] = 0
    frame_fours[0] = four_dirs[0]
    child = PENDING  # the verdict a finished child frame hands to its parent
    while True:
        c = frame_cell[top]
        x = c % w
        y = c // w
        if child != PENDING:
            if child == ALLOWED:  # the three's straight-four point is playable: a real three
                frame_threes[top] += 1
                frame_dir[top] += 1
                frame_k[top] = -3
            child = PENDING
        pushed = False
        while frame_dir[top] < 4 and frame_threes[top] < 2:
            d = frame_dir[top]
            if (frame_fours[top] >> d) & 1 or frame_threes[top] + 4 - d < 2 or frame_k[top] > 3:
                # a line with a four is not also a three; too few lines left; line done
                frame_dir[top] = 4 if frame_threes[top] + 4 - d < 2 else d + 1
                frame_k[top] = -3
                continue
            k = frame_k[top]
            frame_k[top] = k + 1
            ex = x + k * _DX[d]
            ey = y + k * _DY[d]
            if k == 0 or not (0 <= ex < w and 0 <= ey < h):
                continue
            e = ey * w + ex
            if board[e] != 0 or not _makes_straight_four(board, w, h, x, y, _DX[d], _DY[d], e, points):
                continue
            verdict = ALLOWED
            if top < MAX_NESTING:
                verdict = _open(board, w, h, e, four_dirs)
            if verdict == PENDING:
                top += 1
                frame_cell[top] = e
                frame_dir[top] = 0
                frame_k[top] = -3
                frame_threes[top] = 0
                frame_fours[top] = four_dirs[0]
                pushed = True
                break
            if verdict == ALLOWED:
                frame_threes[top] += 1
                frame_dir[top] = d + 1
                frame_k[top] = -3
        if pushed:
            continue
        board[c] = 0
        verdict = DOUBLE_THREE if frame_threes[top] >= 2 else ALLOWED
        if top == 0:
            return verdict
        top -= 1
        child = verdict


@njit(cache=True)
def is_forbidden(board, w, h, cell):
    """True if Black may not play the empty ``cell`` (see ``forbidden_reason``). ``board`` may be
    read-only: the test runs on a copy."""
    scratch = board.copy()
    return forbidden_reason(scratch, w, h, cell) != ALLOWED


@njit(cache=True)
def forbidden_cells(board, w, h, out):
    """Write the empty cells Black may not play into ``out`` (ascending); returns their count.
    ``board`` may be read-only: the tests run on one copy."""
    scratch = board.copy()
    k = 0
    for c in range(w * h):
        if board[c] == 0 and forbidden_reason(scratch, w, h, c) != ALLOWED:
            out[k] = c
            k += 1
    return k
