"""NetEvaluator: the search's evaluator interface on a real (tiny) network and on stubs."""

import numpy as np
import torch
from torch import nn

from zeroplay.nn import NetEvaluator, build_model


class HugeIllegalLogits(nn.Module):
    """Logits 1e30 on occupied cells, 0 elsewhere; value = +0.5 for every position."""

    def forward(self, planes):
        occupied = planes[:, 0] + planes[:, 1]
        return occupied.flatten(1) * 1e30, torch.full((planes.shape[0],), 0.5)


def _states(game):
    return [
        game.initial(),
        game.initial().play_many([0, 7, 14]),
        game.initial().play_many([35, 34, 33, 20, 21]),
    ]


def test_priors_are_a_distribution_over_legal_moves(game6, leaf_batch):
    evaluator = NetEvaluator(build_model("tiny", game6, "alphazero-gomoku", seed=0), "alphazero-gomoku")
    batch = leaf_batch(game6, _states(game6))
    priors, values = evaluator.evaluate(batch)
    assert priors.dtype == np.float32 and values.dtype == np.float32
    assert priors.shape == (3, 36) and values.shape == (3,)
    assert (priors[~batch.legal] == 0).all()
    assert (priors[batch.legal] > 0).all()
    np.testing.assert_allclose(priors.sum(axis=1), 1.0, rtol=1e-5)
    assert ((values >= -1) & (values <= 1)).all()
    assert evaluator.features == "alphazero-gomoku" and evaluator.positions == 3


def test_illegal_moves_get_exactly_zero_even_with_huge_logits(game6, leaf_batch):
    evaluator = NetEvaluator(HugeIllegalLogits(), "basic")
    batch = leaf_batch(game6, _states(game6))
    priors, values = evaluator.evaluate(batch)
    assert (priors[~batch.legal] == 0).all()
    np.testing.assert_allclose(priors.sum(axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(values, np.full(3, 0.5, np.float32))


def test_terminal_position_gets_all_zero_priors(game6, leaf_batch):
    won = game6.initial().play_many([0, 6, 1, 7, 2, 8, 3])  # Black's four in the top row
    assert won.is_terminal
    evaluator = NetEvaluator(build_model("tiny", game6, "basic", seed=0), "basic")
    priors, values = evaluator.evaluate(leaf_batch(game6, [won, game6.initial()]))
    assert (priors[0] == 0).all() and np.isclose(priors[1].sum(), 1.0)
    assert np.isfinite(values).all()


def test_thread_count_is_settable(game6):
    before = torch.get_num_threads()
    try:
        NetEvaluator(build_model("tiny", game6, "basic"), "basic", threads=1)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_model_is_put_in_eval_mode(game6):
    net = build_model("b1c16", game6, "basic", seed=0).train()
    NetEvaluator(net, "basic")
    assert not net.training


def test_the_thread_limit_holds_in_the_thread_that_evaluates(game6, leaf_batch):
    """torch keeps its thread count per thread: pbrain built its evaluator (1 thread) in a
    warm-up thread and searched in the main one with 2, over the turn time on a busy machine."""
    import threading

    before = torch.get_num_threads()
    built = {}

    def build():
        built["e"] = NetEvaluator(build_model("tiny", game6, "basic", seed=0), "basic", threads=1)

    t = threading.Thread(target=build)
    t.start()
    t.join()
    try:
        torch.set_num_threads(2)
        built["e"].evaluate(leaf_batch(game6, _states(game6)))
        assert torch.get_num_threads() == 1
        # an evaluator without a limit leaves the caller's setting alone
        torch.set_num_threads(2)
        NetEvaluator(build_model("tiny", game6, "basic", seed=0), "basic").evaluate(leaf_batch(game6, _states(game6)))
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
