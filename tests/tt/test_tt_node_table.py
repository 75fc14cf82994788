"""MCTS node table (zeroplay.tt.node_table): the issue-3 cases, GC, and a model-based test."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from numba import njit

from zeroplay.hashing import EMPTY_KEY
from zeroplay.tt import (
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
from zeroplay.tt.node_table import C_FREE_TOP, EMPTY_SLOT


def signed(key: int) -> int:
    """A uint64 bit pattern as the int64 the tables take."""
    key &= (1 << 64) - 1
    return key - (1 << 64) if key >= 1 << 63 else key


def check_structure(t, model: dict | None = None) -> None:
    """Every invariant of the table; with ``model`` ({(key, to_play, ply): index}) also its content."""
    slots, node_slot = t.slots, t.node_slot
    cap = slots.shape[0]
    mask = cap - 1
    occupied = np.flatnonzero(slots[:, 1] != EMPTY_SLOT)
    identities = set()
    for s in occupied:
        key, word1 = int(slots[s, 0]), int(slots[s, 1])
        node = word1 >> 32
        assert 0 <= node < cap
        assert node_slot[node] == s, "node_slot does not point back"
        ident = (key, word1 & 0xFFFFFFFF)
        assert ident not in identities, "duplicate identity"
        identities.add(ident)
        j = key & mask
        while j != s:  # no hole between the home slot and the entry
            assert slots[j, 1] != EMPTY_SLOT, "hole in a probe chain"
            j = (j + 1) & mask
    assert len(occupied) == node_count(t)
    assert np.count_nonzero(node_slot >= 0) == node_count(t)
    free_top = int(t.counters[C_FREE_TOP])
    assert free_top + node_count(t) == cap
    free = set(t.free_list[:free_top].tolist())
    assert len(free) == free_top
    assert free.isdisjoint(set((slots[occupied, 1] >> 32).tolist()))
    if model is not None:
        assert len(model) == node_count(t)
        for (key, to_play, ply), index in model.items():
            assert node_find(t, key, to_play, ply) == index


# ---------------------------------------------------------------- construction


@pytest.mark.parametrize("capacity", [0, 1, 3, 12, 2.5, -4])
def test_capacity_must_be_a_power_of_two(capacity):
    with pytest.raises(ValueError):
        new_node_table(capacity)


@pytest.mark.parametrize("max_load", [0.0, -0.1, 1.5])
def test_max_load_range(max_load):
    with pytest.raises(ValueError):
        new_node_table(16, max_load)


def test_indices_are_handed_out_from_zero():
    t = new_node_table(8)
    assert [node_find_or_add(t, 1000 + i, 0, i)[0] for i in range(5)] == [0, 1, 2, 3, 4]


# ---------------------------------------------------------------- cases of the issue


def test_other_key_with_the_same_slot_is_not_found():
    t = new_node_table(16)
    k1 = 0x1234_5678_9ABC_DEF3
    k2 = k1 + 16 * 7  # same low 4 bits: same home slot
    assert k1 & 15 == k2 & 15 and k1 != k2
    index, created = node_find_or_add(t, k1, 0, 4)
    assert created
    assert node_find(t, k2, 0, 4) == -1
    assert node_find(t, k1, 0, 4) == index


def test_side_to_move_and_ply_are_part_of_the_identity():
    t = new_node_table(16)
    key = signed(0xDEADBEEF_CAFEBABE)
    a, _ = node_find_or_add(t, key, 0, 6)
    b, created_b = node_find_or_add(t, key, 1, 6)
    c, created_c = node_find_or_add(t, key, 0, 7)
    assert created_b and created_c
    assert len({a, b, c}) == 3
    assert node_find(t, key, 0, 6) == a
    assert node_find(t, key, 1, 6) == b
    assert node_find(t, key, 0, 7) == c
    assert node_find(t, key, 1, 7) == -1
    check_structure(t)


@pytest.mark.parametrize("home", [3, 14])  # 14: the chain wraps past the last slot
def test_deleting_in_the_middle_of_a_chain_keeps_survivors_findable(home):
    t = new_node_table(16)
    keys = [home + 16 * (i + 1) for i in range(5)]  # one home slot, a chain of five
    index = {k: node_find_or_add(t, k, 0, 1)[0] for k in keys}
    for k in keys:
        if k != keys[1]:
            node_mark(t, index[k])
    assert node_sweep(t) == 1
    check_structure(t)
    assert node_find(t, keys[1], 0, 1) == -1
    for k in keys:
        if k != keys[1]:
            assert node_find(t, k, 0, 1) == index[k]  # same index as before the sweep
            assert node_find_or_add(t, k, 0, 1) == (index[k], False)  # no duplicate
    assert node_count(t) == 4
    again, created = node_find_or_add(t, keys[1], 0, 1)
    assert created and node_find_or_add(t, keys[1], 0, 1) == (again, False)
    assert node_count(t) == 5
    check_structure(t)


def test_filling_to_the_limit_reports_full_without_hanging():
    t = new_node_table(64)  # max_load 0.9 -> 57 nodes
    rng = np.random.default_rng(1)
    keys = [signed(int(k)) for k in rng.integers(0, 2**63, size=60, dtype=np.int64)]
    added = []
    for k in keys[:57]:
        index, created = node_find_or_add(t, k, 0, 0)
        assert created and index >= 0
        added.append(index)
    assert node_is_full(t) and node_count(t) == 57
    assert node_find_or_add(t, keys[57], 0, 0) == (-1, False)
    assert node_find_or_add(t, keys[58], 1, 3) == (-1, False)
    assert node_count(t) == 57
    for k, index in zip(keys[:57], added):  # present entries are still found when full
        assert node_find_or_add(t, k, 0, 0) == (index, False)
    assert node_table_stats(t)["full"]


def test_full_table_with_max_load_one_keeps_an_empty_slot():
    t = new_node_table(8, max_load=1.0)
    for k in range(100):
        node_find_or_add(t, k * 8, 0, 0)  # all in one chain
    assert node_count(t) == 7 and node_is_full(t)
    assert node_find(t, 999 * 8, 0, 0) == -1  # terminates at the one empty slot


def test_empty_and_cleared_slots_never_match_key_zero_or_the_empty_board_key():
    t = new_node_table(16)
    empty_board = signed(EMPTY_KEY)
    for key in (0, empty_board):
        for to_play in (0, 1):
            assert node_find(t, key, to_play, 0) == -1
    node_find_or_add(t, 0, 0, 0)
    node_find_or_add(t, empty_board, 0, 0)
    generation = node_table_stats(t)["generation"]
    node_clear(t)
    assert node_table_stats(t)["generation"] == generation + 1
    assert node_count(t) == 0
    for key in (0, empty_board):
        assert node_find(t, key, 0, 0) == -1
    node_find_or_add(t, 0, 1, 2)
    node_sweep(t)  # not marked: freed
    assert node_find(t, 0, 1, 2) == -1
    check_structure(t, {})


def test_to_play_and_ply_are_checked():
    t = new_node_table(16)
    with pytest.raises(ValueError):
        node_find_or_add(t, 1, 2, 0)
    with pytest.raises(ValueError):
        node_find(t, 1, 0, -1)
    with pytest.raises(IndexError):
        node_mark(t, 16)


def test_stats_count_probes_and_collisions():
    t = new_node_table(16)
    for i in range(3):
        node_find_or_add(t, 5 + 16 * i, 0, 0)  # home 5, probes 1, 2, 3
    node_find_or_add(t, 6, 0, 0)  # home 6 holds the second: probe 6, 7, 8
    stats = node_table_stats(t)
    assert stats["lookups"] == 4
    assert stats["mean_probe_length"] == (1 + 2 + 3 + 3) / 4
    assert stats["collisions"] == 0 + 1 + 2  # key 6 met keys of home 5: not collisions
    assert stats["count"] == 4 and stats["capacity"] == 16 and stats["load"] == 4 / 16
    node_mark(t, 0)
    assert node_sweep(t) == 3
    stats = node_table_stats(t)
    assert (stats["gc_runs"], stats["gc_freed"], stats["generation"]) == (1, 3, 1)
    node_clear(t)
    stats = node_table_stats(t)
    assert stats["lookups"] == 0 and stats["mean_probe_length"] == 0.0 and stats["collisions"] == 0


# ---------------------------------------------------------------- garbage collection


def test_mark_and_sweep_with_a_fake_child_array():
    """Mark what is reachable from a new root through child links; sweep frees exactly the rest."""
    rng = np.random.default_rng(7)
    cap, max_children = 1024, 4
    t = new_node_table(cap)
    children = np.full((cap, max_children), -1, dtype=np.int64)  # payload indexed by node index
    nodes = []  # (index, key, to_play, ply)
    for i in range(700):
        key = signed(int(rng.integers(0, 2**63)) * 2 + int(rng.integers(0, 2)))
        ply = int(rng.integers(0, 40))
        index, created = node_find_or_add(t, key, i % 2, ply)
        assert created
        nodes.append((index, key, i % 2, ply))
    for index, *_ in nodes:  # a random DAG: children among the later nodes
        later = [n for n, *_ in nodes if n > index]
        if later:
            pick = rng.choice(later, size=min(len(later), int(rng.integers(0, max_children + 1))), replace=False)
            children[index, : len(pick)] = pick
    root = nodes[150][0]
    reachable, stack = set(), [root]
    while stack:
        n = stack.pop()
        if n in reachable:
            continue
        reachable.add(n)
        stack.extend(int(c) for c in children[n] if c >= 0)
    for n in reachable:
        node_mark(t, n)
    freed = node_sweep(t)
    assert freed == len(nodes) - len(reachable)
    assert node_count(t) == len(reachable)
    for index, key, to_play, ply in nodes:
        found = node_find(t, key, to_play, ply)
        assert found == (index if index in reachable else -1)
        assert node_is_live(t, index) == (index in reachable)
    check_structure(t)
    # marks were cleared: a second sweep with nothing marked frees everything left
    assert node_sweep(t) == len(reachable)
    assert node_count(t) == 0
    check_structure(t, {})


def test_freed_indices_are_reused():
    t = new_node_table(8)
    a, _ = node_find_or_add(t, 11, 0, 0)
    b, _ = node_find_or_add(t, 12, 0, 0)
    node_mark(t, a)
    node_sweep(t)
    c, created = node_find_or_add(t, 13, 0, 0)
    assert created and c == b  # the freed index comes back first


# ---------------------------------------------------------------- model-based (hypothesis)

_LOW_BITS = [0, 1, 2, 7, 15]  # homes in a 16-slot table: long, overlapping, wrapping chains
KEYS = st.one_of(
    st.sampled_from([0, -1, -(2**63), 2**63 - 1, signed(EMPTY_KEY)]),
    st.builds(lambda hi, lo: signed((hi << 4) | lo), st.integers(0, 6), st.sampled_from(_LOW_BITS)),
    st.builds(lambda hi, lo: signed((hi << 4) | lo), st.integers(0, 2**60 - 1), st.sampled_from(_LOW_BITS)),
)
IDENTITIES = st.tuples(KEYS, st.integers(0, 1), st.sampled_from([0, 1, 2, 2**31 - 1]))


class NodeTableMachine(RuleBasedStateMachine):
    """Random finds, adds, marks, sweeps and clears against a dict {(key, to_play, ply): index}."""

    def __init__(self):
        super().__init__()
        self.t = new_node_table(16, max_load=0.75)  # limit 12
        self.model: dict[tuple[int, int, int], int] = {}
        self.marked: set[int] = set()

    @rule(ident=IDENTITIES)
    def find(self, ident):
        assert node_find(self.t, *ident) == self.model.get(ident, -1)

    @rule(ident=IDENTITIES)
    def find_or_add(self, ident):
        index, created = node_find_or_add(self.t, *ident)
        if ident in self.model:
            assert (index, created) == (self.model[ident], False)
        elif len(self.model) >= 12:
            assert (index, created) == (-1, False)
            assert node_is_full(self.t)
        else:
            assert created and 0 <= index < 16
            assert index not in self.model.values()
            self.model[ident] = index
            self.marked.discard(index)  # a fresh node starts unmarked

    @precondition(lambda self: self.model)
    @rule(data=st.data())
    def mark_live(self, data):
        index = data.draw(st.sampled_from(sorted(self.model.values())))
        node_mark(self.t, index)
        self.marked.add(index)

    @rule(index=st.integers(0, 15))
    def mark_any(self, index):
        node_mark(self.t, index)
        if index in self.model.values():
            self.marked.add(index)

    @rule()
    def sweep(self):
        keep = {k: v for k, v in self.model.items() if v in self.marked}
        assert node_sweep(self.t) == len(self.model) - len(keep)
        self.model = keep
        self.marked = set()

    @rule()
    def clear(self):
        node_clear(self.t)
        self.model = {}
        self.marked = set()

    @invariant()
    def consistent(self):
        check_structure(self.t, self.model)
        assert node_count(self.t) == len(self.model)


NodeTableMachine.TestCase.settings = settings(
    max_examples=60, stateful_step_count=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestNodeTableModel = NodeTableMachine.TestCase


# ---------------------------------------------------------------- compiled callers


@njit
def _expand_chain(t, key, plies):
    """User compiled code: add one node per ply, mark the even plies, sweep, count survivors."""
    for ply in range(plies):
        node_find_or_add(t, key, ply % 2, ply)
    for ply in range(0, plies, 2):
        node_mark(t, node_find(t, key, ply % 2, ply))
    freed = node_sweep(t)
    found = 0
    for ply in range(plies):
        if node_find(t, key, ply % 2, ply) >= 0:
            found += 1
    return freed, found, node_count(t), node_is_full(t)


def test_callable_from_compiled_code():
    t = new_node_table(64)
    assert _expand_chain(t, signed(EMPTY_KEY), 10) == (5, 5, 5, False)
    check_structure(t)


@pytest.mark.slow
def test_many_gc_cycles_against_a_dict():
    """Long random run with keys crowded onto 16 home slots (one huge cluster): grow to the limit,
    keep a random half, sweep, repeat; compare with a dict."""
    rng = np.random.default_rng(11)
    t = new_node_table(1 << 12)
    model: dict[tuple[int, int, int], int] = {}
    for _ in range(40):
        for _ in range(5000):
            ident = (signed(int(rng.integers(0, 1 << 20)) << 10 | int(rng.integers(0, 4))), int(rng.integers(0, 2)), int(rng.integers(0, 3)))
            index, created = node_find_or_add(t, *ident)
            if ident in model:
                assert (index, created) == (model[ident], False)
            elif node_count(t) >= 3686 and not created:
                assert index == -1
            else:
                assert created and index not in model.values()
                model[ident] = index
        keep = {k: v for k, v in model.items() if rng.random() < 0.5}
        for v in keep.values():
            node_mark(t, v)
        assert node_sweep(t) == len(model) - len(keep)
        model = keep
        check_structure(t, model)
