"""Replay buffer: window, split by game, torn shards, reopening, idempotent writes."""

import hashlib
import os
import warnings

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.train import ReplayBuffer, game_samples
from zeroplay.train import shards as shards_module
from zeroplay.train.shards import parse_shard_name, shard_name

FEATURES = "alphazero-gomoku"
GAME = make("gomoku", size=6, n_in_row=4)


def random_games(count, seed):
    """``count`` finished random games as Samples (uniform policy targets)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        state, moves, pis = GAME.initial(), [], []
        while not state.is_terminal:
            legal = state.legal_moves()
            pi = np.zeros(GAME.num_actions, np.float32)
            pi[legal] = 1.0 / len(legal)
            m = int(legal[rng.integers(len(legal))])
            moves.append(m)
            pis.append(pi)
            state = state.play(m)
        out.append(game_samples(GAME, moves, pis, FEATURES))
    return out


@pytest.fixture(scope="module")
def games():
    return random_games(24, seed=0)


def fill(directory, games, per_shard=4, **kwargs):
    buf = ReplayBuffer(directory, GAME, FEATURES, **kwargs)
    for i in range(0, len(games), per_shard):
        buf.add_games(games[i : i + per_shard])
    return buf


def digest(directory):
    return {p: hashlib.sha256((directory / p).read_bytes()).hexdigest() for p in sorted(os.listdir(directory))}


def test_window_holds_the_newest_samples(tmp_path, games):
    sizes = [len(g) for g in games]
    window = sum(sizes[-7:]) + 3  # the last 7 games and 3 samples of the one before
    buf = fill(tmp_path, games, window=window, validation_fraction=0.0)
    assert len(buf) == window
    assert buf.total_games == 24 and buf.total_samples == sum(sizes)
    ids = buf.window_game_ids()
    np.testing.assert_array_equal(ids, np.arange(16, 24))
    _, gid, _ = buf._window()
    assert (gid == 16).sum() == 3  # only the tail of game 16


def test_split_by_game_never_shares_a_game(tmp_path, games):
    buf = fill(tmp_path, games, window=10_000, validation_fraction=0.3)
    train = set(buf.window_game_ids("train").tolist())
    val = set(buf.window_game_ids("validation").tolist())
    assert train and val and not (train & val)
    assert train | val == set(range(24))
    assert buf.num_samples("train") + buf.num_samples("validation") == len(buf)
    for batch in buf.iter_split("validation", batch_size=7):
        assert batch.planes.dtype == np.float32
    rng = np.random.default_rng(0)
    batch = buf.sample(32, rng, split="validation", augment=False)
    assert len(batch) == 32
    with pytest.raises(ValueError, match="split"):
        buf.num_samples("test")


def test_sampled_batches_are_valid_targets(tmp_path, games):
    buf = fill(tmp_path, games[:8], window=10_000)
    batch = buf.sample(64, np.random.default_rng(1))
    assert batch.planes.shape == (64, 4, 6, 6) and batch.planes.dtype == np.float32
    np.testing.assert_allclose(batch.pi.sum(axis=1), 1.0, rtol=1e-5)
    assert (batch.pi[~batch.legal] == 0).all()
    assert set(np.unique(batch.z)) <= {-1.0, 0.0, 1.0}
    empty = (batch.planes[:, 0] + batch.planes[:, 1] == 0).reshape(64, -1)
    np.testing.assert_array_equal(batch.legal, empty)


def test_reopen_finds_every_shard_and_continues_ids(tmp_path, games):
    buf = fill(tmp_path, games[:12], window=10_000)
    again = ReplayBuffer(tmp_path, GAME, FEATURES, window=10_000)
    assert (len(again), again.total_games, again.next_game_id) == (len(buf), 12, 12)
    path = again.add_games(games[12:16])
    assert parse_shard_name(path.name) == (12, 15)
    assert ReplayBuffer(tmp_path, GAME, FEATURES).total_games == 16


def test_torn_and_temp_shards_are_ignored(tmp_path, games, capsys):
    fill(tmp_path, games[:8], window=10_000)
    good = dict(digest(tmp_path))
    (tmp_path / ".shard-000000008-000000011.npz.abc.tmp").write_bytes(b"PK\x03\x04 half a zip")
    whole = (tmp_path / shard_name(4, 7)).read_bytes()
    (tmp_path / shard_name(8, 11)).write_bytes(whole[: len(whole) // 2])  # torn, under a real name
    capsys.readouterr()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        buf = ReplayBuffer(tmp_path, GAME, FEATURES, window=10_000)
    # one plain line naming the shard, not a Python warning with replay.py's source location
    assert caught == []
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("zeroplay: skipping replay shard: ")
    assert shard_name(8, 11) in err[0] and "replay.py" not in err[0]
    assert [p.name for p, _ in buf.skipped] == [shard_name(8, 11)]
    assert buf.total_games == 8 and set(buf.window_game_ids().tolist()) == set(range(8))
    assert len(buf) == sum(len(g) for g in games[:8])
    # the next write reuses the torn shard's ids and replaces it whole
    path = buf.add_games(games[8:12])
    assert path.name == shard_name(8, 11)
    assert ReplayBuffer(tmp_path, GAME, FEATURES).total_games == 12
    for name, h in good.items():
        assert digest(tmp_path)[name] == h


def test_crash_during_write_leaves_no_shard(tmp_path, games, monkeypatch):
    buf = fill(tmp_path, games[:4], window=10_000)
    before = digest(tmp_path)

    def crash(f, **arrays):
        f.write(b"PK\x03\x04 partial")
        raise KeyboardInterrupt  # e.g. Ctrl-C in the middle of compressing

    monkeypatch.setattr(shards_module.np, "savez_compressed", crash)
    with pytest.raises(KeyboardInterrupt):
        buf.add_games(games[4:8])
    monkeypatch.undo()
    assert digest(tmp_path) == before
    assert ReplayBuffer(tmp_path, GAME, FEATURES).total_games == 4


def test_no_game_is_written_twice(tmp_path, games):
    buf = ReplayBuffer(tmp_path, GAME, FEATURES)
    first = buf.add_games(games[:4], game_ids=[10, 11, 12, 13])
    before = digest(tmp_path)
    assert buf.add_games(games[:4], game_ids=[10, 11, 12, 13]) == first  # idempotent re-write
    assert digest(tmp_path) == before and buf.total_games == 4
    with pytest.raises(ValueError, match="overlap"):
        buf.add_games(games[4:6], game_ids=[13, 14])
    with pytest.raises(ValueError, match="ascending"):
        buf.add_games(games[4:6], game_ids=[21, 20])
    assert buf.next_game_id == 14


def test_shards_of_another_game_or_feature_set_are_refused(tmp_path, games):
    fill(tmp_path, games[:4])
    with pytest.raises(ValueError, match="features"):
        ReplayBuffer(tmp_path, GAME, "basic")
    with pytest.raises(ValueError, match="game"):
        ReplayBuffer(tmp_path, make("gomoku", size=6, n_in_row=5), FEATURES)


def test_empty_buffer(tmp_path):
    buf = ReplayBuffer(tmp_path / "new", GAME, FEATURES)
    assert len(buf) == 0 and buf.next_game_id == 0
    with pytest.raises(ValueError, match="no train samples"):
        buf.sample(4, np.random.default_rng(0))


def test_a_shard_of_garbage_is_not_advised_to_be_unpickled(tmp_path, games, capsys):
    """numpy's own text for a non-archive ("... load it unsafely using allow_pickle=") reached
    the user, inviting them to unpickle a file of unknown origin."""
    fill(tmp_path, games[:8], window=10_000)
    (tmp_path / shard_name(4, 7)).write_bytes(b"garbage, not a zip archive\n" * 40)
    capsys.readouterr()
    buf = ReplayBuffer(tmp_path, GAME, FEATURES, window=10_000)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not an .npz archive of arrays (damaged, or not a replay shard)" in err[0]
    assert "pickle" not in err[0]
    assert [p.name for p, _ in buf.skipped] == [shard_name(4, 7)]
