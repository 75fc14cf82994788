"""The MCTS <-> threat solver adapter: what the search carries and calls for the Gomoku VCF.

With ``SearchConfig(threat_solver=True)`` the search calls ``vcf_leaf`` on every newly expanded
node (small budget, from the compiled gather loop) and ``check_root`` on the root once per search
(larger budget); ``vcf_node`` marks a node a proven win (a VCF for its side to move) or a proven
loss (its only move, a forced block, leaves the opponent a VCF) at distance = the line's length,
and keeps the line in ``ThreatArrays`` so that ``proof_tail`` can append it to the proof line
that ``search.proof.verify_line`` replays before the result is reported. The solver itself is
``zeroplay.solvers.threat_solver`` (kernels in ``solvers.vcf_kernels``). See docs/THREATS.md.

Coordinates and players follow shared/README.md: cells ``y * width + x``, player 0 = Black.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from zeroplay.games.gomoku.kernels import apply_move_tracked, undo_move_tracked
from zeroplay.games.gomoku.layout import I_NWIN0
from zeroplay.games.layout import I_KEY, I_TERMINAL, I_TO_PLAY
from zeroplay.search.tree import EXPANDED, LOSS, UNPROVEN, WIN
from zeroplay.solvers.vcf_kernels import FOUND, MAX_PLIES, VcfWork, first_win_cell, new_vcf_work, vcf_search
from zeroplay.tt.ab_table import ABTable, new_ab_table

# ThreatArrays.cfg fields
T_ENABLED = 0  # 1: check newly expanded nodes
T_LEAF_NODES = 1  # VCF budget at a newly expanded node
T_MAX_PLIES = 2  # longest VCF line looked for
T_POOL_TOP = 3  # next free slot of the line pool
T_CALLS = 4  # VCF searches run (statistics)
T_PROOFS = 5  # wins found
T_NODES = 6  # VCF nodes searched in total
CFG_SIZE = 7

POOL_HEADER = 3
"""Pool words before a line's moves: key low 32 bits, key high 32 bits, length."""


class ThreatArrays(NamedTuple):
    """What the MCTS carries for its threat solver (compiled, passed inside the batch arrays).

    Attributes:
        cfg: int64 (CFG_SIZE,) switches, budgets and counters (the T_* fields).
        table: ABTable of the VCF searches, kept across the whole search and between searches.
        work: VcfWork scratch.
        node_line: int64 (node capacity,) pool offset of the VCF line that proved each node, -1
            when none. Valid only while the pool entry's key matches the node's position.
        pool: int32 (P,) ring of lines: [key low, key high, length, moves...] each; when full,
            writing wraps to 0 (a line overwritten is detected by its key and re-searched).
    """

    cfg: np.ndarray
    table: ABTable
    work: VcfWork
    node_line: np.ndarray
    pool: np.ndarray


def new_threat_arrays(game, node_capacity: int, *, enabled: bool, leaf_nodes: int = 16,
                      table_mib: float = 2.0, pool_size: int = 1 << 18,
                      max_plies: int = MAX_PLIES) -> ThreatArrays:
    """Threat-solver arrays for a search of ``game``; tiny and switched off unless ``enabled``
    (same dtypes either way, so the compiled search is not specialised twice)."""
    on = bool(enabled) and bool(getattr(game, "threat_space", False))
    cfg = np.zeros(CFG_SIZE, np.int64)
    cfg[T_ENABLED] = int(on)
    cfg[T_LEAF_NODES] = int(leaf_nodes)
    cfg[T_MAX_PLIES] = int(min(max_plies, MAX_PLIES))
    if on:
        return ThreatArrays(cfg, new_ab_table(table_mib), new_vcf_work(game.width, game.height, game.n_in_row),
                            np.full(node_capacity, -1, np.int64), np.zeros(pool_size, np.int32))
    return threats_off()


@njit(cache=True)
def _store_line(threats, node, key, first, length):
    """Keep ``[first] + work.line[:length]`` (``first`` < 0: no first move) as ``node``'s line."""
    pool = threats.pool
    cfg = threats.cfg
    total = length + (1 if first >= 0 else 0)
    need = POOL_HEADER + total
    if need > pool.shape[0] or node >= threats.node_line.shape[0]:
        return False
    top = cfg[T_POOL_TOP]
    if top + need > pool.shape[0]:
        top = 0
    pool[top] = np.int32(key & 0xFFFFFFFF)
    pool[top + 1] = np.int32((key >> 32) & 0xFFFFFFFF)
    pool[top + 2] = np.int32(total)
    at = top + POOL_HEADER
    if first >= 0:
        pool[at] = np.int32(first)
        at += 1
    for i in range(length):
        pool[at + i] = np.int32(threats.work.line[i])
    threats.node_line[node] = top
    cfg[T_POOL_TOP] = top + need
    return True


