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
def _compact(tree, live, n_live):
    """Slide the edge blocks and the stat blocks of the ``live`` nodes to the front of their pools."""
    with_edges = np.empty(n_live, np.int64)
    k = 0
    for i in range(n_live):
        if tree.node_num_edges[live[i]] > 0:
            with_edges[k] = live[i]
            k += 1
    with_edges = with_edges[:k]
    order = np.argsort(tree.node_edge_start[with_edges], kind="mergesort")
    write = 0
    for i in range(k):
        n = with_edges[order[i]]
        start = tree.node_edge_start[n]
        num = tree.node_num_edges[n]
        if start != write:
            for j in range(num):
                tree.edge_move[write + j] = tree.edge_move[start + j]
                tree.edge_prior[write + j] = tree.edge_prior[start + j]
            tree.node_edge_start[n] = write
        write += num
    tree.meta[M_EDGE_TOP] = write
    with_stats = np.empty(n_live, np.int64)
    k = 0
    for i in range(n_live):
        n = live[i]
        if tree.node_stat_cap[n] > 0:
            if tree.node_touched[n] > 0:
                with_stats[k] = n
                k += 1
            else:
                tree.node_stat_cap[n] = 0
    with_stats = with_stats[:k]
    order = np.argsort(tree.node_stat_start[with_stats], kind="mergesort")
    write = 0
    for i in range(k):
        n = with_stats[order[i]]
        start = tree.node_stat_start[n]
        num = tree.node_touched[n]
        if start != write:
            for j in range(num):
                tree.stat_n[write + j] = tree.stat_n[start + j]
                tree.stat_vl[write + j] = tree.stat_vl[start + j]
                tree.stat_child[write + j] = tree.stat_child[start + j]
                tree.stat_q[write + j] = tree.stat_q[start + j]
            tree.node_stat_start[n] = write
        tree.node_stat_cap[n] = num
        write += num
    tree.meta[M_STAT_TOP] = write
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
