"""``search/structs.py``: the search tuples as numba StructRefs share the tuples' arrays, and a
search through them is the search through the tuples (the golden trees check the same)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from zeroplay.games import make
from zeroplay.search import SearchConfig, Searcher, UniformEvaluator
from zeroplay.search.structs import StructCache, as_struct


class _Batched:
    """Uniform priors through the batched path (gather, evaluator, finish), with a prior and
    value that differ by move so that the tree is not symmetric."""

    features = None

    def __init__(self):
        self.inner = UniformEvaluator()

    def evaluate(self, batch):
        p, _ = self.inner.evaluate(batch)
        p = np.asarray(p, np.float32) * (1 + np.arange(p.shape[1]) % 7)[None, :]
        p /= p.sum(1, keepdims=True)
        return p, ((np.arange(len(p)) % 5 - 2) / 3.0).astype(np.float32)


def _searcher(**config):
    game = make("gomoku", width=8, height=8, n_in_row=5)
    return game, Searcher(game, _Batched(), SearchConfig.for_playouts(64, game, batch_size=8, **config))


@njit
def _write_through(tree, batch):
    tree.node_n[3] = 7
    batch.threats.node_line[2] = 11
    batch.threats.table.entries[1, 1] = 13
    batch.defence.replies.lines[0, 0] = 17


def test_struct_fields_are_the_tuples_arrays():
    """Compiled writes through a StructRef, nested ones too, land in the tuple's arrays."""
    _, s = _searcher(threat_solver=True, defence=True)
    _write_through(as_struct(s.tree), as_struct(s.batch))
    assert s.tree.node_n[3] == 7
    assert s.batch.threats.node_line[2] == 11
    assert s.batch.threats.table.entries[1, 1] == 13
    assert s.batch.defence.replies.lines[0, 0] == 17


def test_as_struct_refuses_anything_else():
    with pytest.raises(TypeError, match="as_struct takes a search tuple"):
        as_struct((np.zeros(3),))


def test_struct_cache_builds_again_only_for_another_tuple():
    _, s = _searcher()
    cache = StructCache()
    first = cache.get(s.tree)
    assert cache.get(s.tree) is first
    assert cache.get(s.tree._replace(meta=s.tree.meta.copy())) is not first


def test_the_kernels_get_structrefs_and_search_as_before():
    """gather and finish are called with the StructRefs, and the result is a normal search."""
    from zeroplay.search.gather import gather

    game, s = _searcher()
    r = s.search(game.initial(), playouts=64)
    assert r.playouts == 64 and r.best_move is not None
    assert int(s.tree.node_n[s.root]) == 1 + sum(m.visits for m in r.moves)
    assert any("TreeArraysStructType" in str(sig[0]) for sig in gather.signatures)


@pytest.mark.slow
def test_struct_and_tuple_searches_are_identical(monkeypatch):
    """The same searches, three moves each, with the tuples passed as they are (numba compiles the
    tuple specialisations: minutes) and as StructRefs: identical trees, threat solver and defence on."""
    def run():
        out = []
        game, s = _searcher(threat_solver=True, defence=True)
        state = game.initial()
        for _ in range(3):
            r = s.search(state, playouts=64)
            out.append((r.playouts, r.best_move, s.tree.node_n.copy(), s.tree.node_q.copy()))
            state = state.play(r.best_move)
        return out

    structs = run()
    monkeypatch.setattr(StructCache, "get", lambda self, value: value)
    tuples = run()
    for a, b in zip(structs, tuples):
        assert a[:2] == b[:2]
        assert np.array_equal(a[2], b[2]) and np.array_equal(a[3], b[3])
