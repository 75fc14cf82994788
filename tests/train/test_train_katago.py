"""Self-play and training data for issue 20's techniques: Gumbel self-play, forced playouts with
pruned targets, and the opponent-reply target through samples, shards and augmentation."""

from __future__ import annotations

import json

import numpy as np
import pytest
from train_helpers import open_run_with

from zeroplay.games import make
from zeroplay.search import UniformEvaluator
from zeroplay.train.replay import ReplayBuffer, transform_samples
from zeroplay.train.selfplay import SelfPlayConfig, SelfPlayer
from zeroplay.train.targets import game_samples

FIVE = make("gomoku", size=7, n_in_row=4)


class RandomNet:
    """Random priors and values, seeded per batch size (stands in for a net)."""

    features = None

    def evaluate(self, batch):
        rng = np.random.default_rng(len(batch))
        p = batch.legal * rng.random(batch.legal.shape).astype(np.float32)
        return (p / p.sum(axis=1, keepdims=True)).astype(np.float32), rng.uniform(-0.3, 0.3, len(batch)).astype(np.float32)


@pytest.mark.parametrize("settings", [{"root_policy": "gumbel", "gumbel_m": 8},
                                      {"forced_playouts_k": 2.0}])
def test_self_play_targets_are_valid(settings):
    cfg = SelfPlayConfig(playouts=24, parallel_games=2, seed=5, resign_threshold=None, **settings)
    games = SelfPlayer(FIVE, RandomNet(), cfg).play(2)
    for g in games:
        s = g.samples(FIVE, "basic")  # checks every target: >= 0, legal only, sums to 1
        assert len(s) == len(g.moves) > 0


def test_gumbel_self_play_plays_the_search_choice(monkeypatch):
    import zeroplay.train.selfplay as selfplay

    def no_sampling(*args, **kwargs):
        raise AssertionError("a Gumbel search's move was sampled again from its visits")

    monkeypatch.setattr(selfplay, "apply_temperature", no_sampling)
    cfg = SelfPlayConfig(playouts=16, parallel_games=1, seed=2, root_policy="gumbel", temperature_moves=99)
    game = SelfPlayer(FIVE, RandomNet(), cfg).play(1)[0]
    assert len(game.moves) > 0 and all(p is not None for p in game.policies)
    with pytest.raises(AssertionError, match="sampled"):  # the PUCT root does sample
        SelfPlayer(FIVE, RandomNet(), SelfPlayConfig(playouts=16, parallel_games=1, seed=2)).play(1)


def test_forced_playouts_are_pruned_from_targets():
    cfg = SelfPlayConfig(playouts=64, parallel_games=1, seed=1, resign_threshold=None, forced_playouts_k=2.0)
    game = SelfPlayer(FIVE, UniformEvaluator(), cfg).play(1)[0]
    # with a uniform prior, single-visit moves are dropped: targets have zeros on visited moves
    zeros = [int(((p > 0) == 0).sum()) for p in game.policies]
    assert max(zeros) > 0


def test_bad_combinations_are_refused():
    with pytest.raises(ValueError, match="root_policy"):
        SelfPlayConfig(root_policy="alphago")
    with pytest.raises(ValueError, match="forced"):
        SelfPlayConfig(root_policy="gumbel", forced_playouts_k=2.0)


def test_reply_targets_follow_the_moves():
    moves = [24, 25, 17, 10, 31, 38, 3]
    pol = []
    for m in moves:
        pi = np.zeros(FIVE.num_actions, np.float32)
        pi[m] = 1.0  # one-hot on the move played: legal by construction
        pol.append(pi)
    pol[2] = None  # a move without a target (a fast search)
    s = game_samples(FIVE, moves, pol, "basic", winner=None)
    assert s.ply.tolist() == [0, 1, 3, 4, 5, 6]
    assert s.reply.tolist() == [25, 17, 31, 38, 3, -1]  # the last move has no reply


