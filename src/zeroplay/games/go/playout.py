"""Compiled Go loops built on the rules kernels: perft and random playouts.

``random_game`` is the playout policy of the classic Monte-Carlo Go programs (Bruegmann 1993,
Gelly et al.'s MoGo 2006 without patterns): uniformly random legal points, never filling one of
the mover's own eyes, passing when nothing else is left.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.games.go.kernels import (
    LEGAL,
    NOT_LEGAL,
    basic_legality,
    chain_has_liberty,
    neighbors,
    place_stone,
    play,
    score2,
    superko_banned,
)
from zeroplay.games.go.layout import I_CAPS0, I_KO, I_PASSES, I_SCORE2, I_STONES0, KO_SIMPLE, P_KO, P_MAX_PLIES
from zeroplay.games.layout import I_LAST, I_PLY, I_TERMINAL, I_TO_PLAY, I_WINNER, P_CELLS, P_WIDTH


@njit(cache=True)
def is_own_eye(board, w, c, me):
    """True if empty ``c`` is an eye of ``me`` (1/2): every neighbour is ``me``'s, and the
    opponent holds fewer than 2 of its diagonal points (fewer than 1 on the edge)."""
    cells = board.shape[0]
    for nb in neighbors(c, w, cells):
        if nb >= 0 and board[nb] != me:
            return False
    x = c % w
    y = c // w
    h = cells // w
    opponent = 0
    off = 0
    for dx, dy in ((-1, -1), (1, -1), (-1, 1), (1, 1)):
        nx = x + dx
        ny = y + dy
        if nx < 0 or ny < 0 or nx >= w or ny >= h:
            off = 1
        elif board[ny * w + nx] == 3 - me:
            opponent += 1
    return opponent + off < 2


@njit(cache=True)
def is_self_atari(board, w, c, me, queue, mark):
    """True if a stone of ``me`` (1/2) on empty ``c`` would leave a chain of 2 or more stones
    with one liberty, capturing nothing. Playouts that refuse such moves keep a seki standing
    (filling a shared liberty is one), as Fuego's and Pachi's do; single stones stay allowed
    (throw-ins, nakade). ``queue`` and ``mark`` are scratch; ``mark`` is all 0 again on return."""
    cells = board.shape[0]
    board[c] = me
    result = False
    captures = False
    for nb in neighbors(c, w, cells):
        if nb >= 0 and board[nb] == 3 - me and not chain_has_liberty(board, w, nb, -1, queue, mark):
            captures = True
            break
    if not captures:
        queue[0] = c
        mark[c] = 1
        size = 1
        head = 0
        liberty = -1
        two = False
        while head < size:
            x = queue[head]
            head += 1
            for nb in neighbors(x, w, cells):
                if nb < 0:
                    continue
                v = board[nb]
                if v == 0:
                    if liberty < 0:
                        liberty = nb
                    elif nb != liberty:
                        two = True
                elif v == me and mark[nb] == 0:
                    mark[nb] = 1
                    queue[size] = nb
                    size += 1
        for i in range(size):
            mark[queue[i]] = 0
        result = size >= 2 and not two
    board[c] = 0
    return result


@njit(cache=True)
def _playout_arrays(params, board):
    """Scratch arrays of a random playout: ``(queue, mark, removed, banned, empties, where,
    n_empty)``; ``empties[:n_empty]`` int64 lists the empty points of ``board`` in no order and
    ``where`` int64 (cells,) gives each one's index there (-1: not empty). ``queue``, ``mark``
    and ``removed`` are the rules kernels' work space; ``banned`` uint8 (cells,) holds superko
    bans (all zero: nothing banned)."""
    cells = params[P_CELLS]
    queue = np.empty(cells, np.int32)
    mark = np.zeros(cells, np.uint8)
    removed = np.empty(cells, np.int32)
    banned = np.zeros(cells, np.uint8)
    empties = np.empty(cells, np.int64)
    where = np.full(cells, -1, np.int64)
    n_empty = 0
    for c in range(cells):
        if board[c] == 0:
            where[c] = n_empty
            empties[n_empty] = c
            n_empty += 1
    return queue, mark, removed, banned, empties, where, n_empty


@njit(cache=True, inline="always")  # inlined: a call per move cost the rollouts speed
def _draw_move(params, board, info, empties, where, n_empty, superko, banned, queue, mark, keep_seki):
    """A uniformly random legal point of ``empties[:n_empty]`` for the side to move that fills
    none of its own eyes (and, when ``superko``, is not ``banned``; when ``keep_seki``, is no
    self-atari: ``is_self_atari``); ``cells`` (a pass) when there is none. Draws without
    replacement: the tried points rotate to the end of the list."""
    cells = params[P_CELLS]
    w = params[P_WIDTH]
    me = info[I_TO_PLAY] + 1
    untried = n_empty
    while untried > 0:
        i = np.random.randint(untried)
        c = empties[i]
        untried -= 1
        other = empties[untried]
        empties[i] = other
        where[other] = i
        empties[untried] = c
        where[c] = untried
        if (superko and banned[c] != 0) or is_own_eye(board, w, c, me):
            continue
        if basic_legality(params, board, info, c, queue, mark) != NOT_LEGAL:
            if keep_seki and is_self_atari(board, w, c, me, queue, mark):
                continue
            return c
    return cells


@njit(cache=True, inline="always")  # inlined: a call per move cost the rollouts speed
def _update_empties(empties, where, n_empty, action, removed, count):
    """The empty-point list after a stone on ``action`` captured ``removed[:count]`` (a suicide's
    own stones included); returns the new ``n_empty``."""
    i = where[action]
    n_empty -= 1
    last = empties[n_empty]
    empties[i] = last
    where[last] = i
    where[action] = -1
    for k in range(count):
        c = removed[k]
        where[c] = n_empty
        empties[n_empty] = c
        n_empty += 1
    return n_empty


@njit(cache=True)
def random_game(params, zkeys, board, info, stack, aux, seed, keep_seki=False):
    """Play random moves (no own-eye filling, pass when none is left) to the end of the game, in
    place; returns the number of actions played. With ``keep_seki`` no move is a self-atari of 2
    or more stones (``is_self_atari``): the end keeps a seki (dead-stone estimates). Superko
    rules are checked exactly through the ordinary ``play`` (slower); simple ko costs nothing
    extra.

    The empty points are kept in a list updated per move (the stone placed leaves it, captured
    stones join it), so a move costs no scan of the board."""
    np.random.seed(seed)
    cells = params[P_CELLS]
    queue, mark, removed, banned, empties, where, n_empty = _playout_arrays(params, board)
    superko = params[P_KO] != KO_SIMPLE
    played = 0
    while info[I_TERMINAL] == 0:
        p = info[I_TO_PLAY]
        if superko:
            superko_banned(params, board, info, aux, banned, queue, mark)
        action = _draw_move(params, board, info, empties, where, n_empty, superko, banned, queue, mark, keep_seki)
        mine = info[I_STONES0 + p]
        theirs = info[I_STONES0 + 1 - p]
        play(params, zkeys, board, info, stack, aux, action, queue, mark, removed)
        played += 1
        if action == cells:
            continue
        count = theirs - info[I_STONES0 + 1 - p]
        if count == 0:
            count = mine + 1 - info[I_STONES0 + p]  # a suicide: the stone placed is among them
        n_empty = _update_empties(empties, where, n_empty, action, removed, count)
    return played


@njit(cache=True)
def light_random_game(params, board, info, seed):
    """``random_game`` for a playout whose end is all that counts: the same moves for the same
    seed under simple ko (superko is relaxed to simple ko), without the Zobrist key, the history
    row, the move stack or the ban key per move. ``board`` and ``info``'s side to move, ply,
    passes, ko point, stone and prisoner counts are kept, and the end is scored as ``play`` scores
    it (``info`` terminal, winner, score), so only the key and the history fields are stale.
    Returns the number of actions played. About 1.4x the moves per second of ``random_game``
    (docs/BENCHMARKS.md)."""
    np.random.seed(seed)
    cells = params[P_CELLS]
    w = params[P_WIDTH]
    queue, mark, removed, banned, empties, where, n_empty = _playout_arrays(params, board)
    played = 0
    if info[I_TERMINAL] != 0:
        return 0
    while True:
        p = info[I_TO_PLAY]
        me = p + 1
        action = _draw_move(params, board, info, empties, where, n_empty, False, banned, queue, mark, False)
        played += 1
        info[I_PLY] += 1
        info[I_TO_PLAY] = 1 - p
        info[I_KO] = -1
        if action == cells:
            info[I_PASSES] += 1
            info[I_LAST] = -1
        else:
            info[I_PASSES] = 0
            info[I_LAST] = action
            count, suicide, last_captured = place_stone(board, w, action, p, queue, mark, removed)
            loser = p if suicide else 1 - p
            if suicide:
                info[I_STONES0 + p] -= count - 1
            else:
                info[I_STONES0 + p] += 1
                info[I_STONES0 + loser] -= count
            info[I_CAPS0 + 1 - loser] += count
            if count == 1 and not suicide:  # the same ko test as ``play``
                alone = True
                liberties = 0
                for nb in neighbors(action, w, cells):
                    if nb >= 0:
                        if board[nb] == me:
                            alone = False
                        elif board[nb] == 0:
                            liberties += 1
                if alone and liberties == 1:
                    info[I_KO] = last_captured
            n_empty = _update_empties(empties, where, n_empty, action, removed, count)
        if info[I_PASSES] >= 2 or info[I_PLY] >= params[P_MAX_PLIES]:
            s2 = score2(params, board, info, mark, queue)
            info[I_TERMINAL] = 1
            info[I_SCORE2] = s2
            info[I_WINNER] = 0 if s2 > 0 else (1 if s2 < 0 else -1)
            return played


@njit(cache=True)
def random_game_score2(params, zkeys, board, info, stack, aux, seed):
    """``random_game`` and then the final 2 * (Black - White) score, komi included."""
    random_game(params, zkeys, board, info, stack, aux, seed)
    return info[I_SCORE2]


@njit(cache=True)
def perft(params, zkeys, board, info, stack, aux, depth):
    """Count the sequences of ``depth`` stone moves (no passes, no suicide) from the position;
    simple ko only (the history is not consulted). Depth-first with an explicit stack of copied
    positions (numba's cache mishandles recursive functions)."""
    cells = params[P_CELLS]
    boards = np.empty((depth + 1, cells), np.int8)
    infos = np.empty((depth + 1, info.shape[0]), np.int64)
    next_cell = np.zeros(depth + 1, np.int64)
    boards[0] = board
    infos[0] = info
    stack = stack.copy()
    aux = aux.copy()
    queue = np.empty(cells, np.int32)
    mark = np.zeros(cells, np.uint8)
    removed = np.empty(cells, np.int32)
    total = 0
    level = 0
    while level >= 0:
        c = next_cell[level]
        if c >= cells:
            level -= 1
            continue
        next_cell[level] = c + 1
        if basic_legality(params, boards[level], infos[level], c, queue, mark) != LEGAL:
            continue
        if level == depth - 1:
            total += 1
            continue
        boards[level + 1] = boards[level]
        infos[level + 1] = infos[level]
        play(params, zkeys, boards[level + 1], infos[level + 1], stack, aux, c, queue, mark, removed)
        level += 1
        next_cell[level] = 0
    return total


@njit(cache=True)
def rollout(params, board, info, rng):
    """The fast-path ``rollout``: finish the game on the scratch ``board`` / ``info`` as
    ``random_game`` plays it and return the winner (0, 1) or -1 for a draw, by the game's
    scoring and komi. Keys are not kept, and superko is relaxed to simple ko (a rollout has no
    history). Random numbers: xorshift64* (Vigna 2016) in ``rng[0]`` seeds the playout, played
    by ``light_random_game``."""
    if info[I_TERMINAL] != 0:
        return info[I_WINNER]
    local = params.copy()
    local[P_KO] = KO_SIMPLE
    x64 = rng[0]
    x64 ^= x64 >> np.uint64(12)
    x64 ^= x64 << np.uint64(25)
    x64 ^= x64 >> np.uint64(27)
    rng[0] = x64
    seed = np.int64((x64 * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(33))
    light_random_game(local, board, info, seed)
    return info[I_WINNER]
