"""Shogi self-play training smoke run: games, samples, loss, a checkpoint that plays."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")

from zeroplay.engine.shogi_mcts import MctsEngine  # noqa: E402
from zeroplay.games import make  # noqa: E402
from zeroplay.train.shogi_selfplay import run  # noqa: E402


@pytest.mark.slow  # trains a net: 5-8 s idle, 25-60 s under load
def test_smoke_run_writes_a_checkpoint_that_plays(tmp_path):
    figures = run(tmp_path, iterations=1, games=1, playouts=4, max_moves=12, steps=6, blocks=1, channels=16,
                  log=lambda _: None)
    assert figures["samples"] == 12 and figures["results"] == ["draw"]
    assert figures["loss_last"] < figures["loss_first"]
    engine = MctsEngine(playouts=8, model=figures["checkpoint"])
    s = make("shogi").initial()
    assert engine.search(s).best_move in {s.move_text(int(m)) for m in s.legal_moves()}
    assert (tmp_path / "last.json").exists() and not list(tmp_path.glob("*.tmp*"))
    assert np.isfinite(figures["loss_last"])


def test_zeroplay_train_game_shogi_runs_two_iterations_and_resumes(tmp_path, capsys):
    # the compiled pipeline needs game kernels, which shogi (rules in cshogi) has not: the command
    # failed with "'Shogi' object has no attribute 'max_plies'"; it now runs the Python loop
    from zeroplay.cli import main
    from zeroplay.nn.shogi_net import load_shogi_net

    run_dir = tmp_path / "run"
    args = ["train", "--game", "shogi", "--run-dir", str(run_dir), "--games-per-iteration", "1", "--playouts", "2",
            "--steps", "2", "--batch-size", "8", "--max-moves", "6"]
    assert main([*args, "--iterations", "2"]) == 0
    assert sorted(p.name for p in run_dir.glob("net-*")) == ["net-0001.safetensors", "net-0002.safetensors"]
    net, facts = load_shogi_net(run_dir / "net-0002.safetensors")
    assert (net.blocks_count, net.channels) == (1, 16) and facts["iteration"] == 2  # --net tiny
    # a rerun on the directory, even without --game, continues from its newest checkpoint
    assert main(["train", "--run-dir", str(run_dir), "--iterations", "3", "--games-per-iteration", "1",
                 "--playouts", "2", "--steps", "1", "--max-moves", "6"]) == 0
    assert "resumed_from" in capsys.readouterr().out
    # a Gomoku board option on a resume (no --game) was ignored without a word
    assert main(["train", "--run-dir", str(run_dir), "--iterations", "4", "--size", "13"]) == 2
    assert "does not take --size" in capsys.readouterr().err
    assert load_shogi_net(run_dir / "net-0003.safetensors")[1]["iteration"] == 3
    assert not list(run_dir.glob("*.tmp*"))
    # plot and export refused the directory (no metrics.jsonl, no config.json); the loop now
    # writes the records plot charts, its steps counted on across the resume
    from zeroplay.train.metrics import read_metrics

    train = read_metrics(run_dir / "metrics.jsonl", "train")
    assert [(r["iteration"], r["step"]) for r in train] == [(1, 2), (2, 4), (3, 5)]
    assert [r["games"] for r in read_metrics(run_dir / "metrics.jsonl", "selfplay")] == [1, 1, 1]
    assert main(["plot", str(run_dir)]) == 0 and (run_dir / "plots" / "losses.png").stat().st_size > 0
    out = tmp_path / "shogi.safetensors"
    assert main(["export", str(run_dir), "--out", str(out), "--iteration", "2"]) == 0
    net, facts = load_shogi_net(out)
    assert facts["iteration"] == 2 and facts["shipped"]["step"] == 4 and facts["shipped"]["selfplay_games"] == 2
    assert "zeroplay usi" in capsys.readouterr().err
    assert main(["export", str(run_dir), "--out", str(out)]) == 0  # best: the newest, said so
    assert load_shogi_net(out)[1]["shipped"]["picked"].startswith("the newest checkpoint")
    assert main(["export", str(run_dir), "--out", str(out), "--iteration", "9"]) == 2
    assert "no checkpoint of iteration 9" in capsys.readouterr().err
    # --out on the run's own checkpoint replaced iteration 1's weights with iteration 2's
    own = run_dir / "net-0001.safetensors"
    before = own.read_bytes()
    assert main(["export", str(run_dir), "--out", str(own), "--iteration", "2"]) == 2
    assert "a training run's checkpoint file" in capsys.readouterr().err and own.read_bytes() == before
    # another game in the same directory mixed its metrics into the shogi run's
    assert main(["train", "--game", "gomoku", "--size", "8", "--run-dir", str(run_dir), "--iterations", "1"]) == 2
    assert "holds a shogi run" in capsys.readouterr().err
    assert not (run_dir / "config.json").exists() and len(read_metrics(run_dir / "metrics.jsonl", "train")) == 3
    # without its marker file the directory is still a shogi run (its net-NNNN checkpoints say so)
    (run_dir / "python-loop.json").rename(tmp_path / "marker")
    assert main(["train", "--game", "gomoku", "--size", "8", "--run-dir", str(run_dir), "--iterations", "1"]) == 2
    assert "holds a shogi run" in capsys.readouterr().err
    (tmp_path / "marker").rename(run_dir / "python-loop.json")
    # another run's checkpoints are refused too (only the exported run's were)
    other = tmp_path / "other"
    other.mkdir()
    (other / "net-0001.safetensors").write_bytes(before)
    assert main(["export", str(run_dir), "--out", str(other / "net-0001.safetensors")]) == 2
    assert "a training run's checkpoint file" in capsys.readouterr().err
    assert (other / "net-0001.safetensors").read_bytes() == before


def test_plot_says_what_an_old_shogi_run_lacks(tmp_path):
    from zeroplay.train.plot import plot_run
    from zeroplay.train.shogi_selfplay import MARKER

    (tmp_path / MARKER).write_text('{"game": "shogi", "blocks": 1, "channels": 16}')
    with pytest.raises(FileNotFoundError, match="shogi run"):
        plot_run(tmp_path)


def test_zeroplay_train_shogi_refuses_what_the_python_loop_cannot_do(tmp_path, capsys):
    from zeroplay.cli import main

    base = ["train", "--game", "shogi", "--run-dir", str(tmp_path / "r"), "--iterations", "1"]
    assert main([*base, "--net", "tiny-ish"]) != 0
    assert "--net for shogi" in capsys.readouterr().err
    assert main([*base, "--workers", "2"]) != 0
    assert "does not take --workers" in capsys.readouterr().err
    assert main([*base, "--eval-games", "20"]) != 0
    assert "does not take --eval-games" in capsys.readouterr().err
    assert not list((tmp_path / "r").glob("net-*"))


def test_zeroplay_train_shogi_takes_eval_games_0(tmp_path, monkeypatch):
    # "--eval-games 0" (no arena: what this loop does anyway) was refused as an option it cannot do
    import zeroplay.train.shogi_selfplay as loop
    from zeroplay.cli import main

    monkeypatch.setattr(loop, "run", lambda run_dir, **kw: {"checkpoint": "stubbed"})
    assert main(["train", "--game", "shogi", "--run-dir", str(tmp_path / "r"), "--iterations", "1",
                 "--eval-games", "0"]) == 0
