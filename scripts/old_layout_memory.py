"""Bytes per node of the OLD dense-edge search layout (commit ec6287c and before), from its arrays' dtypes and a real
search. Run it in a checkout of that commit: PYTHONPATH=src python scripts/old_layout_memory.py 50000"""
import sys, time
import numpy as np
from zeroplay.games import make
from zeroplay.search import Searcher, SearchConfig, UniformEvaluator
from zeroplay.search.tree import M_EDGE_TOP
from zeroplay.tt.node_table import node_count
playouts = int(sys.argv[1]) if len(sys.argv) > 1 else 50000
for size in (9, 15, 19):
    g = make("gomoku", width=size, height=size)
    cap = 1 << (2 * playouts).bit_length()
    s = Searcher(g, UniformEvaluator(), SearchConfig(node_capacity=cap, edge_capacity=playouts * g.num_actions * 2, eval_cache_size=0))
    t = s.tree
    node_bytes = sum(getattr(t, f).dtype.itemsize for f in t._fields if f.startswith("node_")) + 25 + 8
    edge_bytes = sum(getattr(t, f).dtype.itemsize for f in t._fields if f.startswith("edge_"))
    r = s.search(g.initial(), playouts=playouts)
    n = node_count(s.table); e = int(t.meta[M_EDGE_TOP])
    print(f"{size}x{size}: playouts {r.playouts} nodes {n} edges {e} ({e/n:.1f}/node) -> {(n*node_bytes + e*edge_bytes)/n:.0f} B/node (node {node_bytes} B, edge {edge_bytes} B) stop={r.stopped_by}")
