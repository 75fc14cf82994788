"""One round of batched search: descend under virtual loss, queue leaves, then expand them.

Phases of a round (lc0's numbered-phase style):
  1. ``gather``: up to ``max_leaves`` playouts descend from the root on the working position
     (moves applied and undone in place). Each ends in one of:
       QUEUED    -- a new leaf, copied into the batch for the evaluator (virtual loss stays);
       DONE      -- backed up at once: a terminal node, a proven node, a one-ply proof at the
                    leaf, or a graph-search stop (child visited more than the edge, or already
                    on the path) that backs up the child's Q;
       COLLISION -- a leaf already queued in this batch: its virtual loss is removed;
       FULL      -- the node table, edge pool or stat pool cannot take more: the round ends
                    and the searcher recycles memory (``search/gc.py``) or stops.
  2. the caller evaluates the queued leaves (one network batch, possibly merged across searches);
  3. ``finish``: each leaf gets its edges (legal moves, priors sorted descending), U = value,
     and its path is backed up.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from zeroplay.games import fast
from zeroplay.games.layout import I_KEY, I_LAST, I_PLY, I_TO_PLAY, INFO_SIZE, P_HEIGHT, P_WIDTH
from zeroplay.search.backup import backup_path, init_node, set_expanded, update_node
from zeroplay.search.defence import DefenceArrays, defence_off, defend
from zeroplay.search.forced import forced_root_edge
from zeroplay.search.gumbel import GumbelArrays, gumbel_off, gumbel_root_edge
from zeroplay.search.select import NO_EDGE, NO_STATS, select_edge
from zeroplay.search.threats import ThreatArrays, threats_off, vcf_leaf
from zeroplay.search.tree import (
    EXPANDED,
    LOSS,
    M_EDGE_TOP,
    M_FULL,
    M_ROOT,
    M_STAT_TOP,
    NEW,
    PENDING,
    PRIOR_SCALE,
    TERMINAL,
    UNPROVEN,
    WIN,
    encode_prior,
)
from zeroplay.tt.node_table import node_find_or_add

QUEUED = 0
DONE = 1
COLLISION = 2
FULL = 3


class BatchArrays(NamedTuple):
    """Per-round buffers for B leaves on a game of ``cells`` cells and A actions (depth D).

    Attributes:
        leaf_node: int32 (B,) node of each queued leaf.
        leaf_board: int8 (B, cells); leaf_info: int64 (B, INFO_SIZE) the leaf positions.
        leaf_legal: bool (B, A) moves the leaf gets edges for (all legal moves, or only the
            blocks when the opponent threatens to win at once).
        leaf_key: int64 (B,) node keys (evaluation-cache keys).
        path_node: int32 (2B + 1, D); path_edge: int64 (2B + 1, D) edge positions within each
            node; path_len: int32 (2B + 1,) paths: row i < B is leaf i's, row B the next
            descent's scratch, rows B + 1 + k the k-th collision's (kept under virtual loss until
            the batch is finished).
        moves: int64 (max(A, cells),) scratch for move lists.
        near: uint8 (cells,) scratch: cells within the candidate radius of a stone.
        root_board, root_info, root_wmask: the root position; each descent ends by copying it
            back (cheaper than undoing every move of a deep path). ``root_wmask`` has no rows
            for a game whose aux is a history (``Game.aux_is_history``): a descent leaves the
            root's rows as they were, and that copy was a third of 9x9 Go's descent time.
        threats: the threat solver's arrays (``search.threats.ThreatArrays``; switched off unless
            ``SearchConfig.threat_solver``).
        defence: the defence's arrays (``search.defence.DefenceArrays``; switched off unless
            ``SearchConfig.defence``).
        gumbel: the Gumbel root's arrays (``search.gumbel.GumbelArrays``; never enabled unless
            ``SearchConfig.root_policy == "gumbel"``).
    """

    leaf_node: np.ndarray
    leaf_board: np.ndarray
    leaf_info: np.ndarray
    leaf_legal: np.ndarray
    leaf_key: np.ndarray
    path_node: np.ndarray
    path_edge: np.ndarray
    path_len: np.ndarray
    moves: np.ndarray
    near: np.ndarray
    root_board: np.ndarray
    root_info: np.ndarray
    root_wmask: np.ndarray
    threats: ThreatArrays
    defence: DefenceArrays
    gumbel: GumbelArrays


def new_batch_arrays(batch_size: int, game, threats: ThreatArrays | None = None,
                     gumbel: GumbelArrays | None = None, defence: DefenceArrays | None = None) -> BatchArrays:
    """Buffers for ``batch_size`` leaves of ``game`` (its cells, actions, ``max_plies`` for the
    path depth and ``aux_shape`` for the root's aux copy)."""
    cells, num_actions = game.cells, game.num_actions
    depth = game.max_plies + 2
    b = batch_size
    return BatchArrays(
        leaf_node=np.zeros(b, np.int32),
        leaf_board=np.zeros((b, cells), np.int8),
        leaf_info=np.zeros((b, INFO_SIZE), np.int64),
        leaf_legal=np.zeros((b, num_actions), np.bool_),
        leaf_key=np.zeros(b, np.int64),
        path_node=np.zeros((2 * b + 1, depth), np.int32),
        path_edge=np.zeros((2 * b + 1, depth), np.int64),
        path_len=np.zeros(2 * b + 1, np.int32),
        moves=np.zeros(max(num_actions, cells), np.int64),
        near=np.zeros(cells, np.uint8),
        root_board=np.zeros(cells, np.int8),
        root_info=np.zeros(INFO_SIZE, np.int64),
        root_wmask=np.zeros((0, game.aux_shape[1]) if game.aux_is_history else game.aux_shape, np.uint8),
        threats=threats if threats is not None else threats_off(),
        defence=defence if defence is not None else defence_off(),
        gumbel=gumbel if gumbel is not None else gumbel_off(),
    )


@njit(cache=True, inline="always")
def node_key(zkeys, info, stack, recent_moves):
    """Node / cache key: the Zobrist key, with the ``recent_moves`` last moves the net sees folded
    in (``SearchParams.key_recent_moves``; 0: none, the key alone).

    The last move is ``info[I_LAST]``, the k-th before it ``stack[ply - 1 - k]``; each one on a
    cell XORs in ``zkeys[2 + k, cell]`` (the game's recent-move key rows, ``games/layout.py``),
    a pass or an unknown move nothing, as the planes show them (an empty plane)."""
    key = info[I_KEY]
    if recent_moves > 0:
        cells = zkeys.shape[1]
        last = info[I_LAST]
        if 0 <= last < cells:
            key ^= zkeys[2, last]
        ply = info[I_PLY]
        for k in range(1, recent_moves):
            if ply - 1 - k < 0:
                break
            move = stack[ply - 1 - k]
            if 0 <= move < cells:
                key ^= zkeys[2 + k, move]
    return key


@njit(cache=True, inline="always")
def _add_child(tree, table, sp, params, zkeys, info, stack):
    """Find or create the node of the position ``info``; -1 when the table is full."""
    child, created = node_find_or_add(table, node_key(zkeys, info, stack, sp.key_recent_moves), info[I_TO_PLAY],
                                      info[I_PLY])
    if child >= 0 and created:
        init_node(tree, child, info)
    return child


@njit(cache=True, inline="always")
def _alloc_edges(tree, count):
    top = tree.meta[M_EDGE_TOP]
    if top + count > tree.edge_move.shape[0]:
        return -1
    tree.meta[M_EDGE_TOP] = top + count
    return top


@njit(cache=True, inline="always")
def _alloc_stats(tree, count):
    top = tree.meta[M_STAT_TOP]
    if top + count > tree.stat_n.shape[0]:
        return -1
    tree.meta[M_STAT_TOP] = top + count
    return top


@njit(cache=True, inline="always")
def _keep_marked(moves, k, mark):
    """Keep, in order, the first ``k`` entries of ``moves`` whose cell is set in ``mark`` (any
    array indexed by move: bool or uint8); returns how many were kept."""
    kept = 0
    for i in range(k):
        if mark[moves[i]]:
            moves[kept] = moves[i]
            kept += 1
    return kept


@njit(cache=True)
def near_stones(params, board, moves, k, radius, near):
    """Keep, of the first ``k`` cells in ``moves``, those within ``radius`` (Chebyshev distance)
    of a stone, in order; returns how many. An empty board keeps every cell. For games whose
    actions are cells and whose stones never move (a game capability: ``Game.stones_stay``)."""
    width = params[P_WIDTH]
    height = params[P_HEIGHT]
    near[:] = 0
    stones = 0
    for c in range(board.shape[0]):
        if board[c] != 0:
            stones += 1
            row = c // width
            col = c - row * width
            for r in range(max(0, row - radius), min(height, row + radius + 1)):
                for q in range(max(0, col - radius), min(width, col + radius + 1)):
                    near[r * width + q] = 1
    if stones == 0:
        return k
    kept = _keep_marked(moves, k, near)
    return kept if kept > 0 else k  # (every cell near a stone taken: the far ones stay moves)


@njit(cache=True, inline="always")
def _legal_blocks(params, board, info, wmask, moves, mark):
    """The opponent's winning cells that the side to move may legally play, into ``moves``;
    returns their count. A winning cell of the opponent is not always a legal block (renju: a
    forbidden point for Black). ``mark``: bool (num_actions,) scratch, all False on entry and
    on return."""
    k = fast.legal_moves(params, board, info, wmask, moves)
    for i in range(k):
        mark[moves[i]] = True
    count = fast.winning_moves(params, board, info, wmask, 1 - info[I_TO_PLAY], moves)
    kept = _keep_marked(moves, count, mark)
    mark[:] = False
    return kept


@njit(cache=True, inline="always")
def _leaf(tree, table, sp, params, zkeys, board, info, stack, wmask, batch, slot, n):
    """A NEW node reached: prove it in one ply, or queue it for evaluation."""
    p = info[I_TO_PLAY]
    num_blocks = 0
    if sp.one_ply_proofs:
        if fast.num_winning_moves(params, board, info, wmask, p) > 0:
            fast.winning_moves(params, board, info, wmask, p, batch.moves)
            win = batch.moves[0]
            if tree.meta[M_EDGE_TOP] >= tree.edge_move.shape[0] or tree.meta[M_STAT_TOP] >= tree.stat_n.shape[0]:
                return FULL
            fast.apply(params, zkeys, board, info, stack, wmask, win)
            child = _add_child(tree, table, sp, params, zkeys, info, stack)
            fast.undo(params, zkeys, board, info, stack, wmask)
            if child < 0:
                return FULL
            e = _alloc_edges(tree, 1)
            s = _alloc_stats(tree, 1)
            tree.node_n[child] += 1  # the terminal child counts this visit
            tree.edge_move[e] = win
            tree.edge_prior[e] = PRIOR_SCALE
            tree.stat_n[s] = 1
            tree.stat_vl[s] = 0
            tree.stat_child[s] = child
            tree.stat_q[s] = np.nan
            tree.node_edge_start[n] = e
            tree.node_num_edges[n] = 1
            tree.node_touched[n] = 1
            tree.node_stat_start[n] = s
            tree.node_stat_cap[n] = 1
            tree.node_u[n] = 1.0
            tree.node_state[n] = EXPANDED
            update_node(tree, n)
            return DONE
        num_blocks = fast.num_winning_moves(params, board, info, wmask, 1 - p)
        if num_blocks >= 2 and n != tree.meta[M_ROOT]:
            # every move lets the opponent win next: lost in two plies (the root still gets its
            # blocks as edges below, so that the search has moves to report)
            tree.node_u[n] = -1.0
            tree.node_q[n] = -1.0
            tree.node_n[n] = 1
            tree.node_state[n] = EXPANDED
            tree.node_proof[n] = LOSS
            tree.node_dist[n] = 2
            return DONE
    if n != tree.meta[M_ROOT]:  # the root is checked once its edges exist (Searcher)
        dist = vcf_leaf(params, zkeys, board, info, stack, wmask, batch.threats, n)
        if dist != 0:
            # a VCF for the side to move (dist > 0): a proven win; or its forced block runs into
            # the opponent's VCF (dist < 0): a proven loss. The line is kept in batch.threats.
            v = 1.0 if dist > 0 else -1.0
            tree.node_u[n] = v
            tree.node_q[n] = v
            tree.node_n[n] = 1
            tree.node_state[n] = EXPANDED
            tree.node_proof[n] = WIN if dist > 0 else LOSS
            tree.node_dist[n] = abs(dist)
            return DONE
    legal = batch.leaf_legal[slot]
    legal[:] = False
    if num_blocks >= 1:
        k = _legal_blocks(params, board, info, wmask, batch.moves, legal)
        if k == 0:
            if n != tree.meta[M_ROOT]:
                # the only block is illegal for the mover (renju: a forbidden point for Black):
                # the opponent's five comes next
                tree.node_u[n] = -1.0
                tree.node_q[n] = -1.0
                tree.node_n[n] = 1
                tree.node_state[n] = EXPANDED
                tree.node_proof[n] = LOSS
                tree.node_dist[n] = 2
                return DONE
            k = fast.legal_moves(params, board, info, wmask, batch.moves)  # moves to report
    else:
        k = fast.legal_moves(params, board, info, wmask, batch.moves)
        if sp.candidate_radius > 0:
            k = near_stones(params, board, batch.moves, k, sp.candidate_radius, batch.near)
        # the opponent's VCF after a pass leaves only the moves that break it (search/defence.py)
        k = defend(params, zkeys, board, info, stack, wmask, batch.threats, batch.defence, batch.moves, k)
    e = _alloc_edges(tree, k)
    if e < 0:
        return FULL
    for i in range(k):
        legal[batch.moves[i]] = True
    tree.node_edge_start[n] = e
    tree.node_num_edges[n] = k
    tree.node_touched[n] = 0
    tree.node_stat_start[n] = 0
    tree.node_stat_cap[n] = 0
    tree.node_state[n] = PENDING
    batch.leaf_node[slot] = n
    batch.leaf_board[slot, :] = board
    batch.leaf_info[slot, :] = info
    batch.leaf_key[slot] = node_key(zkeys, info, stack, sp.key_recent_moves)
    return QUEUED


@njit(cache=True, inline="always")
def descend(tree, table, sp, params, zkeys, board, info, stack, wmask, batch, slot):
    """One playout from the root; its path goes into batch row ``slot``. Returns the outcome."""
    node = tree.meta[M_ROOT]
    root = node
    depth = 0
    vl = sp.virtual_loss
    outcome = DONE
    while True:
        state = tree.node_state[node]
        if state == TERMINAL:
            tree.node_n[node] += 1
            break
        if tree.node_proof[node] != UNPROVEN:
            break  # exact value, nothing below can change it
        if state == NEW:
            outcome = _leaf(tree, table, sp, params, zkeys, board, info, stack, wmask, batch, slot, node)
            break
        if state == PENDING:
            outcome = COLLISION
            break
        if node == root and batch.gumbel.enabled[0]:
            i = gumbel_root_edge(tree, sp, node, batch.gumbel)  # sequential halving's next move
        else:
            i = forced_root_edge(tree, sp, node) if node == root and sp.forced_playouts_k > 0.0 else NO_EDGE
            if i < 0:
                i = select_edge(tree, sp, node, node == root)
        if i == NO_EDGE:
            # every edge leads to a win for the opponent, proven through another parent since
            # this node's last update: prove it lost now (it is not on the path, so the backup
            # would not), so that the path above backs up its exact value
            update_node(tree, node)
            break
        if i == NO_STATS:
            outcome = FULL
            break
        s = tree.node_stat_start[node] + i
        fast.apply(params, zkeys, board, info, stack, wmask, tree.edge_move[tree.node_edge_start[node] + i])
        child = tree.stat_child[s]
        if child < 0:
            child = _add_child(tree, table, sp, params, zkeys, info, stack)
            if child < 0:
                outcome = FULL
                break
            tree.stat_child[s] = child
        batch.path_node[slot, depth] = node
        batch.path_edge[slot, depth] = i
        depth += 1
        tree.stat_vl[s] += vl
        tree.node_vl[node] += vl
        if tree.node_n[child] > tree.stat_n[s]:
            break  # graph search: let this edge catch up, backing up the child's Q as it is
        on_path = False
        for j in range(depth):
            if batch.path_node[slot, j] == child:
                on_path = True
        if on_path:
            break
        node = child
    batch.path_len[slot] = depth
    board[:] = batch.root_board
    info[:] = batch.root_info
    if batch.root_wmask.shape[0] != 0:
        wmask[:] = batch.root_wmask
    return outcome


@njit(cache=True)
def gather(tree, table, sp, params, zkeys, board, info, stack, wmask, batch, max_leaves, max_playouts):
    """Run playouts until ``max_leaves`` leaves are queued or ``max_playouts`` are accounted for.

    A collision keeps its virtual loss until the batch is finished (``release_collisions``), so
    that the next descents turn away from the pending leaf instead of hitting it again (lc0).

    Returns (queued leaves, playouts completed now, collisions kept).
    """
    queued = 0
    done = 0
    collisions = 0
    first_coll = batch.leaf_node.shape[0] + 1
    root = tree.meta[M_ROOT]
    while queued < max_leaves and queued + done < max_playouts:
        if tree.node_proof[root] != UNPROVEN or tree.node_state[root] == TERMINAL:
            break
        outcome = descend(tree, table, sp, params, zkeys, board, info, stack, wmask, batch, queued)
        if outcome == QUEUED:
            queued += 1
        elif outcome == DONE:
            backup_path(tree, sp.virtual_loss, batch.path_node[queued], batch.path_edge[queued],
                        batch.path_len[queued], True)
            done += 1
        else:
            backup_path(tree, sp.virtual_loss, batch.path_node[queued], batch.path_edge[queued],
                        batch.path_len[queued], False)
            if outcome == FULL:
                tree.meta[M_FULL] = 1
                break
            if collisions >= max_leaves:
                break  # the tree is too narrow for this batch size
            # keep this path's virtual loss until the batch is done
            row = first_coll + collisions
            d = batch.path_len[queued]
            batch.path_node[row, :d] = batch.path_node[queued, :d]
            batch.path_edge[row, :d] = batch.path_edge[queued, :d]
            batch.path_len[row] = d
            for j in range(d):
                n = batch.path_node[row, j]
                tree.stat_vl[tree.node_stat_start[n] + batch.path_edge[row, j]] += sp.virtual_loss
                tree.node_vl[n] += sp.virtual_loss
            collisions += 1
    return queued, done, collisions


@njit(cache=True)
def release_collisions(tree, sp, batch, collisions):
    """Remove the virtual loss kept by the collisions of the last gather."""
    first = batch.leaf_node.shape[0] + 1
    for k in range(collisions):
        backup_path(tree, sp.virtual_loss, batch.path_node[first + k], batch.path_edge[first + k],
                    batch.path_len[first + k], False)


_MOVE_BITS = 20
"""``expand_leaf``'s sort keys: (PRIOR_SCALE - code) << _MOVE_BITS | move (moves < 2^20)."""


@njit(cache=True, inline="always")
def expand_leaf(tree, leaf_node, leaf_legal, moves, i, priors, value):
    """Give queued leaf ``i`` its edges (candidate moves with 16-bit priors, sorted descending)
    and U; the root also keeps its float32 priors (``root_raw_prior``). No statistics yet.

    The order is one in-place sort of int64 keys in the batch's move scratch, code first then
    move, so ties stay in move order and nothing is allocated per leaf (it replaced an argsort
    and two copies; ``finish``'s time on 9x9 Go did not change measurably)."""
    n = leaf_node[i]
    start = tree.node_edge_start[n]
    k = tree.node_num_edges[n]
    total = 0.0
    legal = leaf_legal[i]
    for a in range(legal.shape[0]):
        if legal[a]:
            total += max(priors[a], np.float32(0.0))
    keys = moves[:k]
    j = 0
    for a in range(legal.shape[0]):
        if legal[a]:
            p = max(priors[a], np.float32(0.0)) / total if total > 0.0 else 1.0 / k
            keys[j] = (np.int64(PRIOR_SCALE - encode_prior(p)) << _MOVE_BITS) | a
            j += 1
    keys.sort()
    mask = (np.int64(1) << _MOVE_BITS) - 1
    for j in range(k):
        tree.edge_move[start + j] = keys[j] & mask
        tree.edge_prior[start + j] = PRIOR_SCALE - (keys[j] >> _MOVE_BITS)
    if n == tree.meta[M_ROOT]:
        for j in range(k):
            a = tree.edge_move[start + j]
            tree.root_raw_prior[j] = max(priors[a], np.float32(0.0)) / total if total > 0.0 else 1.0 / k
    set_expanded(tree, n, value)


@njit(cache=True)
def finish(tree, virtual_loss, leaf_node, leaf_legal, moves, path_node, path_edge, path_len, queued, priors,
           values):
    """Expand the queued leaves with the evaluator's output and back up their paths.

    Takes the few ``BatchArrays`` fields it uses (``leaf_node``, ``leaf_legal``, ``moves``,
    ``path_node``, ``path_edge``, ``path_len``) rather than the whole tuple: numba unboxes every
    array of an argument on each call, and the batch's 41 (nested tuples included) cost about
    20 us a call, more than expanding and backing up a round's leaves on 9x9 Go.

    Args:
        virtual_loss: ``SearchParams.virtual_loss``.
        priors: float32 (>= queued, A) priors over actions for each leaf.
        values: float32 (>= queued,) values in [-1, 1] from each leaf's side to move.
    """
    for i in range(queued):
        expand_leaf(tree, leaf_node, leaf_legal, moves, i, priors[i], values[i])
        backup_path(tree, virtual_loss, path_node[i], path_edge[i], path_len[i], True)


@njit(cache=True)
def check_invariants(tree, root):
    """Debug: every node reachable from ``root`` has N = 1 + sum of edge visits (expanded,
    unproven, without a one-ply proof) and no virtual loss. Returns the first bad node or -1."""
    cap = tree.node_n.shape[0]
    seen = np.zeros(cap, np.bool_)
    stack = np.empty(cap, np.int64)
    top = 0
    stack[top] = root
    top += 1
    seen[root] = True
    while top > 0:
        top -= 1
        n = stack[top]
        if tree.node_vl[n] != 0:
            return n
        if tree.node_state[n] != EXPANDED:
            continue
        start = tree.node_stat_start[n]
        total = 1
        for s in range(start, start + tree.node_touched[n]):
            if tree.stat_vl[s] != 0:
                return n
            total += tree.stat_n[s]
            c = tree.stat_child[s]
            if c >= 0 and not seen[c]:
                seen[c] = True
                stack[top] = c
                top += 1
        if tree.node_n[n] != total:
            return n
    return -1
