"""Denormal floats are flushed in torch (per thread, inherited by later threads) and zeroed in
numpy nets' weights: computing with them cost 58x a convolution and 3x a training iteration."""

from __future__ import annotations

import numpy as np
import torch

from zeroplay.games import make
from zeroplay.nn import build_model, save_checkpoint
from zeroplay.nn.denormal import flushed_denormals, zero_denormals
from zeroplay.nn.numpy_net import load_numpy_net

# made from their bits: with the flush on in this thread (an earlier test's evaluator), a
# conversion from 1e-40 would already give 0
DENORMAL_BITS = 0x0001_16C2  # about 1e-40, below float32's smallest normal 1.18e-38


def denormals(*signs: int) -> np.ndarray:
    return np.array([DENORMAL_BITS | (0x8000_0000 if s < 0 else 0) for s in signs], np.uint32).view(np.float32)


def test_zero_denormals_zeroes_exactly_the_denormals():
    a = np.concatenate([denormals(1, -1), np.array([1.2e-38, 0.0, 1.0], np.float32), denormals(-1)])
    ints = np.array([1, 0], np.int64)
    assert zero_denormals({"a": a, "i": ints}) == 3
    assert a.view(np.uint32).tolist() == [0, 0, np.float32(1.2e-38).view(np.uint32), 0,
                                          np.float32(1.0).view(np.uint32), 0]
    assert ints.tolist() == [1, 0]


def test_flushed_torch_computes_denormals_as_zero_within_and_restores_the_thread_after():
    # left on for the thread, the mode changed floats for everything else in it (hypothesis then
    # refused to draw floats in the test process)
    x = torch.from_numpy(denormals(1))
    with flushed_denormals():
        assert float(x * 1.0) == 0.0
    assert float(x * 1.0) != 0.0 and float(x * 1.0) == float(x)
    with torch.inference_mode():  # a NetEvaluator's call leaves the thread unflushed too
        game = make("gomoku", size=6, n_in_row=4)
        from zeroplay.nn import NetEvaluator

        NetEvaluator(build_model("b1c8", game, "basic", seed=0), "basic").evaluate_planes(
            np.zeros((1, 3, 6, 6), np.float32), np.ones((1, 36), bool))
    assert float(x * 1.0) != 0.0


def test_a_numpy_net_loads_with_its_denormal_weights_zeroed(tmp_path, monkeypatch):
    import zeroplay.nn.numpy_net as numpy_net

    game = make("gomoku", size=6, n_in_row=4)
    model = build_model("b1c8", game, "basic", seed=0)
    with torch.no_grad():
        next(model.parameters()).view(-1)[:5] = torch.from_numpy(denormals(1, 1, -1, 1, -1))
    path = save_checkpoint(tmp_path / "n.safetensors", model, game=game, features="basic")
    seen = {}
    monkeypatch.setattr(numpy_net, "NumpyNet", lambda spec, floats, record: seen.update(floats))
    load_numpy_net(path, game=game)
    first = seen[next(iter(model.state_dict()))]
    assert first.reshape(-1)[:5].view(np.uint32).tolist() == [0] * 5  # +0.0, by the bits
    assert zero_denormals(seen) == 0
