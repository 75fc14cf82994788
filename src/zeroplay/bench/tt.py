"""Transposition tables: node-table lookups and inserts, alpha-beta probes and stores per second.

Every figure comes from a compiled loop over random 64-bit keys (one core), best of ``--repeats``
runs. Node table: ``capacity`` slots, filled to 50 % and to 90 % (its default limit) of it;
lookups are of present keys in random order. Alpha-beta table: ``size_mib`` MiB; ``--ab-stores``
stores of random keys (more than it holds, so replacement runs), then as many probes of those
keys (hits and misses).
"""

from __future__ import annotations

import time


def add_arguments(parser) -> None:
    parser.add_argument("--capacity-log2", type=int, default=21, help="node table capacity, log2 (default 21: 2,097,152)")
    parser.add_argument("--ab-mib", type=float, default=64, help="alpha-beta table size, MiB (default 64)")
    parser.add_argument("--ab-stores", type=int, default=4_000_000, help="alpha-beta stores and probes per run (default 4,000,000)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure, the best is kept (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")


def run(args) -> dict:
    """Figures for ``zeroplay bench tt`` (see ``measure``)."""
    return measure(
        capacity_log2=args.capacity_log2,
        ab_mib=args.ab_mib,
        ab_stores=args.ab_stores,
        repeats=args.repeats,
        seed=args.seed,
    )


def _kernels():
    from numba import njit

    from zeroplay.tt import BOUND_EXACT, ab_probe, ab_store, node_find, node_find_or_add

    @njit
    def insert_all(t, keys):
        created = 0
        for i in range(keys.shape[0]):
            created += node_find_or_add(t, keys[i], 0, 0)[1]
        return created

    @njit
    def lookup_all(t, keys):
        found = 0
        for i in range(keys.shape[0]):
            found += node_find(t, keys[i], 0, 0) >= 0
        return found

    @njit
    def store_all(t, keys):
        for i in range(keys.shape[0]):
            ab_store(t, keys[i], 0, 0, i & 63, BOUND_EXACT, (i & 1023) - 512, i & 255)

    @njit
    def probe_all(t, keys):
        hits = 0
        for i in range(keys.shape[0]):
            hits += ab_probe(t, keys[i], 0, 0)[0]
        return hits

    return insert_all, lookup_all, store_all, probe_all


def _best_rate(operations: int, fn, repeats: int, setup=None) -> float:
    """Operations per second of the fastest of ``repeats`` calls of ``fn`` (``setup`` untimed)."""
    best = float("inf")
    for _ in range(repeats):
        if setup is not None:
            setup()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return operations / best


def measure(capacity_log2: int = 21, ab_mib: float = 64, ab_stores: int = 4_000_000, repeats: int = 3, seed: int = 0) -> dict:
    """Measure both tables; returns the JSON figures of issue 3 (operations per second)."""
    from functools import partial

    import numpy as np

    from zeroplay.tt import ab_clear, new_ab_table, new_node_table, node_clear, node_count

    insert_all, lookup_all, store_all, probe_all = _kernels()
    rng = np.random.default_rng(seed)
    capacity = 1 << capacity_log2
    table = new_node_table(capacity)  # max_load 0.9
    half = capacity // 2
    ninety = int(0.9 * capacity)
    keys = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=ninety, dtype=np.int64, endpoint=True)
    keys = np.unique(keys)  # distinct keys: every insert creates a node
    rng.shuffle(keys)
    ninety = min(ninety, keys.shape[0])

    insert_all(table, keys[:64])  # compile
    lookup_all(table, keys[:64])

    # partial, not lambdas: nothing keeps the table alive once it is deleted below
    insert_rate = _best_rate(half, partial(insert_all, table, keys[:half]), repeats, setup=partial(node_clear, table))
    assert node_count(table) == half
    lookup_50 = _best_rate(half, partial(lookup_all, table, rng.permutation(keys[:half])), repeats)
    insert_all(table, keys[half:ninety])
    lookup_90 = _best_rate(ninety, partial(lookup_all, table, rng.permutation(keys[:ninety])), repeats)
    del table  # free the node table before the alpha-beta table is allocated

    ab = new_ab_table(ab_mib)
    ab_keys = rng.integers(np.iinfo(np.int64).min, np.iinfo(np.int64).max, size=ab_stores, dtype=np.int64, endpoint=True)
    store_all(ab, ab_keys[:64])  # compile
    probe_all(ab, ab_keys[:64])

    store_rate = _best_rate(ab_stores, lambda: store_all(ab, ab_keys), repeats, setup=lambda: ab_clear(ab))
    ab_probe_order = rng.permutation(ab_keys)
    probe_rate = _best_rate(ab_stores, lambda: probe_all(ab, ab_probe_order), repeats)
    return {
        "node_table": {
            "capacity": capacity,
            "lookup_per_s_50": round(lookup_50),
            "lookup_per_s_90": round(lookup_90),
            "insert_per_s_50": round(insert_rate),
        },
        "ab_table": {
            "size_mib": ab_mib if ab_mib != int(ab_mib) else int(ab_mib),
            "probe_per_s": round(probe_rate),
            "store_per_s": round(store_rate),
            "bytes_per_entry": int(ab.entries.nbytes // ab.entries.shape[0]),
        },
    }
