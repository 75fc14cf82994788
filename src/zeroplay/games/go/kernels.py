"""Compiled Go rules (numba) on the arrays of ``zeroplay.games.go.layout``.

Chains and liberties by flood fill from the stones next to the move, stopping at the first
liberty found (a chain needs only "has a liberty other than this point"), so a legality test
touches a few cells on average. Order of a move (Tromp-Taylor rules, as GNU Go and KataGo
apply them): place the stone, remove the opponent's chains left without liberties, and only
then test the mover's own chain -- so a move that captures is never suicide. A single-stone
suicide is never legal; a multi-stone one only under ``SUICIDE_MULTI`` (it removes the mover's
chain, the opponent gets the prisoners).

Ko: ``KO_SIMPLE`` bans the immediate recapture of a single stone (``info[I_KO]``);
``KO_POSITIONAL`` / ``KO_SITUATIONAL`` also ban it (it recreates the board of two plies ago, with
the same side to move), and besides it any move whose resulting board occurred earlier
(situational: with the same side to move), checked exactly against the board history in
``aux``: stone counts pick the few candidate rows, then whole boards are compared. Passes are
always legal; two passes in a row end the game, as does the ply cap ``params[P_MAX_PLIES]``
(so self-play under simple ko cannot cycle for ever); the game is then scored by area
(Tromp-Taylor) or territory (empty regions reaching one colour + prisoners), komi included.

Every function taking an action assumes it is legal (``Game`` checks moves from outside).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.games.go.layout import (
    I_BAN_XOR,
    I_CAPS0,
    I_KO,
    I_PASSES,
    I_PREV1,
    I_PREV2,
    I_SCORE2,
    I_STONES0,
    KO_SIMPLE,
    KO_SITUATIONAL,
    P_KO,
    P_KOMI2,
    P_MAX_PLIES,
    P_SCORING,
    P_SUICIDE,
    SCORING_AREA,
    SUICIDE_MULTI,
    Z_BAN,
    Z_MISC,
)
from zeroplay.games.layout import I_KEY, I_LAST, I_PLY, I_TERMINAL, I_TO_PLAY, I_WINNER, P_CELLS, P_EMPTY_KEY, P_SIDE_KEY, P_WIDTH

NOT_LEGAL = 0
LEGAL = 1
LEGAL_SUICIDE = 2  # legal under SUICIDE_MULTI, and removes the mover's chain


@njit(cache=True, inline="always")
def neighbors(c, w, cells):
    """The 4 orthogonal neighbours of cell ``c`` (north, south, west, east), -1 off the board."""
    x = c % w
    north = c - w if c >= w else -1
    south = c + w if c + w < cells else -1
    west = c - 1 if x > 0 else -1
    east = c + 1 if x < w - 1 else -1
    return (north, south, west, east)


@njit(cache=True)
def chain_has_liberty(board, w, start, excluded, queue, mark):
    """True if the chain through the stone on ``start`` has an empty neighbour other than
    ``excluded`` (-1: none excluded). ``queue`` int32 (cells,) and ``mark`` uint8 (cells,, all 0)
    are scratch; ``mark`` is all 0 again on return."""
    cells = board.shape[0]
    color = board[start]
    queue[0] = start
    mark[start] = 1
    size = 1
    head = 0
    found = False
    while head < size and not found:
        c = queue[head]
        head += 1
        for nb in neighbors(c, w, cells):
            if nb < 0:
                continue
            v = board[nb]
            if v == 0:
                if nb != excluded:
                    found = True
                    break
            elif v == color and mark[nb] == 0:
                mark[nb] = 1
                queue[size] = nb
                size += 1
    for i in range(size):
        mark[queue[i]] = 0
    return found


@njit(cache=True)
def remove_chain(board, w, start, queue):
    """Empty the chain through ``start``; returns its size, its cells left in ``queue[:size]``."""
    cells = board.shape[0]
    color = board[start]
    board[start] = 0
    queue[0] = start
    size = 1
    head = 0
    while head < size:
        c = queue[head]
        head += 1
        for nb in neighbors(c, w, cells):
            if nb >= 0 and board[nb] == color:
                board[nb] = 0
                queue[size] = nb
                size += 1
    return size


@njit(cache=True)
def basic_legality(params, board, info, c, queue, mark):
    """NOT_LEGAL, LEGAL or LEGAL_SUICIDE for a stone of the side to move on cell ``c``: empty,
    not the simple-ko point, not suicide (captures first). Superko is checked separately."""
    if board[c] != 0 or c == info[I_KO]:
        return NOT_LEGAL
    w = params[P_WIDTH]
    cells = board.shape[0]
    me = info[I_TO_PLAY] + 1
    nbs = neighbors(c, w, cells)
    for nb in nbs:
        if nb >= 0 and board[nb] == 0:
            return LEGAL
    own_neighbor = False
    for nb in nbs:
        if nb < 0:
            continue
        if board[nb] == me:
            own_neighbor = True
            if chain_has_liberty(board, w, nb, c, queue, mark):
                return LEGAL
        elif not chain_has_liberty(board, w, nb, c, queue, mark):
            return LEGAL  # captures
    if own_neighbor and params[P_SUICIDE] == SUICIDE_MULTI:
        return LEGAL_SUICIDE
    return NOT_LEGAL


@njit(cache=True)
def place_stone(board, w, c, player, queue, mark, removed):
    """Put a stone of ``player`` (0/1) on ``c`` and resolve captures, then suicide.

    Cells emptied are appended to ``removed`` (int32, >= cells long). Returns (removed count,
    True if they are the mover's own chain (suicide), the last captured cell or -1).
    """
    cells = board.shape[0]
    me = player + 1
    opp = 2 - player
    board[c] = me
    count = 0
    last_captured = -1
    for nb in neighbors(c, w, cells):
        if nb >= 0 and board[nb] == opp and not chain_has_liberty(board, w, nb, -1, queue, mark):
            size = remove_chain(board, w, nb, queue)
            for i in range(size):
                removed[count + i] = queue[i]
            count += size
            last_captured = nb
    if count > 0 or chain_has_liberty(board, w, c, -1, queue, mark):
        return count, False, last_captured
    size = remove_chain(board, w, c, queue)
    for i in range(size):
        removed[i] = queue[i]
    return size, True, -1


@njit(cache=True, inline="always")
def history_counts(aux, row, cells):
    """(Black stones, White stones) of history row ``row``."""
    black = np.int64(aux[row, cells]) | (np.int64(aux[row, cells + 1]) << 8)
    white = np.int64(aux[row, cells + 2]) | (np.int64(aux[row, cells + 3]) << 8)
    return black, white


@njit(cache=True, inline="always")
def write_history(aux, row, board, black, white):
    """Store ``board`` and its stone counts as history row ``row``."""
    cells = board.shape[0]
    aux[row, :cells] = board
    aux[row, cells] = black & 0xFF
    aux[row, cells + 1] = black >> 8
    aux[row, cells + 2] = white & 0xFF
    aux[row, cells + 3] = white >> 8


@njit(cache=True)
def _repeats(params, board, info, aux, c, trial, queue, mark, removed):
    """True if the side to move's stone on ``c`` (basic-legal) recreates a history board
    (situational superko: one with the same side to move)."""
    cells = board.shape[0]
    w = params[P_WIDTH]
    ply = info[I_PLY]
    p = info[I_TO_PLAY]
    trial[:] = board
    count, suicide, _ = place_stone(trial, w, c, p, queue, mark, removed)
    mine = info[I_STONES0 + p] + 1
    theirs = info[I_STONES0 + 1 - p]
    if suicide:
        mine -= count
    else:
        theirs -= count
    black, white = (mine, theirs) if p == 0 else (theirs, mine)
    situational = params[P_KO] == KO_SITUATIONAL
    for k in range(ply + 1):
        # side to move at row k is (p + ply - k) % 2; after the move it is 1 - p
        if situational and (p + ply - k) % 2 != 1 - p:
            continue
        hb, hw = history_counts(aux, k, cells)
        if hb != black or hw != white:
            continue
        same = True
        for i in range(cells):
            if aux[k, i] != trial[i]:
                same = False
                break
        if same:
            return True
    return False


@njit(cache=True)
def superko_banned(params, board, info, aux, banned, queue, mark):
    """Mark in ``banned`` (uint8 (cells,), zeroed here) the basic-legal points that superko bans
    for the side to move; returns how many. Exact: candidates come from history rows whose stone
    counts one move could reach, each is then played out and compared with whole boards."""
    cells = board.shape[0]
    ply = info[I_PLY]
    p = info[I_TO_PLAY]
    me = p + 1
    mine = info[I_STONES0 + p]
    theirs = info[I_STONES0 + 1 - p]
    banned[:] = 0
    trial = np.empty(cells, np.int8)
    removed = np.empty(cells, np.int32)
    situational = params[P_KO] == KO_SITUATIONAL
    suicide_rows = False
    n = 0
    for k in range(ply + 1):
        if situational and (p + ply - k) % 2 != 1 - p:
            continue
        hb, hw = history_counts(aux, k, cells)
        h_mine, h_theirs = (hb, hw) if p == 0 else (hw, hb)
        if h_mine == mine + 1 and h_theirs <= theirs:
            # a non-suicide move adds exactly one stone of ours: the one point new in row k
            cand = -1
            for i in range(cells):
                if aux[k, i] == me and board[i] == 0:
                    if cand >= 0:
                        cand = -2
                        break
                    cand = i
            if cand >= 0 and banned[cand] == 0 and basic_legality(params, board, info, cand, queue, mark) != NOT_LEGAL:
                if _repeats(params, board, info, aux, cand, trial, queue, mark, removed):
                    banned[cand] = 1
                    n += 1
        elif params[P_SUICIDE] == SUICIDE_MULTI and h_theirs == theirs and h_mine <= mine - 1:
            suicide_rows = True
    if suicide_rows:
        for c in range(cells):
            if banned[c] == 0 and basic_legality(params, board, info, c, queue, mark) == LEGAL_SUICIDE:
                if _repeats(params, board, info, aux, c, trial, queue, mark, removed):
                    banned[c] = 1
                    n += 1
    return n


@njit(cache=True, inline="always")
def ban_xor(params, zkeys, board, info, aux, queue, mark):
    """XOR of the ``Z_BAN`` keys of the points ko bans for the side to move."""
    x = zkeys[Z_BAN, info[I_KO]] if info[I_KO] >= 0 else np.int64(0)
    if params[P_KO] == KO_SIMPLE:
        return x
    cells = board.shape[0]
    banned = np.empty(cells, np.uint8)
    # superko_banned skips the I_KO point (basic_legality refuses it), so it is not folded twice
    if superko_banned(params, board, info, aux, banned, queue, mark) == 0:
        return x
    for c in range(cells):
        if banned[c]:
            x ^= zkeys[Z_BAN, c]
    return x


@njit(cache=True)
def score2(params, board, info, mark, queue):
    """2 * (Black's score - White's score), komi included: area (stones + empty regions reaching
    only one colour, Tromp-Taylor) or territory (those regions + prisoners)."""
    cells = board.shape[0]
    w = params[P_WIDTH]
    if params[P_SCORING] == SCORING_AREA:
        black = info[I_STONES0]
        white = info[I_STONES0 + 1]
    else:
        black = info[I_CAPS0]
        white = info[I_CAPS0 + 1]
    for start in range(cells):
        if board[start] != 0 or mark[start]:
            continue
        mark[start] = 1
        queue[0] = start
        size = 1
        head = 0
        reaches = 0  # bit 0: Black, bit 1: White
        while head < size:
            c = queue[head]
            head += 1
            for nb in neighbors(c, w, cells):
                if nb < 0:
                    continue
                v = board[nb]
                if v == 0:
                    if mark[nb] == 0:
                        mark[nb] = 1
                        queue[size] = nb
                        size += 1
                else:
                    reaches |= v
        if reaches == 1:
            black += size
        elif reaches == 2:
            white += size
    mark[:] = 0
    return 2 * (black - white) - params[P_KOMI2]


@njit(cache=True)
def _finish(params, board, info, queue, mark):
    s = score2(params, board, info, mark, queue)
    info[I_TERMINAL] = 1
    info[I_SCORE2] = s
    info[I_WINNER] = 0 if s > 0 else (1 if s < 0 else -1)


@njit(cache=True)
def play(params, zkeys, board, info, stack, aux, action, queue, mark, removed):
    """``apply`` with caller-owned scratch: ``queue``/``removed`` int32 (cells,), ``mark`` uint8
    (cells,) all 0. Updates board, key, prisoners, ko, passes, history row, and ends and scores
    the game after two passes or at the ply cap."""
    cells = params[P_CELLS]
    w = params[P_WIDTH]
    ply = info[I_PLY]
    p = info[I_TO_PLAY]
    key = info[I_KEY] ^ info[I_BAN_XOR] ^ params[P_SIDE_KEY]
    if info[I_PASSES] == 1:
        key ^= zkeys[Z_MISC, 0]
    ko = -1
    if action == cells:
        passes = info[I_PASSES] + 1
        last = -1
    else:
        passes = 0
        last = action
        key ^= zkeys[p, action]
        count, suicide, last_captured = place_stone(board, w, action, p, queue, mark, removed)
        loser = p if suicide else 1 - p
        for i in range(count):
            key ^= zkeys[loser, removed[i]]
        if suicide:
            info[I_STONES0 + p] -= count - 1
        else:
            info[I_STONES0 + p] += 1
        info[I_STONES0 + loser] -= 0 if suicide else count
        info[I_CAPS0 + 1 - loser] += count
        if count == 1 and not suicide:
            # the capturing stone is alone with one liberty, the point just emptied: a ko
            alone = True
            liberties = 0
            for nb in neighbors(action, w, cells):
                if nb >= 0:
                    if board[nb] == p + 1:
                        alone = False
                    elif board[nb] == 0:
                        liberties += 1
            if alone and liberties == 1:
                ko = last_captured
    info[I_PREV2] = info[I_PREV1]
    info[I_PREV1] = stack[ply - 1] if ply >= 1 else -1
    stack[ply] = action
    ply += 1
    info[I_PLY] = ply
    info[I_TO_PLAY] = 1 - p
    info[I_LAST] = last
    info[I_PASSES] = passes
    info[I_KO] = ko
    write_history(aux, ply, board, info[I_STONES0], info[I_STONES0 + 1])
    if passes == 1:
        key ^= zkeys[Z_MISC, 0]
    ban = np.int64(0)
    if passes >= 2 or ply >= params[P_MAX_PLIES]:
        _finish(params, board, info, queue, mark)
    else:
        ban = ban_xor(params, zkeys, board, info, aux, queue, mark)
    info[I_BAN_XOR] = ban
    info[I_KEY] = key ^ ban


@njit(cache=True, inline="always")
def apply(params, zkeys, board, info, stack, aux, action):
    """Play the legal ``action`` (a cell, or ``cells`` for pass) in place (fast-path contract)."""
    cells = params[P_CELLS]
    play(params, zkeys, board, info, stack, aux, action, np.empty(cells, np.int32),
         np.zeros(cells, np.uint8), np.empty(cells, np.int32))


@njit(cache=True)
def refresh(params, zkeys, board, info, aux):
    """Recompute the key, ko bans and (if the game is over) the score of ``board`` / ``info``
    from scratch; ``info``'s to-play, ply, passes, ko point and stone counts must be right."""
    cells = params[P_CELLS]
    queue = np.empty(cells, np.int32)
    mark = np.zeros(cells, np.uint8)
    key = params[P_EMPTY_KEY]
    for c in range(cells):
        if board[c] != 0:
            key ^= zkeys[board[c] - 1, c]
    if info[I_TO_PLAY] == 1:
        key ^= params[P_SIDE_KEY]
    if info[I_PASSES] == 1:
        key ^= zkeys[Z_MISC, 0]
    info[I_TERMINAL] = 0
    info[I_WINNER] = -1
    info[I_SCORE2] = 0
    ban = np.int64(0)
    if info[I_PASSES] >= 2 or info[I_PLY] >= params[P_MAX_PLIES]:
        _finish(params, board, info, queue, mark)
    else:
        ban = ban_xor(params, zkeys, board, info, aux, queue, mark)
    info[I_BAN_XOR] = ban
    info[I_KEY] = key ^ ban


@njit(cache=True)
def undo(params, zkeys, board, info, stack, aux):
    """Take back the last action (from the history rows) and return it.

    Raises ValueError at the start position or before a set-up position (no record there)."""
    ply = info[I_PLY]
    if ply == 0 or stack[ply - 1] < 0:
        raise ValueError("no move to take back")
    cells = params[P_CELLS]
    w = params[P_WIDTH]
    action = stack[ply - 1]
    p = 1 - info[I_TO_PLAY]  # who played it
    board[:] = aux[ply - 1, :cells]
    before = history_counts(aux, ply - 1, cells)
    after = history_counts(aux, ply, cells)
    if action != cells:
        captured = before[1 - p] - after[1 - p]
        own_removed = before[p] + 1 - after[p]
        info[I_CAPS0 + p] -= captured
        if captured == 0:
            info[I_CAPS0 + 1 - p] -= own_removed
    info[I_STONES0] = before[0]
    info[I_STONES0 + 1] = before[1]
    info[I_PLY] = ply - 1
    info[I_TO_PLAY] = p
    passes = 0
    k = ply - 2
    while k >= 0 and stack[k] == cells:
        passes += 1
        k -= 1
    info[I_PASSES] = passes
    prev = stack[ply - 2] if ply >= 2 else -1
    info[I_LAST] = prev if 0 <= prev < cells else -1
    info[I_PREV1] = stack[ply - 3] if ply >= 3 else -1
    info[I_PREV2] = stack[ply - 4] if ply >= 4 else -1
    info[I_KO] = -1
    if 0 <= prev < cells and board[prev] != 0:
        # was the move before it a single-stone capture making a ko? (same test as ``play``)
        emptied = -1
        n_emptied = 0
        for c in range(cells):
            if aux[ply - 2, c] != 0 and board[c] == 0:
                emptied = c
                n_emptied += 1
        if n_emptied == 1 and aux[ply - 2, emptied] != board[prev]:
            alone = True
            liberties = 0
            for nb in neighbors(prev, w, cells):
                if nb >= 0:
                    if board[nb] == board[prev]:
                        alone = False
                    elif board[nb] == 0:
                        liberties += 1
            if alone and liberties == 1:
                info[I_KO] = emptied
    refresh(params, zkeys, board, info, aux)
    return action


@njit(cache=True)
def legal_moves(params, board, info, aux, out):
    """Legal actions ascending into ``out`` (int64, >= cells + 1), pass (= cells) last; returns
    the count, 0 when the game is over."""
    if info[I_TERMINAL] != 0:
        return 0
    cells = params[P_CELLS]
    w = params[P_WIDTH]
    queue = np.empty(cells, np.int32)
    mark = np.zeros(cells, np.uint8)
    banned = np.zeros(cells, np.uint8)
    if params[P_KO] != KO_SIMPLE:
        superko_banned(params, board, info, aux, banned, queue, mark)
    ko = info[I_KO]
    n = 0
    x = 0  # c's column, kept by counting: a division per point was a visible share of the search
    for c in range(cells):
        if board[c] == 0 and c != ko and banned[c] == 0:
            # an empty neighbour makes the point legal (most points of most positions), tested
            # inline: basic_legality's call and neighbour tuple per point made this 6x slower
            if ((c >= w and board[c - w] == 0) or (c + w < cells and board[c + w] == 0)
                    or (x > 0 and board[c - 1] == 0) or (x < w - 1 and board[c + 1] == 0)):
                out[n] = c
                n += 1
            elif basic_legality(params, board, info, c, queue, mark) != NOT_LEGAL:
                out[n] = c
                n += 1
        x += 1
        if x == w:
            x = 0
    out[n] = cells
    return n + 1


@njit(cache=True)
def winning_moves(params, board, info, aux, player, out):
    """Go has no move that wins at once: always 0 (fast-path contract)."""
    return 0


@njit(cache=True)
def num_winning_moves(params, board, info, aux, player):
    """Always 0 (see ``winning_moves``)."""
    return 0
