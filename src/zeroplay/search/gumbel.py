"""Gumbel root search: Gumbel-top-k candidates, sequential halving, completed Q, improved policy.

After Danihelka, Guez, Schrittwieser and Silver, "Policy improvement by planning with Gumbel"
(ICLR 2022); the design follows mctx's ``gumbel_muzero_policy``. Only the root differs from the
PUCT search: interior nodes keep PUCT (``search/select.py``), not the paper's deterministic
interior rule.

At the root, with logits l(a) = log P(a) of the raw priors and Gumbel noise g(a) (0 in play):

* Gumbel-top-k and sequential halving as one rule (mctx): simulation i of the search visits,
  among the root moves whose visits in this search equal ``schedule[i]``, the one with the
  largest g(a) + l(a) + sigma(completed q(a)). ``schedule`` (``considered_visit_sequence``)
  visits the top m moves by g + l once each, then keeps halving: phase j gives each of its
  |S_j| candidates floor(n / (ceil(log2 m) * |S_j|)) visits (at least 1), then the better half
  by g + l + sigma(q) goes on, down to 2 candidates.
* completed q(a) = q(a) for a visited move, else v_mix (the paper's eq. 33 of appendix D):
  (U(root) + sum_b N(b) / sum_{b visited} P(b) * sum_{b visited} P(b) q(b)) / (1 + sum_b N(b)),
  with q from the root mover's view in [-1, 1] mapped to [0, 1] as (q + 1) / 2 (the paper's
  board-game value range).
* sigma(q) = (c_visit + max_b N(b)) * c_scale * q (paper: c_visit = 50, c_scale = 1.0).
* the move played: argmax g + l + sigma(completed q) over the moves with the most visits in this
  search (the survivors of the last phase);
* the policy target: softmax(l + sigma(completed q)) over all root moves.

Batches: a simulation in flight under virtual loss counts as a visit (``edge_vl // virtual_loss``),
so a batch of leaves follows the schedule exactly; only the q of in-flight visits is not known
yet. Tree reuse: visits the root's moves had before this search (``base``) do not count for the
schedule, but do count in N(b) for sigma and v_mix.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from zeroplay.search.select import _rotate_into_prefix
from zeroplay.search.tree import LOSS, WIN

C_VISIT = 50.0
"""c_visit of sigma (the paper's value for Go and chess)."""
C_SCALE = 1.0
"""c_scale of sigma (the paper's value)."""
DEFAULT_BUDGET = 800
"""Simulations the schedule is planned for when a search has only a time limit; past the end of
the schedule the survivors are visited evenly (the least visited first)."""

# GumbelArrays.params slots
G_C_VISIT = 0
G_C_SCALE = 1


class GumbelArrays(NamedTuple):
    """The root's Gumbel state for one search (A actions; S simulations planned).

    Attributes:
        enabled: bool (1,) the root picks its edge by ``gumbel_root_edge`` (set once the root's
            edges exist in a Gumbel search).
        score: float64 (A,) g(a) + log P(a) by action: Gumbel noise plus the raw prior's logit
            (-inf for actions that are not root moves).
        base: int32 (A,) edge visits N(root, a) when this search started (tree reuse).
        schedule: int32 (S,) the visits in this search that the move visited by simulation i
            must have (``considered_visit_sequence``).
        params: float64 (2,) c_visit, c_scale.
    """

    enabled: np.ndarray
    score: np.ndarray
    base: np.ndarray
    schedule: np.ndarray
    params: np.ndarray


def new_gumbel_arrays(num_actions: int, c_visit: float = C_VISIT, c_scale: float = C_SCALE) -> GumbelArrays:
    """Arrays for a Gumbel search over ``num_actions`` actions (disabled until the root is set)."""
    return GumbelArrays(np.zeros(1, np.bool_), np.full(num_actions, -np.inf), np.zeros(num_actions, np.int32),
                        np.zeros(1, np.int32), np.array([c_visit, c_scale], np.float64))


def gumbel_off() -> GumbelArrays:
    """Placeholder arrays of a PUCT search (never enabled)."""
    return new_gumbel_arrays(1)


def considered_visit_sequence(m: int, n: int) -> np.ndarray:
    """int32 (n,): for each of ``n`` simulations, the visits (in this search) of the move it visits.

    Sequential halving over ``m`` candidates (Karnin et al. 2013 as used by Danihelka et al.
    2022): ceil(log2 m) phases; a phase with k candidates gives each max(1, n // (ceil(log2 m)
    * k)) more visits; then k becomes max(2, k // 2). The sequence continues with the next
    phases until n simulations are planned. ``m <= 1``: 0, 1, 2, ... (one move, every visit).

    Raises:
        ValueError: m < 1 or n < 0.
    """
    if m < 1 or n < 0:
        raise ValueError(f"need m >= 1 and n >= 0, got m={m}, n={n}")
    if m == 1:
        return np.arange(n, dtype=np.int32)
    phases = math.ceil(math.log2(m))
    out: list[int] = []
    visits = 0  # every candidate of the current phase has this many visits
    k = m
    while len(out) < n:
        extra = max(1, n // (phases * k))
        for _ in range(extra):
            out.extend([visits] * k)
            visits += 1
        k = max(2, k // 2)
    return np.asarray(out[:n], dtype=np.int32)


@njit(cache=True)
def completed_q(tree, root, q01):
    """Fill ``q01`` (float64, one per root edge in pool order) with the completed q in [0, 1],
    the root mover's view ((q + 1) / 2); returns max_b N(root, b) (full visits, reuse included)."""
    start = tree.node_edge_start[root]
    num = tree.node_num_edges[root]
    total_n = 0
    max_n = 0
    visited_p = 0.0
    visited_pq = 0.0
    for i in range(num):
        e = start + i
        n = tree.edge_n[e]
        if n > 0:
            q = -tree.node_q[tree.edge_child[e]]
            total_n += n
            max_n = max(max_n, n)
            visited_p += tree.edge_prior[e]
            visited_pq += tree.edge_prior[e] * q
    v_mix = np.float64(tree.node_u[root])
    if total_n > 0 and visited_p > 0.0:
        v_mix = (v_mix + total_n * visited_pq / visited_p) / (1.0 + total_n)
    for i in range(num):
        e = start + i
        q = -tree.node_q[tree.edge_child[e]] if tree.edge_n[e] > 0 else v_mix
        q01[i] = 0.5 * (q + 1.0)
    return max_n


@njit(cache=True)
def gumbel_root_edge(tree, sp, root, gumbel):
    """Edge (pool index) the next simulation follows from the root; -1 when the root has none.

    The edge joins the root's touched prefix (the invariant ``search/select.py`` relies on).
    """
    start = tree.node_edge_start[root]
    num = tree.node_num_edges[root]
    if num == 0:
        return -1
    vl = sp.virtual_loss
    mine = np.empty(num, np.int64)  # visits in this search, in-flight ones included
    sim = 0
    for i in range(num):
        e = start + i
        v = tree.edge_n[e] - gumbel.base[tree.edge_move[e]]
        if vl > 0:
            v += tree.edge_vl[e] // vl
        mine[i] = v
        sim += v
    schedule = gumbel.schedule
    if sim < schedule.shape[0]:
        considered = schedule[sim]
    else:
        # past the plan: the least visited of the last phase's survivors
        considered = 1 << 40
        for i in range(num):
            if mine[i] >= schedule[schedule.shape[0] - 1] and mine[i] < considered:
                considered = mine[i]
    q01 = np.empty(num, np.float64)
    max_n = completed_q(tree, root, q01)
    scale = (gumbel.params[G_C_VISIT] + max_n) * gumbel.params[G_C_SCALE]
    best_i = -1
    best = -np.inf
    fallback_i = 0
    fallback = -np.inf
    least = 1 << 40
    for i in range(num):
        e = start + i
        child = tree.edge_child[e]
        if child >= 0 and tree.node_proof[child] == LOSS:
            best_i = i  # a move that wins: nothing to plan
            break
        score = gumbel.score[tree.edge_move[e]] + scale * q01[i]
        if mine[i] == considered and score > best:
            best, best_i = score, i
        # no move at the planned count (cannot happen while visits follow the plan): least visited
        if mine[i] < least or (mine[i] == least and score > fallback):
            least, fallback, fallback_i = mine[i], score, i
    if best_i < 0:
        best_i = fallback_i
    touched = tree.node_touched[root]
    if best_i >= touched:
        if best_i > touched:
            _rotate_into_prefix(tree, root, best_i)
        tree.node_touched[root] = touched + 1
        return start + touched
    return start + best_i


def prepare_root(tree, root: int, gumbel: GumbelArrays, *, m: int, budget: int, noise: bool,
                 rng: np.random.Generator) -> GumbelArrays:
    """Set up a Gumbel search at the expanded ``root``: draw g (zeros without ``noise``), set the
    scores g + log P, the reuse baseline and the schedule for ``budget`` simulations over
    min(m, root moves) candidates, and enable the root rule. Returns the arrays to use (the
    schedule's length depends on the budget, so it is a new array)."""
    start, k = int(tree.node_edge_start[root]), int(tree.node_num_edges[root])
    moves = tree.edge_move[start : start + k]
    priors = tree.edge_prior[start : start + k].astype(np.float64)
    g = rng.gumbel(size=k) if noise else np.zeros(k)
    gumbel.score[:] = -np.inf
    gumbel.score[moves] = g + np.log(np.maximum(priors, 1e-30))
    gumbel.base[:] = 0
    gumbel.base[moves] = tree.edge_n[start : start + k]
    schedule = considered_visit_sequence(max(1, min(m, k)), max(1, budget))
    gumbel.enabled[0] = True
    return gumbel._replace(schedule=schedule)


def root_outcome(tree, root: int, gumbel: GumbelArrays) -> tuple[np.ndarray, np.ndarray, int]:
    """What the Gumbel search says at its end.

    Returns:
        (moves int32 (K,), improved policy float32 (K,) = softmax(log P + sigma(completed q)) over
        the root's moves (sums to 1), the chosen move: argmax g + log P + sigma(completed q) among
        the moves most visited in this search, moves proven lost for the mover left out while
        another remains).
    """
    start, k = int(tree.node_edge_start[root]), int(tree.node_num_edges[root])
    moves = tree.edge_move[start : start + k].copy()
    q01 = np.empty(k, np.float64)
    max_n = completed_q(tree, root, q01)
    sigma = (gumbel.params[G_C_VISIT] + max_n) * gumbel.params[G_C_SCALE] * q01
    logits = np.log(np.maximum(tree.edge_prior[start : start + k].astype(np.float64), 1e-30))
    z = logits + sigma
    policy = np.exp(z - z.max())
    policy /= policy.sum()
    mine = tree.edge_n[start : start + k].astype(np.int64) - gumbel.base[moves]
    children = tree.edge_child[start : start + k]
    lost = np.array([c >= 0 and tree.node_proof[c] == WIN for c in children], bool)
    ok = ~lost if (~lost).any() else np.ones(k, bool)
    top = mine[ok].max()
    score = np.where(ok & (mine == top), gumbel.score[moves] + sigma, -np.inf)
    won = np.array([c >= 0 and tree.node_proof[c] == LOSS for c in children], bool)
    if won.any():
        score = np.where(won, 0.0, -np.inf)
    return moves, policy.astype(np.float32), int(moves[int(np.argmax(score))])


__all__ = ["C_SCALE", "C_VISIT", "DEFAULT_BUDGET", "GumbelArrays", "completed_q", "considered_visit_sequence",
           "gumbel_off", "gumbel_root_edge", "new_gumbel_arrays", "prepare_root", "root_outcome"]
