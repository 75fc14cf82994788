"""Compiled proof-number search (PNS, Allis 1994) over Gomoku threat sequences: the VCT solver.

The tree is an AND/OR tree for the attacker A (the side to move at the root) against the
defender D. OR nodes: A to move. AND nodes: D to move, after A's move. Every node carries a
proof number ``pn`` (how many leaves must still be proven to prove it) and a disproof number
``dn``; proven: pn = 0, disproven: dn = 0. OR: pn = min over children, dn = sum; AND: pn = sum,
dn = min. Each iteration descends from the root to the most-proving leaf (OR: the child of least
pn, AND: the child of least dn, first on ties), expands it, and backs the numbers up to the
root, playing and undoing the moves on the tracked fast-path position.

Expanding an OR node (A to move):
  1. A has a winning cell: proven (the five).
  2. D has two or more winning cells: disproven.
  3. A VCF (``vcf_kernels.vcf_search``, budget ``K_VCF_NODES``): proven when found.
  4. A has used all its threats (``used >= K_MAX_THREATS``): disproven (fours only, and the VCF
     above did not find one).
  5. D has exactly one winning cell c (a four of D's): one child, A's block at c, marked forced.
  6. Otherwise a child per candidate: every empty cell in a window of n cells with no D stone and
     at least n - 3 A stones (n - 4 with ``K_WIDE``): A's fours and the moves that make threes,
     best first (``vcf_kernels.scan_windows`` scores).

Expanding an AND node (D to move, after A's move t):
  1. The game is over: proven when A won, else disproven; D has a winning cell: disproven (t did
     not block D's five).
  2. A has two or more winning cells (open four, double four): proven.
  3. A has one winning cell w (t is a four): one child, D's block at w (any other D move loses to
     the five at w; D has no five).
  4. t is no four: D passes in thought and A looks for a VCF S (budget ``K_THREAT_NODES``).
     Found: t is a *threat*; the children are ``vcf_kernels.threat_defences``: every cell of S and
     every cell where D makes a four along S. Any other D move x leaves S a winning VCF (the
     argument is in ``threat_defences``), so x loses and needs no search: the set is sound.
     Not found: when t was a forced block (step 5 above) and ``K_QUIET`` is on, D has a free
     move: every empty cell is a child; else t is no threat and the node is disproven.
     With ``K_ZONE`` the free move's first child is D's pass (F_FREE; searched alone first):
     once the pass is proven, every reply outside its proof's zone is settled by that proof
     (F_ZONE; ``_zone_walk`` says why that holds), the others are searched.
  A threat costs one of A's ``K_MAX_THREATS`` (fours cost none: a run of fours is one move, as in
  the puzzles' "win in 3"; a forced block that is itself a threat costs none either; a forced
  quiet block costs one).

Soundness. A proof rests only on: fives; open/double fours when D has no five; VCFs found by
``vcf_search`` (each a valid VCF); AND nodes whose children are every D move except those shown
to lose (forced blocks of a four, moves outside a threat's defence set, free moves outside the
pass proof's zone). Disproofs and "not found" are heuristic (the move generation is restricted):
they prove nothing, and the search never reports them as facts.

Transpositions. A proven or disproven node is recorded in a small hash table (key = the
position's Zobrist key, side to move included, value = the node). A node expanded later at the
same position takes the proof (``F_LINK``, ``link`` = the proven node; its subtree is the proof)
or, with at least as many threats used, the disproof.

Memory: ``PnsTree`` is struct-of-arrays, one slot per node (about 40 bytes), preallocated; the
search stops (ABORTED) when the node pool or the work budget is spent.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from zeroplay.games.gomoku.kernels import apply_move_tracked, undo_move_tracked
from zeroplay.games.gomoku.layout import I_NWIN0, P_N_IN_ROW
from zeroplay.games.layout import I_KEY, I_TERMINAL, I_TO_PLAY, I_WINNER, P_CELLS, P_SIDE_KEY
from zeroplay.solvers.vcf_kernels import (
    ABORTED,
    FOUND,
    NOT_FOUND,
    all_replies,
    first_win_cell,
    illegal_for,
    scan_windows,
    threat_defences,
    vcf_search,
)

INF = 1 << 40
"""Proof / disproof number of a settled node (the other number is 0)."""

# PnsTree.flags bits
F_FORCED = 1  # AND node: A's move was the forced block of D's only winning cell
F_VCF = 2  # OR node proven by its own VCF (re-searched for the line)
F_LINK = 4  # settled by the transposition table: ``link`` is the node settled at this position
F_DOUBLE = 8  # AND node proven because A has two or more winning cells
F_FIVE = 16  # OR node proven because A has a winning cell
F_FREE = 32  # AND node where D has a free move: its first child is D's pass (move PASS)
F_ZONED = 64  # F_FREE node whose pass child is settled (its zone applied, or the pass disproven)
F_ZONE = 128  # OR node proven by the zone rule: ``link`` is the pass child whose proof holds here

PASS = -2
"""``PnsTree.move`` of a pass child: D passes (in thought) at a free move."""

# PnsTree.counters fields
K_NODES = 0  # work done: PNS expansions plus the nodes of every VCF search they ran
K_BUDGET = 1  # work budget of the whole search
K_NEXT = 2  # next free node slot
K_VCF_NODES = 3  # budget of the VCF tried at each OR node
K_THREAT_NODES = 4  # budget of the VCF that tests a threat (D passes)
K_MAX_THREATS = 5  # non-four threats A may play on a line
K_MAX_PLIES = 6  # longest VCF line looked for
K_WIDE = 7  # 1: threat candidates from windows with n - 4 A stones too
K_QUIET = 8  # 1: after a forced block that is no threat, every D reply is searched
K_EXPANDED = 9  # nodes expanded
K_ITERATIONS = 10  # descents from the root
K_EAGER_NODES = 11  # budget of the VCF that settles a new D reply at once (0: off)
K_RANK_WEIGHT = 12  # a new A candidate of rank i starts with pn = 1 + i * this / 4
K_ZONE = 13  # 1: free moves are refuted by the pass proof's zone (2: a deliberately unsound zone, tests)
K_ZONED = 14  # free moves settled by a zone (D replies that needed no search)
K_ZONE_FAILS = 15  # pass proofs whose zone could not be used (a nested zone, a VCF not found again)
K_STOP = 16  # set to 1 from another thread (a deadline's timer): the search returns ABORTED at its next descent
COUNTERS_SIZE = 17

ROOT = 0

FOUR_PENALTY = 1
"""Added to the proof number of a D node with a single (forced) reply, per node: without it a
run of fours keeps pn = 1 however long, and the search dives into four sequences forever."""


class PnsTree(NamedTuple):
    """Node pool of one proof-number search (N nodes, H hash slots, L path levels).

    Attributes:
        pn, dn: int64 (N,) proof and disproof numbers (see the module docstring).
        parent: int32 (N,) parent node, -1 at the root.
        first: int32 (N,) first child (children are contiguous), -1 while not expanded.
        count: int32 (N,) number of children.
        move: int32 (N,) the move (cell) that leads from the parent to this node.
        used: int32 (N,) A's non-four threats played on the path down to this node.
        flags: int16 (N,) F_* bits.
        link: int32 (N,) with F_LINK: the node settled earlier at the same position; with
            F_ZONE: the pass child whose proof holds at this node.
        path: int32 (L,) scratch: the nodes of the current descent.
        tt_key: int64 (H,) transposition table keys (0 = empty slot).
        tt_node: int32 (H,) the settled node of each key.
        zone: int8 (C,) scratch: the zone of a pass proof (1 = a cell the proof depends on).
        walk_node, walk_next, walk_end: int32 (L,) scratch: the explicit stack of the zone walk.
        counters: int64 (COUNTERS_SIZE,) see the K_* fields.
    """

    pn: np.ndarray
    dn: np.ndarray
    parent: np.ndarray
    first: np.ndarray
    count: np.ndarray
    move: np.ndarray
    used: np.ndarray
    flags: np.ndarray
    link: np.ndarray
    path: np.ndarray
    tt_key: np.ndarray
    tt_node: np.ndarray
    zone: np.ndarray
    walk_node: np.ndarray
    walk_next: np.ndarray
    walk_end: np.ndarray
    counters: np.ndarray


def new_pns_tree(capacity: int, cells: int, tt_bits: int = 20) -> PnsTree:
    """A node pool of ``capacity`` nodes for a board of ``cells`` cells, 2^tt_bits hash slots."""
    capacity = max(int(capacity), 2)
    return PnsTree(
        pn=np.zeros(capacity, np.int64),
        dn=np.zeros(capacity, np.int64),
        parent=np.full(capacity, -1, np.int32),
        first=np.full(capacity, -1, np.int32),
        count=np.zeros(capacity, np.int32),
        move=np.full(capacity, -1, np.int32),
        used=np.zeros(capacity, np.int32),
        flags=np.zeros(capacity, np.int16),
        link=np.full(capacity, -1, np.int32),
        path=np.zeros(cells + 2, np.int32),
        tt_key=np.zeros(1 << tt_bits, np.int64),
        tt_node=np.full(1 << tt_bits, -1, np.int32),
        zone=np.zeros(cells, np.int8),
        walk_node=np.zeros(cells + 2, np.int32),
        walk_next=np.zeros(cells + 2, np.int32),
        walk_end=np.zeros(cells + 2, np.int32),
        counters=np.zeros(COUNTERS_SIZE, np.int64),
    )


@njit(cache=True, inline="always")
def _null_move(params, info):
    """D passes (in thought): the other side is to move, same stones (key updated)."""
    info[I_TO_PLAY] = 1 - info[I_TO_PLAY]
    info[I_KEY] ^= params[P_SIDE_KEY]


@njit(cache=True, inline="always")
def _settle(tree, n, proven):
    if proven:
        tree.pn[n] = 0
        tree.dn[n] = INF
    else:
        tree.pn[n] = INF
        tree.dn[n] = 0


@njit(cache=True)
def _tt_find(tree, key):
    """Slot of ``key`` in the hash table, or -1 (linear probing over 8 slots)."""
    mask = tree.tt_key.shape[0] - 1
    h = (key ^ (key >> 29)) & mask
    for i in range(8):
        s = (h + i) & mask
        k = tree.tt_key[s]
        if k == key:
            return s
        if k == 0:
            return -1
    return -1


@njit(cache=True)
def _tt_store(tree, key, n):
    mask = tree.tt_key.shape[0] - 1
    h = (key ^ (key >> 29)) & mask
    for i in range(8):
        s = (h + i) & mask
        k = tree.tt_key[s]
        if k == key or k == 0:
            tree.tt_key[s] = key
            tree.tt_node[s] = n
            return
    tree.tt_key[h] = key  # all 8 slots taken: replace the first
    tree.tt_node[h] = n


@njit(cache=True)
def _new_children(tree, n, k):
    """Allocate ``k`` children of ``n`` (pn = dn = 1); returns the first index, -1 when full."""
    cnt = tree.counters
    first = cnt[K_NEXT]
    if first + k > tree.pn.shape[0]:
        return -1
    cnt[K_NEXT] = first + k
    for i in range(first, first + k):
        tree.pn[i] = 1
        tree.dn[i] = 1
        tree.parent[i] = n
        tree.first[i] = -1
        tree.count[i] = 0
        tree.used[i] = tree.used[n]
        tree.flags[i] = 0
        tree.link[i] = -1
    tree.first[n] = first
    tree.count[n] = k
    return first


@njit(cache=True)
def _expand(params, zkeys, board, info, stack, wmask, work, vw, tt, tree, n, a):
    """Expand node ``n`` (its position is on the board). Returns False when the pool is full."""
    cnt = tree.counters
    cnt[K_EXPANDED] += 1
    cnt[K_NODES] += 1
    d = 1 - a
    key = info[I_KEY]
    s = _tt_find(tree, key)
    if s >= 0:
        m = tree.tt_node[s]
        if tree.pn[m] == 0:
            _settle(tree, n, True)
            tree.flags[n] |= F_LINK
            tree.link[n] = m
            return True
        if tree.dn[m] == 0 and tree.used[m] <= tree.used[n]:
            _settle(tree, n, False)
            return True
    if info[I_TO_PLAY] == a:
        # OR node
        if info[I_TERMINAL] != 0:
            _settle(tree, n, False)  # D's move ended the game (a five, or the board is full)
            return True
        if info[I_NWIN0 + a] > 0:
            _settle(tree, n, True)
            tree.flags[n] |= F_FIVE
            return True
        nd = info[I_NWIN0 + d]
        if nd >= 2:
            _settle(tree, n, False)
            return True
        budget = min(cnt[K_VCF_NODES], max(cnt[K_BUDGET] - cnt[K_NODES], 1))
        res, _length, used = vcf_search(params, zkeys, board, info, stack, wmask, work, tt, cnt[K_MAX_PLIES],
                                        budget)
        cnt[K_NODES] += used
        if res == FOUND:
            _settle(tree, n, True)
            tree.flags[n] |= F_VCF
            _tt_store(tree, key, n)
            return True
        if tree.used[n] >= cnt[K_MAX_THREATS]:
            _settle(tree, n, False)
            _tt_store(tree, key, n)
            return True
        if nd == 1 and illegal_for(params, board, a, first_win_cell(params, wmask, d)):
            _settle(tree, n, False)  # renju: Black cannot block on a forbidden point
            _tt_store(tree, key, n)
            return True
        if nd == 1:
            first = _new_children(tree, n, 1)
            if first < 0:
                return False
            tree.move[first] = first_win_cell(params, wmask, d)
            tree.flags[first] = F_FORCED
        else:
            nn = params[P_N_IN_ROW]
            scan_windows(params, board, a, work.score, work, max(nn - 3 - cnt[K_WIDE], 0))
            cand = vw.tmp
            k = 0
            for c in range(params[P_CELLS]):
                sc = work.score[c]
                if sc > 0 and board[c] == 0 and not illegal_for(params, board, a, c):
                    j = k
                    while j > 0 and work.score[cand[j - 1]] < sc:
                        cand[j] = cand[j - 1]
                        j -= 1
                    cand[j] = c
                    k += 1
            if k == 0:
                _settle(tree, n, False)
                _tt_store(tree, key, n)
                return True
            first = _new_children(tree, n, k)
            if first < 0:
                return False
            for i in range(k):
                tree.move[first + i] = cand[i]
                tree.pn[first + i] = 1 + i * cnt[K_RANK_WEIGHT] // 4  # the move order, as a cost
        _update(tree, n, True)
        return True
    # AND node: D to move after A's move
    if info[I_TERMINAL] != 0:
        _settle(tree, n, info[I_WINNER] == a)
        return True
    if info[I_NWIN0 + d] > 0:
        _settle(tree, n, False)  # D plays its five
        return True
    na = info[I_NWIN0 + a]
    if na >= 2:
        _settle(tree, n, True)
        tree.flags[n] |= F_DOUBLE
        _tt_store(tree, key, n)
        return True
    if na == 1 and illegal_for(params, board, d, first_win_cell(params, wmask, a)):
        # renju: Black's block is a forbidden point. White wins there, but a proof would need a
        # Black move in its line: the node is given up (a disproof proves nothing)
        _settle(tree, n, False)
        return True
    if na == 1:
        first = _new_children(tree, n, 1)
        if first < 0:
            return False
        tree.move[first] = first_win_cell(params, wmask, a)
        tree.pn[n] = 1
        tree.dn[n] = 1
        return True
    forced = (tree.flags[n] & F_FORCED) != 0
    _null_move(params, info)
    budget = min(cnt[K_THREAT_NODES], max(cnt[K_BUDGET] - cnt[K_NODES], 1))
    res, length, used = vcf_search(params, zkeys, board, info, stack, wmask, work, tt, cnt[K_MAX_PLIES], budget)
    cnt[K_NODES] += used
    k = 0
    if res == FOUND:
        k = threat_defences(params, zkeys, board, info, stack, wmask, work, vw, 0, work.line, length)
    _null_move(params, info)
    cost = 0 if forced else 1
    free = False
    if res != FOUND:
        if forced and cnt[K_QUIET] != 0:
            k = all_replies(params, board, d, work, vw, 0)
            cost = 1
            free = cnt[K_ZONE] != 0
        else:
            _settle(tree, n, False)
            _tt_store(tree, key, n)
            return True
    if k == 0:
        _settle(tree, n, True)  # cannot happen (S has cells); kept as a guard
        return True
    if free:
        # D's free move: first D's pass, alone; once the pass is proven, every reply outside
        # the pass proof's zone is settled by it (``_apply_zone``), the others are searched
        first = _new_children(tree, n, k + 1)
        if first < 0:
            return False
        tree.move[first] = PASS
        for i in range(k):
            tree.move[first + 1 + i] = vw.defs[0, i]
        for i in range(first, first + k + 1):
            tree.used[i] = tree.used[n] + cost
        tree.flags[n] |= F_FREE
        _update(tree, n, False)
        return True
    first = _new_children(tree, n, k)
    if first < 0:
        return False
    for i in range(k):
        tree.move[first + i] = vw.defs[0, i]
        tree.used[first + i] = tree.used[n] + cost
    # immediate evaluation: replies that lose to a five or a short VCF are settled now, so that
    # the node's proof number counts only the replies that need a search
    pn = 0
    for i in range(first, first + k):
        if cnt[K_EAGER_NODES] > 0:
            _eager(params, zkeys, board, info, stack, wmask, work, tt, tree, i, a)
        pn += tree.pn[i]
        if tree.dn[i] == 0:
            _settle(tree, n, False)
            _tt_store(tree, key, n)
            return True
    if pn == 0:
        _settle(tree, n, True)
        _tt_store(tree, key, n)
        return True
    tree.pn[n] = pn
    tree.dn[n] = 1
    return True


@njit(cache=True)
def _eager(params, zkeys, board, info, stack, wmask, work, tt, tree, i, a):
    """Settle the OR child ``i`` (D's reply ``tree.move[i]``) when A then has a five or a VCF
    within ``K_EAGER_NODES``; it stays unexpanded otherwise (a proven child is a leaf of the
    proof, F_FIVE / F_VCF, exactly as if it had been expanded)."""
    cnt = tree.counters
    apply_move_tracked(params, zkeys, board, info, stack, wmask, tree.move[i])
    if info[I_TERMINAL] != 0:
        _settle(tree, i, False)
    elif info[I_NWIN0 + a] > 0:
        _settle(tree, i, True)
        tree.flags[i] |= F_FIVE
    elif info[I_NWIN0 + 1 - a] < 2:
        budget = min(cnt[K_EAGER_NODES], max(cnt[K_BUDGET] - cnt[K_NODES], 1))
        res, _length, used = vcf_search(params, zkeys, board, info, stack, wmask, work, tt, cnt[K_MAX_PLIES],
                                        budget)
        cnt[K_NODES] += used
        if res == FOUND:
            _settle(tree, i, True)
            tree.flags[i] |= F_VCF
    undo_move_tracked(params, zkeys, board, info, stack, wmask)


@njit(cache=True, inline="always")
def _update(tree, n, is_or):
    """Recompute ``n``'s numbers from its children."""
    first = tree.first[n]
    k = tree.count[n]
    if is_or:
        pn = INF
        dn = 0
        for i in range(first, first + k):
            pn = min(pn, tree.pn[i])
            dn += tree.dn[i]
        dn = min(dn, INF)
    elif tree.flags[n] & F_FREE and not tree.flags[n] & F_ZONED:
        # the pass first: the replies wait for its zone
        pn = min(tree.pn[first] + FOUR_PENALTY, INF)
        dn = tree.dn[first]
    else:
        pn = 0
        dn = INF
        if tree.flags[n] & F_FREE:
            first += 1  # the pass is no D move: it proves nothing by itself
            k -= 1
        for i in range(first, first + k):
            pn += tree.pn[i]
            dn = min(dn, tree.dn[i])
        pn = min(pn, INF)
        if k == 1 and 0 < pn < INF:
            pn += FOUR_PENALTY  # a forced reply: long runs of fours must not look free
    tree.pn[n] = pn
    tree.dn[n] = dn


@njit(cache=True)
def _mark_windows(params, board, player, work, zone, min_own):
    """``zone[c] = 1`` for every empty cell of a window of n cells with no stone of the other
    side and ``min_own`` to n - 2 of ``player``'s stones (n - 2: the cells where ``player`` makes
    a four; n - 3: also those where two more of its stones make one)."""
    scan_windows(params, board, player, work.score, work, min_own)
    for c in range(params[P_CELLS]):
        if work.score[c] > 0 and board[c] == 0:
            zone[c] = 1


@njit(cache=True)
def _mark_wins(params, wmask, player, zone):
    """``zone[c] = 1`` for every cell where ``player`` makes five."""
    for c in range(params[P_CELLS]):
        if wmask[player, c] != 0:
            zone[c] = 1


@njit(cache=True)
def _zone_node(params, zkeys, board, info, stack, wmask, work, vw, tt, tree, n, is_or, a):
    """Mark in ``tree.zone`` the cells the proof of node ``n`` (its position on the board) rests
    on at ``n`` itself; returns the range of children whose proofs it also needs, (-1, -1) when
    the zone cannot be formed (a nested zone, a VCF not found again). See ``_zone_walk``."""
    zone = tree.zone
    cnt = tree.counters
    d = 1 - a
    nn = params[P_N_IN_ROW]
    sound = cnt[K_ZONE] == 1
    while tree.flags[n] & F_LINK:
        n = tree.link[n]
    f = tree.flags[n]
    if f & F_ZONE:
        return -1, -1
    if is_or:
        if sound:
            _mark_windows(params, board, d, work, zone, nn - 2)  # x must not make a D four
        if f & F_FIVE:
            _mark_wins(params, wmask, a, zone)
            return 0, 0
        if f & F_VCF:
            budget = 4 * max(cnt[K_VCF_NODES], cnt[K_THREAT_NODES], cnt[K_EAGER_NODES])
            res, length, used = vcf_search(params, zkeys, board, info, stack, wmask, work, tt, cnt[K_MAX_PLIES],
                                           budget)
            cnt[K_NODES] += used
            if res != FOUND:
                return -1, -1
            # S's cells and D's four cells along S, as for a threat: x outside them leaves S a VCF
            k = threat_defences(params, zkeys, board, info, stack, wmask, work, vw, 0, work.line, length)
            for i in range(k):
                zone[vw.defs[0, i]] = 1
            return 0, 0
        first = tree.first[n]
        for i in range(first, first + tree.count[n]):
            if tree.pn[i] == 0:
                zone[tree.move[i]] = 1
                return i, i + 1
        return -1, -1
    if f & F_DOUBLE:
        _mark_wins(params, wmask, a, zone)
        return 0, 0
    first = tree.first[n]
    end = first + tree.count[n]
    if first < 0:
        return 0, 0  # A's move ended the game with its five
    if f & F_FREE:
        return first + 1, end  # every D move is a child (x's own cell needs none): no marks
    for i in range(first, end):
        zone[tree.move[i]] = 1  # the forced block of A's four, or a threat's defence set
    if sound and info[I_NWIN0 + a] == 0:
        # a threat: D's reply y outside the defence set must not make a D four with x either;
        # D's stones along S are among the set's cells: count them all as D's
        for i in range(first, end):
            board[tree.move[i]] = d + 1
        _mark_windows(params, board, d, work, zone, nn - 3)
        for i in range(first, end):
            board[tree.move[i]] = 0
    return first, end


@njit(cache=True)
def _zone_walk(params, zkeys, board, info, stack, wmask, work, vw, tt, tree, root, a):
    """The zone of the proof below the OR node ``root`` (its position on the board): ``tree.zone``
    marks every cell the proof rests on. Returns False when no zone could be formed.

    Claim: a D stone x put on any empty cell outside the zone leaves the proof a proof. The
    zone holds every move of the proof at A's nodes, every D reply at D's nodes with a four or a
    threat (the block, the defence set: S's cells and D's four cells along S), every cell of a
    VCF leaf's line and D's four cells along it, A's winning cells at a five or a double four,
    and, at every A node, every cell where D makes a four; at a threat, also every cell where D
    makes a four with one more stone, counting the defence set's cells as D's. Then: A's moves
    stay legal and its fours keep their winning cells (x is on none of them); D gets a four or a
    five through x nowhere (x alone makes none; with D's reply y outside a defence set -- the
    only stone not in the proof besides x -- it makes none either); D nodes with every reply
    as a child (free moves) lose one child, x's cell. The proof must hold with one extra D stone
    only: a nested zone (a second extra stone) makes the walk fail. K_ZONE = 2 leaves D's window
    marks out (unsound: for the tests that the independent checker catches it).
    """
    wnext = tree.walk_next
    wend = tree.walk_end
    tree.zone[:] = 0
    lo, hi = _zone_node(params, zkeys, board, info, stack, wmask, work, vw, tt, tree, root, True, a)
    if lo < 0:
        return False
    depth = 0
    wnext[0] = lo
    wend[0] = hi
    ok = True
    while depth >= 0:
        if wnext[depth] < wend[depth]:
            c = wnext[depth]
            wnext[depth] += 1
            apply_move_tracked(params, zkeys, board, info, stack, wmask, tree.move[c])
            depth += 1
            lo, hi = _zone_node(params, zkeys, board, info, stack, wmask, work, vw, tt, tree, c, depth % 2 == 0, a)
            if lo < 0:
                ok = False
                break
            wnext[depth] = lo
            wend[depth] = hi
        else:
            if depth > 0:
                undo_move_tracked(params, zkeys, board, info, stack, wmask)
            depth -= 1
    if not ok:
        while depth > 0:
            undo_move_tracked(params, zkeys, board, info, stack, wmask)
            depth -= 1
    return ok


@njit(cache=True)
def _apply_zone(params, zkeys, board, info, stack, wmask, work, vw, tt, tree, n, a):
    """The F_FREE node ``n`` (its position on the board): its pass child is settled. Proven: each
    D reply outside the pass proof's zone is settled by it (F_ZONE, ``link`` = the pass child);
    the replies left (all of them when the pass was disproven or no zone could be formed) get
    the immediate VCF check and are searched."""
    cnt = tree.counters
    tree.flags[n] |= F_ZONED
    p = tree.first[n]
    use = False
    if tree.pn[p] == 0:
        _null_move(params, info)
        use = _zone_walk(params, zkeys, board, info, stack, wmask, work, vw, tt, tree, p, a)
        _null_move(params, info)
        if not use:
            cnt[K_ZONE_FAILS] += 1
    for i in range(p + 1, p + tree.count[n]):
        if use and tree.zone[tree.move[i]] == 0:
            _settle(tree, i, True)
            tree.flags[i] |= F_ZONE
            tree.link[i] = p
            cnt[K_ZONED] += 1
        elif cnt[K_EAGER_NODES] > 0:
            _eager(params, zkeys, board, info, stack, wmask, work, tt, tree, i, a)


@njit(cache=True, nogil=True)
def pns_search(params, zkeys, board, info, stack, wmask, work, vw, tt, tree):
    """Proof-number search from the tracked position (A = its side to move); the counters of
    ``tree`` hold the budgets (set by the caller, K_NODES and K_NEXT at 0). Returns FOUND (the
    root is proven: A wins), NOT_FOUND (disproven within the restricted move generation: proves
    nothing) or ABORTED (work budget or node pool spent, or ``K_STOP`` set). The position is
    restored. It releases the GIL, so that a timer thread can set ``K_STOP`` while it runs (a
    deadline); its arrays must not be used by another thread meanwhile."""
    cnt = tree.counters
    a = info[I_TO_PLAY]
    cnt[K_NEXT] = 1
    tree.pn[ROOT] = 1
    tree.dn[ROOT] = 1
    tree.parent[ROOT] = -1
    tree.first[ROOT] = -1
    tree.count[ROOT] = 0
    tree.move[ROOT] = -1
    tree.used[ROOT] = 0
    tree.flags[ROOT] = 0
    tree.link[ROOT] = -1
    tree.tt_key[:] = 0
    path = tree.path
    while tree.pn[ROOT] != 0 and tree.dn[ROOT] != 0:
        if cnt[K_NODES] >= cnt[K_BUDGET] or cnt[K_STOP] != 0:
            return ABORTED
        cnt[K_ITERATIONS] += 1
        # 1. descend to the most-proving node
        n = ROOT
        depth = 0
        is_or = True
        while tree.first[n] >= 0:
            first = tree.first[n]
            best = first
            if is_or:
                v = tree.pn[first]
                for i in range(first + 1, first + tree.count[n]):
                    if tree.pn[i] < v:
                        v = tree.pn[i]
                        best = i
            else:
                end = first + tree.count[n]
                if tree.flags[n] & F_FREE:
                    if not tree.flags[n] & F_ZONED:
                        end = first + 1  # the pass alone until it is settled
                    else:
                        first += 1  # then the replies, without the pass
                        best = first
                v = tree.dn[first]
                for i in range(first + 1, end):
                    if tree.dn[i] < v:
                        v = tree.dn[i]
                        best = i
            if tree.move[best] == PASS:
                _null_move(params, info)
            else:
                apply_move_tracked(params, zkeys, board, info, stack, wmask, tree.move[best])
            depth += 1
            path[depth] = best
            n = best
            is_or = not is_or
        # 2. expand it
        ok = _expand(params, zkeys, board, info, stack, wmask, work, vw, tt, tree, n, a)
        # 3. back up to the root, undoing the moves
        while depth > 0:
            if tree.move[n] == PASS:
                _null_move(params, info)
            else:
                undo_move_tracked(params, zkeys, board, info, stack, wmask)
            depth -= 1
            n = tree.parent[n]
            is_or = not is_or
            if tree.flags[n] & F_FREE and not tree.flags[n] & F_ZONED:
                p = tree.first[n]
                if tree.pn[p] == 0 or tree.dn[p] == 0:
                    _apply_zone(params, zkeys, board, info, stack, wmask, work, vw, tt, tree, n, a)
            _update(tree, n, is_or)
            if tree.pn[n] == 0 or tree.dn[n] == 0:
                _tt_store(tree, info[I_KEY], n)
        if not ok:
            return ABORTED
    return FOUND if tree.pn[ROOT] == 0 else NOT_FOUND
