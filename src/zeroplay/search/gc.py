"""Memory of the search graph: garbage collection on tree reuse, and recycling under a budget.

``collect`` (tree reuse, and after every recycling): keep what the new root reaches through child
links, sweep the rest out of the node table, and compact the edge pool and the stat pool (each
live node's block slides down to close the gaps, its order kept; stat blocks shrink to their
touched prefix, dropping growth slack and the garbage of moved blocks).

``recycle`` (the tables are full in the middle of a search): the search does not stop; it frees
the least useful part of the graph and goes on. Least useful = least visited: a node is kept when
it is the root, is proven (its proof lines stay replayable), or has N(n) >= ``min_visits`` and is
reached from the root through kept nodes; everything else is freed. An edge whose child is freed
keeps its visits N(n,a) and freezes their mean value in ``stat_q`` (``tree.edge_q``): N and Q of
every kept node stay exactly as they were, and the edge is selected by PUCT as before; when it is
followed again a new child grows, and the frozen value covers the visits the new child has not
caught up with. What goes is mostly leaves evaluated once (each holding one 4-byte edge per
candidate move) and thinly visited side lines; the principal lines keep their nodes.
``recycle_threshold`` picks ``min_visits`` so that what is kept fills about half of each pool.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.search.tree import M_EDGE_TOP, M_FULL, M_STAT_TOP, UNPROVEN, edge_q
from zeroplay.tt.node_table import C_LIMIT, node_mark, node_sweep


@njit(cache=True)
def _slide_plan(starts, sizes, nodes):
    """Where the pool blocks of ``nodes`` (block of n: [starts[n], starts[n] + sizes[n])) go when
    they slide to the front of their pool, their order kept: (the nodes in pool order, the new
    start of each, the pool's new top)."""
    in_order = nodes[np.argsort(starts[nodes], kind="mergesort")]
    new_starts = np.empty(in_order.shape[0], np.int64)
    write = 0
    for i in range(in_order.shape[0]):
        new_starts[i] = write
        write += sizes[in_order[i]]
    return in_order, new_starts, write


@njit(cache=True, inline="always")
def _move_block(pool, start, new_start, size):
    """Copy ``pool[start : start + size]`` down to ``new_start`` (<= start: overlap is safe)."""
    for j in range(size):
        pool[new_start + j] = pool[start + j]


@njit(cache=True)
def _compact(tree, live, n_live):
    """Slide the edge blocks and the stat blocks of the ``live`` nodes to the front of their
    pools; a stat block shrinks to its touched prefix (an untouched node's is dropped)."""
    with_edges = np.empty(n_live, np.int64)
    with_stats = np.empty(n_live, np.int64)
    k_edges = 0
    k_stats = 0
    for i in range(n_live):
        n = live[i]
        if tree.node_num_edges[n] > 0:
            with_edges[k_edges] = n
            k_edges += 1
        if tree.node_stat_cap[n] > 0:
            if tree.node_touched[n] > 0:
                with_stats[k_stats] = n
                k_stats += 1
            else:
                tree.node_stat_cap[n] = 0
    nodes, new_starts, top = _slide_plan(tree.node_edge_start, tree.node_num_edges, with_edges[:k_edges])
    for i in range(nodes.shape[0]):
        n, start, size = nodes[i], tree.node_edge_start[nodes[i]], tree.node_num_edges[nodes[i]]
        if start != new_starts[i]:
            _move_block(tree.edge_move, start, new_starts[i], size)
            _move_block(tree.edge_prior, start, new_starts[i], size)
            tree.node_edge_start[n] = new_starts[i]
    tree.meta[M_EDGE_TOP] = top
    nodes, new_starts, top = _slide_plan(tree.node_stat_start, tree.node_touched, with_stats[:k_stats])
    for i in range(nodes.shape[0]):
        n, start, size = nodes[i], tree.node_stat_start[nodes[i]], tree.node_touched[nodes[i]]
        if start != new_starts[i]:
            _move_block(tree.stat_n, start, new_starts[i], size)
            _move_block(tree.stat_vl, start, new_starts[i], size)
            _move_block(tree.stat_child, start, new_starts[i], size)
            _move_block(tree.stat_q, start, new_starts[i], size)
            tree.node_stat_start[n] = new_starts[i]
        tree.node_stat_cap[n] = size
    tree.meta[M_STAT_TOP] = top
    tree.meta[M_FULL] = 0


@njit(cache=True)
def collect(tree, table, root):
    """Mark every node reachable from ``root`` through child links, sweep the table, and compact
    both pools. Returns nodes freed."""
    cap = tree.node_n.shape[0]
    seen = np.zeros(cap, np.bool_)
    live = np.empty(cap, np.int64)
    n_live = 0
    stack = np.empty(cap, np.int64)
    top = 0
    if root >= 0:
        stack[0] = root
        top = 1
        seen[root] = True
    while top > 0:
        top -= 1
        n = stack[top]
        node_mark(table, n)
        live[n_live] = n
        n_live += 1
        start = tree.node_stat_start[n]
        for s in range(start, start + tree.node_touched[n]):
            c = tree.stat_child[s]
            if c >= 0 and not seen[c]:
                seen[c] = True
                stack[top] = c
                top += 1
    freed = node_sweep(table)
    _compact(tree, live, n_live)
    return freed


@njit(cache=True)
def recycle(tree, table, root, min_visits):
    """Free the nodes with N(n) < ``min_visits`` (never the root or a proven node) and what only
    they reach; the edges that led to them freeze their value; compact. Call it between batches
    (no virtual loss in flight). Returns nodes freed."""
    cap = tree.node_n.shape[0]
    keep = np.zeros(cap, np.bool_)
    live = np.empty(cap, np.int64)
    n_live = 0
    stack = np.empty(cap, np.int64)
    stack[0] = root
    top = 1
    keep[root] = True
    while top > 0:
        top -= 1
        n = stack[top]
        live[n_live] = n
        n_live += 1
        start = tree.node_stat_start[n]
        for s in range(start, start + tree.node_touched[n]):
            c = tree.stat_child[s]
            if c >= 0 and not keep[c] and (tree.node_n[c] >= min_visits or tree.node_proof[c] != UNPROVEN):
                keep[c] = True
                stack[top] = c
                top += 1
    for i in range(n_live):
        n = live[i]
        start = tree.node_stat_start[n]
        for s in range(start, start + tree.node_touched[n]):
            c = tree.stat_child[s]
            if c >= 0 and not keep[c]:
                tree.stat_q[s] = edge_q(tree, s) if tree.stat_n[s] > 0 else np.nan
                tree.stat_child[s] = -1
    for i in range(n_live):
        node_mark(table, live[i])
    freed = node_sweep(table)
    _compact(tree, live, n_live)
    return freed


@njit(cache=True)
def recycle_threshold(tree, table, keep_fraction):
    """The smallest ``min_visits`` (>= 2) whose nodes (N >= min_visits) take at most
    ``keep_fraction`` of the node table's limit, of the edge pool and of the stat pool (an
    estimate: the nodes that ``recycle`` keeps are a subset of these, plus proven ones)."""
    cap = tree.node_n.shape[0]
    nodes = np.empty(cap, np.int64)
    k = 0
    for n in range(cap):
        if table.node_slot[n] >= 0:
            nodes[k] = n
            k += 1
    nodes = nodes[:k]
    order = np.argsort(-tree.node_n[nodes], kind="mergesort")
    edge_room = keep_fraction * tree.edge_move.shape[0]
    stat_room = keep_fraction * tree.stat_n.shape[0]
    node_room = keep_fraction * table.counters[C_LIMIT]
    edges = 0.0
    stats = 0.0
    for i in range(k):
        n = nodes[order[i]]
        edges += tree.node_num_edges[n]
        stats += tree.node_touched[n]
        if i + 1 > node_room or edges > edge_room or stats > stat_room:
            return max(2, tree.node_n[n] + 1)
    return 2
