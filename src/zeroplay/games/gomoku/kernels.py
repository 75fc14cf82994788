"""Compiled Gomoku rules (numba): apply/undo, incremental Zobrist key, win check, winning moves.

Arrays follow ``zeroplay.games.layout`` and ``zeroplay.games.gomoku.layout``; ``KERNELS`` at the
end is what the compiled search calls. Every function assumes its move is legal: the Python
``State`` validates, the search only plays legal moves. Directions d = 0..3 are horizontal,
vertical, diagonal (down-right) and anti-diagonal (down-left); coordinates are (x, y) with
x = column from the left and y = row from the top, cell = y * width + x.

Rules: ``RULE_FREESTYLE`` -- a line of n or more of one colour through the move wins;
``RULE_STANDARD`` -- a line of exactly n wins, an overline (n + 1 or more) does not, for both
colours; a move that makes an overline in one direction and exactly n in another wins;
``RULE_RENJU`` -- Black wins with exactly five (an overline does not win) and may not play a
forbidden point (``renju.py``); White wins with five or more.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.games.api import FastKernels
from zeroplay.games.gomoku.layout import I_NWIN0, P_N_IN_ROW, P_RULE, RULE_RENJU, RULE_STANDARD
from zeroplay.games.gomoku.renju import ALLOWED, forbidden_reason
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
def line_wins_xy(board, w, h, n, rule, x, y, stone, d):
    """True if a stone ``stone`` (1 or 2) on (x, y) makes a winning line in direction ``d``.

    The cell's own content is ignored (the stone is taken as placed there). Takes coordinates
    rather than a cell: the division cell -> (x, y) costs more than the scan itself.
    """
    dx = DIR_DX[d]
    dy = DIR_DY[d]
    # n per side is enough to tell exactly-n from an overline
    total = 1 + _run(board, w, h, x, y, dx, dy, stone, n) + _run(board, w, h, x, y, -dx, -dy, stone, n)
    if rule == RULE_STANDARD or (rule == RULE_RENJU and stone == 1):
        return total == n
    return total >= n


@njit(cache=True, inline="always")
def line_wins(board, w, h, n, rule, cell, stone, d):
    """``line_wins_xy`` for a cell index."""
    return line_wins_xy(board, w, h, n, rule, cell % w, cell // w, stone, d)


@njit(cache=True, inline="always")
def _count(board, cell, step, limit, stone):
    """Stones equal to ``stone`` at cell + step, cell + 2*step, ..., at most ``limit`` of them.

    ``limit`` must not exceed the steps to the board's edge (no bounds checks here).
    """
    k = 0
    c = cell + step
    while k < limit and board[c] == stone:
        k += 1
        c += step
    return k


@njit(cache=True, inline="always")
def _line_total(board, cell, step, fwd, back, cap, stone):
    """1 + stones of ``stone`` on both sides of ``cell`` along ``step`` (each side capped)."""
    return 1 + _count(board, cell, step, min(fwd, cap), stone) + _count(board, cell, -step, min(back, cap), stone)


@njit(cache=True)
def wins_at(params, board, cell, stone):
    """True if a stone ``stone`` (1 = Black, 2 = White) on ``cell`` wins under the rule in force.

    Walks flat indices with per-direction limits (the steps to the edge), so a line never wraps
    across a row end and the inner loop has no coordinate checks.
    """
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    n = params[P_N_IN_ROW]
    rule = params[P_RULE]
    standard = rule == RULE_STANDARD or (rule == RULE_RENJU and stone == 1)
    x = cell % w
    y = cell // w
    left = x
    right = w - 1 - x
    up = y
    down = h - 1 - y
    for d in range(4):
        if d == 0:
            total = _line_total(board, cell, 1, right, left, n, stone)
        elif d == 1:
            total = _line_total(board, cell, w, down, up, n, stone)
        elif d == 2:
            total = _line_total(board, cell, w + 1, min(right, down), min(left, up), n, stone)
        else:
            total = _line_total(board, cell, w - 1, min(left, down), min(right, up), n, stone)
        if total == n or (total > n and not standard):
            return True
    return False


@njit(cache=True, inline="always")
def _place(params, zkeys, board, info, stack, move):
    """Stone, key, ply, stack and side to move for ``move``; returns the mover. No win check."""
    p = info[I_TO_PLAY]
    board[move] = p + 1
    info[I_KEY] ^= zkeys[p, move] ^ params[P_SIDE_KEY]
    ply = info[I_PLY]
    stack[ply] = move
    info[I_PLY] = ply + 1
    info[I_LAST] = move
    info[I_TO_PLAY] = 1 - p
    return p


@njit(cache=True, inline="always")
def _set_result(params, info, p, won):
    if won:
        info[I_TERMINAL] = 1
        info[I_WINNER] = p
    elif info[I_PLY] == params[P_CELLS]:
        info[I_TERMINAL] = 1


@njit(cache=True)
def apply_move(params, zkeys, board, info, stack, move):
    """Play ``move`` (a cell) for the side to move: stone, key, ply, win/draw check. No wmask."""
    p = _place(params, zkeys, board, info, stack, move)
    _set_result(params, info, p, wins_at(params, board, move, p + 1))


@njit(cache=True)
def undo_move(params, zkeys, board, info, stack):
    """Take back the last move played with ``apply_move``; returns its cell."""
    ply = info[I_PLY] - 1
    move = stack[ply]
    p = 1 - info[I_TO_PLAY]
    board[move] = 0
    info[I_KEY] ^= zkeys[p, move] ^ params[P_SIDE_KEY]
    info[I_PLY] = ply
    info[I_TO_PLAY] = p
    info[I_LAST] = stack[ply - 1] if ply > 0 else -1
    info[I_TERMINAL] = 0
    info[I_WINNER] = -1
    return move


@njit(cache=True, inline="always")
def _set_bit(params, board, wmask, info, x, y, p, d):
    """Recompute bit ``d`` of ``wmask[p, c]`` for the empty cell c = (x, y), keeping the counts."""
    w = params[P_WIDTH]
    c = y * w + x
    old = wmask[p, c]
    bit = np.uint8(1 << d)
    if line_wins_xy(board, w, params[P_HEIGHT], params[P_N_IN_ROW], params[P_RULE], x, y, p + 1, d):
        new = old | bit
    else:
        new = old & ~bit
    if new != old:
        wmask[p, c] = new
        if old == 0:
            info[I_NWIN0 + p] += 1
        elif new == 0:
            info[I_NWIN0 + p] -= 1


@njit(cache=True)
def _refresh_ends(params, board, wmask, info, x0, y0, p, d):
    """Recompute player p's bit d on the first empty cell beyond p's block through ``cell``,
    on both sides, ``cell`` = (x0, y0).

    Why only those two cells: whether an empty cell e wins for p along d depends only on the run
    of p stones adjacent to e on that line. A change at ``cell`` (a p stone added or removed)
    alters that run only for the empty cell that touches the block of p stones containing (or
    ending at) ``cell`` -- one per side. The opponent's bits never change, since their runs
    never pass through an empty cell.
    """
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    stone = p + 1
    for sign in (-1, 1):
        dx = DIR_DX[d] * sign
        dy = DIR_DY[d] * sign
        x = x0 + dx
        y = y0 + dy
        while 0 <= x < w and 0 <= y < h and board[y * w + x] == stone:
            x += dx
            y += dy
        if 0 <= x < w and 0 <= y < h and board[y * w + x] == 0:
            _set_bit(params, board, wmask, info, x, y, p, d)


@njit(cache=True)
def apply_move_tracked(params, zkeys, board, info, stack, wmask, move):
    """``apply_move`` plus the incremental update of the winning-move masks.

    The win check is free here: the move wins exactly when its cell's mask for the mover is set.
    """
    p = info[I_TO_PLAY]
    won = wmask[p, move] != 0
    for q in range(2):
        if wmask[q, move] != 0:
            info[I_NWIN0 + q] -= 1
            wmask[q, move] = 0
    _place(params, zkeys, board, info, stack, move)
    _set_result(params, info, p, won)
    w = params[P_WIDTH]
    x = move % w
    y = move // w
    for d in range(4):
        _refresh_ends(params, board, wmask, info, x, y, p, d)


@njit(cache=True)
def undo_move_tracked(params, zkeys, board, info, stack, wmask):
    """``undo_move`` plus the incremental update of the winning-move masks."""
    move = undo_move(params, zkeys, board, info, stack)
    p = info[I_TO_PLAY]  # the player whose stone was removed
    w = params[P_WIDTH]
    x = move % w
    y = move // w
    for d in range(4):
        for q in range(2):
            _set_bit(params, board, wmask, info, x, y, q, d)
        _refresh_ends(params, board, wmask, info, x, y, p, d)
    return move


@njit(cache=True)
def compute_wmask(params, board, info, wmask):
    """Fill ``wmask`` and the I_NWIN counts from scratch (set-up positions)."""
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    n = params[P_N_IN_ROW]
    rule = params[P_RULE]
    info[I_NWIN0] = 0
    info[I_NWIN0 + 1] = 0
    for c in range(params[P_CELLS]):
        for p in range(2):
            m = np.uint8(0)
            if board[c] == 0:
                for d in range(4):
                    if line_wins_xy(board, w, h, n, rule, c % w, c // w, p + 1, d):
                        m |= np.uint8(1 << d)
            wmask[p, c] = m
            if m != 0:
                info[I_NWIN0 + p] += 1


@njit(cache=True)
def winning_moves(params, info, wmask, player, out):
    """Write the cells where ``player`` would win at once into ``out``; returns their count.

    A terminal position has none.
    """
    if info[I_TERMINAL] != 0 or info[I_NWIN0 + player] == 0:
        return 0
    k = 0
    for c in range(params[P_CELLS]):
        if wmask[player, c] != 0:
            out[k] = c
            k += 1
    return k


@njit(cache=True)
def renju_black(params, info):
    """True when the side to move is Black under renju (it has forbidden points)."""
    return params[P_RULE] == RULE_RENJU and info[I_TO_PLAY] == 0


@njit(cache=True)
def legal_moves(params, board, info, out):
    """Write the legal moves (empty cells, row-major) into ``out``; returns their count. Under
    renju, Black's forbidden points (``renju.py``) are not legal."""
    if info[I_TERMINAL] != 0:
        return 0
    k = 0
    if renju_black(params, info):
        w = params[P_WIDTH]
        h = params[P_HEIGHT]
        scratch = board.copy()
        for c in range(params[P_CELLS]):
            if board[c] == 0 and forbidden_reason(scratch, w, h, c) == ALLOWED:
                out[k] = c
                k += 1
        return k
    for c in range(params[P_CELLS]):
        if board[c] == 0:
            out[k] = c
            k += 1
    return k


