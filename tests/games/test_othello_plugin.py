"""Othello through the rooms above games/, with no code of theirs naming it (issue 21): the PUCT
search, the terminal session of ``zeroplay play``, the network heads and a training run."""

from __future__ import annotations

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.search import RolloutEvaluator, search


@pytest.fixture(scope="module")
def game():
    return make("othello", size=6)


def test_search_plays_the_pass_when_it_is_the_only_move():
    game = make("othello", size=4)
    rng = np.random.default_rng(5)
    for _ in range(50):  # random 4x4 games until one asks for a pass
        s = game.initial()
        while not s.is_terminal:
            if s.legal_moves().tolist() == [game.pass_action]:
                r = search(s, RolloutEvaluator(seed=1), playouts=16)
                assert r.best_move == game.pass_action
                return
            s = s.play(int(rng.choice(s.legal_moves())))
    pytest.fail("no pass met in 50 random 4x4 games")


def test_search_proves_a_won_ending(game):
    # 4x4, one empty cell: Black's only move wins 16-0
    small = make("othello", size=4)
    s = small.from_stones([c for c in range(15) if c != 14], [14], to_play=0)
    r = search(s, RolloutEvaluator(seed=1), playouts=50)
    assert r.best_move == 15 and r.root_q > 0.99


def test_terminal_session(game):
    from zeroplay.engine.factory import make_engine
    from zeroplay.play.terminal import TerminalGame, help_text

    lines: list[str] = []
    t = TerminalGame(game, make_engine(game, use_shipped=False), 0, playouts=30, out=lines.append)
    assert "or pass" in help_text(game)
    t.handle("pass")
    assert "pass is legal only" in lines[-1]
    t.handle("c5")
    assert any(line.startswith("zeroplay plays ") for line in lines)
    t.handle("hint")
    assert lines[-1].startswith("Hint: ")
    t.handle("undo")
    assert t.state.ply == 0
    while not t.state.is_terminal:  # the person plays the first legal move, passes included
        t.handle(game.format_move(int(t.state.legal_moves()[0])))
    assert "wins." in lines[-1] or "Draw." in lines[-1]


def test_tower_and_tiny_nets_give_a_pass_logit(game):
    import torch

    from zeroplay.nn.models import build_model

    planes = torch.from_numpy(game.initial().planes()[None])
    for arch in ("tiny", "b1c8"):
        logits, value = build_model(arch, game, "basic", seed=0)(planes)
        assert logits.shape == (1, game.num_actions) and value.shape == (1,)


@pytest.mark.slow
def test_train_two_iterations(tmp_path):
    import subprocess
    import sys

    cmd = [sys.executable, "-m", "zeroplay", "train", "--game", "othello", "--size", "6",
           "--run-dir", str(tmp_path / "run"), "--net", "b1c8", "--iterations", "2", "--workers", "0",
           "--playouts", "16", "--games-per-iteration", "2", "--steps", "2", "--batch-size", "16",
           "--eval-games", "2", "--eval-playouts", "8", "--no-progress"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    import json

    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["iteration"] == 2 and summary["games_total"] == 4 and summary["step"] == 4
    assert (tmp_path / "run" / "checkpoints" / "iter-000002.safetensors").exists()
