"""Transposition tables: node-table lookups and inserts, alpha-beta probes and stores per second.

Every figure comes from a compiled loop over random 64-bit keys (one core), best of ``--repeats``
runs. Node table: ``capacity`` slots, filled to 50 % and to 90 % (its default limit) of it;
lookups are of present keys in random order. Alpha-beta table: ``size_mib`` MiB; ``--ab-stores``
stores of random keys (more than it holds, so replacement runs), then as many probes of those
keys (hits and misses).
"""

from __future__ import annotations

import time

from zeroplay.engine.options import MAX_WHOLE, at_least_0

MAX_CAPACITY_LOG2 = 31
"""Largest ``--capacity-log2``: a node table holds at most 2^31 slots (``new_node_table``)."""


def add_arguments(parser) -> None:
    parser.add_argument("--capacity-log2", type=int, default=21,
                        help=f"node table capacity, log2, 1..{MAX_CAPACITY_LOG2} and at most half of the machine's "
                        "memory (default 21: 2,097,152)")
    parser.add_argument("--ab-mib", type=float, default=64,
                        help="alpha-beta table size, MiB, at most half of the machine's memory (default 64)")
    parser.add_argument("--ab-stores", type=int, default=4_000_000, help="alpha-beta stores and probes per run (default 4,000,000)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure, the best is kept (default 3)")
    parser.add_argument("--seed", type=at_least_0, default=0, help="random seed, >= 0 (default 0)")


def run(args) -> dict:
    """Figures for ``zeroplay bench tt`` (see ``measure``).

    Raises:
        ValueError: an option out of range (see ``check_options``), or not enough free memory.
    """
    try:
        return measure(
            capacity_log2=args.capacity_log2,
            ab_mib=args.ab_mib,
            ab_stores=args.ab_stores,
            repeats=args.repeats,
            seed=args.seed,
        )
    except MemoryError as e:  # cli's own message names the options of train and play
        raise ValueError(f"out of memory ({e or 'MemoryError'}): lower --capacity-log2, --ab-mib or --ab-stores") from None


def _machine_bytes() -> float:
    """This machine's physical memory in bytes (infinite where sysconf does not tell: Windows)."""
    import math
    import os

    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return math.inf


def check_options(capacity_log2: int, ab_mib: float, ab_stores: int, repeats: int) -> None:
    """Refuse sizes the benchmark cannot use before anything is allocated: both tables are
    allocated whole, up front, so each must fit in half of the machine's memory.

    Raises:
        ValueError: one line naming the option, its value and the allowed range.
    """
    import math

    from zeroplay.tt.node_table import TABLE_BYTES_PER_NODE

    half = _machine_bytes() / 2
    # peak bytes per slot while the node table is measured: the table's own, and the 0.9 * capacity
    # random keys (8 bytes each), about three copies of them at once while np.unique sorts them
    per_slot = TABLE_BYTES_PER_NODE + 3 * 8
    most_log2 = MAX_CAPACITY_LOG2
    if half != math.inf:
        most_log2 = min(most_log2, int(half // per_slot).bit_length() - 1)
    if not 1 <= capacity_log2 <= most_log2:
        room = "" if most_log2 == MAX_CAPACITY_LOG2 else " on this machine (at most half of its memory)"
        raise ValueError(f"--capacity-log2 must be in 1..{most_log2}{room}, got {capacity_log2}")
    check_table_mib("--ab-mib", ab_mib)
    # the random keys of the stores are drawn up front (8 bytes each, about two copies at once)
    most_stores = MAX_WHOLE if half == math.inf else int(half // 16)
    if not 1 <= ab_stores <= most_stores:
        raise ValueError(f"--ab-stores must be in 1..{most_stores:,}, got {ab_stores}")
    if repeats < 1:
        raise ValueError(f"--repeats must be >= 1, got {repeats}")


def check_table_mib(flag: str, mib: float) -> None:
    """Refuse an alpha-beta table size (``flag``, MiB) below one bucket or above half of the
    machine's memory: the table is allocated whole, up front.

    Raises:
        ValueError: one line naming ``flag``, its value and the allowed range.
    """
    import math

    from zeroplay.tt.ab_table import BYTES_PER_ENTRY, ENTRIES_PER_BUCKET

    half = _machine_bytes() / 2
    bucket_mib = ENTRIES_PER_BUCKET * BYTES_PER_ENTRY / (1 << 20)
    if not math.isfinite(mib) or not bucket_mib <= mib <= half / (1 << 20):
        room = "" if half == math.inf else f" and at most {half / (1 << 20):,.0f} (half of this machine's memory)"
        raise ValueError(f"{flag} must be a size in MiB of at least {bucket_mib:.2g} (one bucket of "
                         f"{ENTRIES_PER_BUCKET * BYTES_PER_ENTRY} bytes){room}, got {mib:,.10g}")


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
    """Measure both tables; returns the JSON figures of issue 3 (operations per second).

    Raises:
        ValueError: an option out of range (``check_options``).
    """
    from functools import partial

    import numpy as np

    from zeroplay.tt import ab_clear, new_ab_table, new_node_table, node_clear, node_count

    check_options(capacity_log2, ab_mib, ab_stores, repeats)
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