@njit(cache=True)
def _empty_cells(params, board, info, out):
    """The empty cells into ``out`` (none when the game is over); returns their count."""
    if info[I_TERMINAL] != 0:
        return 0
    k = 0
    for c in range(params[P_CELLS]):
        if board[c] == 0:
            out[k] = c
            k += 1
    return k


@njit(cache=True)
def _legal_draw(params, board, empties, first, count, j, p):
    """``j`` if ``empties[j]`` is legal for player ``p``, else the next legal one cyclically among
    ``empties[first:count]`` (renju: Black's forbidden points are skipped, not removed -- a later
    white stone can free them); -1 when none is legal. ``board`` must be writable (a scratch)."""
    if params[P_RULE] != RULE_RENJU or p != 0:
        return j
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    left = count - first
    for t in range(left):
        jj = first + (j - first + t) % left
        if forbidden_reason(board, w, h, empties[jj]) == ALLOWED:
            return jj
    return -1


@njit(cache=True)
def random_playouts(params, zkeys, start_board, start_info, games, seed):
    """Play ``games`` random games from the given position; returns (moves played, black wins).

    Each game draws its moves uniformly among the empty cells by a lazy Fisher-Yates shuffle and
    plays until the game ends: the benchmark of the compiled path (stone, key and win check per move).
    """
    np.random.seed(seed)
    cells = params[P_CELLS]
    board = start_board.copy()
    info = start_info.copy()
    stack = np.full(cells + 1, -1, dtype=np.int32)
    empties = np.empty(cells, dtype=np.int64)
    n_empty = _empty_cells(params, start_board, start_info, empties)
    total = 0
    black_wins = 0
    for _ in range(games):
        board[:] = start_board
        info[:] = start_info
        for i in range(n_empty):
            # lazy Fisher-Yates: shuffle only as far as the game goes
            j = _legal_draw(params, board, empties, i, n_empty, np.random.randint(i, n_empty), info[I_TO_PLAY])
            if j < 0:
                break  # renju: Black has only forbidden points left; counted as a draw
            t = empties[i]
            empties[i] = empties[j]
            empties[j] = t
            apply_move(params, zkeys, board, info, stack, empties[i])
            total += 1
            if info[I_TERMINAL] != 0:
                break
        if info[I_WINNER] == 0:
            black_wins += 1
    return total, black_wins


