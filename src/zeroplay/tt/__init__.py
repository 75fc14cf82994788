"""Transposition tables, compiled: the MCTS node table and the alpha-beta table.

Both are ``typing.NamedTuple``s of numpy arrays; every function but the constructors and the
stats is ``@njit`` and callable from other compiled code. Keys are Zobrist keys as int64 holding
the uint64 bits (``zeroplay.hashing``); from Python pass ints in the int64 range (a uint64
pattern k >= 2^63 as k - 2^64), since numba reuses the int64 compilation for every later call.
See ``node_table`` and ``ab_table`` for the layouts.
"""

from zeroplay.tt.ab_table import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_UPPER,
    MAX_PLY,
    WIN_VALUE,
    ABTable,
    ab_clear,
    ab_cutoff,
    ab_hashfull,
    ab_new_search,
    ab_probe,
    ab_probe_dominance,
    ab_store,
    ab_table_stats,
    new_ab_table,
    pack_entry,
    unpack_entry,
)
from zeroplay.tt.node_table import (
    NodeTable,
    new_node_table,
    node_clear,
    node_count,
    node_find,
    node_find_or_add,
    node_is_full,
    node_is_live,
    node_mark,
    node_sweep,
    node_table_stats,
)

__all__ = [
    "BOUND_EXACT",
    "BOUND_LOWER",
    "BOUND_UPPER",
    "MAX_PLY",
    "WIN_VALUE",
    "ABTable",
    "NodeTable",
    "ab_clear",
    "ab_cutoff",
    "ab_hashfull",
    "ab_new_search",
    "ab_probe",
    "ab_probe_dominance",
    "ab_store",
    "ab_table_stats",
    "new_ab_table",
    "new_node_table",
    "node_clear",
    "node_count",
    "node_find",
    "node_find_or_add",
    "node_is_full",
    "node_is_live",
    "node_mark",
    "node_sweep",
    "node_table_stats",
    "pack_entry",
    "unpack_entry",
]
