"""KataGo's final-position auxiliary targets (issue 22): Go's final ownership and score margin
through samples, shards, augmentation, the ``-own`` net's heads and the trainer's loss."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from train_helpers import open_run_with

from zeroplay.games import make
from zeroplay.nn import build_model
from zeroplay.nn.trainer import TrainConfig, Trainer
from zeroplay.train.replay import ReplayBuffer, transform_samples
from zeroplay.train.targets import game_samples

GO5 = make("go", size=5, komi=0.5)


def _one_hot(game, moves):
    out = []
    for m in moves:
        pi = np.zeros(game.num_actions, np.float32)
        pi[m] = 1.0
        out.append(pi)
    return out


def _played_out():
    """5x5: Black walls column C, White column D, Black A1, both pass (issue 22's hand case)."""
    g = GO5
    pas = g.num_actions - 1
    black = [g.parse_move(p) for p in ("C1", "C2", "C3", "C4", "C5", "A1")]
    white = [g.parse_move(p) for p in ("D1", "D2", "D3", "D4", "D5")] + [pas]
    moves = [m for pair in zip(black, white) for m in pair] + [pas]
    return moves


def test_final_ownership_is_the_area_count():
    state = GO5.initial()
    for m in _played_out():
        state = state.play(m)
    assert state.is_terminal
    own = GO5.final_ownership(state).reshape(5, 5)
    assert (own[:, :3] == 1).all() and (own[:, 3:] == -1).all()  # A-C Black's, D-E White's
    assert GO5.score(state) == own.sum() - 0.5 == 4.5


def test_samples_carry_ownership_and_score_from_the_side_to_move():
    moves = _played_out()
    s = game_samples(GO5, moves, _one_hot(GO5, moves), "go")
    assert s.has_final.all() and s.ownership.shape == (len(moves), 25) and s.ownership.dtype == np.int8
    black_view = np.where(s.ply % 2 == 0, 1, -1)  # Black moves at even plies here
    final = s.ownership * black_view[:, None]
    assert (final == final[0]).all() and final[0].sum() == 5  # 15 Black points - 10 White
    assert np.allclose(s.score, black_view * 4.5 / 25)


def test_a_resigned_game_and_gomoku_have_no_final_targets():
    moves = _played_out()[:4]
    s = game_samples(GO5, moves, _one_hot(GO5, moves), "go", winner=0)
    assert not s.has_final.any() and not s.ownership.any()
    five = make("gomoku", size=7, n_in_row=4)
    g = game_samples(five, [24, 25], _one_hot(five, [24, 25]), "basic", winner=None)
    assert not g.has_final.any() and g.ownership.shape == (2, 49)


def test_ownership_survives_shards_and_moves_with_the_board(tmp_path):
    moves = _played_out()
    samples = game_samples(GO5, moves, _one_hot(GO5, moves), "go")
    buf = ReplayBuffer(tmp_path / "shards", GO5, "go", validation_fraction=0.0)
    path = buf.add_games([samples])
    batch = buf.sample(64, np.random.default_rng(0), augment=False)
    assert batch.has_final.all()
    assert (batch.ownership == samples.ownership[batch.ply]).all()
    assert np.allclose(batch.score, samples.score[batch.ply])
    last = samples.planes.shape[0] - 1
    for sym in GO5.symmetries:
        t = transform_samples(samples, sym)
        # the final board's stones move with the board: own stones (plane 1 of "go", side to
        # move's) at the last sample are owned by the side to move, before and after the transform
        stones_own = t.planes[last].reshape(t.planes.shape[1], 25)
        assert (t.ownership[last][stones_own[1] == 1] == 1).all()
        assert (t.ownership[last] == sym.planes(samples.ownership[last].reshape(5, 5)).ravel()).all()
    # a shard written before the targets existed reads as no targets
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files if k not in ("ownership", "score", "has_final")}
    old = tmp_path / "old"
    old.mkdir()
    np.savez_compressed(old / path.name, **arrays)
    legacy = ReplayBuffer(old, GO5, "go", validation_fraction=0.0)
    assert not legacy.sample(8, np.random.default_rng(0), augment=True).has_final.any()


def test_own_net_heads_and_forward_unchanged():
    net = build_model("b1c16-gpool-own", GO5, "go", seed=0).eval()
    planes = torch.zeros((3, net.spec.in_channels, 5, 5))
    with torch.no_grad():
        logits, v = net(planes)
        out = net.forward_aux(planes)
    assert torch.equal(logits, out.logits) and torch.equal(v, out.values) and out.opp is None
    assert out.ownership.shape == (3, 25) and out.score.shape == (3,)
    assert float(out.ownership.abs().max()) <= 1.0


def test_own_net_loads_in_numpy(tmp_path):
    from zeroplay.nn import save_checkpoint
    from zeroplay.nn.numpy_net import load_numpy_net

    net = build_model("b1c16-own", GO5, "go", seed=0).eval()
    path = tmp_path / "own.safetensors"
    save_checkpoint(path, net, game=GO5, features="go", step=0)
    np_net = load_numpy_net(path)
    planes = np.zeros((2, net.spec.in_channels, 5, 5), np.float32)
    with torch.no_grad():
        logits, v = net(torch.from_numpy(planes))
    got_logits, got_v = np_net.forward(planes)
    assert np.allclose(got_logits, logits.numpy(), atol=1e-4) and np.allclose(got_v, v.numpy(), atol=1e-4)


def test_ownership_and_score_losses_train():
    moves = _played_out()
    s = game_samples(GO5, moves, _one_hot(GO5, moves), "go")
    net = build_model("b1c16-own", GO5, "go", seed=0)
    trainer = Trainer(net, TrainConfig(lr=1e-2))
    final = (s.ownership, s.score, s.has_final)
    first = trainer.train_step(s.planes, s.pi, s.z, s.legal, final=final)
    for _ in range(60):
        last = trainer.train_step(s.planes, s.pi, s.z, s.legal, final=final)
    assert last["ownership_loss"] < 0.5 * first["ownership_loss"]
    assert last["score_loss"] < 0.5 * first["score_loss"]
    # rows without targets add nothing: the losses are 0 and the total is the plain one
    none = (s.ownership, s.score, np.zeros(len(s), bool))
    out = trainer.train_step(s.planes, s.pi, s.z, s.legal, final=none)
    assert out["ownership_loss"] == 0.0 and out["score_loss"] == 0.0


def test_bad_weights_are_refused():
    with pytest.raises(ValueError, match="ownership_weight"):
        TrainConfig(ownership_weight=-1.0)


def test_ownership_switch_is_stored_and_kept_on_resume(tmp_path):
    import json

    from zeroplay.nn.arch import arch_spec
    run = tmp_path / "run"

    def parse(*extra):
        return open_run_with(run, *extra)

    first = parse("--game", "go", "--size", "5", "--net", "b2c16", "--ownership-head", "--global-pooling",
                  "--ownership-weight", "1.0", "--score-weight", "0.25", "--eval-games", "0")
    assert first.net == "b2c16-gpool-own"
    assert arch_spec(first.net, GO5, "go").own_head
    assert parse() == first
    stored = json.loads((run / "config.json").read_text())
    assert stored["train"]["ownership_weight"] == 1.0 and stored["train"]["score_weight"] == 0.25
    with pytest.raises(ValueError, match="-gpool"):
        arch_spec("b2c16-own-gpool", GO5, "go")  # the options' order is fixed
