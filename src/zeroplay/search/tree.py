"""The search graph as struct-of-arrays: node payload beside the node table, and an edge pool.

Layout (after mctx's preallocated tree and lc0's node/edge split)::

    node table (zeroplay.tt)         node payload, by node index n        edge pool, by edge e
    (key, to_play, ply) -> n         U N Q vl state proof dist            move P N(n,a) vl child
                                     edge_start ---------------------->   [start, start + num_edges)
                                     touched: edges [start, start+touched) were selected at least
                                     once; the rest are in decreasing prior order, untouched

Bytes per node: 4 (U) + 8 (Q) + 4 (N) + 4 (vl) + 1 (state) + 1 (proof) + 2 (dist) + 8 (edge
start) + 4 (edges) + 4 (touched) = 40, plus the node table's own slots. Bytes per edge: 4 (move)
+ 4 (P) + 4 (N) + 4 (vl) + 4 (child) = 20.

Values (U, Q) are in [-1, 1] from the point of view of the side to move at that node. An edge's
value for the mover at its parent is -Q(child). Invariant after every batch: for an expanded,
unproven node, N(n) = 1 + sum_a N(n,a) and Q(n) = (U(n) + sum_a N(n,a) * -Q(child_a)) / N(n)
(Monte-Carlo graph search, as KataGo does it). Child visits >= edge visits is NOT an invariant:
a child shared by several parents collects visits from each.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

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
M_FULL = 2  # 1 once a playout could not add a node or edges (table or pool full)
META_SIZE = 4

NO_NODE = -1


class TreeArrays(NamedTuple):
    """All arrays of one search graph (capacity C nodes, E edges, A actions).

    Attributes:
        node_u: float32 (C,) U(n), raw network value or exact terminal result, mover's view.
        node_q: float64 (C,) Q(n), mover's view.
        node_n: int32 (C,) N(n) = 1 + sum of edge visits; 0 before evaluation.
        node_vl: int32 (C,) virtual-loss visits on the node's edges (0 between batches).
        node_state: int8 (C,) NEW / PENDING / EXPANDED / TERMINAL.
        node_proof: int8 (C,) UNPROVEN / WIN / LOSS / DRAW for the side to move.
        node_dist: int16 (C,) plies to the proven result (0 at a terminal node).
        node_edge_start: int64 (C,) first edge in the pool.
        node_num_edges: int32 (C,) edges of the node.
        node_touched: int32 (C,) length of the touched prefix of its edges.
        edge_move: int32 (E,) action of the edge.
        edge_prior: float32 (E,) raw prior P(n,a) (never noised).
        edge_n: int32 (E,) edge visits N(n,a).
        edge_vl: int32 (E,) virtual-loss visits in flight on the edge.
        edge_child: int32 (E,) node index of the child, -1 until first selected.
        meta: int64 (META_SIZE,) M_EDGE_TOP, M_ROOT, M_FULL.
        root_prior: float32 (A,) the root's priors by edge position, noised in self-play; private
            to the root, never written into shared nodes or caches.
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
    edge_move: np.ndarray
    edge_prior: np.ndarray
    edge_n: np.ndarray
    edge_vl: np.ndarray
    edge_child: np.ndarray
    meta: np.ndarray
    root_prior: np.ndarray


def new_tree_arrays(node_capacity: int, edge_capacity: int, num_actions: int) -> TreeArrays:
    """Zeroed arrays (np.zeros: pages are only touched when used)."""
    c, e = node_capacity, edge_capacity
    meta = np.zeros(META_SIZE, dtype=np.int64)
    meta[M_ROOT] = NO_NODE
    return TreeArrays(
        node_u=np.zeros(c, np.float32),
        node_q=np.zeros(c, np.float64),
        node_n=np.zeros(c, np.int32),
        node_vl=np.zeros(c, np.int32),
        node_state=np.zeros(c, np.int8),
        node_proof=np.zeros(c, np.int8),
        node_dist=np.zeros(c, np.int16),
        node_edge_start=np.zeros(c, np.int64),
        node_num_edges=np.zeros(c, np.int32),
        node_touched=np.zeros(c, np.int32),
        edge_move=np.zeros(e, np.int32),
        edge_prior=np.zeros(e, np.float32),
        edge_n=np.zeros(e, np.int32),
        edge_vl=np.zeros(e, np.int32),
        edge_child=np.zeros(e, np.int32),
        meta=meta,
        root_prior=np.zeros(num_actions, np.float32),
    )


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
    key_last_move: bool  # fold the last move into node keys (feature sets with a last-move plane)
    root_noise: bool  # the root's private priors are noised (selection scans all root edges)
    forced_playouts_k: float  # KataGo's forced playouts at the root (search/forced.py); 0: off
