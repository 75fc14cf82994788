"""Alpha-beta table (zeroplay.tt.ab_table): the issue-3 cases, layout, ages and a model-based test."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from zeroplay.hashing import EMPTY_KEY
from zeroplay.tt import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_UPPER,
    MAX_PLY,
    WIN_VALUE,
    ab_clear,
    ab_cutoff,
    ab_hashfull,
    ab_new_search,
    ab_probe,
    ab_store,
    ab_table_stats,
    new_ab_table,
    pack_entry,
    unpack_entry,
)
from zeroplay.tt.ab_table import GENERATIONS, MAX_AUX, MAX_DEPTH, MAX_MOVE

W = WIN_VALUE


def signed(key: int) -> int:
    """A uint64 bit pattern as the int64 the tables take."""
    key &= (1 << 64) - 1
    return key - (1 << 64) if key >= 1 << 63 else key


def slot_key(t, i: int) -> int:
    """Key an entry verifies for (check ^ data)."""
    return int(t.entries[i, 0] ^ t.entries[i, 1])


K1 = signed(0x9E37_79B9_7F4A_7C15)
K2 = signed(0x9E37_79B9_7F4A_7C15 ^ (1 << 40))  # same low bits: same bucket in any small table


# ---------------------------------------------------------------- layout


def test_sizes():
    t = new_ab_table(64)
    stats = ab_table_stats(t)
    assert stats["buckets"] == 1 << 20  # 48 bytes a bucket: the largest power of two in 64 MiB
    assert stats["bytes"] == 48 << 20
    assert t.entries.dtype == np.int64 and t.entries.shape == (3 << 20, 2)
    assert t.entries.nbytes // t.entries.shape[0] == 16
    assert ab_table_stats(new_ab_table(1))["buckets"] == 1 << 14
    assert ab_table_stats(new_ab_table(0, num_buckets=4))["buckets"] == 4
    with pytest.raises(ValueError):
        new_ab_table(32 / (1 << 20))
    with pytest.raises(ValueError):
        new_ab_table(1, num_buckets=3)


FIELD_EXTREMES = {
    "depth": [0, 1, MAX_DEPTH],
    "bound": [0, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT],
    "generation": [0, GENERATIONS - 1],
    "value": [-(2**15), -1, 0, 1, 2**15 - 1],
    "move": [-1, 0, MAX_MOVE],
    "aux": [0, 1, MAX_AUX],
}


def test_pack_round_trip_at_every_fields_extremes():
    for combo in itertools.product(*FIELD_EXTREMES.values()):
        assert unpack_entry(pack_entry(*combo)) == combo


@given(
    st.integers(0, MAX_DEPTH),
    st.integers(0, 3),
    st.integers(0, GENERATIONS - 1),
    st.integers(-(2**15), 2**15 - 1),
    st.integers(-1, MAX_MOVE),
    st.integers(0, MAX_AUX),
)
@settings(max_examples=200, deadline=None)
def test_pack_round_trip_random(depth, bound, generation, value, move, aux):
    fields = (depth, bound, generation, value, move, aux)
    assert unpack_entry(pack_entry(*fields)) == fields


def test_all_zero_data_word_is_an_empty_entry():
    assert unpack_entry(0)[1] == 0  # bound 0: never valid


# ---------------------------------------------------------------- cases of the issue


def test_torn_write_fails_verification():
    t = new_ab_table(0, num_buckets=4)
    ab_store(t, K1, 0, 0, 7, BOUND_EXACT, 123, 45)
    first = 3 * (K1 & 3)
    assert slot_key(t, first) == K1
    d2 = pack_entry(5, BOUND_LOWER, 0, -77, 9, 0)
    t.entries[first, 1] = d2  # a second writer got only the data word in
    assert not ab_probe(t, K1, 0, 0)[0]
    ab_store(t, K2, 0, 0, 5, BOUND_LOWER, -77, 9)  # now stored properly in that slot
    assert t.entries[first, 1] == d2 and slot_key(t, first) == K2
    assert not ab_probe(t, K1, 0, 0)[0]
    assert ab_probe(t, K2, 0, 0) == (True, 9, -77, 5, BOUND_LOWER)


def test_cutoff_cases():
    # depth 2 EXACT 40 when depth 4 is required: no cutoff (the move still orders)
    assert not ab_cutoff(2, BOUND_EXACT, 40, 4, -100, 100)[0]
    assert ab_cutoff(4, BOUND_EXACT, 40, 4, -100, 100) == (True, 40)
    assert ab_cutoff(6, BOUND_LOWER, 50, 4, 60, 70)[0] is False
    assert ab_cutoff(6, BOUND_LOWER, 50, 4, 20, 45) == (True, 50)
    assert ab_cutoff(6, BOUND_UPPER, 50, 4, 60, 70) == (True, 50)
    assert ab_cutoff(6, BOUND_UPPER, 50, 4, 20, 45)[0] is False
    assert ab_cutoff(6, 0, 50, 4, 20, 45)[0] is False  # no bound: never


def test_shallow_store_goes_to_an_always_slot():
    t = new_ab_table(0, num_buckets=4)
    first = 3 * (K1 & 3)
    ab_store(t, K1, 0, 0, 8, BOUND_EXACT, 10, 1)
    ab_store(t, K2, 0, 0, 3, BOUND_EXACT, 20, 2)
    assert slot_key(t, first) == K1
    assert K2 in (slot_key(t, first + 1), slot_key(t, first + 2))
    assert ab_probe(t, K1, 0, 0) == (True, 1, 10, 8, BOUND_EXACT)
    assert ab_probe(t, K2, 0, 0) == (True, 2, 20, 3, BOUND_EXACT)


def test_evicted_preferred_entry_is_demoted_when_the_key_differs():
    t = new_ab_table(0, num_buckets=4)
    first = 3 * (K1 & 3)
    ab_store(t, K1, 0, 0, 3, BOUND_LOWER, 10, 1)
    ab_store(t, K2, 0, 0, 8, BOUND_UPPER, 20, 2)
    assert slot_key(t, first) == K2
    assert K1 in (slot_key(t, first + 1), slot_key(t, first + 2))
    assert ab_probe(t, K1, 0, 0) == (True, 1, 10, 3, BOUND_LOWER)
    assert ab_probe(t, K2, 0, 0) == (True, 2, 20, 8, BOUND_UPPER)


def test_evicted_preferred_entry_is_demoted_when_only_aux_differs():
    t = new_ab_table(0, num_buckets=4)
    ab_store(t, K1, 0, 0, 3, BOUND_EXACT, 10, 1)
    ab_store(t, K1, 5, 0, 8, BOUND_EXACT, 20, 2)
    assert ab_probe(t, K1, 0, 0) == (True, 1, 10, 3, BOUND_EXACT)
    assert ab_probe(t, K1, 5, 0) == (True, 2, 20, 8, BOUND_EXACT)
    assert not ab_probe(t, K1, 6, 0)[0]


def test_same_position_replaces_its_own_entry():
    t = new_ab_table(0, num_buckets=4)
    first = 3 * (K1 & 3)
    ab_store(t, K1, 0, 0, 3, BOUND_EXACT, 10, 1)
    ab_store(t, K1, 0, 0, 5, BOUND_EXACT, 11, 2)  # deeper: takes the preferred slot, not demoted
    assert ab_probe(t, K1, 0, 0) == (True, 2, 11, 5, BOUND_EXACT)
    assert [slot_key(t, first + i) for i in (1, 2)] == [0, 0]  # always slots still empty
    ab_store(t, K2, 0, 0, 9, BOUND_EXACT, 12, 3)  # evicts K1 into an always slot
    ab_store(t, K1, 0, 0, 4, BOUND_EXACT, 13, 4)  # shallower than K2: replaces K1's always copy
    ab_store(t, K1, 0, 0, 2, BOUND_EXACT, 14, 5)
    keys = [slot_key(t, first + i) for i in range(3)]
    assert keys.count(K1) == 1
    assert ab_probe(t, K1, 0, 0) == (True, 5, 14, 2, BOUND_EXACT)


@pytest.mark.parametrize("fresh", [True, False])
def test_key_zero_and_empty_board_key_miss_in_fresh_and_cleared_tables(fresh):
    t = new_ab_table(0, num_buckets=8)
    empty_board = signed(EMPTY_KEY)
    if not fresh:
        ab_store(t, 0, 0, 0, 3, BOUND_EXACT, 1, 1)
        ab_store(t, empty_board, 0, 0, 3, BOUND_EXACT, 1, 1)
        ab_new_search(t)
        assert ab_probe(t, 0, 0, 0)[0] and ab_probe(t, empty_board, 0, 0)[0]
        ab_clear(t)
        assert t.meta[0] == 0
    for key in (0, empty_board, EMPTY_KEY):  # EMPTY_KEY as a Python int above 2^63 too
        for aux in (0, 1):
            assert ab_probe(t, key, aux, 0) == (False, -1, 0, 0, 0)
    assert ab_hashfull(t) == 0


def test_win_and_loss_scores_are_stored_relative_to_the_node():
    t = new_ab_table(0, num_buckets=4)
    ab_store(t, K1, 0, 5, 10, BOUND_EXACT, W - 8, 3)  # at ply 5: a win at root ply 8
    assert unpack_entry(t.entries[3 * (K1 & 3), 1])[3] == W - 3  # win in 3 from the node
    assert ab_probe(t, K1, 0, 2)[2] == W - 5
    assert ab_probe(t, K1, 0, 5)[2] == W - 8
    ab_store(t, K2, 0, 5, 10, BOUND_EXACT, -(W - 8), 3)  # losses mirror
    assert ab_probe(t, K2, 0, 2)[2] == -(W - 5)
    assert ab_probe(t, K2, 0, 5)[2] == -(W - 8)
    k3 = signed(K1 ^ (1 << 41))
    ab_store(t, k3, 0, 5, 10, BOUND_EXACT, 350, 3)  # an ordinary score is unchanged
    assert ab_probe(t, k3, 0, 2)[2] == 350 and ab_probe(t, k3, 0, 9)[2] == 350
    k4 = signed(K1 ^ (1 << 42))
    ab_store(t, k4, 0, MAX_PLY, 0, BOUND_LOWER, W - MAX_PLY, 3)  # the extremes fit the field
    assert ab_probe(t, k4, 0, 0)[2] == W
    ab_store(t, k4, 0, MAX_PLY, 0, BOUND_UPPER, -W, 3)
    assert ab_probe(t, k4, 0, MAX_PLY)[2] == -W


@pytest.mark.parametrize(
    "field",
    [
        dict(aux=-1),
        dict(aux=MAX_AUX + 1),
        dict(ply=-1),
        dict(ply=MAX_PLY + 1),
        dict(depth=-1),
        dict(depth=256),
        dict(bound=0),
        dict(bound=4),
        dict(value=W + 1),
        dict(value=-W - 1),
        dict(move=-2),
        dict(move=4095),
    ],
)
def test_store_checks_its_fields(field):
    args = dict(aux=0, ply=0, depth=1, bound=BOUND_EXACT, value=0, move=0) | field
    with pytest.raises(ValueError):
        ab_store(new_ab_table(0, num_buckets=2), K1, args["aux"], args["ply"], args["depth"], args["bound"], args["value"], args["move"])


def test_no_move_reads_back_as_minus_one():
    t = new_ab_table(0, num_buckets=2)
    ab_store(t, K1, 0, 0, 1, BOUND_UPPER, -5, -1)
    assert ab_probe(t, K1, 0, 0) == (True, -1, -5, 1, BOUND_UPPER)


# ---------------------------------------------------------------- generations


def test_generation_wraps_and_old_entries_stay_old():
    t = new_ab_table(0, num_buckets=4)
    for _ in range(GENERATIONS - 2):
        ab_new_search(t)
    assert t.meta[0] == GENERATIONS - 2
    ab_store(t, K1, 0, 0, 20, BOUND_EXACT, 1, 1)  # deep, at generation 30
    for _ in range(3):
        ab_new_search(t)
    assert t.meta[0] == 1  # wrapped: 31, 0, 1
    # relative age (1 - 30) mod 32 = 3: the deep entry is old, a shallow store takes its slot
    ab_store(t, K2, 0, 0, 1, BOUND_EXACT, 2, 2)
    first = 3 * (K1 & 3)
    assert slot_key(t, first) == K2
    assert ab_probe(t, K1, 0, 0)[0]  # demoted, not lost
    # same generation again: a deep entry is kept against a shallow one
    ab_store(t, K1, 0, 0, 20, BOUND_EXACT, 3, 3)
    ab_store(t, K2, 0, 0, 1, BOUND_EXACT, 4, 4)
    assert slot_key(t, first) == K1


def test_always_victim_prefers_empty_then_older_then_shallower_then_a_key_bit():
    t = new_ab_table(0, num_buckets=1)  # every key in one bucket
    keys = [signed(0x1111 * (i + 1) << 8) for i in range(6)] + [signed(0x1111 << 8 | 1 << 63)]
    slots = lambda: [slot_key(t, i) for i in range(3)]  # noqa: E731
    ab_store(t, keys[0], 0, 0, 50, BOUND_EXACT, 0, 0)  # preferred
    ab_store(t, keys[1], 0, 0, 4, BOUND_EXACT, 0, 0)  # shallower: always slot 1 (empty)
    ab_store(t, keys[2], 0, 0, 2, BOUND_EXACT, 0, 0)  # always slot 2 (empty)
    assert slots() == keys[:3]
    ab_new_search(t)
    ab_store(t, keys[3], 0, 0, 60, BOUND_EXACT, 0, 0)  # takes the old preferred entry's slot
    assert slots() == [keys[3], keys[1], keys[0]]  # keys[0] demoted over the shallower keys[2]
    ab_store(t, keys[4], 0, 0, 1, BOUND_EXACT, 0, 0)  # both always entries old: shallower goes
    assert slots() == [keys[3], keys[4], keys[0]]
    ab_store(t, keys[5], 0, 0, 1, BOUND_EXACT, 0, 0)  # older (gen 0, depth 50) before shallower
    assert slots() == [keys[3], keys[4], keys[5]]
    # same generation, same depth: the new key's top bit picks the slot
    ab_store(t, keys[1], 0, 0, 1, BOUND_EXACT, 0, 0)  # top bit 0: always slot 1
    assert slots() == [keys[3], keys[1], keys[5]]
    ab_store(t, keys[6], 0, 0, 1, BOUND_EXACT, 0, 0)  # top bit 1: always slot 2
    assert slots() == [keys[3], keys[1], keys[6]]


def test_hashfull_counts_the_current_generation():
    t = new_ab_table(0, num_buckets=2048)
    assert ab_hashfull(t) == 0
    rng = np.random.default_rng(3)
    for b in range(500):  # fill half of the first 1000 buckets, all three entries
        for j in range(3):
            key = signed((int(rng.integers(0, 2**40)) << 11) | b)
            ab_store(t, key, 0, 0, 10 - j, BOUND_EXACT, 0, 0)
    assert ab_hashfull(t) == 500
    ab_new_search(t)
    assert ab_hashfull(t) == 0
    assert ab_table_stats(t)["used"] == 1500


# ---------------------------------------------------------------- model-based (hypothesis)

_KEYS = [signed((hi << 2) | lo) for hi in (0, 1, 5, 2**50 + 3, 2**61 + 7) for lo in (0, 1, 3)]
_KEYS += [0, signed(EMPTY_KEY), -1, -(2**63)]


def _from_node(value: int, ply: int) -> int:
    """Reference ply adjustment on the way out (independent of the module)."""
    if value >= W - MAX_PLY:
        return value - ply
    if value <= -(W - MAX_PLY):
        return value + ply
    return value


OPERATIONS = st.lists(
    st.one_of(
        st.tuples(
            st.just("store"),
            st.sampled_from(_KEYS),
            st.sampled_from([0, 1, MAX_AUX]),
            st.integers(0, 20),  # ply
            st.integers(0, MAX_DEPTH),
            st.sampled_from([BOUND_UPPER, BOUND_LOWER, BOUND_EXACT]),
            st.one_of(st.integers(-500, 500), st.integers(0, 40).map(lambda p: W - p - 20), st.integers(0, 40).map(lambda p: -(W - p - 20))),
            st.integers(-1, MAX_MOVE),
        ),
        st.tuples(st.just("probe"), st.sampled_from(_KEYS), st.sampled_from([0, 1, MAX_AUX]), st.integers(0, 20)),
        st.tuples(st.just("new_search")),
        st.tuples(st.just("clear")),
    ),
    max_size=80,
)


@given(OPERATIONS)
@settings(max_examples=150, deadline=None)
def test_model_forgets_but_never_returns_a_wrong_entry(operations):
    """Random stores and probes in a 4-bucket table against a dict of everything stored.

    A hit must return an entry stored for exactly that (key, aux) since the last clear: the
    latest one, or one deeper than the latest (a preferred copy kept against a shallower store).
    A position stored last must be found at once.
    """
    t = new_ab_table(0, num_buckets=4)
    history: dict[tuple[int, int], list[tuple[int, int, int, int]]] = {}  # (move, node value, depth, bound)

    def check(key, aux, ply):
        hit, move, value, depth, bound = ab_probe(t, key, aux, ply)
        if not hit:
            assert (move, value, depth, bound) == (-1, 0, 0, 0)
            return False
        stored = history.get((key, aux), [])
        matches = [e for e in stored if (e[0], _from_node(e[1], ply), e[2], e[3]) == (move, value, depth, bound)]
        assert matches, "a hit that was never stored for this position"
        latest = stored[-1]
        assert (move, _from_node(latest[1], ply), depth, bound) == (latest[0], value, latest[2], latest[3]) or depth > latest[2]
        return True

    for op in operations:
        if op[0] == "store":
            _, key, aux, ply, depth, bound, value, move = op
            ab_store(t, key, aux, ply, depth, bound, value, move)
            node_value = value + ply if value >= W - MAX_PLY else value - ply if value <= -(W - MAX_PLY) else value
            history.setdefault((key, aux), []).append((move, node_value, depth, bound))
            assert check(key, aux, ply)
        elif op[0] == "probe":
            check(*op[1:])
        elif op[0] == "new_search":
            ab_new_search(t)
        else:
            ab_clear(t)
            history.clear()
    for key in _KEYS:  # at most one always copy of a position per bucket
        for aux in (0, 1, MAX_AUX):
            first = 3 * (key & 3)
            copies = [
                i
                for i in (first + 1, first + 2)
                if slot_key(t, i) == key and unpack_entry(t.entries[i, 1])[1] != 0 and unpack_entry(t.entries[i, 1])[5] == aux
            ]
            assert len(copies) <= 1


# ---------------------------------------------------------------- compiled callers


@njit
def _search_like(t, key, aux):
    """User compiled code: store, probe, decide a cutoff, age the table."""
    ab_store(t, key, aux, 3, 6, BOUND_LOWER, 50, 17)
    hit, move, value, depth, bound = ab_probe(t, key, aux, 3)
    cut, cut_value = ab_cutoff(depth, bound, value, 4, 20, 45)
    ab_new_search(t)
    return hit, move, cut, cut_value, ab_hashfull(t)


def test_callable_from_compiled_code():
    t = new_ab_table(0, num_buckets=8)
    assert _search_like(t, signed(EMPTY_KEY), 0) == (True, 17, True, 50, 0)
