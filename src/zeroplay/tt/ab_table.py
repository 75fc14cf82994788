"""Alpha-beta transposition table: buckets of one depth-preferred and two always-replace entries.

After Bonanza (a "prefer" slot kept for the deeper search plus "always" slots), Stockfish and
Crafty (generation / relative age, bounds, mate scores stored relative to the node), with
lockless verification after Hyatt & Mann, "A lockless transposition-table implementation for
parallel search" (ICGA Journal 25(1), 2002): an entry is two 64-bit words, the check word being
key XOR data word, so an entry whose two words come from different writes (torn) fails
verification instead of being read as another position's.

Layout (B = 2^k buckets, as many as ``size_mib`` holds)::

    entries  int64 (3 * B, 2); bucket b = key & (B - 1) owns entries 3b, 3b + 1, 3b + 2
    +-------------------------+-------------------------+-------------------------+
    | 3b:   preferred (depth) | 3b+1: always            | 3b+2: always            |
    |        16 bytes         |        16 bytes         |        16 bytes         |
    +-------------------------+-------------------------+-------------------------+
    one entry: [0] check word = key ^ data (8 bytes), [1] data word (8 bytes)

    data word, from bit 0 up (64 bits):
    +---------+---------+------------+-------------+----------+------------+
    | depth   | bound   | generation | value       | move     | aux        |
    | 8 bits  | 2 bits  | 5 bits     | 16 bits     | 12 bits  | 21 bits    |
    | 0..7    | 8..9    | 10..14     | 15..30      | 31..42   | 43..63     |
    | 0..255  | 1, 2, 3 | 0..31      | signed      | 0..4094, | 0..2^21-1  |
    |         | 0=empty |            | -2^15..     | 4095 =   | must match |
    |         |         |            |  2^15-1     | no move  | exactly    |
    +---------+---------+------------+-------------+----------+------------+

    meta     int64 (1,): [0] current generation, 0..31

An entry is valid only with a non-zero bound, so an all-zero slot never validates, not even for
key 0 (whose check would pass) nor for the empty-board key ``zeroplay.hashing.EMPTY_KEY``.
``aux`` is an extra field compared exactly (a shogi hand, a rule variant; 0 when unused).

Values are in the caller's units, from the point of view of the side to move at the entry's node.
Win/loss scores ("mate" scores: |v| >= WIN_VALUE - MAX_PLY, a win at root ply p being
WIN_VALUE - p) are stored relative to the node and read back relative to the root of the probing
search; other scores are stored as given.

Replacement (``ab_store``): the preferred entry is replaced when it is empty, of an older
generation, or no deeper than the new entry; the entry it held moves to an always slot when it
describes another position (key OR aux differ; Bonanza's ``&&`` silently dropped every demoted
entry in games without hands). Otherwise the new entry goes to an always slot. Victim among the
always slots: one holding the same position, else an empty one, else the one of the older
generation, else the shallower one, else the one picked by the key's top bit. A bucket holds at
most one always copy of a position; a preferred copy beside it is the deeper or newer one, and
``ab_probe`` looks at the preferred entry first.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

BOUND_UPPER = 1
"""The value is an upper bound (the search failed low: value <= alpha)."""
BOUND_LOWER = 2
"""The value is a lower bound (the search failed high: value >= beta)."""
BOUND_EXACT = 3
"""The value is exact (alpha < value < beta). Bound 0 marks an empty entry."""

WIN_VALUE = 30000
"""Score of a win at the root itself; a win at root ply p scores WIN_VALUE - p, a loss -(WIN_VALUE - p)."""
MAX_PLY = 1024
"""Deepest ply a search may reach; |value| >= WIN_VALUE - MAX_PLY are win/loss ("mate") scores."""

MAX_DEPTH = 255
NO_MOVE_CODE = 4095
"""Move field value meaning "no move" (decoded as -1)."""
MAX_MOVE = 4094
MAX_AUX = (1 << 21) - 1
GENERATIONS = 32
"""Generations before the field wraps (5 bits); ages are taken modulo this."""

ENTRIES_PER_BUCKET = 3
BYTES_PER_ENTRY = 16

# data word fields: shift and width
DEPTH_SHIFT, DEPTH_BITS = 0, 8
BOUND_SHIFT, BOUND_BITS = 8, 2
GEN_SHIFT, GEN_BITS = 10, 5
VALUE_SHIFT, VALUE_BITS = 15, 16
MOVE_SHIFT, MOVE_BITS = 31, 12
AUX_SHIFT, AUX_BITS = 43, 21

_GEN_MASK = GENERATIONS - 1
_MATE_THRESHOLD = WIN_VALUE - MAX_PLY

META_GENERATION = 0
META_SIZE = 1


class ABTable(NamedTuple):
    """Arrays of an alpha-beta table (see the module docstring for the layout).

    Attributes:
        entries: int64 (3 * B, 2), B = 2^k buckets; [i, 0] check word (key ^ data), [i, 1] data word.
        meta: int64 (META_SIZE,); [META_GENERATION] the current generation, 0..31.
    """

    entries: np.ndarray
    meta: np.ndarray


def new_ab_table(size_mib: float, *, num_buckets: int | None = None) -> ABTable:
    """An empty table of the largest power-of-two bucket count whose entries fit in ``size_mib``.

    Each bucket takes 48 bytes (three 16-byte entries), so 64 MiB gives 2^20 buckets (48 MiB).

    Args:
        size_mib: memory budget in MiB (2^20 bytes).
        num_buckets: when given, exactly this many buckets (a power of two >= 1) instead; for tests.

    Raises:
        ValueError: when not even one bucket fits, or num_buckets is not a power of two.
    """
    if num_buckets is None:
        budget = int(size_mib * (1 << 20))
        per_bucket = ENTRIES_PER_BUCKET * BYTES_PER_ENTRY
        if budget < per_bucket:
            raise ValueError(f"size_mib={size_mib!r} holds no bucket of {per_bucket} bytes")
        buckets = 1 << ((budget // per_bucket).bit_length() - 1)
    else:
        buckets = int(num_buckets)
        if buckets != num_buckets or buckets < 1 or buckets & (buckets - 1):
            raise ValueError(f"num_buckets must be a power of two >= 1, got {num_buckets!r}")
    return ABTable(
        entries=np.zeros((ENTRIES_PER_BUCKET * buckets, 2), dtype=np.int64),
        meta=np.zeros(META_SIZE, dtype=np.int64),
    )


@njit(cache=True, inline="always")
def _field(data, shift, bits):
    return (data >> shift) & ((np.int64(1) << bits) - 1)


@njit(cache=True)
def pack_entry(depth, bound, generation, value, move, aux):
    """The data word of one entry (no range checks; see ``ab_store`` for those).

    Args:
        depth: 0..255. bound: BOUND_* (0 = empty). generation: 0..31. value: -32768..32767,
        node-relative. move: 0..4094, or -1 for none. aux: 0..2^21 - 1.
    """
    move_code = np.int64(NO_MOVE_CODE) if move < 0 else np.int64(move)
    return (
        (np.int64(depth) << DEPTH_SHIFT)
        | (np.int64(bound) << BOUND_SHIFT)
        | (np.int64(generation) << GEN_SHIFT)
        | ((np.int64(value) & 0xFFFF) << VALUE_SHIFT)
        | (move_code << MOVE_SHIFT)
        | (np.int64(aux) << AUX_SHIFT)
    )


@njit(cache=True)
def unpack_entry(word):
    """(depth, bound, generation, value, move, aux) of a data word; move -1 when none is stored."""
    data = np.int64(word)
    value = _field(data, VALUE_SHIFT, VALUE_BITS)
    if value >= 1 << 15:
        value -= 1 << 16
    move = _field(data, MOVE_SHIFT, MOVE_BITS)
    if move == NO_MOVE_CODE:
        move = -1
    return (
        _field(data, DEPTH_SHIFT, DEPTH_BITS),
        _field(data, BOUND_SHIFT, BOUND_BITS),
        _field(data, GEN_SHIFT, GEN_BITS),
        value,
        move,
        _field(data, AUX_SHIFT, AUX_BITS),
    )


@njit(cache=True, inline="always")
def _value_to_table(value, ply):
    """Root-relative win/loss score -> node-relative (a win at root ply p, stored at ply q: W - (p - q))."""
    if value >= _MATE_THRESHOLD:
        return value + ply
    if value <= -_MATE_THRESHOLD:
        return value - ply
    return value


@njit(cache=True, inline="always")
def _value_from_table(value, ply):
    """Node-relative win/loss score -> relative to the root of a search probing at ``ply``."""
    if value >= _MATE_THRESHOLD:
        return value - ply
    if value <= -_MATE_THRESHOLD:
        return value + ply
    return value


@njit(cache=True, inline="always")
def _same_position(entries, i, key, aux):
    """Entry i is valid and holds (key, aux)."""
    data = entries[i, 1]
    return (
        (entries[i, 0] ^ data) == key
        and _field(data, BOUND_SHIFT, BOUND_BITS) != 0
        and _field(data, AUX_SHIFT, AUX_BITS) == aux
    )


@njit(cache=True)
def _always_victim(entries, first, key, aux, generation):
    """Index of the always slot (first + 1 or first + 2) that receives an entry for (key, aux)."""
    a1 = first + 1
    a2 = first + 2
    if _same_position(entries, a1, key, aux):
        return a1
    if _same_position(entries, a2, key, aux):
        return a2
    d1 = entries[a1, 1]
    d2 = entries[a2, 1]
    if _field(d1, BOUND_SHIFT, BOUND_BITS) == 0:
        return a1
    if _field(d2, BOUND_SHIFT, BOUND_BITS) == 0:
        return a2
    age1 = (generation - _field(d1, GEN_SHIFT, GEN_BITS)) & _GEN_MASK
    age2 = (generation - _field(d2, GEN_SHIFT, GEN_BITS)) & _GEN_MASK
    if age1 != age2:
        return a1 if age1 > age2 else a2
    depth1 = _field(d1, DEPTH_SHIFT, DEPTH_BITS)
    depth2 = _field(d2, DEPTH_SHIFT, DEPTH_BITS)
    if depth1 != depth2:
        return a1 if depth1 < depth2 else a2
    return a1 + ((key >> 63) & 1)


@njit(cache=True)
def ab_store(t, key, aux, ply, depth, bound, value, move):
    """Store a search result for (key, aux), replacing as the module docstring describes.

    Args:
        t: the ABTable.
        key: Zobrist key, uint64 bits as int64.
        aux: extra identity field, 0..2^21 - 1 (0 when unused).
        ply: distance of the node from the root of the current search, 0..MAX_PLY.
        depth: remaining depth searched, 0..255.
        bound: BOUND_UPPER, BOUND_LOWER or BOUND_EXACT.
        value: score from the point of view of the side to move at the node, relative to the root
            (a win at root ply p is WIN_VALUE - p), |value| <= WIN_VALUE.
        move: best move 0..4094, or -1 for none.

    Raises:
        ValueError: on a field out of range.
    """
    k = np.int64(key)
    if aux < 0 or aux > MAX_AUX:
        raise ValueError("aux out of range")
    if ply < 0 or ply > MAX_PLY:
        raise ValueError("ply out of range")
    if depth < 0 or depth > MAX_DEPTH:
        raise ValueError("depth out of range")
    if bound < BOUND_UPPER or bound > BOUND_EXACT:
        raise ValueError("bound must be BOUND_UPPER, BOUND_LOWER or BOUND_EXACT")
    if value < -WIN_VALUE or value > WIN_VALUE:
        raise ValueError("value out of range")
    if move < -1 or move > MAX_MOVE:
        raise ValueError("move out of range")
    entries = t.entries
    generation = t.meta[META_GENERATION]
    data = pack_entry(depth, bound, generation, _value_to_table(np.int64(value), np.int64(ply)), move, aux)
    buckets = entries.shape[0] // ENTRIES_PER_BUCKET
    bucket = k & (buckets - 1)
    first = ENTRIES_PER_BUCKET * bucket

    old = entries[first, 1]
    old_check = entries[first, 0]
    old_bound = _field(old, BOUND_SHIFT, BOUND_BITS)
    if (
        old_bound == 0
        or _field(old, GEN_SHIFT, GEN_BITS) != generation
        or _field(old, DEPTH_SHIFT, DEPTH_BITS) <= depth
    ):
        # the new entry takes the preferred slot; drop its stale always copy, if any
        for i in range(first + 1, first + ENTRIES_PER_BUCKET):
            if _same_position(entries, i, k, aux):
                entries[i, 0] = 0
                entries[i, 1] = 0
        if old_bound != 0:
            old_key = old_check ^ old
            old_aux = _field(old, AUX_SHIFT, AUX_BITS)
            # demote another position's entry (key || aux differ); a torn entry, whose key does
            # not even map to this bucket, is dropped
            if (old_key != k or old_aux != aux) and (old_key & (buckets - 1)) == bucket:
                i = _always_victim(entries, first, old_key, old_aux, generation)
                entries[i, 0] = old_check
                entries[i, 1] = old
        entries[first, 0] = k ^ data
        entries[first, 1] = data
    else:
        i = _always_victim(entries, first, k, aux, generation)
        entries[i, 0] = k ^ data
        entries[i, 1] = data


@njit(cache=True)
def ab_probe(t, key, aux, ply):
    """Look up (key, aux): (hit, move, value, depth, bound).

    On a hit: move (-1 when none stored), value relative to the root of a search probing at
    ``ply`` (from the side to move's point of view at the node), depth and bound as stored. On a
    miss: (False, -1, 0, 0, 0). The caller decides a cutoff (``ab_cutoff``); the move is usable
    for ordering even when the depth is too shallow.
    """
    k = np.int64(key)
    entries = t.entries
    buckets = entries.shape[0] // ENTRIES_PER_BUCKET
    first = ENTRIES_PER_BUCKET * (k & (buckets - 1))
    for i in range(first, first + ENTRIES_PER_BUCKET):
        data = entries[i, 1]  # read once: verify and decode the same word
        if (entries[i, 0] ^ data) == k:
            bound = _field(data, BOUND_SHIFT, BOUND_BITS)
            if bound != 0 and _field(data, AUX_SHIFT, AUX_BITS) == aux:
                value = _field(data, VALUE_SHIFT, VALUE_BITS)
                if value >= 1 << 15:
                    value -= 1 << 16
                move = _field(data, MOVE_SHIFT, MOVE_BITS)
                if move == NO_MOVE_CODE:
                    move = -1
                return True, move, _value_from_table(value, np.int64(ply)), _field(data, DEPTH_SHIFT, DEPTH_BITS), bound
    return False, np.int64(-1), np.int64(0), np.int64(0), np.int64(0)


@njit(cache=True)
def ab_cutoff(depth_entry, bound, value, depth_required, alpha, beta):
    """(cutoff, value): may a node searched to ``depth_required`` in window (alpha, beta) return now?

    Fail-soft: with an entry at least as deep as required, an EXACT value always cuts, a LOWER
    bound cuts when value >= beta, an UPPER bound when value <= alpha; the value returned is the
    entry's (possibly outside the window). Without a cutoff the entry's value is returned unused.
    """
    if depth_entry < depth_required or bound == 0:
        return False, value
    if bound == BOUND_EXACT:
        return True, value
    if bound == BOUND_LOWER and value >= beta:
        return True, value
    if bound == BOUND_UPPER and value <= alpha:
        return True, value
    return False, value


@njit(cache=True, inline="always")
def _aux_at_least(aux, other, field_bits):
    """Every field of ``aux`` >= the same field of ``other`` (fields packed from bit 0 up)."""
    shift = 0
    for i in range(field_bits.shape[0]):
        mask = (np.int64(1) << field_bits[i]) - 1
        if ((aux >> shift) & mask) < ((other >> shift) & mask):
            return False
        shift += field_bits[i]
    return True


@njit(cache=True)
def ab_probe_dominance(t, key, aux, ply, depth_required, alpha, beta, field_bits):
    """(cutoff, value) from the entries of ``key`` with any aux, by Bonanza's superiority rule.

    For games whose aux packs counts the mover holds (a shogi hand, per piece type in fields of
    ``field_bits`` bits from bit 0 up): with the same board (key), holding at least the pieces
    of another position can only help the mover. So an entry at least ``depth_required`` deep
    whose LOWER bound or EXACT value v >= beta was stored for an aux that ours dominates field by
    field (we hold as much or more) cuts with v; an entry whose UPPER bound or EXACT value
    v <= alpha was stored for an aux that dominates ours (we hold as much or less) cuts with v.
    The plain ``ab_probe`` is unchanged: this probe is an extra call, off unless a search makes
    it (the shogi alpha-beta engine's ``hand_dominance`` option). Values as in ``ab_probe``
    (side to move at the node, win/loss scores relative to the root at ``ply``).

    Args:
        field_bits: int64 (F,) widths of the aux fields, lowest first (shogi: 5, 3, 3, 3, 3, 2, 2).

    Returns:
        (True, value) on a cutoff, else (False, 0).

    Source: Bonanza's hash table (``hash_probe``'s hand comparison, "superiority" of hands);
    the same rule as YaneuraOu's hand-superiority in repetition checks.
    """
    k = np.int64(key)
    entries = t.entries
    buckets = entries.shape[0] // ENTRIES_PER_BUCKET
    first = ENTRIES_PER_BUCKET * (k & (buckets - 1))
    for i in range(first, first + ENTRIES_PER_BUCKET):
        data = entries[i, 1]
        if (entries[i, 0] ^ data) != k:
            continue
        bound = _field(data, BOUND_SHIFT, BOUND_BITS)
        if bound == 0 or _field(data, DEPTH_SHIFT, DEPTH_BITS) < depth_required:
            continue
        stored_aux = _field(data, AUX_SHIFT, AUX_BITS)
        value = _field(data, VALUE_SHIFT, VALUE_BITS)
        if value >= 1 << 15:
            value -= 1 << 16
        value = _value_from_table(value, np.int64(ply))
        if bound != BOUND_UPPER and value >= beta and _aux_at_least(np.int64(aux), stored_aux, field_bits):
            return True, value
        if bound != BOUND_LOWER and value <= alpha and _aux_at_least(stored_aux, np.int64(aux), field_bits):
            return True, value
    return False, np.int64(0)


@njit(cache=True)
def ab_new_search(t):
    """Start a new search: advance the generation (modulo GENERATIONS)."""
    t.meta[META_GENERATION] = (t.meta[META_GENERATION] + 1) & _GEN_MASK


@njit(cache=True)
def ab_clear(t):
    """Empty every entry and set the generation back to 0."""
    entries = t.entries
    for i in range(entries.shape[0]):
        entries[i, 0] = 0
        entries[i, 1] = 0
    t.meta[META_GENERATION] = 0


@njit(cache=True)
def ab_hashfull(t):
    """Permille of entries in use by the current generation, sampled over the first 1000 buckets."""
    entries = t.entries
    generation = t.meta[META_GENERATION]
    n = min(1000 * ENTRIES_PER_BUCKET, entries.shape[0])
    used = 0
    for i in range(n):
        data = entries[i, 1]
        if _field(data, BOUND_SHIFT, BOUND_BITS) != 0 and _field(data, GEN_SHIFT, GEN_BITS) == generation:
            used += 1
    return used * 1000 // n


def ab_table_stats(t: ABTable) -> dict:
    """Figures of the table: ``buckets``, ``entries``, ``bytes``, ``generation``, ``hashfull``
    (permille, sampled), ``used`` (valid entries in the whole table, any generation)."""
    data = t.entries[:, 1]
    return {
        "buckets": int(t.entries.shape[0] // ENTRIES_PER_BUCKET),
        "entries": int(t.entries.shape[0]),
        "bytes": int(t.entries.nbytes),
        "generation": int(t.meta[META_GENERATION]),
        "hashfull": int(ab_hashfull(t)),
        "used": int(np.count_nonzero((data >> BOUND_SHIFT) & 3)),
    }
