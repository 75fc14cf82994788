"""Network presets, architecture names, loss, schedules and the trainer."""

import math

import numpy as np
import pytest
import torch

from zeroplay.games import make, names
from zeroplay.nn import ArchSpec, ResTower, TinyNet, TrainConfig, Trainer, arch_spec, build_model
from zeroplay.nn.loss import masked_log_softmax, policy_value_loss
from zeroplay.nn.schedule import learning_rate
from zeroplay.nn.trainer import decay_groups


def planes_of(game, features="alphazero-gomoku", moves=((),)):
    return torch.from_numpy(np.stack([game.initial().play_many(m).planes(features) for m in moves]))


def test_tiny_shapes_and_value_range(game6):
    net = build_model("tiny", game6, "alphazero-gomoku", seed=1).eval()
    assert isinstance(net, TinyNet)
    logits, values = net(planes_of(game6, moves=[(), (0, 7), (14,)]))
    assert logits.shape == (3, 36) and values.shape == (3,)
    assert logits.dtype == torch.float32 and values.dtype == torch.float32
    assert bool(((values >= -1) & (values <= 1)).all())


def test_tiny_is_size_specific(game6):
    net = build_model("tiny", game6, "basic", seed=1)
    with pytest.raises(ValueError, match="built for 6x6"):
        net(planes_of(make("gomoku", size=7), "basic"))


def test_tower_serves_several_board_sizes(game6):
    net = build_model("b2c16", game6, "basic", seed=1).eval()
    assert isinstance(net, ResTower)
    for size in (6, 8, 9):
        logits, values = net(planes_of(make("gomoku", size=size), "basic", [(), (1,)]))
        assert logits.shape == (2, size * size) and values.shape == (2,)


@pytest.mark.skipif("connect4" not in names(), reason="Connect Four is not registered")
def test_tower_column_head_for_connect_four():
    game = make("connect4")
    spec = arch_spec("b1c16", game, "basic")
    assert spec.head == "columns"
    net = build_model("b1c16", game, "basic", seed=0).eval()
    logits, _ = net(planes_of(game, "basic", [(), (3,)]))
    assert logits.shape == (2, 7)


def test_arch_names_and_channels(game6):
    spec = arch_spec("b6c64", game6, "alphazero-gomoku")
    assert (spec.blocks, spec.channels, spec.in_channels, spec.kind) == (6, 64, 4, "tower")
    assert arch_spec("tiny", game6, "basic").in_channels == 3
    assert ArchSpec.from_dict(spec.to_dict()) == spec
    for bad in ("b0c64", "b6c4", "huge", "b6", ""):
        with pytest.raises(ValueError, match="architecture"):
            arch_spec(bad, game6, "basic")
    with pytest.raises(ValueError, match="feature set"):
        arch_spec("tiny", game6, "rgb")


def test_seed_makes_weights_reproducible(game6):
    a = build_model("b1c16", game6, "basic", seed=3).state_dict()
    b = build_model("b1c16", game6, "basic", seed=3).state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_weight_decay_on_weights_only(game6):
    net = build_model("b1c16", game6, "basic", seed=0)
    decay, no_decay = decay_groups(net)
    assert {id(p) for p in decay} | {id(p) for p in no_decay} == {id(p) for p in net.parameters()}
    assert all(p.dim() >= 2 for p in decay) and all(p.dim() == 1 for p in no_decay)
    bn_and_bias = {id(net.stem_bn.weight), id(net.stem_bn.bias), id(net.value_fc1.bias)}
    assert bn_and_bias <= {id(p) for p in no_decay}
    trainer = Trainer(net, TrainConfig(l2=1e-4))
    wd = [g["weight_decay"] for g in trainer.optimizer.param_groups]
    assert wd == [2e-4, 0.0]  # d/dtheta of c*||theta||^2 is 2c*theta


