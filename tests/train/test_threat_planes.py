"""The ``basic+threats`` feature set end to end: planes (one position and batched), the net, the
``--threat-planes`` train switch (stored, kept on resume, refused where it cannot apply), and a
two-iteration training run whose checkpoint loads and plays."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")

from zeroplay.cli import main  # noqa: E402
from zeroplay.games import make  # noqa: E402
from zeroplay.games.gomoku.threats import threat_planes  # noqa: E402
from zeroplay.games.planes import FEATURE_CHANNELS, planes_batch  # noqa: E402

GAME = make("gomoku", size=7, n_in_row=4)
FEATURES = "basic+threats"


def _position():
    return GAME.from_stones(["d4", "e4", "c2"], ["a7", "b7"])


def test_state_planes_are_basic_then_threats():
    s = _position()
    planes = s.planes(FEATURES)
    assert planes.shape == (FEATURE_CHANNELS[FEATURES], 7, 7) == (11, 7, 7)
    np.testing.assert_array_equal(planes[:3], s.planes("basic"))
    np.testing.assert_array_equal(planes[3:], threat_planes(s))
    assert planes[3:].any()


def test_batched_planes_match_state_planes():
    states = [_position(), GAME.initial(), _position().play("f4")]
    boards = np.stack([s._pos.board for s in states])
    infos = np.stack([s._pos.info for s in states])
    batch = planes_batch(GAME, boards, infos, FEATURES)
    for i, s in enumerate(states):
        np.testing.assert_array_equal(batch[i], s.planes(FEATURES))


def test_games_without_threat_planes_refuse_them():
    from zeroplay.nn.arch import arch_spec

    c4 = make("connect4")
    with pytest.raises(ValueError, match="not one of connect4's"):
        c4.initial().planes(FEATURES)
    with pytest.raises(ValueError, match="not one of connect4's"):
        arch_spec("b2c16", c4, FEATURES)
    assert arch_spec("b2c16", GAME, FEATURES).in_channels == 11


def _parse(run, *extra):
    from zeroplay.cli import build_parser
    from zeroplay.train.commands import _overrides, features_name, net_name
    from zeroplay.train.loop import open_run

    args = build_parser().parse_args(["train", "--run-dir", str(run), *extra])
    structural = {"game": args.game, "net": net_name(args), "features": features_name(args),
                  "game_options": None if args.size is None else {"size": args.size}}
    return open_run(run, structural, _overrides(args))


def test_switch_is_stored_and_kept_on_resume(tmp_path):
    run = tmp_path / "run"
    first = _parse(run, "--size", "7", "--net", "b2c16", "--threat-planes", "--eval-games", "0")
    assert first.features == FEATURES
    assert _parse(run).features == FEATURES  # a resume with no options keeps it
    assert json.loads((run / "config.json").read_text())["features"] == FEATURES
    with pytest.raises(ValueError, match="features"):
        _parse(run, "--features", "basic")  # the input planes are fixed when the run starts
    with pytest.raises(ValueError, match="--threat-planes goes with --features basic"):
        _parse(tmp_path / "other", "--threat-planes", "--features", "alphazero-gomoku")


@pytest.mark.slow  # a minute on the loaded shared machine
def test_two_iterations_train_and_the_checkpoint_plays(tmp_path, capsys):
    from zeroplay.engine.arena import make_player, play_match
    from zeroplay.nn import load_checkpoint

    run = tmp_path / "run"
    code = main(["train", "--run-dir", str(run), "--game", "gomoku", "--size", "7", "--n-in-row", "4",
                 "--net", "b1c16", "--threat-planes", "--playouts", "8", "--games-per-iteration", "2",
                 "--parallel-games", "2", "--steps", "2", "--batch-size", "16", "--eval-games", "0",
                 "--workers", "0", "--no-progress", "--threads", "1", "--iterations", "2"])
    assert code == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["iteration"] == 2
    path = run / "checkpoints" / "iter_0002.safetensors"
    if not path.exists():
        path = sorted((run / "checkpoints").glob("*0002*"))[0]
    ck = load_checkpoint(path, game=GAME)
    assert ck.features == FEATURES and ck.model.spec.in_channels == 11
    player = make_player(str(path), GAME, playouts=8, seed=0)
    match = play_match(GAME, player, make_player("uniform:8", GAME, seed=1), 2)
    assert match.wins + match.draws + match.losses == 2
