"""Denormal floats are flushed in torch (per thread, inherited by later threads) and zeroed in
numpy nets' weights: computing with them cost 58x a convolution and 3x a training iteration."""

from __future__ import annotations

import threading

import numpy as np
import torch

from zeroplay.games import make
from zeroplay.nn import build_model, save_checkpoint
from zeroplay.nn.denormal import flush_denormals, zero_denormals
from zeroplay.nn.numpy_net import load_numpy_net

DENORMAL = 1e-40  # below float32's smallest normal, 1.18e-38


def test_zero_denormals_zeroes_exactly_the_denormals():
    a = np.array([DENORMAL, -DENORMAL, 1.2e-38, 0.0, 1.0, -3e-39], np.float32)
    ints = np.array([1, 0], np.int64)
    assert zero_denormals({"a": a, "i": ints}) == 3
    assert a.tolist() == [0.0, 0.0, np.float32(1.2e-38), 0.0, 1.0, 0.0] and ints.tolist() == [1, 0]


def test_flushed_torch_computes_denormals_as_zero_here_and_in_later_threads():
    x = torch.tensor([DENORMAL], dtype=torch.float32)
    seen = {}

    def run():
        seen["later"] = float(x * 1.0)

    def fresh():  # a thread's first call flushes that thread
        flush_denormals()
        seen["own"] = float(x * 1.0)

    t = threading.Thread(target=fresh)
    t.start()
    t.join()
    assert flush_denormals() is True and float(x * 1.0) == 0.0
    t = threading.Thread(target=run)  # started after: inherits the mode
    t.start()
    t.join()
    assert seen == {"own": 0.0, "later": 0.0}


def test_a_numpy_net_loads_with_its_denormal_weights_zeroed(tmp_path, monkeypatch):
    import zeroplay.nn.numpy_net as numpy_net

    game = make("gomoku", size=6, n_in_row=4)
    model = build_model("b1c8", game, "basic", seed=0)
    with torch.no_grad():
        next(model.parameters()).view(-1)[:5] = DENORMAL
    path = save_checkpoint(tmp_path / "n.safetensors", model, game=game, features="basic")
    seen = {}
    monkeypatch.setattr(numpy_net, "NumpyNet", lambda spec, floats, record: seen.update(floats))
    load_numpy_net(path, game=game)
    first = seen[next(iter(model.state_dict()))]
    assert first.reshape(-1)[:5].tolist() == [0.0] * 5
    assert not any(((a != 0) & (np.abs(a) < np.finfo(a.dtype).tiny)).any() for a in seen.values())