def test_masked_log_softmax_is_zero_on_illegal_and_finite():
    logits = torch.tensor([[5.0, 1.0, -2.0, 0.0]], requires_grad=True)
    legal = torch.tensor([[False, True, True, False]])
    logp = masked_log_softmax(logits, legal)
    assert logp[0, 0] == 0 and logp[0, 3] == 0
    assert math.isclose(float(logp[0, 1:3].detach().exp().sum()), 1.0, rel_tol=1e-6)
    pi = torch.tensor([[0.0, 0.25, 0.75, 0.0]])
    loss = -(pi * logp).sum()
    loss.backward()
    assert torch.isfinite(logits.grad).all() and logits.grad[0, 0] == 0


def test_loss_matches_hand_computation():
    logits = torch.tensor([[0.0, 1.0, 2.0]])
    legal = torch.tensor([[True, True, False]])
    pi = torch.tensor([[0.5, 0.5, 0.0]])
    total, v_loss, p_loss = policy_value_loss(logits, torch.tensor([0.5]), pi, torch.tensor([-1.0]), legal)
    p = np.exp([0.0, 1.0]) / np.exp([0.0, 1.0]).sum()
    assert math.isclose(float(v_loss), 2.25, rel_tol=1e-6)
    assert math.isclose(float(p_loss), -0.5 * (np.log(p[0]) + np.log(p[1])), rel_tol=1e-6)
    assert math.isclose(float(total), float(v_loss) + float(p_loss), rel_tol=1e-6)


def test_learning_rate_schedules():
    assert learning_rate(123, base_lr=0.1) == 0.1
    assert learning_rate(0, base_lr=0.2, schedule="step", step_every=10) == 0.2
    assert math.isclose(learning_rate(25, base_lr=0.2, schedule="step", step_every=10), 0.002)
    cos = [learning_rate(s, base_lr=1.0, schedule="cosine", total_steps=100, final_fraction=0.0)
           for s in (0, 50, 100, 200)]
    assert cos[0] == 1.0 and math.isclose(cos[1], 0.5) and cos[2] == 0.0 and cos[3] == 0.0
    assert learning_rate(0, base_lr=1.0, warmup_steps=4) == 0.25
    with pytest.raises(ValueError, match="schedule"):
        learning_rate(0, base_lr=1.0, schedule="linear")


def _batch(game, n, seed):
    rng = np.random.default_rng(seed)
    planes, pis, legals = [], [], []
    for _ in range(n):
        s = game.initial().play_many(rng.permutation(game.cells)[: rng.integers(0, 4)].tolist())
        legal = np.zeros(game.num_actions, np.bool_)
        legal[s.legal_moves()] = True
        pi = np.where(legal, rng.random(game.num_actions), 0).astype(np.float32)
        planes.append(s.planes("basic"))
        pis.append(pi / pi.sum())
        legals.append(legal)
    z = rng.choice([-1.0, 0.0, 1.0], size=n).astype(np.float32)
    return np.stack(planes), np.stack(pis), z, np.stack(legals)


@pytest.mark.parametrize("optimizer", ["adam", "sgd"])
def test_trainer_fits_a_fixed_batch(optimizer):
    game = make("tictactoe")
    net = build_model("tiny", game, "basic", seed=0)
    lr = 3e-3 if optimizer == "adam" else 0.05
    trainer = Trainer(net, TrainConfig(optimizer=optimizer, lr=lr, l2=1e-4))
    batch = _batch(game, 16, seed=0)
    first = trainer.train_step(*batch)
    for _ in range(40):
        last = trainer.train_step(*batch)
    assert set(first) == {"loss", "value_loss", "policy_loss", "l2", "lr"}
    assert last["value_loss"] + last["policy_loss"] < first["value_loss"] + first["policy_loss"]
    assert trainer.step == 41
    val = trainer.validation_loss(*batch)
    assert set(val) == {"value_loss", "policy_loss"}


def test_trainer_rejects_unknown_optimizer(game6):
    with pytest.raises(ValueError, match="optimizer"):
        Trainer(build_model("tiny", game6, "basic"), TrainConfig(optimizer="rmsprop"))
