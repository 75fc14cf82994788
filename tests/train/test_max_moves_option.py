"""``zeroplay train --max-moves``: shogi's draw limit (the Python loop). A value out of range is
refused for every game, and the option is refused for a game that is not shogi (it was accepted
and ignored), on a new run and on a resume, before the run directory is written; not giving it
keeps working for every game and for a resume."""

from __future__ import annotations

import pytest

pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")

from zeroplay.cli import build_parser, main  # noqa: E402
from zeroplay.train.commands import MAX_SHOGI_MOVES, check_train_command  # noqa: E402

TINY = ["--game", "tictactoe", "--net", "tiny", "--playouts", "8", "--games-per-iteration", "2",
        "--parallel-games", "2", "--steps", "1", "--batch-size", "8", "--eval-games", "0",
        "--flush-games", "2", "--workers", "0", "--no-progress", "--threads", "1"]


@pytest.mark.parametrize("game", ["gomoku", "shogi"])
@pytest.mark.parametrize("value", ["-1", "0", str(MAX_SHOGI_MOVES + 1)])
def test_max_moves_out_of_range_is_refused_naming_the_range(tmp_path, capsys, game, value):
    run = tmp_path / "run"
    assert main(["train", "--run-dir", str(run), "--game", game, "--max-moves", value, "--iterations", "0"]) == 2
    err = capsys.readouterr().err
    assert f"zeroplay train: error: --max-moves must be in 1..100000, got {value}" in err and "Traceback" not in err
    assert not run.exists()


@pytest.mark.parametrize("game", ["gomoku", "tictactoe", "connect4", "go"])
def test_max_moves_for_a_game_other_than_shogi_is_refused(tmp_path, capsys, game):
    run = tmp_path / "run"
    assert main(["train", "--run-dir", str(run), "--game", game, "--max-moves", "40", "--iterations", "0"]) == 2
    err = capsys.readouterr().err
    assert (f"zeroplay train: error: --max-moves is for shogi (moves before a self-play game is a draw); "
            f"this run plays {game}: drop --max-moves") in err
    assert not run.exists()


def test_a_resume_without_max_moves_works_and_with_it_is_refused(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["train", "--run-dir", str(run), *TINY, "--iterations", "0"]) == 0
    files = sorted(p.relative_to(run).as_posix() for p in run.rglob("*") if p.is_file())
    config = (run / "config.json").read_bytes()
    capsys.readouterr()
    # the stored game (no --game on the resume) is the one named
    assert main(["train", "--run-dir", str(run), "--max-moves", "40", "--iterations", "0"]) == 2
    assert "this run plays tictactoe: drop --max-moves" in capsys.readouterr().err
    assert sorted(p.relative_to(run).as_posix() for p in run.rglob("*") if p.is_file()) == files
    assert (run / "config.json").read_bytes() == config
    assert main(["train", "--run-dir", str(run), "--iterations", "0", "--workers", "0", "--no-progress"]) == 0


def test_shogi_takes_max_moves_and_the_default_needs_none(tmp_path):
    pytest.importorskip("cshogi", reason="shogi's rules need cshogi")
    for options in (["--max-moves", "1"], ["--max-moves", str(MAX_SHOGI_MOVES)], []):
        args = build_parser().parse_args(["train", "--run-dir", str(tmp_path / "run"), "--game", "shogi", *options])
        check_train_command(args)  # shogi's Python loop: no refusal
    args = build_parser().parse_args(["train", "--run-dir", str(tmp_path / "run")])
    assert args.max_moves is None
    check_train_command(args)  # gomoku, --max-moves not given
