"""The dlshogi-style MCTS engine and its network: shapes, a checkpoint round trip, legal moves."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from zeroplay.engine.shogi_mcts import MctsEngine, q_to_cp  # noqa: E402
from zeroplay.games import make  # noqa: E402
from zeroplay.nn.shogi_net import ShogiNet, ShogiNetEvaluator, load_shogi_net, save_shogi_net  # noqa: E402


def test_net_shapes_and_priors_only_on_legal_moves():
    torch.manual_seed(0)
    net = ShogiNet(blocks=1, channels=16)
    states = [make("shogi").initial(), make("shogi").from_usi("startpos moves 7g7f 3c3d 8h2b+")]
    priors, values = ShogiNetEvaluator(net).evaluate_states(states)
    assert priors.shape == (2, 2187) and values.shape == (2,) and np.all(np.abs(values) <= 1)
    for row, s in zip(priors, states):
        legal = s.legal_moves()
        assert row.sum() == pytest.approx(1.0, abs=1e-5) and np.count_nonzero(row) == len(legal)
        assert set(np.flatnonzero(row)) == set(legal.tolist())


def test_checkpoint_round_trip_and_bad_files(tmp_path):
    net = ShogiNet(blocks=1, channels=16)
    save_shogi_net(tmp_path / "n.safetensors", net, step=7)
    back, facts = load_shogi_net(tmp_path / "n.safetensors")
    assert facts == {"step": 7}
    x = torch.from_numpy(make("shogi").initial().planes()[None])
    with torch.inference_mode():
        assert torch.allclose(net.eval()(x)[0], back(x)[0])
    (tmp_path / "bad.safetensors").write_bytes(b"junk")
    for bad in (tmp_path / "bad.safetensors", tmp_path / "missing.safetensors"):
        with pytest.raises(ValueError, match="shogi network"):
            load_shogi_net(bad)


def test_engine_plays_legal_moves_and_takes_mate_in_one(tmp_path):
    e = MctsEngine(playouts=32)
    s = make("shogi").from_usi("startpos moves 7g7f 3c3d")
    r = e.search(s)
    assert r.best_move in {s.move_text(int(m)) for m in s.legal_moves()} and r.nodes == 32
    assert e.search(make("shogi").from_sfen("7lk/9/8G/9/9/9/9/9/K8 b G 1")).best_move == "G*1b"
    save_shogi_net(tmp_path / "n.safetensors", ShogiNet(blocks=1, channels=16))
    r = MctsEngine(playouts=16, model=str(tmp_path / "n.safetensors")).search(s)
    assert r.best_move in {s.move_text(int(m)) for m in s.legal_moves()}
    assert q_to_cp(0.0) == 0 and q_to_cp(0.5) > 0 > q_to_cp(-0.5)
