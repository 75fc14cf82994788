"""Selection: the PUCT rule over a node's edges, with virtual loss and FPU (compiled).

score(n, a) = Q(n, a) + c(n) * P(n, a) * sqrt(sum_b N(n, b) + eps) / (1 + N(n, a))

with N counting edge visits plus in-flight virtual visits, Q(n, a) = -Q(child) from the mover's
point of view, virtual visits counted as losses (-1), and FPU = Q(n) - f * sqrt(sum of visited
children's priors) for an edge nobody has visited (KataGo). c(n) = c_init + c_log *
ln((N(n) + c_base) / c_base) (AlphaZero).

Edges of a non-root node are stored in decreasing prior order, and the ones ever selected form a
prefix ("touched"). All untouched edges share Q = FPU and N = 0, so the best of them is the first
one: selection looks at the touched prefix plus one edge, never at all legal moves. The root uses
its private priors; when they are noised it scans every edge and rotates a newly touched edge to
the end of the prefix so that the prefix rule still holds for later searches.
"""

from __future__ import annotations

import math

from numba import njit

from zeroplay.search.tree import LOSS, WIN


@njit(cache=True)
def _rotate_into_prefix(tree, n, i):
    """Move the root's edge at position ``i`` to position ``touched`` (shifting the rest up)."""
    start = tree.node_edge_start[n]
    t = tree.node_touched[n]
    e = start + i
    mv = tree.edge_move[e]
    pr = tree.edge_prior[e]
    ev = tree.edge_n[e]
    evl = tree.edge_vl[e]
    ch = tree.edge_child[e]
    rp = tree.root_prior[i]
    for k in range(i, t, -1):
        tree.edge_move[start + k] = tree.edge_move[start + k - 1]
        tree.edge_prior[start + k] = tree.edge_prior[start + k - 1]
        tree.edge_n[start + k] = tree.edge_n[start + k - 1]
        tree.edge_vl[start + k] = tree.edge_vl[start + k - 1]
        tree.edge_child[start + k] = tree.edge_child[start + k - 1]
        tree.root_prior[k] = tree.root_prior[k - 1]
    tree.edge_move[start + t] = mv
    tree.edge_prior[start + t] = pr
    tree.edge_n[start + t] = ev
    tree.edge_vl[start + t] = evl
    tree.edge_child[start + t] = ch
    tree.root_prior[t] = rp


@njit(cache=True, inline="always")
def select_edge(tree, sp, n, is_root):
    """Index (in the edge pool) of the edge to follow from expanded node ``n``; -1 if none.

    Edges whose child is a proven win for the opponent are skipped (they lose); an edge to a
    child proven lost for its mover is taken at once (it wins).
    """
    start = tree.node_edge_start[n]
    num = tree.node_num_edges[n]
    touched = tree.node_touched[n]
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
        e = start + i
        if tree.edge_n[e] + tree.edge_vl[e] > 0:
            visited_prior += tree.root_prior[i] if is_root else tree.edge_prior[e]
    f = sp.fpu_reduction_root if is_root else sp.fpu_reduction
    fpu = tree.node_q[n] - f * math.sqrt(visited_prior)
    best = -1e300
    best_i = -1
    for i in range(limit):
        e = start + i
        child = tree.edge_child[e]
        if child >= 0:
            proof = tree.node_proof[child]
            if proof == WIN:
                continue
            if proof == LOSS:
                best_i = i
                break
        ev = tree.edge_n[e]
        evl = tree.edge_vl[e]
        eff = ev + evl
        if ev > 0:
            q = (-ev * tree.node_q[child] - evl) / eff
        elif evl > 0:
            q = -1.0
        elif child >= 0 and tree.node_n[child] > 0:
            q = -tree.node_q[child]  # reached before through another parent
        else:
            q = fpu
        prior = tree.root_prior[i] if is_root else tree.edge_prior[e]
        score = q + scale * prior / (1 + eff)
        if score > best:
            best = score
            best_i = i
    if best_i < 0:
        return -1
    if best_i >= touched:
        if best_i > touched:
            _rotate_into_prefix(tree, n, best_i)
        tree.node_touched[n] = touched + 1
        return start + touched
    return start + best_i
