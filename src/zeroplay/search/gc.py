"""Garbage collection on tree reuse: keep what the new root reaches, free the rest, compact edges."""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.search.tree import M_EDGE_TOP, M_FULL
from zeroplay.tt.node_table import node_mark, node_sweep


@njit(cache=True)
def collect(tree, table, root):
    """Mark every node reachable from ``root`` through child links, sweep the table, and move
    the survivors' edges to the front of the pool (their order kept). Returns nodes freed."""
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
        start = tree.node_edge_start[n]
        for e in range(start, start + tree.node_num_edges[n]):
            c = tree.edge_child[e]
            if c >= 0 and not seen[c]:
                seen[c] = True
                stack[top] = c
                top += 1
    freed = node_sweep(table)
    # compact: survivors' edge ranges in pool order, slid down to close the gaps
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
                tree.edge_n[write + j] = tree.edge_n[start + j]
                tree.edge_vl[write + j] = tree.edge_vl[start + j]
                tree.edge_child[write + j] = tree.edge_child[start + j]
            tree.node_edge_start[n] = write
        write += num
    tree.meta[M_EDGE_TOP] = write
    tree.meta[M_FULL] = 0
    return freed