def test_reply_survives_shards_augmentation_and_old_shards(tmp_path):
    moves = [24, 25, 17, 10, 31]
    pis = []
    for m in moves:
        pi = np.zeros(FIVE.num_actions, np.float32)
        pi[m] = 1.0
        pis.append(pi)
    samples = game_samples(FIVE, moves, pis, "basic", winner=None)
    buf = ReplayBuffer(tmp_path / "shards", FIVE, "basic", validation_fraction=0.0)
    path = buf.add_games([samples])
    batch = buf.sample(64, np.random.default_rng(0), augment=False)
    by_ply = {int(p): int(r) for p, r in zip(batch.ply, batch.reply)}
    assert by_ply == {0: 25, 1: 17, 2: 10, 3: 31, 4: -1}
    for sym in FIVE.symmetries:
        t = transform_samples(samples, sym)
        # the reply moves with the board: it is the cell the next move's policy one-hot moved to
        assert t.reply[:-1].tolist() == [int(np.argmax(t.pi[i + 1])) for i in range(len(moves) - 1)]
        assert t.reply[-1] == -1
    aug = buf.sample(64, np.random.default_rng(1), augment=True)
    assert ((aug.reply == -1) == (aug.ply == 4)).all()
    # a shard written before the reply existed: same archive without the array
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files if k != "reply"}
    old = tmp_path / "old"
    old.mkdir()
    np.savez_compressed(old / path.name, **arrays)
    legacy = ReplayBuffer(old, FIVE, "basic", validation_fraction=0.0)
    assert (legacy.sample(8, np.random.default_rng(0), augment=False).reply == -1).all()


def test_gumbel_arena_player(tmp_path):
    from zeroplay.engine.arena import make_player, play_match
    from zeroplay.nn import build_model, save_checkpoint

    game = make("gomoku", size=5, n_in_row=4)
    path = tmp_path / "n.safetensors"
    save_checkpoint(path, build_model("b1c8", game, "basic", seed=0), game=game, features="basic", step=0)
    player = make_player(f"gumbel:{path}", game, playouts=8, seed=0)
    assert player.config.root_policy == "gumbel" and not player.config.noise
    match = play_match(game, player, make_player("uniform:8", game, seed=1), 2)
    assert match.wins + match.draws + match.losses == 2
    with pytest.raises(ValueError, match="gumbel:PATH"):
        make_player("gumbel:", game)


def test_switches_are_stored_and_kept_on_resume(tmp_path):
    run = tmp_path / "run"

    def parse(*extra):
        return open_run_with(run, *extra)

    first = parse("--size", "7", "--net", "b2c16", "--global-pooling", "--opp-reply-head", "--root-policy",
                  "gumbel", "--gumbel-m", "8", "--full-search-prob", "0.5", "--opp-reply-weight", "0.3",
                  "--eval-games", "0")
    assert first.net == "b2c16-gpool-opp"
    again = parse()  # a resume with no options keeps every switch
    assert again == first
    stored = json.loads((run / "config.json").read_text())
    assert stored["net"] == "b2c16-gpool-opp" and stored["selfplay"]["root_policy"] == "gumbel"
    assert stored["selfplay"]["gumbel_m"] == 8 and stored["train"]["opp_reply_weight"] == 0.3
    with pytest.raises(ValueError, match="--net"):
        parse("--net", "b2c16")  # the net options are part of the net: not droppable on a resume
    # the command that started the run, less --net, resumes it: its net options are the stored net's
    assert parse("--global-pooling", "--opp-reply-head") == first
    with pytest.raises(ValueError, match="--net: run has b2c16-gpool-opp, command gives b2c16-gpool-opp-own"):
        parse("--ownership-head")  # a head the stored net lacks changes its shape
    with pytest.raises(ValueError, match="need --net bNcM to start a run"):
        open_run_with(tmp_path / "new", "--global-pooling")
