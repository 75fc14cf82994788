"""The whole search graph as plain data: for golden-tree tests (mctx's ``tree_test.py`` + JSON,
KataGo's ``tests/results``) and for debugging.

``tree_dict(searcher)`` walks the graph from the root in edge order, each node once (a
transposition reached again is written as a reference to its first visit), so that a change in
tie-breaking, FPU, priors or visit order shows up even when the best move does not change.
"""

from __future__ import annotations

import math
from typing import Any

from zeroplay.search.tree import NO_NODE, decode_priors

_STATES = ("new", "pending", "expanded", "terminal")
_PROOFS = {0: "unproven", 1: "win", -1: "loss", 2: "draw"}


def tree_dict(searcher, *, max_nodes: int = 10_000, digits: int = 6) -> dict:
    """The graph below the root of ``searcher`` as nested dicts.

    Each node: ``{"id": k, "N": visits, "Q": mean value (side to move at the node, rounded to
    ``digits``), "U": its evaluation, "state": ..., "proof": ..., "dist": plies, "edges": [...]}``
    with ``id`` the order of first visit (depth first, edges in the pool's order); each edge:
    ``{"move": action, "P": prior, "N": edge visits, "child": node dict | {"ref": id} | None}``,
    plus ``"Qf"`` (the frozen mean value of its visits, parent mover's view) on an edge whose
    child recycling freed. Priors are the stored 16-bit ones, decoded (``tree.decode_priors``);
    only the touched prefix of a node's edges has statistics, the rest are listed with their
    priors under ``"unvisited"`` as ``[move, P]``.

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
        priors = decode_priors(t.edge_prior[start : start + count])
        touched, stat_start = int(t.node_touched[n]), int(t.node_stat_start[n])
        for i in range(count):
            move, prior = int(t.edge_move[start + i]), round(float(priors[i]), digits)
            visits = int(t.stat_n[stat_start + i]) if i < touched else 0
            child = int(t.stat_child[stat_start + i]) if i < touched else NO_NODE
            if visits == 0 and child < 0:
                unvisited.append([move, prior])
                continue
            entry: dict[str, Any] = {"move": move, "P": prior, "N": visits}
            frozen = float(t.stat_q[stat_start + i])
            if not math.isnan(frozen):
                entry["Qf"] = round(frozen, digits)
            if child < 0:
                entry["child"] = None
            elif child in seen:
                entry["child"] = {"ref": seen[child]}
            else:
                entry["child"] = node(child)
            edges.append(entry)
        return out

    return node(root)
