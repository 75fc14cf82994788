"""Selection: the PUCT rule over a node's edges, with virtual loss and FPU (compiled).

score(n, a) = Q(n, a) + c(n) * P(n, a) * sqrt(sum_b N(n, b) + eps) / (1 + N(n, a))

with N counting edge visits plus in-flight virtual visits, Q(n, a) = -Q(child) from the mover's
point of view, virtual visits counted as losses (-1), and FPU = Q(n) - f * sqrt(sum of visited
children's priors) for an edge nobody has visited (KataGo). c(n) = c_init + c_log *
ln((N(n) + c_base) / c_base) (AlphaZero).

Edges of a non-root node are stored in decreasing prior order, and the ones ever selected form a
prefix ("touched"), the only edges with statistics (``search/tree.py``). All untouched edges share
Q = FPU and N = 0, so the best of them is the first one: selection looks at the touched prefix plus
one edge, never at all legal moves. The root uses its private priors; when they are noised it
scans every edge and rotates a newly touched edge to the end of the prefix so that the prefix rule
still holds for later searches.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from zeroplay.search.tree import LOSS, M_STAT_TOP, WIN, decode_prior, edge_q

NO_EDGE = -1
"""``select_edge``: every edge loses (each child is a proven win for the opponent)."""
NO_STATS = -2
"""``select_edge``: the stat pool cannot take the newly selected edge's statistics."""


@njit(cache=True)
def _rotate_into_prefix(tree, n, i):
    """Move the root's untouched edge at position ``i`` to position ``touched`` (shifting the
    untouched edges between them up by one; untouched edges have no statistics)."""
    start = tree.node_edge_start[n]
    t = tree.node_touched[n]
    e = start + i
    mv = tree.edge_move[e]
    pr = tree.edge_prior[e]
    rp = tree.root_prior[i]
    raw = tree.root_raw_prior[i]
    for k in range(i, t, -1):
        tree.edge_move[start + k] = tree.edge_move[start + k - 1]
        tree.edge_prior[start + k] = tree.edge_prior[start + k - 1]
        tree.root_prior[k] = tree.root_prior[k - 1]
        tree.root_raw_prior[k] = tree.root_raw_prior[k - 1]
    tree.edge_move[start + t] = mv
    tree.edge_prior[start + t] = pr
    tree.root_prior[t] = rp
    tree.root_raw_prior[t] = raw


@njit(cache=True)
def grow_stats(tree, n):
    """Make room for one more statistic in node ``n``'s block; False when the stat pool is full.

    The block doubles (capped at the node's edge count). A block that ends the pool grows in
    place; any other is copied to the top of the pool, leaving garbage for ``gc.compact``.
    """
    cap = tree.node_stat_cap[n]
    num = tree.node_num_edges[n]
    new_cap = min(num, max(1, 2 * cap))
    start = tree.node_stat_start[n]
    top = tree.meta[M_STAT_TOP]
    size = tree.stat_n.shape[0]
    if cap > 0 and start + cap == top:
        if start + new_cap > size:
            return False
        tree.meta[M_STAT_TOP] = start + new_cap
    else:
        if top + new_cap > size:
            return False
        for i in range(tree.node_touched[n]):
            tree.stat_n[top + i] = tree.stat_n[start + i]
            tree.stat_vl[top + i] = tree.stat_vl[start + i]
            tree.stat_child[top + i] = tree.stat_child[start + i]
            tree.stat_q[top + i] = tree.stat_q[start + i]
            tree.stat_vl[start + i] = 0  # the old block is garbage: no virtual loss left in it
        tree.node_stat_start[n] = top
        tree.meta[M_STAT_TOP] = top + new_cap
    tree.node_stat_cap[n] = new_cap
    return True


@njit(cache=True, inline="always")
def select_edge(tree, sp, n, is_root):
    """Position (in ``n``'s edge list, < touched after the call) of the edge to follow from
    expanded node ``n``; NO_EDGE if none, NO_STATS when the stat pool is full.

    Edges whose child is a proven win for the opponent are skipped (they lose); an edge to a
    child proven lost for its mover is taken at once (it wins). A newly selected edge joins the
    touched prefix with zeroed statistics (N = 0, no virtual loss, no child).
    """
    start = tree.node_edge_start[n]
    num = tree.node_num_edges[n]
    touched = tree.node_touched[n]
    stats = tree.node_stat_start[n]
    # noised root priors break the prefix order, so only then is every root edge a candidate
    limit = num if is_root and sp.root_noise else min(touched + 1, num)
    visits = tree.node_n[n]
    total = visits - 1 + tree.node_vl[n]
    if total < 0:
        total = 0
    c = sp.c_puct
    if sp.c_puct_log > 0.0:
        c += sp.c_puct_log * math.log((visits + sp.c_puct_base) / sp.c_puct_base)
    scale = c * math.sqrt(total + sp.puct_eps)
    visited_prior = 0.0
    for i in range(touched):
        s = stats + i
        if tree.stat_n[s] + tree.stat_vl[s] > 0:
            visited_prior += tree.root_prior[i] if is_root else decode_prior(tree.edge_prior[start + i])
    f = sp.fpu_reduction_root if is_root else sp.fpu_reduction
    fpu = tree.node_q[n] - f * math.sqrt(visited_prior)
    best = -1e300
    best_i = -1
    for i in range(limit):
        eff = 0
        q = fpu
        if i < touched:
            s = stats + i
            child = tree.stat_child[s]
            if child >= 0:
                proof = tree.node_proof[child]
                if proof == WIN:
                    continue
                if proof == LOSS:
                    best_i = i
                    break
            edge_visits = tree.stat_n[s]
            edge_vl = tree.stat_vl[s]
            eff = edge_visits + edge_vl
            if edge_visits > 0:
                q = (edge_visits * edge_q(tree, s) - edge_vl) / eff
            elif edge_vl > 0:
                q = -1.0
            elif child >= 0 and tree.node_n[child] > 0:
                q = -tree.node_q[child]  # reached before through another parent
        prior = tree.root_prior[i] if is_root else decode_prior(tree.edge_prior[start + i])
        score = q + scale * prior / (1 + eff)
        if score > best:
            best = score
            best_i = i
    if best_i < 0:
        return NO_EDGE
    return touch_edge(tree, n, best_i)


@njit(cache=True, inline="always")
def touch_edge(tree, n, i):
    """Position of node ``n``'s edge at position ``i`` once it is in the touched prefix: an
    untouched edge (rotated there when it is not the first untouched one: only the root's edges
    may be, its priors being private) joins the prefix with zeroed statistics (N = 0, no virtual
    loss, no child); NO_STATS when the stat pool cannot take them."""
    touched = tree.node_touched[n]
    if i < touched:
        return i
    if touched >= tree.node_stat_cap[n] and not grow_stats(tree, n):
        return NO_STATS
    if i > touched:
        _rotate_into_prefix(tree, n, i)
    s = tree.node_stat_start[n] + touched
    tree.stat_n[s] = 0
    tree.stat_vl[s] = 0
    tree.stat_child[s] = -1
    tree.stat_q[s] = np.nan
    tree.node_touched[n] = touched + 1
    return touched
