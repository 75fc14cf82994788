"""Bytes per node of the search graph at a given size (default 1M nodes) on 9x9, 15x15, 19x19."""

from __future__ import annotations

import os
import time

STATS_PER_NODE = 4
"""Statistics pool entries reserved per node (``stat_capacity``)."""


def add_arguments(parser) -> None:
    parser.add_argument("--nodes", type=int, default=1_000_000, help="nodes per search (default 1,000,000)")
    parser.add_argument("--sizes", default="9,15,19", help="board sizes, comma-separated (default 9,15,19)")
    parser.add_argument("--candidate-radius", type=int, default=0,
                        help="SearchConfig.candidate_radius (default 0: every legal move gets an edge)")
    parser.add_argument("--position", choices=("empty", "opening"), default="empty",
                        help="empty board, or the centre stone and one reply (default empty)")


def run(args) -> dict:
    """Figures for ``zeroplay bench memory`` (see ``measure``).

    Raises:
        ValueError: ``--sizes`` not comma-separated board sizes in the game's range, or (from
            ``measure``) another option out of range or the search's tables not fitting in memory.
    """
    from zeroplay.games.gomoku import MAX_SIZE, MIN_SIZE

    words = [w.strip() for w in str(args.sizes).split(",") if w.strip()]
    if not words or not all(w.isdigit() and MIN_SIZE <= int(w) <= MAX_SIZE for w in words):
        raise ValueError(f"--sizes must be comma-separated board sizes in {MIN_SIZE}..{MAX_SIZE} (e.g. 9,15,19), "
                         f"got {args.sizes!r}")
    try:
        return measure(nodes=args.nodes, sizes=[int(w) for w in words], candidate_radius=args.candidate_radius,
                       position=args.position)
    except MemoryError as e:  # cli's own message names the options of train and play
        raise ValueError(f"out of memory ({e or 'MemoryError'}) for --nodes {args.nodes:,}: lower --nodes") from None


def _rss() -> int:
    from zeroplay.files.resident import current_rss

    return current_rss()


def measure(nodes: int = 1_000_000, sizes=(9, 15, 19), candidate_radius: int = 0, position: str = "empty") -> dict:
    """Per board size: a uniform-prior search (UniformEvaluator: the widest tree, every selected
    edge a new child) grown to ``nodes`` nodes with no recycling, then

    * ``bytes_per_node``: the tables' bytes from their dtypes (node table slots at their power-of-two
      capacity, node payload, edges and statistics used) / nodes;
    * ``rss_bytes_per_node``: the process's resident memory growth over the search / nodes;
    * ``edges_per_node``, ``stats_per_node``: pool entries used per node;
    * ``dense_bytes_per_node``: the same edges in the previous layout (20-byte dense edges,
      73 bytes per node with its table slot), for comparison.
    """
    from zeroplay.games import make
    from zeroplay.search import SearchConfig, Searcher, UniformEvaluator
    from zeroplay.search.config import table_slots
    from zeroplay.search.tree import (
        EDGE_BYTES,
        M_EDGE_TOP,
        M_STAT_TOP,
        MAX_POOL,
        NODE_BYTES,
        STAT_BYTES,
        THREAT_BYTES_PER_NODE,
    )
    from zeroplay.tt.node_table import TABLE_BYTES_PER_NODE, node_count

    most = MAX_POOL // STATS_PER_NODE  # the statistics pool: 4 entries per node, at most MAX_POOL
    if not 64 <= nodes <= most:
        raise ValueError(f"--nodes must be in 64..{most:,}, got {nodes:,}")
    if candidate_radius < 0:
        raise ValueError(f"--candidate-radius must be >= 0, got {candidate_radius}")
    # the search fills what it touches: about this much a node on the largest board asked for
    # (edges, statistics, node table, threat cache), so it must fit in half the machine's memory
    # (up to MAX_POOL // 4 nodes grew towards 100+ GB on a 24 GB machine; helper-80)
    per_node = max(sizes) ** 2 * EDGE_BYTES + STATS_PER_NODE * STAT_BYTES + NODE_BYTES + TABLE_BYTES_PER_NODE \
        + THREAT_BYTES_PER_NODE
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows): the allocation decides
        memory = None
    if memory is not None and nodes * per_node > memory / 2:
        raise ValueError(f"--nodes {nodes:,} needs up to {nodes * per_node / 2**30:,.1f} GiB on {max(sizes)}x{max(sizes)}, "
                         f"more than half of this machine's {memory / 2**30:,.1f} GiB: lower --nodes")
    out: dict[str, dict[str, object]] = {}
    for size in sizes:
        game = make("gomoku", width=size, height=size)
        state = game.initial()
        if position == "opening":
            state = state.play(game.cells // 2).play(game.cells // 2 + 1)
        capacity = table_slots(nodes + nodes // 8, 0.9)
        config = SearchConfig(node_capacity=capacity, edge_capacity=min((1 << 31) - 1, nodes * game.num_actions),
                              stat_capacity=STATS_PER_NODE * nodes, eval_cache_size=0, recycle=False,
                              candidate_radius=candidate_radius)
        rss0 = _rss()
        searcher = Searcher(game, UniformEvaluator(), config)
        t0 = time.perf_counter()
        while node_count(searcher.table) < nodes:
            r = searcher.search(state, playouts=max(1000, (nodes - int(node_count(searcher.table))) // 2))
            if r.stopped_by not in ("playouts",):
                break
        seconds = time.perf_counter() - t0
        n = int(node_count(searcher.table))
        edges, stats = int(searcher.tree.meta[M_EDGE_TOP]), int(searcher.tree.meta[M_STAT_TOP])
        slots = capacity * (TABLE_BYTES_PER_NODE + THREAT_BYTES_PER_NODE)
        payload = NODE_BYTES - TABLE_BYTES_PER_NODE - THREAT_BYTES_PER_NODE
        used = slots + n * payload + edges * EDGE_BYTES + stats * STAT_BYTES
        out[f"{size}x{size}"] = {
            "nodes": n,
            "bytes_per_node": round(used / n, 1),
            "rss_bytes_per_node": round((_rss() - rss0) / n, 1),
            "edges_per_node": round(edges / n, 1),
            "stats_per_node": round(stats / n, 2),
            "dense_bytes_per_node": round(73 + 20 * edges / n, 1),
            "seconds": round(seconds, 1),
        }
        del searcher
    out["settings"] = {"nodes": nodes, "evaluator": "uniform", "position": position,
                       "candidate_radius": candidate_radius, "node_bytes": NODE_BYTES, "edge_bytes": EDGE_BYTES,
                       "stat_bytes": STAT_BYTES}
    return out
