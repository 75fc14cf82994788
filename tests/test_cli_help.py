"""What the ``zeroplay`` command line says about itself: ``zeroplay --help`` and the training log's
arena lines."""

from __future__ import annotations

import subprocess
import sys

import pytest

from zeroplay.cli import build_parser, main


def test_top_level_help_is_plain_text_and_names_every_command(capsys):
    """It said "The ``zeroplay`` command line: ..." (reST markup) and left out export."""
    with pytest.raises(SystemExit) as e:
        main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "``" not in out
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    assert {"play", "serve", "pbrain", "train", "arena", "export", "plot", "solve", "bench", "random-game"} <= set(commands)
    description = parser.description
    assert description.startswith("The zeroplay command line: play, serve, pbrain, usi, analyze, train, arena, export, "
                                   "plot, ")
    for name in commands:
        assert f" {name}," in description or f" {name}." in description, name
    assert "zeroplay COMMAND --help" in out


def test_top_level_help_from_a_fresh_process():
    proc = subprocess.run([sys.executable, "-m", "zeroplay", "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "``" not in proc.stdout and "export" in proc.stdout.split("positional")[0]


def test_training_logs_each_arena_opponent_once(tmp_path, capsys):
    """The training log said "vs rollout:200 (rollout:200)": a baseline's label is its spec."""
    pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")
    tiny = ["--game", "tictactoe", "--net", "tiny", "--playouts", "8", "--games-per-iteration", "2",
            "--parallel-games", "2", "--steps", "1", "--batch-size", "8", "--eval-games", "2",
            "--baseline", "uniform:8", "--eval-playouts", "4", "--flush-games", "2", "--workers", "0",
            "--no-progress", "--threads", "1"]
    assert main(["train", "--run-dir", str(tmp_path / "run"), *tiny, "--iterations", "1"]) == 0
    err = capsys.readouterr().err
    arena = [line for line in err.splitlines() if line.startswith("iteration 1 vs ")]
    assert len(arena) == 2, err
    assert arena[0].startswith("iteration 1 vs previous best (iteration 0): ")
    assert arena[1].startswith("iteration 1 vs uniform:8: ")
    assert "(uniform:8)" not in err


def test_bench_help_keeps_a_percent_sign_in_a_summary(capsys):
    """``bench tactics``'s summary says "(% solved, time)"; argparse read the ``%`` as a format
    and printed the whole action's dict in ``zeroplay bench --help``."""
    with pytest.raises(SystemExit) as e:
        main(["bench", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "option_strings" not in out
    assert "(% solved, time)" in " ".join(out.split())


def test_bench_help_gives_each_summary_whole(capsys):
    """``zeroplay bench --help`` printed only a docstring's first line: "inference  Play-time
    network evaluation: positions per second of the shipped 15x15 model, by where its"."""
    with pytest.raises(SystemExit) as e:
        main(["bench", "--help"])
    assert e.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "by where its torch thread limit was set." in out
