"""The search graph as struct-of-arrays: node payload, a compact edge pool, lazily allocated edge
statistics (after mctx's preallocated tree and lc0's 4-byte edges).

Layout::

    node table (zeroplay.tt)       node payload, by node index n      edge pool, by edge e (4 bytes)
    (key, to_play, ply) -> n       U N Q vl state proof dist          move uint16 | prior uint16
                                   edge_start ------------------->    [start, start + num_edges)
                                   num_edges, touched                 sorted by prior, decreasing
                                   stat_start ------------------->    stat pool, by stat s (16 bytes)
                                   stat_cap                           N(n,a) | vl | child | frozen Q
                                                                      [stat_start, + touched)

Every expanded node gets one 4-byte edge per candidate move: the move (uint16) and its prior P,
quantised to 16 bits as round(sqrt(P) * 65535) (monotone, so the order by prior survives; the
absolute error of a decoded prior is at most 1/65535, finer for small priors). Edges are sorted
by decreasing prior and the ones ever selected form a prefix of length ``touched``: only they get
statistics (edge visits N(n,a), virtual loss, child index, the value of recycled visits), in a block of the stat pool that
grows by doubling (extended in place when it ends the pool, else moved; the old block is garbage
until the next compaction in ``search/gc.py``). A node visited once has no statistics at all.
Most nodes of a search are such leaves, so a node costs about ``NODE_BYTES`` plus 4 bytes per
candidate move plus 16 bytes per selected move (plus growth slack).

Values (U, Q) are in [-1, 1] from the point of view of the side to move at that node. An edge's
value for the mover at its parent is -Q(child). Invariant after every batch: for an expanded,
unproven node, N(n) = 1 + sum_a N(n,a) and Q(n) = (U(n) + sum_a N(n,a) * Q(n,a)) / N(n) with
Q(n,a) = -Q(child_a) (``edge_q``; Monte-Carlo graph search, as KataGo does it). Child visits >= edge visits is NOT an invariant:
a child shared by several parents collects visits from each, and recycling (``search/gc.py``)
may drop a subtree's visits.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from zeroplay.tt.node_table import TABLE_BYTES_PER_NODE

# node states
NEW = 0  # in the table, not yet evaluated
PENDING = 1  # queued for evaluation in the current batch
EXPANDED = 2  # evaluated; edges created
TERMINAL = 3  # game over at this node; U is the exact result

# proof values, from the side to move at the node
UNPROVEN = 0
WIN = 1
LOSS = -1
DRAW = 2

# meta fields
M_EDGE_TOP = 0  # first free edge of the pool
M_ROOT = 1  # node index of the root, -1 when none
M_FULL = 2  # 1 once a playout could not add a node, edges or statistics (a pool full)
M_STAT_TOP = 3  # first free statistic of the stat pool
META_SIZE = 4

NO_NODE = -1

PRIOR_SCALE = 65535
"""Priors are stored as round(sqrt(P) * PRIOR_SCALE) in a uint16."""
PRIOR_ABS_ERROR = 1.0 / PRIOR_SCALE
"""Largest |decoded - P| of a stored prior P in [0, 1]."""
MAX_ACTIONS = 1 << 16
"""Moves are stored as uint16: a game may have at most this many actions."""

_NODE_FIELDS = {
    "node_u": np.float32, "node_q": np.float64, "node_n": np.int32, "node_vl": np.int32,
    "node_state": np.int8, "node_proof": np.int8, "node_dist": np.int16,
    "node_edge_start": np.int32, "node_num_edges": np.int16, "node_touched": np.int16,
    "node_stat_start": np.int32, "node_stat_cap": np.int16,
}
_EDGE_FIELDS = {"edge_move": np.uint16, "edge_prior": np.uint16}
_STAT_FIELDS = {"stat_n": np.int32, "stat_vl": np.int32, "stat_child": np.int32, "stat_q": np.float32}

THREAT_BYTES_PER_NODE = 8
"""The threat solver's per-node line index (``search.threats.ThreatArrays.node_line``, int64)."""
NODE_BYTES = sum(np.dtype(t).itemsize for t in _NODE_FIELDS.values()) + TABLE_BYTES_PER_NODE + THREAT_BYTES_PER_NODE
"""Bytes per node index: payload (38) + node-table slot and index arrays (25) + threat line (8)."""
EDGE_BYTES = sum(np.dtype(t).itemsize for t in _EDGE_FIELDS.values())
"""Bytes per edge of the edge pool (4)."""
STAT_BYTES = sum(np.dtype(t).itemsize for t in _STAT_FIELDS.values())
"""Bytes per statistic of the stat pool (16), one per selected edge (plus growth slack)."""
MAX_POOL = (1 << 31) - 1
"""Largest edge or stat pool (int32 starts)."""


