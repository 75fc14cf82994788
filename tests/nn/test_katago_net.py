"""KataGo's net options (Wu 2019): global pooling blocks and the opponent-reply head; old
checkpoints without them still load and play."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import zeroplay
from zeroplay.games import make
from zeroplay.nn import TrainConfig, Trainer, arch_spec, build_model, load_checkpoint, save_checkpoint
from zeroplay.nn.models import GlobalPoolBlock, global_pool_blocks

FEATURES = "basic"


def test_net_names_and_flags(game6):
    spec = arch_spec("b6c32-gpool-opp", game6, FEATURES)
    assert (spec.blocks, spec.channels, spec.global_pool, spec.opp_head) == (6, 32, True, True)
    assert not arch_spec("b6c32", game6, FEATURES).global_pool
    assert arch_spec("b2c16-opp", game6, FEATURES).opp_head
    for bad in ("tiny-gpool", "b2c16-opp-gpool", "b2c16-pool"):
        with pytest.raises(ValueError, match="-gpool"):
            arch_spec(bad, game6, FEATURES)


def test_global_pool_blocks_are_where_documented(game6):
    assert global_pool_blocks(6) == {2, 5} and global_pool_blocks(2) == {1} and global_pool_blocks(1) == {0}
    net = build_model("b6c16-gpool", game6, FEATURES, seed=0)
    kinds = [isinstance(b, GlobalPoolBlock) for b in net.blocks]
    assert kinds == [False, False, True, False, False, True]


def test_global_pooling_sees_the_whole_board(game6):
    """A stone in one corner changes the policy logit in the far corner only through pooling
    when the receptive field of a 1-block net (5x5 with the stem) does not reach it."""
    game = make("gomoku", size=9)
    planes = torch.zeros((2, 3, 9, 9))
    planes[1, 0, 0, 0] = 1.0  # a stone at a9 in the second position
    for name, reaches in (("b1c16", False), ("b1c16-gpool", True)):
        net = build_model(name, game, FEATURES, seed=1).eval()
        with torch.no_grad():
            logits, _ = net(planes)
        far = 9 * 9 - 1
        assert bool(logits[0, far] != logits[1, far]) == reaches, name


@pytest.mark.parametrize("game_name", ["gomoku", "connect4"])
def test_opp_head_shapes_and_forward_unchanged(game_name):
    game = make(game_name, size=7) if game_name == "gomoku" else make(game_name)
    net = build_model("b1c16-opp", game, FEATURES, seed=0).eval()
    planes = torch.zeros((3, 3, game.height, game.width))
    with torch.no_grad():
        logits, v = net(planes)
        logits2, v2, opp, own, score = net.forward_aux(planes)
    assert logits.shape == opp.shape == (3, game.num_actions) and v.shape == (3,)
    assert torch.equal(logits, logits2) and torch.equal(v, v2) and own is None and score is None
    assert build_model("b1c16", game, FEATURES, seed=0).forward_aux(planes)[2] is None


def test_opp_reply_loss_trains(game6):
    net = build_model("b1c16-opp", game6, FEATURES, seed=0)
    trainer = Trainer(net, TrainConfig(lr=1e-2, opp_reply_weight=1.0))
    rng = np.random.default_rng(0)
    planes = (rng.random((16, 3, 6, 6)) < 0.2).astype(np.float32)
    legal = np.ones((16, 36), bool)
    pi = np.full((16, 36), 1 / 36, np.float32)
    z = np.zeros(16, np.float32)
    reply = np.where(np.arange(16) < 12, 7, -1)  # always the same reply; 4 rows without one
    first = trainer.train_step(planes, pi, z, legal, reply)["opp_reply_loss"]
    for _ in range(30):
        last = trainer.train_step(planes, pi, z, legal, reply)["opp_reply_loss"]
    assert first > 3.0 and last < 0.5 * first
    assert "opp_reply_loss" not in trainer.train_step(planes, pi, z, legal)  # no targets: skipped
    none = trainer.train_step(planes, pi, z, legal, np.full(16, -1))
    assert none["opp_reply_loss"] == 0.0


def test_new_options_round_trip_and_old_records_load(tmp_path, game6):
    net = build_model("b2c16-gpool-opp", game6, FEATURES, seed=0)
    path = tmp_path / "n.safetensors"
    save_checkpoint(path, net, game=game6, features=FEATURES, step=0)
    ck = load_checkpoint(path, game=game6, features=FEATURES)
    assert ck.arch.global_pool and ck.arch.opp_head
    assert all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), ck.model.state_dict().values()))
    # a shipped model, saved before these options existed: its record has no such fields
    shipped = Path(zeroplay.__file__).parent / "models" / "gomoku-6x6-4-freestyle.safetensors"
    if not shipped.exists():
        pytest.skip("the shipped 6x6 model is not in this checkout (src/zeroplay/models/)")
    old = load_checkpoint(shipped)
    assert "global_pool" not in old.meta["arch"] and not old.arch.global_pool and not old.arch.opp_head
