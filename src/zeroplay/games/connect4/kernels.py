"""Compiled Connect Four rules (numba): apply/undo, incremental Zobrist key, win check, winning moves.

Arrays follow ``zeroplay.games.layout`` and ``zeroplay.games.connect4.layout``, with the
signatures of the Gomoku kernels; ``KERNELS`` at the end is what the compiled search calls. Every function assumes
its move is legal: the Python ``State`` validates, the search only plays legal moves.

Connect Four specifics on that layout:

* An action is a column ``0..width-1``; the stone lands on the lowest empty cell of the column.
  Cells stay ``row * width + col`` with row 0 at the top, so the bottom row is ``height - 1``.
* ``stack[k]`` holds the *action* (column) played at ply k; ``info[I_LAST]`` the *cell* it landed
  on (network planes show cells).
* ``wmask[p, c]``: bit d set when a stone of player p on the empty cell c would complete four in
  direction d (0: horizontal, 1: vertical, 2: diagonal down-right, 3: anti-diagonal down-left),
  whether or not c is playable yet (a cell above the landing cell is a "threat" for later);
  0 on occupied cells.
* ``info[I_NWIN0 + p]``: the number of winning *actions* of player p, i.e. columns whose landing
  cell has ``wmask[p, cell] != 0`` (at most ``width``). Recounted after every tracked apply/undo
  (``width`` columns, cheap); meaningless once the game is over (``fast.num_winning_moves`` and
  ``State.num_winning_moves`` report 0 then).

Four or more in a row of one colour through the move wins (a line of five counts).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.games.api import FastKernels
from zeroplay.games.connect4.layout import I_NWIN0, P_N_IN_ROW
from zeroplay.games.layout import (
    I_KEY,
    I_LAST,
    I_PLY,
    I_TERMINAL,
    I_TO_PLAY,
    I_WINNER,
    P_CELLS,
    P_HEIGHT,
    P_SIDE_KEY,
    P_WIDTH,
)

DIR_DX = np.array([1, 0, 1, -1], dtype=np.int64)
DIR_DY = np.array([0, 1, 1, 1], dtype=np.int64)


@njit(cache=True, inline="always")
def landing_row(board, w, h, col):
    """Row (from the top) where a stone dropped in ``col`` lands; -1 when the column is full."""
    r = 0
    while r < h and board[r * w + col] == 0:
        r += 1
    return r - 1


@njit(cache=True, inline="always")
def top_row(board, w, h, col):
    """Row of the topmost stone of ``col``; ``h`` when the column is empty."""
    r = 0
    while r < h and board[r * w + col] == 0:
        r += 1
    return r


@njit(cache=True, inline="always")
def _run(board, w, h, x, y, dx, dy, stone, cap):
    """Stones equal to ``stone`` contiguous from (x+dx, y+dy) on, counted up to ``cap``."""
    n = 0
    x += dx
    y += dy
    while n < cap and 0 <= x < w and 0 <= y < h and board[y * w + x] == stone:
        n += 1
        x += dx
        y += dy
    return n


@njit(cache=True, inline="always")
def line_wins(board, w, h, n, cell, stone, d):
    """True if a stone ``stone`` (1 or 2) on ``cell`` makes n or more in a row in direction ``d``.

    The cell's own content is ignored (the stone is taken as placed there).
    """
    x = cell % w
    y = cell // w
    dx = DIR_DX[d]
    dy = DIR_DY[d]
    total = 1 + _run(board, w, h, x, y, dx, dy, stone, n) + _run(board, w, h, x, y, -dx, -dy, stone, n)
    return total >= n


@njit(cache=True)
def wins_at(params, board, cell, stone):
    """True if a stone ``stone`` (1 = first player, 2 = second) on ``cell`` completes four."""
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    n = params[P_N_IN_ROW]
    for d in range(4):
        if line_wins(board, w, h, n, cell, stone, d):
            return True
    return False


@njit(cache=True)
def apply_move(params, zkeys, board, info, stack, action):
    """Drop a stone in column ``action`` for the side to move: stone, key, ply, win/draw. No wmask."""
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    p = info[I_TO_PLAY]
    cell = landing_row(board, w, h, action) * w + action
    board[cell] = p + 1
    info[I_KEY] ^= zkeys[p, cell] ^ params[P_SIDE_KEY]
    ply = info[I_PLY]
    stack[ply] = action
    info[I_PLY] = ply + 1
    info[I_LAST] = cell
    info[I_TO_PLAY] = 1 - p
    if wins_at(params, board, cell, p + 1):
        info[I_TERMINAL] = 1
        info[I_WINNER] = p
    elif ply + 1 == params[P_CELLS]:
        info[I_TERMINAL] = 1
    return cell


@njit(cache=True)
def undo_move(params, zkeys, board, info, stack):
    """Take back the last move played with ``apply_move``; returns its action (column).

    The move before it (``stack[ply - 2]``), when known, becomes ``info[I_LAST]`` again: its stone
    is the top stone of its column once the last move is gone.
    """
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    ply = info[I_PLY] - 1
    action = stack[ply]
    p = 1 - info[I_TO_PLAY]
    cell = top_row(board, w, h, action) * w + action
    board[cell] = 0
    info[I_KEY] ^= zkeys[p, cell] ^ params[P_SIDE_KEY]
    info[I_PLY] = ply
    info[I_TO_PLAY] = p
    prev = stack[ply - 1] if ply > 0 else -1
    info[I_LAST] = top_row(board, w, h, prev) * w + prev if prev >= 0 else -1
    info[I_TERMINAL] = 0
    info[I_WINNER] = -1
    return action


@njit(cache=True)
def _refresh_line(params, board, wmask, cell, d):
    """Recompute bit ``d`` of both players' wmask on the empty cells of line d near ``cell``."""
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    n = params[P_N_IN_ROW]
    dx = DIR_DX[d]
    dy = DIR_DY[d]
    x0 = cell % w
    y0 = cell // w
    bit = np.uint8(1 << d)
    for k in range(-(n - 1), n):
        x = x0 + k * dx
        y = y0 + k * dy
        if x < 0 or x >= w or y < 0 or y >= h:
            continue
        c = y * w + x
        if board[c] != 0:
            continue
        for p in range(2):
            if line_wins(board, w, h, n, c, p + 1, d):
                wmask[p, c] |= bit
            else:
                wmask[p, c] &= ~bit