@njit(cache=True)
def vcf_node(params, zkeys, board, info, stack, wmask, threats, node, budget):
    """VCF checks at ``node``; the line behind a result is kept for the node (``stored_line``).

    Returns:
        +L: the side to move wins by VCF in L plies (line: the VCF).
        -L: the side to move has no five and must block the opponent's only winning cell; after
            that block the opponent wins by VCF: lost in L plies (line: the block, then the VCF).
        0: nothing found (or the threat solver is off, or the game is over).
    The position is restored. Each of the two searches gets ``budget`` nodes.
    """
    if threats.cfg[T_ENABLED] == 0 or info[I_TERMINAL] != 0:
        return 0
    cfg = threats.cfg
    p = info[I_TO_PLAY]
    cfg[T_CALLS] += 1
    res, length, used = vcf_search(params, zkeys, board, info, stack, wmask, threats.work, threats.table,
                                   cfg[T_MAX_PLIES], budget)
    cfg[T_NODES] += used
    if res == FOUND:
        if not _store_line(threats, node, info[I_KEY], -1, length):
            return 0
        cfg[T_PROOFS] += 1
        return length
    if info[I_NWIN0 + p] != 0 or info[I_NWIN0 + 1 - p] != 1:
        return 0
    # a forced block: does the opponent win by VCF after it?
    key = info[I_KEY]
    block = first_win_cell(params, wmask, 1 - p)
    apply_move_tracked(params, zkeys, board, info, stack, wmask, block)
    res, length, used = vcf_search(params, zkeys, board, info, stack, wmask, threats.work, threats.table,
                                   cfg[T_MAX_PLIES], budget)
    undo_move_tracked(params, zkeys, board, info, stack, wmask)
    cfg[T_NODES] += used
    if res != FOUND or not _store_line(threats, node, key, block, length):
        return 0
    cfg[T_PROOFS] += 1
    return -(length + 1)


@njit(cache=True, inline="always")
def vcf_leaf(params, zkeys, board, info, stack, wmask, threats, node):
    """``vcf_node`` with the leaf budget, when the solver is on (the gather hook)."""
    if threats.cfg[T_ENABLED] == 0:
        return 0
    return vcf_node(params, zkeys, board, info, stack, wmask, threats, node, threats.cfg[T_LEAF_NODES])


def stored_line(threats: ThreatArrays, node: int, key: int) -> list[int] | None:
    """The VCF line that proved ``node`` (a position of Zobrist key ``key``), None when there is
    none or it was overwritten."""
    if not 0 <= node < threats.node_line.shape[0]:
        return None
    at = int(threats.node_line[node])
    if at < 0:
        return None
    pool = threats.pool
    lo, hi, length = int(pool[at]) & 0xFFFFFFFF, int(pool[at + 1]) & 0xFFFFFFFF, int(pool[at + 2])
    k = (hi << 32) | lo
    if k >= 1 << 63:
        k -= 1 << 64
    if k != int(key) or length <= 0 or at + POOL_HEADER + length > pool.shape[0]:
        return None
    return [int(m) for m in pool[at + POOL_HEADER : at + POOL_HEADER + length]]


def threat_stats(threats: ThreatArrays) -> dict:
    """Counters of the MCTS hook: ``calls``, ``proofs``, ``nodes``."""
    cfg = threats.cfg
    return {"calls": int(cfg[T_CALLS]), "proofs": int(cfg[T_PROOFS]), "nodes": int(cfg[T_NODES])}


def _i64(k: int) -> int:
    k = int(k) & ((1 << 64) - 1)
    return k - (1 << 64) if k >= 1 << 63 else k


def check_root(searcher, budget: int) -> bool:
    """Before the search goes on: ``vcf_node`` at the (expanded) root with ``budget`` nodes; a
    result marks the root a proven win (or a loss: a forced block into the opponent's VCF) at
    distance = the line's length. Returns True when it did.

    Called once per search, after the root got its edges (so that a result still lists the
    root's moves); the edges keep their visits, the root's Q becomes exact (+1).
    """
    threats, t, r = searcher.batch.threats, searcher.tree, searcher.root
    if threats.cfg[T_ENABLED] == 0 or r < 0 or t.node_state[r] != EXPANDED or t.node_proof[r] != UNPROVEN:
        return False
    pos, game = searcher._pos, searcher.game
    dist = vcf_node(game.params, game.zkeys, pos.board, pos.info, pos.stack, pos.aux, threats, r, int(budget))
    if dist == 0:
        return False
    t.node_proof[r] = WIN if dist > 0 else LOSS
    t.node_dist[r] = abs(dist)
    t.node_q[r] = 1.0 if dist > 0 else -1.0
    return True


def proof_tail(searcher, line: list[int]) -> list[int]:
    """The line behind the node that ``line`` (a proof line from the root) ends at, when
    ``vcf_node`` proved it; else []. Appended to the proof line, it makes the line end in a five."""
    threats, t = searcher.batch.threats, searcher.tree
    if threats.cfg[T_ENABLED] == 0:
        return []
    n = searcher.node_at(line)
    if n < 0 or t.node_proof[n] not in (WIN, LOSS) or t.node_state[n] != EXPANDED:
        return []
    try:
        end = searcher.root_state.play_many(line)
    except ValueError:
        return []
    return stored_line(threats, n, _i64(end.key)) or []


def threats_off() -> ThreatArrays:
    """Switched-off threat-solver arrays (a search without the solver)."""
    cfg = np.zeros(CFG_SIZE, np.int64)
    return ThreatArrays(cfg, new_ab_table(0, num_buckets=1), new_vcf_work(5, 5), np.full(1, -1, np.int64),
                        np.zeros(POOL_HEADER + 1, np.int32))
