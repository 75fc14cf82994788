"""Rounds of search with the evaluation inside the compiled loop (evaluators with an
``InlineRule``: uniform priors, value 0 or random rollouts).

The batched path (``Searcher.gather`` / the evaluator / ``Searcher.finish``) returns to Python
once per round of ``batch_size`` leaves: about 7 us per playout of a 15x15 tree-only search
went to the evaluator call, the loop's bookkeeping and numba unboxing the tree and batch
arrays for each call (``scripts/playout_cost.py``, docs/BENCHMARKS.md). Here one call runs
whole rounds -- gather, expand every queued leaf by the rule, back up, release collisions --
until a limit, a full pool, a proven root or the end of a chunk (so that time limits and stop
callbacks stay live). The rounds are the batched path's rounds: same leaves per round, same
playout limit per round, same priors and values bit for bit, so the tree is identical (checked
by ``tests/search/test_search_inline.py``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.search.backup import backup_path, set_expanded
from zeroplay.search.gather import gather, release_collisions
from zeroplay.search.rollout import rollout_values
from zeroplay.search.tree import EXPANDED, M_FULL, M_ROOT, UNPROVEN, encode_prior

CHUNK_PLAYOUTS = 1024
"""Playouts after which a call returns to the searcher between rounds (time limits and stop
callbacks are checked there): about 15 ms of a 15x15 tree-only search."""
ROLLOUT_CHUNK_PLAYOUTS = 256
"""The same with rollouts (each playout also plays random games to the end)."""


@njit(cache=True, inline="always")
def expand_uniform(tree, batch, i, share, value):
    """``gather.expand_leaf`` for priors of ``share`` on every candidate move of queued leaf
    ``i`` (``share`` 0: float32(1 / k), ``UniformEvaluator``'s) without the prior array: the
    same float64 total, quotient and 16-bit code for all k edges, in move order (all codes equal:
    no sort)."""
    n = batch.leaf_node[i]
    start = tree.node_edge_start[n]
    k = tree.node_num_edges[n]
    weight = np.float32(1.0 / max(k, 1)) if share == 0.0 else np.float32(share)
    weight = max(weight, np.float32(0.0))
    total = 0.0
    for _ in range(k):
        total += weight  # summed one by one, as expand_leaf does: the same rounding
    p = weight / total if total > 0.0 else 1.0 / max(k, 1)
    code = encode_prior(p)
    legal = batch.leaf_legal[i]
    j = 0
    for a in range(legal.shape[0]):
        if legal[a]:
            tree.edge_move[start + j] = a
            tree.edge_prior[start + j] = code
            j += 1
    if n == tree.meta[M_ROOT]:
        for j in range(k):
            tree.root_raw_prior[j] = p
    set_expanded(tree, n, value)


@njit(cache=True)
def _rule_value(params, zkeys, batch, i, rollouts, result):
    """V of queued leaf ``i``: 0, or the mean of ``rollouts`` random games (side to move's view)."""
    if rollouts == 0:
        return 0.0
    total = 0.0
    for _ in range(rollouts):
        rollout_values(params, zkeys, batch.leaf_board[i : i + 1], batch.leaf_info[i : i + 1], result)
        total += result[0]
    return total / rollouts


@njit(cache=True)
def run_inline_rounds(tree, table, sp, params, zkeys, board, info, stack, wmask, batch, leaves, share, rollouts,
                      max_playouts, max_visits, max_rounds, chunk):
    """Rounds of ``gather`` (up to ``leaves`` leaves each), the rule's evaluation of each queued
    leaf, backup and collision release, as ``Searcher`` runs them one by one.

    Args:
        share, rollouts: the ``InlineRule``.
        max_playouts: playouts this call may still run (the search's playout limit minus the
            playouts it has run; a large number when unlimited).
        max_visits: the root's visit limit N(root) (a large number when unlimited).
        max_rounds: at most this many rounds (1: the root alone, or a debug check after each).
        chunk: return after the round that brings the playouts of this call to ``chunk``.

    The first round always runs (with at least one playout allowed: the caller checked the
    limits); a later one only while both limits leave playouts, the root is unproven and
    no pool is full. Returns the playouts completed.
    """
    root = tree.meta[M_ROOT]
    result = np.zeros(1, np.float32)
    done_total = 0
    rounds = 0
    while rounds < max_rounds and done_total < chunk:
        remaining = min(max_playouts - done_total, max_visits - tree.node_n[root])
        if rounds > 0 and (remaining <= 0 or tree.node_proof[root] != UNPROVEN or tree.node_state[root] != EXPANDED):
            break
        queued, done, collisions = gather(tree, table, sp, params, zkeys, board, info, stack, wmask, batch,
                                          leaves, max(remaining, 1))
        for i in range(queued):
            value = _rule_value(params, zkeys, batch, i, rollouts, result)
            expand_uniform(tree, batch, i, share, value)
            backup_path(tree, sp.virtual_loss, batch.path_node[i], batch.path_edge[i], batch.path_len[i], True)
        if collisions:
            release_collisions(tree, sp, batch, collisions)
        done_total += queued + done
        rounds += 1
        if tree.meta[M_FULL] or queued + done == 0:
            break
    return done_total
