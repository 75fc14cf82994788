"""``zeroplay train --game go`` end to end on a 5x5 board: Go's own planes by default, the
points + pass policy head, samples whose values are the scored result from the side to move."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")

from zeroplay.cli import main  # noqa: E402
from zeroplay.games import make  # noqa: E402
from zeroplay.games.go.planes import GO_PLANES  # noqa: E402
from zeroplay.nn import load_checkpoint  # noqa: E402
from zeroplay.train import ReplayBuffer  # noqa: E402
from zeroplay.train.shards import read_shard  # noqa: E402

TINY_GO = ["--game", "go", "--size", "5", "--komi", "0.5", "--net", "b1c8", "--playouts", "8",
           "--games-per-iteration", "2", "--parallel-games", "2", "--steps", "2", "--batch-size", "16",
           "--eval-games", "0", "--workers", "0", "--no-progress", "--threads", "1"]


def test_two_iterations_of_go_training(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["train", "--run-dir", str(run), *TINY_GO, "--iterations", "2"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["iteration"] == 2 and summary["games_total"] == 4
    config = json.loads((run / "config.json").read_text())
    assert config["features"] == "go" and config["game_options"]["width"] == 5
    game = make("go", size=5, komi=0.5)
    ck = load_checkpoint(run / "checkpoints" / "iter-000002.safetensors", game=game)
    assert ck.features == "go" and ck.arch.in_channels == GO_PLANES and ck.arch.head == "cells+pass"
    paths = ReplayBuffer(run / "shards", game, "go").shard_paths
    shards = [read_shard(p, game, "go") for p in paths]
    planes = np.concatenate([s.samples.planes for s in shards])
    z = np.concatenate([s.samples.z for s in shards])
    pi = np.concatenate([s.samples.pi for s in shards])
    assert planes.shape[1:] == (GO_PLANES, 5, 5) and pi.shape[1] == 26
    assert set(np.unique(z)) <= {-1.0, 1.0}  # komi 0.5: no draws
    np.testing.assert_allclose(pi.sum(axis=1), 1.0, atol=1e-4)


def test_go_planes_are_refused_for_gomoku_before_the_run_starts(tmp_path, capsys):
    run = tmp_path / "run"
    rc = main(["train", "--run-dir", str(run), "--game", "gomoku", "--size", "6", "--features", "go",
               "--iterations", "1", "--workers", "0", "--no-progress"])
    assert rc == 2 and not run.exists()
    assert "not one of gomoku's" in capsys.readouterr().err
