"""Forced playouts and policy target pruning at a PUCT root (KataGo; Wu 2019, section 3.1).

In a search with root noise (self-play), a root move c that has been visited but fewer than

    n_forced(c) = sqrt(k * P(c) * sum_b N(b))        (KataGo: k = 2)

times is selected before PUCT is asked, so that moves the noise made look good get enough
visits to be judged. Those visits are then taken out of the policy target
(``prune_policy_target``): for every move c other than the most visited c*, up to n_forced(c)
visits are subtracted as long as PUCT(c) stays below PUCT(c*), and a move left with at most one
visit is dropped. P is the prior the root used (noised), N edge visits, Q from the root mover's
view.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def forced_root_edge(tree, sp, root):
    """Edge (pool index) of the visited root move furthest below n_forced, or -1 when none is.

    Looks at the touched prefix only: moves never visited are PUCT's to pick (KataGo forces
    only children that exist). Visits in flight under virtual loss count.
    """
    start = tree.node_edge_start[root]
    vl = sp.virtual_loss
    total = 0
    for i in range(tree.node_touched[root]):
        e = start + i
        total += tree.edge_n[e] + (tree.edge_vl[e] // vl if vl > 0 else 0)
    best_e = -1
    best_deficit = 0.0
    for i in range(tree.node_touched[root]):
        e = start + i
        visits = tree.edge_n[e] + (tree.edge_vl[e] // vl if vl > 0 else 0)
        if visits == 0:
            continue
        child = tree.edge_child[e]
        if child >= 0 and tree.node_proof[child] != 0:
            continue  # a proven result needs no more visits
        deficit = math.sqrt(sp.forced_playouts_k * tree.root_prior[i] * total) - visits
        if deficit > best_deficit:
            best_deficit, best_e = deficit, e
    return best_e


def prune_policy_target(visits: np.ndarray, q: np.ndarray, prior: np.ndarray, *, k: float,
                        c_puct: float) -> np.ndarray:
    """The policy target with forced playouts pruned (KataGo's policy target pruning).

    Args:
        visits: (K,) edge visits N of the root moves; q: (K,) their mean values from the root
            mover's view in [-1, 1] (any value where N = 0); prior: (K,) the priors the root
            used (noised); k: the forced-playout factor; c_puct: the root's exploration
            coefficient c(root).

    Returns:
        float32 (K,) summing to 1 (the visit distribution when nothing can be pruned).

    Raises:
        ValueError: no visits at all.
    """
    n = np.asarray(visits, np.float64)
    if n.sum() <= 0:
        raise ValueError("no visits to make a target from")
    q = np.asarray(q, np.float64)
    p = np.asarray(prior, np.float64)
    total = n.sum()
    sqrt_total = math.sqrt(total)
    best = int(np.argmax(n))
    best_puct = q[best] + c_puct * p[best] * sqrt_total / (1.0 + n[best])
    pruned = n.copy()
    for c in range(len(n)):
        if c == best or n[c] == 0:
            continue
        forced = math.sqrt(k * p[c] * total)
        gap = best_puct - q[c]
        # the fewest visits at which PUCT(c) is still no higher than PUCT(c*)
        floor = c_puct * p[c] * sqrt_total / gap - 1.0 if gap > 0 else n[c]
        pruned[c] = min(n[c], max(n[c] - forced, floor))
        if pruned[c] <= 1.0:
            pruned[c] = 0.0
    return (pruned / pruned.sum()).astype(np.float32)