@njit(cache=True)
def play_sequence_tracked(params, zkeys, board, info, stack, wmask, moves):
    """Play ``moves`` in order on the tracked path until the game ends; returns moves played."""
    n = 0
    for i in range(moves.shape[0]):
        apply_move_tracked(params, zkeys, board, info, stack, wmask, moves[i])
        n += 1
        if info[I_TERMINAL] != 0:
            break
    return n


@njit(cache=True)
def rollout(params, board, info, rng):
    """Finish the game on the scratch ``board`` with uniformly random moves; returns the winner
    (0 or 1) or -1 for a draw. Stones and win checks only: a rollout needs no keys, stack or
    winning-move masks.

    Moves are drawn by a lazy Fisher-Yates shuffle of the empty cells. Random numbers:
    xorshift64* (Vigna 2016) in ``rng[0]`` with Lemire's multiply-shift range reduction -- a few
    cycles per draw, where numpy's generator costs tens.
    """
    if info[I_TERMINAL] != 0:
        return info[I_WINNER]
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    n = params[P_N_IN_ROW]
    rule = params[P_RULE]
    empties = np.empty(params[P_CELLS], dtype=np.int64)
    count = _empty_cells(params, board, info, empties)
    p = info[I_TO_PLAY]
    x64 = rng[0]
    for k in range(count):
        x64 ^= x64 >> np.uint64(12)
        x64 ^= x64 << np.uint64(25)
        x64 ^= x64 >> np.uint64(27)
        r = (x64 * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)
        j = _legal_draw(params, board, empties, k, count, k + np.int64((r * np.uint64(count - k)) >> np.uint64(32)), p)
        if j < 0:
            break  # renju: Black has only forbidden points left: a draw
        c = empties[j]
        empties[j] = empties[k]
        empties[k] = c
        board[c] = p + 1
        x = c % w
        y = c // w
        for d in range(4):
            if line_wins_xy(board, w, h, n, rule, x, y, p + 1, d):
                rng[0] = x64
                return p
        p = 1 - p
    rng[0] = x64
    return -1


# --- the fast-path contract (``zeroplay.games.api.FastKernels``) ------------------------------

@njit(cache=True)
def fast_legal_moves(params, board, info, aux, out):
    return legal_moves(params, board, info, out)


@njit(cache=True)
def fast_winning_moves(params, board, info, aux, player, out):
    return winning_moves(params, info, aux, player, out)


@njit(cache=True)
def num_winning_moves(params, board, info, aux, player):
    if info[I_TERMINAL] != 0:
        return 0
    return info[I_NWIN0 + player]


KERNELS = FastKernels(
    apply=apply_move_tracked,
    undo=undo_move_tracked,
    legal_moves=fast_legal_moves,
    winning_moves=fast_winning_moves,
    num_winning_moves=num_winning_moves,
    rollout=rollout,
)
