"""Issue 4: Dirichlet noise on the root only, and temperature over edge visits."""

from __future__ import annotations

import numpy as np
import pytest

from test_search_fakes import cell
from zeroplay.games import make
from zeroplay.search import Limits, Searcher, SearchConfig, apply_temperature, sample_move
from zeroplay.search.gather import node_key
from zeroplay.search.tree import PRIOR_ABS_ERROR

GAME = make("gomoku", size=9)
W = 9


class RawPriorEvaluator:
    """Fixed, distinct raw priors (a seeded random vector restricted to the legal moves), value 0."""

    features = None

    def __init__(self, seed: int = 0):
        self.raw = np.random.default_rng(seed).random(GAME.num_actions) + 0.01

    def priors_for(self, legal: np.ndarray) -> np.ndarray:
        p = np.where(legal, self.raw, 0.0)
        return p / p.sum()

    def evaluate(self, batch):
        p = np.stack([self.priors_for(np.asarray(batch.legal[i], bool)) for i in range(len(batch))])
        return p.astype(np.float32), np.zeros(len(batch), np.float32)


def start_position():
    return GAME.from_stones([cell(4, 4, W)], [cell(3, 3, W)])


def run_in_rounds(s: Searcher, state, playouts: int) -> list[np.ndarray]:
    """Run a search round by round; the root priors seen after each round."""
    s.start(state, Limits(playouts=playouts))
    seen = []
    while not s.done:
        if s.gather():
            p, v = s.evaluate_queued()
            s.finish(p, v)
        seen.append(s.root_priors().copy())
    return seen


def legal_mask(state) -> np.ndarray:
    m = np.zeros(GAME.num_actions, bool)
    m[state.legal_moves()] = True
    return m


def test_root_noise_is_drawn_once_and_stays_at_the_root():
    ev = RawPriorEvaluator()
    state = start_position()
    s = Searcher(GAME, ev, SearchConfig.selfplay(batch_size=4, seed=3, debug=True))
    seen = run_in_rounds(s, state, 300)
    assert len(seen) > 10
    for p in seen:
        np.testing.assert_array_equal(p, seen[0])  # one draw for the whole search
    noised = seen[0]
    raw = ev.priors_for(legal_mask(state))
    assert noised.sum() == pytest.approx(1.0, abs=1e-5)
    assert noised[cell(4, 4, W)] == 0 and noised[cell(3, 3, W)] == 0  # occupied cells
    assert (noised[~legal_mask(state)] == 0).all()
    assert np.abs(noised - raw).max() > 1e-3  # really noised
    result = s.result()
    # the root's own edges keep the raw priors, and so does the result
    for e in s.stats_at(())["edges"]:
        assert e["prior"] == pytest.approx(raw[e["move"]], abs=1e-6)
    for m in result.moves:
        assert m.prior == pytest.approx(raw[m.move], abs=1e-6)
    # every non-root node's priors are the raw priors of its position
    checked = 0
    for m in result.moves[:6]:
        for path in ([m.move],) + tuple([m.move, e["move"]] for e in s.stats_at([m.move])["edges"][:3] if e["child"] >= 0):
            st = s.stats_at(path)
            if st is None or not st["edges"]:
                continue
            child_raw = ev.priors_for(legal_mask(state.play_many(path)))
            for e in st["edges"]:  # stored in 16 bits below the root
                assert e["prior"] == pytest.approx(child_raw[e["move"]], abs=PRIOR_ABS_ERROR)
            checked += 1
    assert checked >= 6
    # the evaluation cache holds the raw output for the root too
    key = int(node_key(GAME.zkeys, state.fast().info, state.fast().stack, 0))
    slot = key & s.cache.mask
    assert s.cache.valid[slot] and s.cache.keys[slot] == key
    np.testing.assert_allclose(s.cache.priors[slot], raw, atol=1e-6)


def test_reused_root_gets_a_fresh_draw():
    ev = RawPriorEvaluator()
    state = start_position()
    s = Searcher(GAME, ev, SearchConfig.selfplay(batch_size=4, seed=5))
    first = s.search(state, playouts=400)
    a = first.best_move
    reply = max(s.stats_at([a])["edges"], key=lambda e: e["visits"])
    assert reply["visits"] > 0
    new_state = state.play(a).play(reply["move"])
    old_node = s.node_at([a, reply["move"]])
    seen = run_in_rounds(s, new_state, 50)
    assert s.root == old_node  # reused
    raw = ev.priors_for(legal_mask(new_state))
    noised = seen[0]
    assert noised.sum() == pytest.approx(1.0, abs=1e-5)
    assert (noised[~legal_mask(new_state)] == 0).all()
    assert np.abs(noised - raw).max() > 1e-3
    # searching the same root again draws again
    again = run_in_rounds(s, new_state, 10)[0]
    assert np.abs(again - noised).max() > 1e-4
    assert again.sum() == pytest.approx(1.0, abs=1e-5)


def test_noise_seed_makes_it_reproducible():
    state = start_position()
    draws = []
    for _ in range(2):
        s = Searcher(GAME, RawPriorEvaluator(), SearchConfig.selfplay(seed=11))
        draws.append(run_in_rounds(s, state, 20)[0])
    np.testing.assert_array_equal(draws[0], draws[1])


def test_play_mode_root_priors_are_raw():
    ev = RawPriorEvaluator()
    state = start_position()
    s = Searcher(GAME, ev, SearchConfig(batch_size=4, seed=3))
    seen = run_in_rounds(s, state, 100)
    raw = ev.priors_for(legal_mask(state))
    for p in seen:
        np.testing.assert_allclose(p, raw, atol=1e-6)


# --- temperature -----------------------------------------------------------------------------------
def test_temperature_small_tau_is_stable():
    p = apply_temperature(np.array([1000, 999, 1]), 0.005)
    assert np.isfinite(p).all()
    np.testing.assert_allclose(p, [0.5499, 0.4501, 0.0], atol=1e-4)
    assert p[2] < 1e-100
    assert p.sum() == pytest.approx(1.0)


def test_temperature_one_is_proportional():
    np.testing.assert_allclose(apply_temperature(np.array([40, 30, 20, 10]), 1.0), [0.4, 0.3, 0.2, 0.1])


@pytest.mark.parametrize("tau", [0.0, 1e-9, 1e-300])
def test_temperature_to_zero_is_uniform_over_ties(tau):
    p = apply_temperature(np.array([5, 5, 3]), tau)
    assert np.isfinite(p).all()
    np.testing.assert_allclose(p, [0.5, 0.5, 0.0])


def test_greedy_sampling_over_seeded_draws():
    rng = np.random.default_rng(1234)
    moves, visits = np.array([0, 1, 2]), np.array([5, 5, 3])
    counts = np.bincount([sample_move(moves, visits, 0.0, rng) for _ in range(1000)], minlength=3)
    assert counts[2] == 0
    assert 400 <= counts[0] <= 600 and 400 <= counts[1] <= 600


def test_temperature_refuses_bad_input():
    with pytest.raises(ValueError):
        apply_temperature(np.array([1, 2]), -1.0)
    with pytest.raises(ValueError):
        apply_temperature(np.array([0, 0]), 1.0)
