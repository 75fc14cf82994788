"""KataGo's forced playouts at a noised PUCT root and policy target pruning (search/forced.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.search import SearchConfig, Searcher
from zeroplay.search.forced import prune_policy_target

from test_gumbel import BottomRowEvaluator

C4 = make("connect4")


def test_forced_playouts_reach_n_forced():
    # column 0 is bad for Black: PUCT alone leaves it nearly unvisited
    ev = BottomRowEvaluator([2, 1, 1, 1, 1, 1, 1], {0: -0.8})
    counts = {}
    for k in (0.0, 2.0):
        cfg = SearchConfig(noise=True, seed=3, forced_playouts_k=k, batch_size=1, debug=True)
        s = Searcher(C4, ev, cfg)
        r = s.search(C4.initial(), playouts=400)
        prior = s.root_priors()
        total = sum(m.visits for m in r.moves)
        counts[k] = {m.move: m.visits for m in r.moves}
        if k:
            for m in r.moves:
                if m.visits:  # every visited move got at least n_forced - 1 (the last one may be owed)
                    assert m.visits >= math.sqrt(k * prior[m.move] * total) - 1
    assert counts[2.0][0] > counts[0.0][0]


def test_play_mode_forces_nothing():
    ev = BottomRowEvaluator([2, 1, 1, 1, 1, 1, 1], {0: -0.8})
    plain = Searcher(C4, ev, SearchConfig(seed=3)).search(C4.initial(), playouts=200)
    forced = Searcher(C4, ev, SearchConfig(seed=3, forced_playouts_k=2.0)).search(C4.initial(), playouts=200)
    assert [(m.move, m.visits) for m in plain.moves] == [(m.move, m.visits) for m in forced.moves]


def test_pruning_by_hand():
    # c* = move 0: N 100, q 0.1, P 0.5; total 130, sqrt 11.40; PUCT* = 0.1 + 1 * 0.5 * 11.40 / 101
    visits = np.array([100, 20, 8, 1, 1])
    q = np.array([0.1, 0.0, -0.5, 0.0, 0.3])
    prior = np.array([0.5, 0.3, 0.1, 0.05, 0.05])
    out = prune_policy_target(visits, q, prior, k=2.0, c_puct=1.0)
    best_puct = 0.1 + 0.5 * math.sqrt(130) / 101
    # move 1: PUCT at N = 20 (0.163) is already above PUCT* (0.156): nothing can go
    floor1 = 0.3 * math.sqrt(130) / best_puct - 1
    assert floor1 > 20
    n1 = 20
    # move 2: q far below: all sqrt(2 * 0.1 * 130) = 5.10 forced visits go, 2.90 stay (> 1, kept)
    n2 = max(8 - math.sqrt(2 * 0.1 * 130), 0.1 * math.sqrt(130) / (best_puct + 0.5) - 1)
    # moves 3, 4: a single visit: dropped
    expected = np.array([100, n1, n2, 0, 0]) / (100 + n1 + n2)
    np.testing.assert_allclose(out, expected, rtol=1e-5)
    assert out.dtype == np.float32 and abs(out.sum() - 1) < 1e-6


def test_pruning_keeps_a_move_puct_still_wants():
    # move 1's q is above the best's PUCT score: nothing of it is pruned
    out = prune_policy_target(np.array([10, 5]), np.array([0.0, 0.9]), np.array([0.5, 0.5]), k=2.0, c_puct=1.0)
    np.testing.assert_allclose(out, [10 / 15, 5 / 15], rtol=1e-6)
    with pytest.raises(ValueError):
        prune_policy_target(np.zeros(3), np.zeros(3), np.ones(3) / 3, k=2.0, c_puct=1.0)
