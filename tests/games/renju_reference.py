"""A slow, plain-Python statement of the RIF renju definitions, written apart from the compiled
kernels (``zeroplay.games.gomoku.renju``) to check them on random positions.

It reads the definitions by windows rather than by five-points: a four is a set of four black
stones in a window of five cells whose one empty cell makes exactly five; a straight four is a
window of six cells ``.XXXX.`` whose both ends make exactly five; a three is a line where one
more stone (not itself forbidden) makes a straight four. Boards are dicts-free lists of lists:
``board[y][x]`` in {0, 1 Black, 2 White}.
"""

from __future__ import annotations

DIRS = ((1, 0), (0, 1), (1, 1), (-1, 1))


def _get(board, x, y):
    h, w = len(board), len(board[0])
    return board[y][x] if 0 <= x < w and 0 <= y < h else -1


def _run_through(board, x, y, dx, dy):
    """Length of the black run through the black stone at (x, y) along the direction."""
    n = 1
    for s in (1, -1):
        k = 1
        while _get(board, x + s * k * dx, y + s * k * dy) == 1:
            n += 1
            k += 1
    return n


def _exact_five_if(board, x, y, dx, dy):
    """Black on the empty (x, y) makes exactly five along the direction."""
    board[y][x] = 1
    try:
        return _run_through(board, x, y, dx, dy) == 5
    finally:
        board[y][x] = 0


def fours(board, x, y, dx, dy):
    """Distinct fours through the black stone at (x, y): sets of four black stones in a
    five-cell window with one empty cell that makes exactly five."""
    sets = set()
    for start in range(-4, 1):
        cells = [(x + (start + i) * dx, y + (start + i) * dy) for i in range(5)]
        vals = [_get(board, cx, cy) for cx, cy in cells]
        if vals.count(1) == 4 and vals.count(0) == 1:
            ex, ey = cells[vals.index(0)]
            if _exact_five_if(board, ex, ey, dx, dy):
                sets.add(frozenset(c for c, v in zip(cells, vals) if v == 1))
    return len(sets)


def straight_four(board, x, y, dx, dy):
    """A six-cell window ``.XXXX.`` holding (x, y) whose both ends make exactly five."""
    for start in range(-4, 0):
        cells = [(x + (start + i) * dx, y + (start + i) * dy) for i in range(6)]
        vals = [_get(board, cx, cy) for cx, cy in cells]
        if vals == [0, 1, 1, 1, 1, 0] and all(_exact_five_if(board, cx, cy, dx, dy) for cx, cy in (cells[0], cells[5])):
            return True
    return False


def is_three(board, x, y, dx, dy, recursive=True):
    for k in range(-5, 6):
        ex, ey = x + k * dx, y + k * dy
        if k == 0 or _get(board, ex, ey) != 0:
            continue
        board[ey][ex] = 1
        made = straight_four(board, x, y, dx, dy)
        board[ey][ex] = 0
        if made and (not recursive or not forbidden(board, ex, ey)):
            return True
    return False


def forbidden(board, x, y, recursive=True):
    """True if Black may not play the empty (x, y) under RIF renju."""
    board[y][x] = 1
    try:
        runs = [_run_through(board, x, y, dx, dy) for dx, dy in DIRS]
        if 5 in runs:
            return False
        if max(runs) > 5:
            return True
        four_counts = [fours(board, x, y, dx, dy) for dx, dy in DIRS]
        if sum(four_counts) >= 2:
            return True
        threes = sum(1 for (dx, dy), f in zip(DIRS, four_counts) if f == 0 and is_three(board, x, y, dx, dy, recursive))
        return threes >= 2
    finally:
        board[y][x] = 0


def forbidden_cells(board, recursive=True):
    """Flat cells ``y * w + x`` of every empty point forbidden for Black, ascending."""
    h, w = len(board), len(board[0])
    return [y * w + x for y in range(h) for x in range(w) if board[y][x] == 0 and forbidden(board, x, y, recursive)]