class TreeArrays(NamedTuple):
    """All arrays of one search graph (capacity C nodes, E edges, S statistics, A actions).

    Attributes:
        node_u: float32 (C,) U(n), raw network value or exact terminal result, mover's view.
        node_q: float64 (C,) Q(n), mover's view.
        node_n: int32 (C,) N(n) = 1 + sum of edge visits; 0 before evaluation.
        node_vl: int32 (C,) virtual-loss visits on the node's edges (0 between batches).
        node_state: int8 (C,) NEW / PENDING / EXPANDED / TERMINAL.
        node_proof: int8 (C,) UNPROVEN / WIN / LOSS / DRAW for the side to move.
        node_dist: int16 (C,) plies to the proven result (0 at a terminal node).
        node_edge_start: int32 (C,) first edge in the edge pool.
        node_num_edges: int16 (C,) edges (candidate moves) of the node.
        node_touched: int16 (C,) length of the touched (ever selected) prefix of its edges.
        node_stat_start: int32 (C,) first statistic of its block in the stat pool.
        node_stat_cap: int16 (C,) statistics its block holds (>= touched; 0 before any selection).
        edge_move: uint16 (E,) action of the edge.
        edge_prior: uint16 (E,) raw prior, round(sqrt(P) * PRIOR_SCALE) (never noised).
        stat_n: int32 (S,) edge visits N(n,a) of the touched edge at position i: s = stat_start + i.
        stat_vl: int32 (S,) virtual-loss visits in flight on that edge.
        stat_child: int32 (S,) node index of its child, -1 until created (or after recycling).
        stat_q: float32 (S,) NaN, or, once recycling freed the edge's child, the mean value of
            the edge's visits then (the parent mover's view): they keep counting with that value
            while a new child catches up (``edge_q``).
        meta: int64 (META_SIZE,) M_EDGE_TOP, M_ROOT, M_FULL, M_STAT_TOP.
        root_prior: float32 (A,) the root's priors by edge position, noised in self-play; private
            to the root, never written into shared nodes or caches.
        root_raw_prior: float64 (A,) the root's raw priors by edge position: the evaluator's
            float32 output when the root was expanded by this search, else its decoded 16-bit
            priors (the search renormalises them into ``root_prior``).
    """

    node_u: np.ndarray
    node_q: np.ndarray
    node_n: np.ndarray
    node_vl: np.ndarray
    node_state: np.ndarray
    node_proof: np.ndarray
    node_dist: np.ndarray
    node_edge_start: np.ndarray
    node_num_edges: np.ndarray
    node_touched: np.ndarray
    node_stat_start: np.ndarray
    node_stat_cap: np.ndarray
    edge_move: np.ndarray
    edge_prior: np.ndarray
    stat_n: np.ndarray
    stat_vl: np.ndarray
    stat_child: np.ndarray
    stat_q: np.ndarray
    meta: np.ndarray
    root_prior: np.ndarray
    root_raw_prior: np.ndarray


def new_tree_arrays(node_capacity: int, edge_capacity: int, stat_capacity: int, num_actions: int) -> TreeArrays:
    """Zeroed arrays (np.zeros: pages are only touched when used).

    Raises:
        ValueError: more than MAX_ACTIONS actions, or a pool above MAX_POOL.
    """
    if num_actions > MAX_ACTIONS:
        raise ValueError(f"the search stores moves in 16 bits: at most {MAX_ACTIONS} actions, got {num_actions}")
    if not 0 < edge_capacity <= MAX_POOL or not 0 < stat_capacity <= MAX_POOL:
        raise ValueError(f"edge and stat pools must hold 1..{MAX_POOL}, got {edge_capacity}, {stat_capacity}")
    meta = np.zeros(META_SIZE, dtype=np.int64)
    meta[M_ROOT] = NO_NODE
    arrays = {name: np.zeros(node_capacity, t) for name, t in _NODE_FIELDS.items()}
    arrays.update({name: np.zeros(edge_capacity, t) for name, t in _EDGE_FIELDS.items()})
    arrays.update({name: np.zeros(stat_capacity, t) for name, t in _STAT_FIELDS.items()})
    return TreeArrays(meta=meta, root_prior=np.zeros(num_actions, np.float32),
                      root_raw_prior=np.zeros(num_actions, np.float64), **arrays)


@njit(cache=True, inline="always")
def encode_prior(p):
    """uint16 code of a prior p (clipped to [0, 1]): round(sqrt(p) * PRIOR_SCALE)."""
    if p <= 0.0:
        return np.uint16(0)
    if p >= 1.0:
        return np.uint16(PRIOR_SCALE)
    return np.uint16(int(np.sqrt(p) * PRIOR_SCALE + 0.5))


