"""MCTS node table: stable node indices for positions (Zobrist key, side to move, ply).

After the UCT node hash of the dlshogi book (``find_same_hash_index`` / ``search_empty_index``:
a power-of-two table, slot = key & (capacity - 1), linear probing, an entry identified by the
full 64-bit key, the side to move and the ply), with these fixes:

* Hash slots and node indices are separate. A node keeps its index from creation to the sweep
  that frees it, whatever happens to the hash slots (backward-shift deletion moves them); the
  search keeps its payload (visits, value sums, edges) in its own arrays indexed by node index.
* Deleting (in ``node_sweep``) uses backward-shift deletion, so no probe chain ever has a hole:
  survivors stay findable and re-inserting one never creates a duplicate (the book's scheme
  leaves holes that hide survivors).
* "Full" is a counter compared with a limit, O(1): at ``max_load`` (default 90 %) of the
  capacity ``node_find_or_add`` refuses new nodes with (-1, False) and never scans the table.
* Garbage collection is mark / sweep: the search marks what it keeps (everything reachable from
  the new root through its child links), ``node_sweep`` frees the rest and says how many.
* An empty slot is recognised by its word 1 being -1, never by its key, so no key -- 0 and the
  empty-board key included -- can match an empty or cleared slot.

Layout (capacity C = 2^k; one hash slot and one node index per unit of capacity)::

    hash slots, probed from home = key & (C - 1), then home + 1, ... (mod C)
    slots[s] int64[2], 16 bytes, one cache line holds four:
    +--------------------------+-------------------------+----------------------------+
    | word 0: Zobrist key      | word 1 high: node index | word 1 low: ply << 1 |     |
    |  (uint64 bits in int64)  |  (int32, >= 0)          |             to_play        |
    |         8 bytes          |        4 bytes          |          4 bytes           |
    +--------------------------+-------------------------+----------------------------+
    empty slot: word 1 == -1 (EMPTY_SLOT); word 0 is then 0 and never compared.

    per node index n in [0, C), stable while the node lives:
    node_slot[n]  int32  4 bytes  the slot that points to n; -1 while n is free
    marked[n]     uint8  1 byte   1 when node_mark(n) was called since the last sweep / clear
    free_list[i]  int32  4 bytes  stack of free node indices, top at counters[C_FREE_TOP] - 1

    25 bytes per unit of capacity (2^21: 52 MiB), plus the caller's payload per node index.

Identity is (key, to_play, ply): the same stones with the other side to move, or reached at
another ply, are different nodes. The table is not thread-safe (one writer, no readers while it
writes). Sources: dlshogi book (UCT node hash); Knuth, TAOCP vol. 3, 6.4, Algorithm R (deletion
with linear probing).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

EMPTY_SLOT = -1
"""Word 1 of an empty hash slot (node index -1)."""

MAX_NODE_PLY = (1 << 31) - 1
"""Largest ply a node may have (ply << 1 | to_play must fit 32 bits)."""

# counters (int64[N_COUNTERS])
C_COUNT = 0  # live nodes
C_LIMIT = 1  # live nodes allowed: floor(max_load * C), in [1, C - 1]
C_FREE_TOP = 2  # free node indices on the free list
C_GENERATION = 3  # advanced by every sweep and clear
C_LOOKUPS = 4  # lookups (find and find_or_add) since the last clear
C_PROBES = 5  # slots examined by those lookups
C_COLLISIONS = 6  # occupied slots with our home slot but another identity, met while probing
C_GC_RUNS = 7  # sweeps since creation
C_GC_FREED = 8  # nodes freed by sweeps since creation
N_COUNTERS = 9

_LOW32 = 0xFFFFFFFF

TABLE_BYTES_PER_NODE = 2 * np.dtype(np.int64).itemsize + np.dtype(np.int32).itemsize + np.dtype(np.uint8).itemsize \
    + np.dtype(np.int32).itemsize
"""Bytes per unit of capacity: hash slot (16) + node_slot (4) + marked (1) + free_list (4) = 25."""


class NodeTable(NamedTuple):
    """Arrays of a node table (see the module docstring for the layout). Capacity C = 2^k.

    Attributes:
        slots: int64 (C, 2) hash slots; [s, 0] key, [s, 1] node index << 32 | ply << 1 | to_play,
            -1 when empty.
        node_slot: int32 (C,) slot of each live node index, -1 when the index is free.
        marked: uint8 (C,) mark bits for garbage collection.
        free_list: int32 (C,) stack of free node indices.
        counters: int64 (N_COUNTERS,) indexed by the C_* constants.
    """

    slots: np.ndarray
    node_slot: np.ndarray
    marked: np.ndarray
    free_list: np.ndarray
    counters: np.ndarray


def new_node_table(capacity: int, max_load: float = 0.9) -> NodeTable:
    """An empty node table with ``capacity`` hash slots and node indices.

    Args:
        capacity: a power of two >= 2 (and <= 2^31); node indices are in [0, capacity).
        max_load: fraction of the capacity at which the table counts as full and stops adding
            nodes, in (0, 1]; the limit is floor(max_load * capacity), kept in [1, capacity - 1]
            so that one slot always stays empty and every probe ends. Default 0.9 (the issue).

    Raises:
        ValueError: on a capacity that is not a power of two >= 2, or max_load outside (0, 1].
    """
    capacity_int = int(capacity)
    if capacity_int != capacity or capacity_int < 2 or capacity_int & (capacity_int - 1) or capacity_int > 1 << 31:
        raise ValueError(f"capacity must be a power of two in [2, 2^31], got {capacity!r}")
    if not 0.0 < max_load <= 1.0:
        raise ValueError(f"max_load must be in (0, 1], got {max_load!r}")
    limit = min(capacity_int - 1, max(1, int(max_load * capacity_int)))
    t = NodeTable(
        slots=np.empty((capacity_int, 2), dtype=np.int64),
        node_slot=np.empty(capacity_int, dtype=np.int32),
        marked=np.empty(capacity_int, dtype=np.uint8),
        free_list=np.empty(capacity_int, dtype=np.int32),
        counters=np.zeros(N_COUNTERS, dtype=np.int64),
    )
    t.counters[C_LIMIT] = limit
    _reset(t)
    t.counters[C_GENERATION] = 0
    return t


@njit(cache=True)
def _reset(t):
    """Empty every slot, free every node index (popped in order 0, 1, 2, ...), zero the stats."""
    c = t.slots.shape[0]
    for s in range(c):
        t.slots[s, 0] = 0
        t.slots[s, 1] = EMPTY_SLOT
        t.node_slot[s] = -1
        t.marked[s] = 0
        t.free_list[s] = c - 1 - s
    t.counters[C_COUNT] = 0
    t.counters[C_FREE_TOP] = c
    t.counters[C_LOOKUPS] = 0
    t.counters[C_PROBES] = 0
    t.counters[C_COLLISIONS] = 0


@njit(cache=True, inline="always")
def _ident(to_play, ply):
    """Low word of a slot: ply << 1 | to_play (raises on values that do not fit)."""
    if to_play != 0 and to_play != 1:
        raise ValueError("to_play must be 0 or 1")
    if ply < 0 or ply > MAX_NODE_PLY:
        raise ValueError("ply out of range")
    return (np.int64(ply) << 1) | np.int64(to_play)


@njit(cache=True, inline="always")
def _locate(t, key, ident):
    """Probe for (key, ident): (slot, found). When not found, slot is the empty slot ending the chain.

    Counts the lookup, its probe length and the collisions met in the counters.
    """
    slots = t.slots
    mask = slots.shape[0] - 1
    home = key & mask
    s = home
    probes = 1
    collisions = 0
    found = False
    while True:
        word1 = slots[s, 1]
        if word1 < 0:
            break
        k = slots[s, 0]
        if k == key and (word1 & _LOW32) == ident:
            found = True
            break
        if (k & mask) == home:
            collisions += 1
        s = (s + 1) & mask
        probes += 1
    t.counters[C_LOOKUPS] += 1
    t.counters[C_PROBES] += probes
    t.counters[C_COLLISIONS] += collisions
    return s, found


@njit(cache=True)
def node_find(t, key, to_play, ply):
    """Node index of (key, to_play, ply), or -1 when the table does not hold it.

    Args:
        t: the NodeTable.
        key: Zobrist key, uint64 bits as int64 (``info[I_KEY]``).
        to_play: side to move, 0 or 1.
        ply: move count of the position, >= 0.
    """
    k = np.int64(key)
    s, found = _locate(t, k, _ident(np.int64(to_play), np.int64(ply)))
    if found:
        return np.int64(t.slots[s, 1] >> 32)
    return np.int64(-1)


@njit(cache=True)
def node_find_or_add(t, key, to_play, ply):
    """(index, created): the node of (key, to_play, ply), added when missing.

    Returns (index, False) when present, (new index, True) when added (its index comes off the
    free list: the caller initialises its payload), and (-1, False) when missing while the table
    is full (``node_is_full``); the fullness test is one comparison, never a scan.
    """
    k = np.int64(key)
    ident = _ident(np.int64(to_play), np.int64(ply))
    s, found = _locate(t, k, ident)
    if found:
        return np.int64(t.slots[s, 1] >> 32), False
    counters = t.counters
    if counters[C_COUNT] >= counters[C_LIMIT]:
        return np.int64(-1), False
    top = counters[C_FREE_TOP] - 1
    node = np.int64(t.free_list[top])
    counters[C_FREE_TOP] = top
    counters[C_COUNT] += 1
    t.slots[s, 0] = k
    t.slots[s, 1] = (node << 32) | ident
    t.node_slot[node] = s
    t.marked[node] = 0
    return node, True


@njit(cache=True)
def node_is_full(t):
    """True when the table holds its limit of nodes (``max_load`` of the capacity)."""
    return t.counters[C_COUNT] >= t.counters[C_LIMIT]


@njit(cache=True)
def node_count(t):
    """Live nodes."""
    return t.counters[C_COUNT]


@njit(cache=True)
def node_is_live(t, index):
    """True when node ``index`` is in use (added and not freed since)."""
    if index < 0 or index >= t.node_slot.shape[0]:
        return False
    return t.node_slot[index] >= 0


@njit(cache=True)
def node_mark(t, index):
    """Keep node ``index`` through the next ``node_sweep`` (marking a free index is harmless).

    Raises:
        IndexError: when index is outside [0, capacity).
    """
    if index < 0 or index >= t.marked.shape[0]:
        raise IndexError("node index out of range")
    t.marked[index] = 1


@njit(cache=True)
def _delete_slot(t, s):
    """Empty slot ``s`` by backward shift: later entries of its cluster that may move up, do.

    An entry at j (home h) may move to the hole i when i lies cyclically in [h, j), i.e. when
    dist(h, j) >= dist(i, j); entries that move keep their node index, only node_slot changes.
    """
    slots = t.slots
    mask = slots.shape[0] - 1
    hole = s
    j = s
    while True:
        j = (j + 1) & mask
        word1 = slots[j, 1]
        if word1 < 0:
            break
        home = slots[j, 0] & mask
        if ((j - home) & mask) >= ((j - hole) & mask):
            slots[hole, 0] = slots[j, 0]
            slots[hole, 1] = word1
            t.node_slot[word1 >> 32] = hole
            hole = j
    slots[hole, 0] = 0
    slots[hole, 1] = EMPTY_SLOT


@njit(cache=True)
def node_sweep(t):
    """Free every live node not marked since the last sweep or clear; returns how many.

    Freed indices go back on the free list; survivors keep their indices and stay findable. The
    marks are cleared and the generation advances. Cost: one pass over the capacity plus, per
    freed node, a backward shift along its cluster.
    """
    c = t.node_slot.shape[0]
    counters = t.counters
    freed = 0
    for n in range(c):
        s = t.node_slot[n]
        if s >= 0 and t.marked[n] == 0:
            _delete_slot(t, s)
            t.node_slot[n] = -1
            t.free_list[counters[C_FREE_TOP]] = n
            counters[C_FREE_TOP] += 1
            freed += 1
        t.marked[n] = 0
    counters[C_COUNT] -= freed
    counters[C_GENERATION] += 1
    counters[C_GC_RUNS] += 1
    counters[C_GC_FREED] += freed
    return freed


@njit(cache=True)
def node_clear(t):
    """Free every node and empty every slot; lookup stats restart, the generation advances."""
    _reset(t)
    t.counters[C_GENERATION] += 1


def node_table_stats(t: NodeTable) -> dict:
    """Figures of the table as a dict of Python numbers.

    Keys: ``capacity``, ``count`` (live nodes), ``limit`` (nodes allowed), ``load``
    (count / capacity), ``full``, ``lookups`` and ``mean_probe_length`` (slots examined per
    lookup, since the last clear; 1.0 means every lookup ended at its home slot), ``collisions``
    (occupied slots with the same home slot but another identity met during those lookups),
    ``gc_runs``, ``gc_freed`` (since creation), ``generation``.
    """
    c = t.counters
    capacity = int(t.slots.shape[0])
    lookups = int(c[C_LOOKUPS])
    return {
        "capacity": capacity,
        "count": int(c[C_COUNT]),
        "limit": int(c[C_LIMIT]),
        "load": int(c[C_COUNT]) / capacity,
        "full": bool(c[C_COUNT] >= c[C_LIMIT]),
        "lookups": lookups,
        "mean_probe_length": int(c[C_PROBES]) / lookups if lookups else 0.0,
        "collisions": int(c[C_COLLISIONS]),
        "gc_runs": int(c[C_GC_RUNS]),
        "gc_freed": int(c[C_GC_FREED]),
        "generation": int(c[C_GENERATION]),
    }
