"""The ``zeroplay`` command: --version, random-game, bench rules --json."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from zeroplay import __version__
from zeroplay.cli import main


def test_version_from_a_fresh_process():
    out = subprocess.run(
        [sys.executable, "-m", "zeroplay", "--version"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"zeroplay {__version__}"


def test_no_command_prints_help(capsys):
    assert main([]) == 0
    assert "random-game" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--seed", "1"], ["--seed", "2", "--size", "9", "--rule", "standard"]])
def test_random_game_finishes_and_prints_the_board(argv, capsys):
    assert main(["random-game", *argv]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"gomoku {9 if '9' in argv else 15}x{9 if '9' in argv else 15}, 5 in a row, " \
        f"{'standard' if 'standard' in argv else 'freestyle'}"
    assert lines[1].split()[0] == "a"  # column letters
    assert "wins" in out or "draw" in out  # a finished game
    assert lines[-1].startswith("moves: ")
    size = 9 if "9" in argv else 15
    moves = lines[-1].split()[1:]
    assert 9 <= len(moves) <= size * size
    assert len(set(moves)) == len(moves)


def test_random_game_on_6x6_plays_four_in_a_row_as_play_does_and_says_so(capsys):
    assert main(["random-game", "--size", "6", "--seed", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "gomoku 6x6, 4 in a row, freestyle"
    assert main(["random-game", "--size", "6", "--n-in-row", "5", "--seed", "3"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "gomoku 6x6, 5 in a row, freestyle"


def test_random_game_is_reproducible(capsys):
    main(["random-game", "--seed", "5"])
    first = capsys.readouterr().out
    main(["random-game", "--seed", "5"])
    assert capsys.readouterr().out == first


def test_bench_rules_json(capsys):
    assert main(["bench", "rules", "--json", "--seconds", "0.2"]) == 0
    result = json.loads(capsys.readouterr().out)
    for key in (
        "board",
        "games",
        "black_win_rate",
        "mean_game_length",
        "compiled_moves_per_s",
        "tracked_moves_per_s",
        "state_api_moves_per_s",
        "ratio_compiled_vs_api",
    ):
        assert key in result, key
    assert result["board"] == "15x15 freestyle"
    assert result["compiled_moves_per_s"] > 0 and result["state_api_moves_per_s"] > 0
    assert 9 <= result["mean_game_length"] <= 225


def test_running_out_of_memory_is_one_line(capsys, monkeypatch):
    """``zeroplay train --playouts 100000000`` ended in a numpy traceback (32 GiB node table)."""
    import zeroplay.cli as cli

    def greedy(args):
        raise MemoryError("Unable to allocate 32.0 GiB for an array with shape (4294967296,) and data type int64")

    monkeypatch.setattr(cli, "_cmd_random_game", greedy)
    assert cli.main(["random-game"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("zeroplay random-game: error: out of memory (Unable to allocate 32.0 GiB") and err.count("\n") == 1
    # helper-73: train's advice (--parallel-games, a resumed run) was given to every command
    assert "--parallel-games" not in err and "resumed" not in err


@pytest.mark.parametrize("player,game", [("gtp:true", "go"), ("usi:true", "shogi")])
def test_arena_against_an_engine_that_breaks_says_so_in_one_line(player, game, capsys):
    """``zeroplay arena "gtp:zeroplay gtp ..." gtp:gnugo ...`` ended in a traceback
    (``GtpProtocolError: no reply within 120 s``) when an engine did not answer; ``pbrain:`` said it
    in one line. An engine that exits at once stands in for one that breaks the protocol."""
    if game == "shogi":
        pytest.importorskip("cshogi", reason="cshogi (shogi rules) is not installed: pip install cshogi")
    argv = ["arena", player, "random:1", "--game", game, "--games", "2", "--no-progress"]
    if game == "go":
        argv += ["--size", "9"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"zeroplay arena: error: {player}: the engine exited" in err and "Traceback" not in err


@pytest.mark.parametrize("argv, prog, extra", [(["play", "--sise", "9"], "zeroplay play", "--sise 9"),
                                               (["bench", "mcts", "--bogus"], "zeroplay bench mcts", "--bogus"),
                                               (["arena", "a", "b", "--zzz"], "zeroplay arena", "--zzz")])
def test_an_unknown_option_is_told_by_its_subcommand(argv, prog, extra, capsys):
    # it was told by the top-level parser: "usage: zeroplay [-h] [--version] COMMAND ..." and
    # "zeroplay: error:", naming neither the subcommand nor its options
    from zeroplay.cli import main

    with pytest.raises(SystemExit) as e:
        main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and f"usage: {prog} " in err
    assert f"{prog}: error: unrecognized arguments: {extra}\n" in err
