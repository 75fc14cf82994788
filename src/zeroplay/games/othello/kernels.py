"""Compiled Othello rules (numba): apply with flips in 8 directions, exact undo, legal moves,
incremental Zobrist key, random rollouts.

Arrays follow ``zeroplay.games.layout`` and ``zeroplay.games.othello.layout``; ``KERNELS`` at the
end is what the compiled search calls. Every function assumes its move is legal: the Python
``State`` validates, the search only plays moves from ``legal_moves``.

Rules (the standard game; the World Othello Federation's rules, on any even size): a disc goes
on an empty cell that brackets, in at least one of the 8 directions, a contiguous run of the
opponent's discs against one of the mover's discs; every such run flips. A side with no such
cell passes (the pass action, legal only then). Two passes in a row, or a full board, end the
game; the side with more discs wins, equal counts draw.

Coordinates are (x, y) with x = column from the left and y = row from the top,
cell = y * width + x.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.games.api import FastKernels
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
from zeroplay.games.othello.layout import I_DISCS0, I_PASSES, NUM_DIRS, P_PASS

# E, W, S, N, SE, NW, SW, NE
DIR_DX = np.array([1, -1, 0, 0, 1, -1, -1, 1], dtype=np.int64)
DIR_DY = np.array([0, 0, 1, -1, 1, -1, 1, -1], dtype=np.int64)


@njit(cache=True, inline="always")
def _bracketed(board, w, h, x, y, d, me, opp):
    """Opponent discs that a disc ``me`` on (x, y) would flip in direction ``d`` (0 if none)."""
    dx = DIR_DX[d]
    dy = DIR_DY[d]
    n = 0
    x += dx
    y += dy
    while 0 <= x < w and 0 <= y < h:
        s = board[y * w + x]
        if s == opp:
            n += 1
        elif s == me:
            return n
        else:
            return 0
        x += dx
        y += dy
    return 0


@njit(cache=True, inline="always")
def is_placement(board, w, h, cell, me):
    """True when a disc ``me`` (1 or 2) on the empty ``cell`` flips at least one disc."""
    if board[cell] != 0:
        return False
    x = cell % w
    y = cell // w
    opp = 3 - me
    for d in range(NUM_DIRS):
        if _bracketed(board, w, h, x, y, d, me, opp) > 0:
            return True
    return False


@njit(cache=True, inline="always")
def _placements(board, w, h, cells, me, out):
    """Write the cells where ``me`` may place, ascending, into ``out``; returns their count."""
    k = 0
    for c in range(cells):
        if is_placement(board, w, h, c, me):
            out[k] = c
            k += 1
    return k


@njit(cache=True, inline="always")
def _end_game(info):
    """Mark the position over; the side with more discs wins, equal counts draw."""
    info[I_TERMINAL] = 1
    d0 = info[I_DISCS0]
    d1 = info[I_DISCS0 + 1]
    info[I_WINNER] = 0 if d0 > d1 else (1 if d1 > d0 else -1)


@njit(cache=True)
def apply_move(params, zkeys, board, info, stack, flips, action):
    """Play ``action`` (a cell or the pass) for the side to move: discs flipped, key, counts, ply,
    passes, end of game. ``flips[ply, d]`` gets the discs flipped in direction d."""
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    p = info[I_TO_PLAY]
    ply = info[I_PLY]
    stack[ply] = action
    info[I_PLY] = ply + 1
    info[I_TO_PLAY] = 1 - p
    key = info[I_KEY] ^ params[P_SIDE_KEY]
    if action == params[P_PASS]:
        for d in range(NUM_DIRS):
            flips[ply, d] = 0
        info[I_KEY] = key
        info[I_LAST] = -1
        info[I_PASSES] += 1
        if info[I_PASSES] >= 2:
            _end_game(info)
        return
    me = p + 1
    opp = 2 - p
    x0 = action % w
    y0 = action // w
    board[action] = me
    key ^= zkeys[p, action]
    flipped = 0
    for d in range(NUM_DIRS):
        n = _bracketed(board, w, h, x0, y0, d, me, opp)
        flips[ply, d] = n
        step = DIR_DY[d] * w + DIR_DX[d]
        c = action
        for _ in range(n):
            c += step
            board[c] = me
            key ^= zkeys[0, c] ^ zkeys[1, c]  # one colour out, the other in
        flipped += n
    info[I_KEY] = key
    info[I_DISCS0 + p] += 1 + flipped
    info[I_DISCS0 + 1 - p] -= flipped
    info[I_LAST] = action
    info[I_PASSES] = 0
    if info[I_DISCS0] + info[I_DISCS0 + 1] == params[P_CELLS]:
        _end_game(info)


@njit(cache=True)
def undo_move(params, zkeys, board, info, stack, flips):
    """Take back the last action played with ``apply_move``; returns it.

    Turns back exactly the discs ``flips[ply]`` recorded; the pass count before the move is 1
    when the action before it was a pass (two in a row would have ended the game). ``stack[ply]``
    and ``flips[ply]`` are cleared, so every array is as it was before the move."""
    w = params[P_WIDTH]
    pass_action = params[P_PASS]
    ply = info[I_PLY] - 1
    action = stack[ply]
    stack[ply] = -1
    p = 1 - info[I_TO_PLAY]
    info[I_PLY] = ply
    info[I_TO_PLAY] = p
    info[I_TERMINAL] = 0
    info[I_WINNER] = -1
    key = info[I_KEY] ^ params[P_SIDE_KEY]
    if action != pass_action:
        board[action] = 0
        key ^= zkeys[p, action]
        flipped = 0
        for d in range(NUM_DIRS):
            n = np.int64(flips[ply, d])
            step = DIR_DY[d] * w + DIR_DX[d]
            c = action
            for _ in range(n):
                c += step
                board[c] = 2 - p
                key ^= zkeys[0, c] ^ zkeys[1, c]
            flipped += n
            flips[ply, d] = 0
        info[I_DISCS0 + p] -= 1 + flipped
        info[I_DISCS0 + 1 - p] += flipped
    info[I_KEY] = key
    prev = stack[ply - 1] if ply > 0 else -1
    info[I_PASSES] = 1 if prev == pass_action else 0
    info[I_LAST] = prev if 0 <= prev < pass_action else -1
    return action


@njit(cache=True)
def legal_moves(params, board, info, flips, out):
    """Write the legal actions, ascending, into ``out``: the placements of the side to move, or
    the pass alone when there is none. Returns the count (0 when the game is over)."""
    if info[I_TERMINAL] != 0:
        return 0
    k = _placements(board, params[P_WIDTH], params[P_HEIGHT], params[P_CELLS], info[I_TO_PLAY] + 1, out)
    if k == 0:
        out[0] = params[P_PASS]
        k = 1
    return k


@njit(cache=True)
def winning_moves(params, board, info, aux, player, out):
    """Othello has no one-ply win to keep track of: always 0."""
    return 0


@njit(cache=True)
def num_winning_moves(params, board, info, aux, player):
    """Always 0 (see ``winning_moves``)."""
    return 0


@njit(cache=True)
def rollout(params, board, info, rng):
    """Finish the game on the scratch ``board`` with uniformly random legal moves; returns the
    winner (0 or 1) or -1 for a draw. Discs only: no keys, stack or flip counts.

    Each ply draws the empty cells in random order (a lazy Fisher-Yates shuffle) and plays the
    first that flips a disc: the first legal cell of a uniformly random order is uniform over
    the legal cells, and it is found after about empties / legal tests instead of all of them.
    Random numbers: xorshift64* (Vigna 2016) in ``rng[0]`` with Lemire's multiply-shift range
    reduction, as the other games' rollouts."""
    if info[I_TERMINAL] != 0:
        return info[I_WINNER]
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    cells = params[P_CELLS]
    empties = np.empty(cells, dtype=np.int64)
    count = 0
    for c in range(cells):
        if board[c] == 0:
            empties[count] = c
            count += 1
    p = info[I_TO_PLAY]
    passes = info[I_PASSES]
    x64 = rng[0]
    while passes < 2 and count > 0:
        me = p + 1
        found = -1
        for k in range(count):
            x64 ^= x64 >> np.uint64(12)
            x64 ^= x64 << np.uint64(25)
            x64 ^= x64 >> np.uint64(27)
            r = (x64 * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)
            j = k + np.int64((r * np.uint64(count - k)) >> np.uint64(32))
            c = empties[j]
            empties[j] = empties[k]
            empties[k] = c
            if is_placement(board, w, h, c, me):
                found = k
                break
        if found < 0:
            passes += 1
        else:
            passes = 0
            cell = empties[found]
            count -= 1
            empties[found] = empties[count]
            x0 = cell % w
            y0 = cell // w
            board[cell] = me
            for d in range(NUM_DIRS):
                n = _bracketed(board, w, h, x0, y0, d, me, 3 - me)
                step = DIR_DY[d] * w + DIR_DX[d]
                c = cell
                for _ in range(n):
                    c += step
                    board[c] = me
        p = 1 - p
    rng[0] = x64
    d0 = 0
    d1 = 0
    for c in range(cells):
        if board[c] == 1:
            d0 += 1
        elif board[c] == 2:
            d1 += 1
    return 0 if d0 > d1 else (1 if d1 > d0 else -1)


@njit(cache=True)
def perft(params, zkeys, board, info, stack, flips, depth):
    """Leaf count of the legal-move tree ``depth`` plies deep: the standard move-generator check.
    Passes count as plies; a game that ends before ``depth`` adds no leaf (chess perft's rule)."""
    if depth == 0:
        return 1
    moves = np.empty(params[P_CELLS] + 1, dtype=np.int64)
    k = legal_moves(params, board, info, flips, moves)
    if depth == 1:
        return k
    total = 0
    for i in range(k):
        apply_move(params, zkeys, board, info, stack, flips, moves[i])
        total += perft(params, zkeys, board, info, stack, flips, depth - 1)
        undo_move(params, zkeys, board, info, stack, flips)
    return total


KERNELS = FastKernels(
    apply=apply_move,
    undo=undo_move,
    legal_moves=legal_moves,
    winning_moves=winning_moves,
    num_winning_moves=num_winning_moves,
    rollout=rollout,
)
