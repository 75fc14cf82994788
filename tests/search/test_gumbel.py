"""Gumbel root search (search/gumbel.py): the sequential-halving schedule, the budget it spends,
the improved-policy target, finding a known best move, and golden values for a fixed seed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.games.layout import I_TO_PLAY
from zeroplay.search import SearchConfig, Searcher
from zeroplay.search.gumbel import considered_visit_sequence

C4 = make("connect4")


class BottomRowEvaluator:
    """Connect Four stand-in: priors from ``prior_by_column`` (renormalised over the legal
    columns); the value is the sum of ``black_value[c]`` over the columns c whose bottom cell
    holds a Black stone, from Black's view, clipped to [-1, 1], and given from the side to move's
    view (so a good first move for Black stays good in its whole subtree)."""

    features = None

    def __init__(self, prior_by_column, black_value):
        self.prior = np.asarray(prior_by_column, np.float32)
        self.black_value = np.zeros(7, np.float32)
        for c, v in dict(black_value).items():
            self.black_value[c] = v

    def evaluate(self, batch):
        priors = batch.legal * self.prior[None, :]
        priors /= priors.sum(axis=1, keepdims=True)
        bottom_black = batch.boards[:, 35:42] == 1
        v_black = np.clip(bottom_black @ self.black_value, -1.0, 1.0)
        values = np.where(batch.infos[:, I_TO_PLAY] == 0, v_black, -v_black)
        return priors.astype(np.float32), values.astype(np.float32)


def gumbel_config(**kw):
    return SearchConfig(root_policy="gumbel", debug=True, **{"seed": 0, **kw})


def phase_counts(m: int, n: int) -> list[int]:
    """Visits per candidate the paper's schedule gives after n simulations, best first, computed
    phase by phase from its formula (independent of considered_visit_sequence's loop)."""
    phases = math.ceil(math.log2(m))
    visits = [0] * m
    alive, used = m, 0
    while used < n:
        per = max(1, n // (phases * alive))
        for _ in range(per):
            for i in range(alive):
                if used < n:
                    visits[i] += 1
                    used += 1
        alive = max(2, alive // 2)
    return visits


def test_schedule_phases():
    assert considered_visit_sequence(4, 16).tolist() == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    seq = considered_visit_sequence(16, 64).tolist()
    assert seq[:16] == [0] * 16  # every candidate once
    assert seq[16:32] == [1] * 8 + [2] * 8  # 8 survivors, 64 // (4 * 8) = 2 visits each
    assert seq[32:48] == [3] * 4 + [4] * 4 + [5] * 4 + [6] * 4  # 4 survivors, 4 each
    assert seq[48:] == [v for v in range(7, 15) for _ in range(2)]  # the last 2, 8 each
    assert considered_visit_sequence(1, 3).tolist() == [0, 1, 2]
    with pytest.raises(ValueError):
        considered_visit_sequence(0, 3)


@pytest.mark.parametrize("batch_size", [1, 8])
@pytest.mark.parametrize("m,n", [(4, 16), (4, 40), (7, 30)])
def test_search_spends_the_budget_as_scheduled(batch_size, m, n):
    ev = BottomRowEvaluator(np.ones(7), {c: 0.1 * c - 0.3 for c in range(7)})
    s = Searcher(C4, ev, gumbel_config(gumbel_m=m, batch_size=batch_size, noise=True))
    r = s.search(C4.initial(), playouts=n + 1)  # the root's own evaluation is the first playout
    visits = sorted((mv.visits for mv in r.moves), reverse=True)
    assert visits == sorted(phase_counts(m, n) + [0] * (7 - m), reverse=True)
    assert r.root_visits == n + 1


def test_target_is_a_distribution_over_legal_moves():
    game = make("gomoku", size=7)
    state = game.initial().play_many([24, 25, 17, 31])

    class RandomPriors:
        """Random priors over the legal cells and random values (seeded by the batch size)."""

        features = None

        def evaluate(self, batch):
            rng = np.random.default_rng(len(batch))
            p = batch.legal * rng.random(batch.legal.shape).astype(np.float32)
            return (p / p.sum(axis=1, keepdims=True)).astype(np.float32), \
                rng.uniform(-0.5, 0.5, len(batch)).astype(np.float32)

    r = Searcher(game, RandomPriors(), gumbel_config(noise=True, batch_size=4)).search(state, playouts=48)
    legal = np.zeros(game.num_actions, bool)
    legal[state.legal_moves()] = True
    assert r.policy.dtype == np.float32 and r.policy.shape == (game.num_actions,)
    assert abs(float(r.policy.sum()) - 1.0) < 1e-5
    assert (r.policy[~legal] == 0).all() and (r.policy[legal] > 0).all()
    assert legal[r.best_move]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_known_best_move_wins_with_enough_simulations(seed):
    # column 3 has a small prior but is worth 0.5 to Black; the others 0
    prior = np.array([1, 1, 1, 0.05, 1, 1, 1])
    ev = BottomRowEvaluator(prior, {3: 0.5})
    r = Searcher(C4, ev, gumbel_config(seed=seed, noise=True, gumbel_m=16)).search(C4.initial(), playouts=65)
    assert r.best_move == 3
    assert int(np.argmax(r.policy)) == 3 and r.policy[3] > 0.9


def test_play_mode_has_no_noise():
    ev = BottomRowEvaluator([1, 2, 3, 4, 3, 2, 1], {0: 0.2, 6: -0.2, 2: 0.1})
    results = [Searcher(C4, ev, gumbel_config(seed=seed, gumbel_m=4)).search(C4.initial(), playouts=33)
               for seed in (0, 1, 2)]
    assert len({(r.best_move, tuple(r.policy.tolist())) for r in results}) == 1


def test_golden_values_fixed_seed():
    """A change in the schedule, the completed Q, sigma or tie-breaks shows up here."""
    ev = BottomRowEvaluator([1, 2, 3, 4, 3, 2, 1], {0: 0.3, 1: -0.2, 2: 0.1, 3: 0.05, 4: -0.1, 5: 0.2, 6: -0.3})
    r = Searcher(C4, ev, gumbel_config(seed=7, noise=True, gumbel_m=4, batch_size=4)).search(
        C4.initial(), playouts=25)
    got = {"best": r.best_move, "visits": {m.move: m.visits for m in r.moves},
           "policy": [round(float(p), 4) for p in r.policy]}
    assert got == GOLDEN
    # the target recomputed from the reported statistics with the paper's formulas
    n = np.array([m.visits for m in r.moves], float)
    q = np.array([m.q for m in r.moves])
    p = np.array([m.prior for m in r.moves])
    seen = n > 0
    v_mix = (0.0 + n.sum() / p[seen].sum() * (p[seen] * q[seen]).sum()) / (1 + n.sum())  # U(root) = 0
    completed = np.where(seen, q, v_mix)
    z = np.log(p) + (50 + n.max()) * 1.0 * (completed + 1) / 2
    expected = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    np.testing.assert_allclose([r.policy[m.move] for m in r.moves], expected, atol=1e-5)


GOLDEN = {"best": 5, "visits": {5: 9, 3: 9, 1: 3, 6: 3, 2: 0, 4: 0, 0: 0},
          "policy": [0.0008, 0.0, 0.0023, 0.0169, 0.0023, 0.9778, 0.0]}
