"""The inline path (``search/inline.py``: the evaluator's rule inside the compiled loop) builds
the very tree the batched path builds with the same evaluator: every array of the search graph
and the node table equal, bit for bit, after searches with batches, collisions, tree reuse,
visit limits, candidate radius, threat solver and recycling."""

from __future__ import annotations

import numpy as np
import pytest

from zeroplay.bench.mcts import MIDGAME
from zeroplay.games import make
from zeroplay.search import SearchConfig, Searcher, UniformEvaluator
from zeroplay.search.evaluator import InlineRule


class BatchedUniform:
    """UniformEvaluator's ``evaluate`` without its ``inline_rule``: forces the batched path
    (a Python evaluator call per round)."""

    features = None

    def __init__(self):
        self.calls = 0
        self.inner = UniformEvaluator()

    def evaluate(self, batch):
        self.calls += 1
        return self.inner.evaluate(batch)


def _assert_same_search(a: Searcher, b: Searcher, ra, rb) -> None:
    assert (ra.best_move, ra.pv, ra.playouts, ra.root_visits, ra.stopped_by) == \
           (rb.best_move, rb.pv, rb.playouts, rb.root_visits, rb.stopped_by)
    assert ra.root_q == rb.root_q
    assert [(m.move, m.visits, m.q, m.prior) for m in ra.moves] == [(m.move, m.visits, m.q, m.prior) for m in rb.moves]
    for name, x, y in zip(a.tree._fields, a.tree, b.tree):
        assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), name
    for name, x, y in zip(a.table._fields, a.table, b.table):
        assert np.array_equal(x, y), name


def _pair(game, **options):
    config = SearchConfig.for_playouts(2000, game, eval_cache_size=0, **options)
    batched = BatchedUniform()
    return Searcher(game, UniformEvaluator(), config), Searcher(game, batched, config), batched


def _gomoku15():
    return make("gomoku", width=15, height=15)


CASES = {
    "empty15_b16": (_gomoku15, (), dict(batch_size=16), dict(playouts=800)),
    "midgame15_b16": (_gomoku15, MIDGAME.split(), dict(batch_size=16), dict(playouts=600)),
    "midgame15_b1": (_gomoku15, MIDGAME.split(), dict(batch_size=1), dict(playouts=300)),
    "radius_b8": (_gomoku15, ("h8", "h9"), dict(batch_size=8, candidate_radius=2), dict(playouts=500)),
    "visits_b16": (_gomoku15, ("h8",), dict(batch_size=16), dict(visits=700)),
    "threats_b4": (_gomoku15, MIDGAME.split()[:12], dict(batch_size=4, threat_solver=True), dict(playouts=400)),
    "tictactoe_b8": (lambda: make("tictactoe"), (), dict(batch_size=8), dict(playouts=3000)),
    "connect4_b16": (lambda: make("connect4"), (3, 3), dict(batch_size=16), dict(playouts=1500)),
    "gumbel_b4": (_gomoku15, ("h8",), dict(batch_size=4, root_policy="gumbel", gumbel_m=8, seed=3),
                  dict(playouts=300)),
    "noise_b16": (_gomoku15, ("h8",), dict(batch_size=16, noise=True, seed=5), dict(playouts=600)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_inline_tree_equals_batched_tree(case):
    make_game, moves, options, limits = CASES[case]
    game = make_game()
    state = game.initial().play_many(list(moves))
    inline, batched, counter = _pair(game, **options)
    _assert_same_search(inline, batched, inline.search(state, **limits), batched.search(state, **limits))
    assert counter.calls > 1  # the batched searcher really took the Python path


def test_inline_reuse_across_moves_and_debug_checks():
    """Tree reuse (our move and the reply), then a debug search (one round per call, the
    invariant check after each): still the batched path's tree."""
    game = _gomoku15()
    inline, batched, _ = _pair(game, batch_size=16)
    state = game.initial()
    for move in ("h8", "h9", "i9"):
        _assert_same_search(inline, batched, inline.search(state, playouts=400), batched.search(state, playouts=400))
        state = state.play(move)
    debug_inline, debug_batched, _ = _pair(game, batch_size=16, debug=True)
    _assert_same_search(debug_inline, debug_batched, debug_inline.search(state, playouts=200),
                        debug_batched.search(state, playouts=200))


def test_inline_recycling_when_tables_fill():
    """A search too big for its tables: the inline call returns at the full pool, the searcher
    recycles, and the rounds go on exactly as on the batched path."""
    game = make("gomoku", size=9, n_in_row=5)
    config = SearchConfig(batch_size=8, node_capacity=1 << 9, edge_capacity=1 << 13, stat_capacity=1 << 10,
                          eval_cache_size=0)
    inline, batched = Searcher(game, UniformEvaluator(), config), Searcher(game, BatchedUniform(), config)
    state = game.initial().play_many(["e5", "e6"])
    ra, rb = inline.search(state, playouts=3000), batched.search(state, playouts=3000)
    assert inline.recycled_total > 0
    _assert_same_search(inline, batched, ra, rb)


def test_inline_rule_chunks_keep_stop_callbacks_live():
    """A stop callback is asked between chunks: a search told to stop does not run to its limit."""
    game = _gomoku15()
    searcher = Searcher(game, UniformEvaluator(), SearchConfig.for_playouts(100_000, game))
    asked = []

    def stop():
        asked.append(searcher.playouts)
        return len(asked) >= 3

    result = searcher.search(game.initial(), playouts=100_000, stop=stop)
    assert result.stopped_by == "stop" and result.playouts < 10_000


def test_inline_rule_defaults():
    assert UniformEvaluator.inline_rule == InlineRule(share=0.0, rollouts=0, leaves_per_round=0)