@njit(cache=True, inline="always")
def decode_prior(code):
    """The prior a uint16 code stands for, float64 in [0, 1]."""
    c = np.float64(code) * (1.0 / PRIOR_SCALE)
    return c * c


@njit(cache=True, inline="always")
def edge_q(tree, s):
    """Q(n, a) of the touched edge with statistic ``s`` (N(n,a) > 0), the parent mover's view:
    -Q(child), blended with the frozen value of visits whose subtree was recycled
    (``stat_q``) for the visits the new child does not have yet."""
    child = tree.stat_child[s]
    frozen = tree.stat_q[s]
    if child < 0:
        return np.float64(frozen)
    q = -tree.node_q[child]
    if np.isnan(frozen):
        return q
    visits = tree.stat_n[s]
    child_visits = tree.node_n[child]
    if child_visits >= visits:
        return q
    return (child_visits * q + (visits - child_visits) * np.float64(frozen)) / visits


def decode_priors(codes: np.ndarray) -> np.ndarray:
    """float64 priors of an array of uint16 codes (Python side)."""
    c = codes.astype(np.float64) / PRIOR_SCALE
    return c * c


def quantise_priors(priors: np.ndarray) -> np.ndarray:
    """The priors as the search stores them (float64): what ``stats_at`` reports for ``priors``."""
    p = np.clip(np.asarray(priors, np.float64), 0.0, 1.0)
    return decode_priors(np.floor(np.sqrt(p) * PRIOR_SCALE + 0.5).astype(np.uint16))


class NodeEdges(NamedTuple):
    """The edges of one node as dense arrays (Python side; K = num_edges, in pool order).

    Attributes:
        moves: int64 (K,); priors: float64 (K,) decoded raw priors; visits: int64 (K,) N(n,a),
        virtual_loss: int64 (K,); children: int64 (K,) node index or -1 (untouched edges: 0, 0, -1);
        q: float64 (K,) Q(n,a) from n's mover's view (``edge_q``), NaN for an unvisited edge.
    """

    moves: np.ndarray
    priors: np.ndarray
    visits: np.ndarray
    virtual_loss: np.ndarray
    children: np.ndarray
    q: np.ndarray


def node_edges(tree: TreeArrays, n: int) -> NodeEdges:
    """The edges of node ``n`` (see NodeEdges)."""
    start, k = int(tree.node_edge_start[n]), int(tree.node_num_edges[n])
    touched, s = int(tree.node_touched[n]), int(tree.node_stat_start[n])
    visits = np.zeros(k, np.int64)
    vls = np.zeros(k, np.int64)
    children = np.full(k, -1, np.int64)
    visits[:touched] = tree.stat_n[s : s + touched]
    vls[:touched] = tree.stat_vl[s : s + touched]
    children[:touched] = tree.stat_child[s : s + touched]
    q = np.full(k, np.nan)
    if touched:  # edge_q, vectorised
        child = children[:touched]
        frozen = tree.stat_q[s : s + touched].astype(np.float64)
        child_q = np.where(child >= 0, -tree.node_q[np.maximum(child, 0)], np.nan)
        child_n = np.where(child >= 0, tree.node_n[np.maximum(child, 0)], 0).astype(np.float64)
        nv = visits[:touched].astype(np.float64)
        blend = (child_n * np.nan_to_num(child_q) + (nv - child_n) * frozen) / np.maximum(nv, 1)
        value = np.where(child < 0, frozen, np.where(np.isnan(frozen) | (child_n >= nv), child_q, blend))
        q[:touched] = np.where(nv > 0, value, np.nan)
    return NodeEdges(tree.edge_move[start : start + k].astype(np.int64),
                     decode_priors(tree.edge_prior[start : start + k]), visits, vls, children, q)


def tree_bytes_used(tree: TreeArrays, nodes: int) -> int:
    """Bytes the search's arrays hold for ``nodes`` live nodes and the pools' used parts."""
    return nodes * NODE_BYTES + int(tree.meta[M_EDGE_TOP]) * EDGE_BYTES + int(tree.meta[M_STAT_TOP]) * STAT_BYTES


class SearchParams(NamedTuple):
    """The scalars the compiled loops read (built from SearchConfig)."""

    c_puct: float
    c_puct_log: float
    c_puct_base: float
    puct_eps: float
    fpu_reduction: float
    fpu_reduction_root: float
    virtual_loss: int
    one_ply_proofs: bool
    key_recent_moves: int  # recent moves folded into node keys: those the net's planes show (gather.node_key)
    root_noise: bool  # the root's private priors are noised (selection scans all root edges)
    candidate_radius: int  # > 0: edges only for cells within this many of a stone (0: every legal move)
    forced_playouts_k: float  # KataGo's forced playouts at the root (search/forced.py); 0: off