@njit(cache=True)
def count_winning_actions(params, board, info, wmask):
    """Set ``info[I_NWIN0 + p]`` to the number of columns whose landing cell wins for p."""
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    n0 = 0
    n1 = 0
    for col in range(w):
        r = landing_row(board, w, h, col)
        if r >= 0:
            c = r * w + col
            if wmask[0, c] != 0:
                n0 += 1
            if wmask[1, c] != 0:
                n1 += 1
    info[I_NWIN0] = n0
    info[I_NWIN0 + 1] = n1


@njit(cache=True)
def apply_move_tracked(params, zkeys, board, info, stack, wmask, action):
    """``apply_move`` plus the incremental update of the winning-move masks and counts."""
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    cell = landing_row(board, w, h, action) * w + action
    wmask[0, cell] = 0
    wmask[1, cell] = 0
    apply_move(params, zkeys, board, info, stack, action)
    for d in range(4):
        _refresh_line(params, board, wmask, cell, d)
    count_winning_actions(params, board, info, wmask)


@njit(cache=True)
def undo_move_tracked(params, zkeys, board, info, stack, wmask):
    """``undo_move`` plus the incremental update of the winning-move masks and counts."""
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    action = stack[info[I_PLY] - 1]
    cell = top_row(board, w, h, action) * w + action
    undo_move(params, zkeys, board, info, stack)
    for d in range(4):
        _refresh_line(params, board, wmask, cell, d)
    count_winning_actions(params, board, info, wmask)
    return action


@njit(cache=True)
def compute_wmask(params, board, info, wmask):
    """Fill ``wmask`` and the I_NWIN counts from scratch (set-up positions)."""
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    n = params[P_N_IN_ROW]
    for c in range(params[P_CELLS]):
        for p in range(2):
            m = np.uint8(0)
            if board[c] == 0:
                for d in range(4):
                    if line_wins(board, w, h, n, c, p + 1, d):
                        m |= np.uint8(1 << d)
            wmask[p, c] = m
    count_winning_actions(params, board, info, wmask)


@njit(cache=True)
def winning_moves(params, board, info, wmask, player, out):
    """Write the columns where ``player`` would win at once into ``out``, ascending; returns count.

    A terminal position has none.
    """
    if info[I_TERMINAL] != 0 or info[I_NWIN0 + player] == 0:
        return 0
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    k = 0
    for col in range(w):
        r = landing_row(board, w, h, col)
        if r >= 0 and wmask[player, r * w + col] != 0:
            out[k] = col
            k += 1
    return k


@njit(cache=True)
def legal_moves(params, board, info, out):
    """Write the legal actions (columns whose top cell is empty, ascending) into ``out``; count."""
    if info[I_TERMINAL] != 0:
        return 0
    k = 0
    for col in range(params[P_WIDTH]):
        if board[col] == 0:
            out[k] = col
            k += 1
    return k


@njit(cache=True)
def play_sequence_tracked(params, zkeys, board, info, stack, wmask, actions):
    """Play ``actions`` in order on the tracked path until the game ends; returns moves played."""
    n = 0
    for i in range(actions.shape[0]):
        apply_move_tracked(params, zkeys, board, info, stack, wmask, actions[i])
        n += 1
        if info[I_TERMINAL] != 0:
            break
    return n


@njit(cache=True)
def rollout(params, board, info, rng):
    """Finish the game on the scratch ``board`` with uniformly random columns; returns the winner
    (0 or 1) or -1 for a draw. Random numbers: xorshift64* in ``rng[0]`` (as Gomoku's rollout)."""
    if info[I_TERMINAL] != 0:
        return info[I_WINNER]
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    n = params[P_N_IN_ROW]
    cols = np.empty(w, dtype=np.int64)
    p = info[I_TO_PLAY]
    x64 = rng[0]
    while True:
        count = 0
        for col in range(w):
            if board[col] == 0:
                cols[count] = col
                count += 1
        if count == 0:
            rng[0] = x64
            return -1
        x64 ^= x64 >> np.uint64(12)
        x64 ^= x64 << np.uint64(25)
        x64 ^= x64 >> np.uint64(27)
        r = (x64 * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)
        col = cols[np.int64((r * np.uint64(count)) >> np.uint64(32))]
        cell = landing_row(board, w, h, col) * w + col
        board[cell] = p + 1
        for d in range(4):
            if line_wins(board, w, h, n, cell, p + 1, d):
                rng[0] = x64
                return p
        p = 1 - p


# --- the fast-path contract (``zeroplay.games.api.FastKernels``) ------------------------------

@njit(cache=True)
def fast_legal_moves(params, board, info, aux, out):
    return legal_moves(params, board, info, out)


@njit(cache=True)
def num_winning_moves(params, board, info, aux, player):
    if info[I_TERMINAL] != 0:
        return 0
    return info[I_NWIN0 + player]


KERNELS = FastKernels(
    apply=apply_move_tracked,
    undo=undo_move_tracked,
    legal_moves=fast_legal_moves,
    winning_moves=winning_moves,
    num_winning_moves=num_winning_moves,
    rollout=rollout,
)
