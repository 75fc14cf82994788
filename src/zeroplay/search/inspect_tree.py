"""The whole search graph as plain data: for golden-tree tests (mctx's ``tree_test.py`` + JSON,
KataGo's ``tests/results``) and for debugging.

``tree_dict(searcher)`` walks the graph from the root in edge order, each node once (a
transposition reached again is written as a reference to its first visit), so that a change in
tie-breaking, FPU, priors or visit order shows up even when the best move does not change.
"""

from __future__ import annotations

from typing import Any

from zeroplay.search.tree import NO_NODE

_STATES = ("new", "pending", "expanded", "terminal")
_PROOFS = {0: "unproven", 1: "win", -1: "loss", 2: "draw"}


def tree_dict(searcher, *, max_nodes: int = 10_000, digits: int = 6) -> dict:
    """The graph below the root of ``searcher`` as nested dicts.

    Each node: ``{"id": k, "N": visits, "Q": mean value (side to move at the node, rounded to
    ``digits``), "U": its evaluation, "state": ..., "proof": ..., "dist": plies, "edges": [...]}``
    with ``id`` the order of first visit (depth first, edges in the pool's order); each edge:
    ``{"move": action, "P": prior, "N": edge visits, "child": node dict | {"ref": id} | None}``.

    Raises:
        ValueError: the searcher has no root yet, or the graph has more than ``max_nodes`` nodes.
    """
    t = searcher.tree
    root = searcher.root
    if root == NO_NODE:
        raise ValueError("the searcher has no tree yet: search first")
    seen: dict[int, int] = {}

    def node(n: int) -> dict[str, Any]:
        if len(seen) >= max_nodes:
            raise ValueError(f"more than {max_nodes} nodes")
        seen[n] = len(seen)
        start, count = int(t.node_edge_start[n]), int(t.node_num_edges[n])
        edges: list[dict[str, Any]] = []
        unvisited: list[list[float]] = []
        out: dict[str, Any] = {
            "id": seen[n],
            "N": int(t.node_n[n]),
            "Q": round(float(t.node_q[n]), digits),
            "U": round(float(t.node_u[n]), digits),
            "state": _STATES[int(t.node_state[n])],
            "proof": _PROOFS[int(t.node_proof[n])],
            "dist": int(t.node_dist[n]),
            "edges": edges,
            "unvisited": unvisited,
        }
        if _STATES[int(t.node_state[n])] != "expanded":
            return out
        for e in range(start, start + count):
            child = int(t.edge_child[e])
            prior = round(float(t.edge_prior[e]), digits)
            if int(t.edge_n[e]) == 0 and child < 0:
                unvisited.append([int(t.edge_move[e]), prior])
                continue
            entry: dict[str, Any] = {"move": int(t.edge_move[e]), "P": prior, "N": int(t.edge_n[e])}
            if child < 0:
                entry["child"] = None
            elif child in seen:
                entry["child"] = {"ref": seen[child]}
            else:
                entry["child"] = node(child)
            edges.append(entry)
        return out

    return node(root)
