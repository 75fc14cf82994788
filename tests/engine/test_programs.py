"""Engine command lines of the arena's ``gtp:`` / ``pbrain:`` / ``usi:`` players: a program that is not
installed is a clear error when the player is made (it was a traceback from ``subprocess`` when
the first game started), and zeroplay's own scripts run without ``.venv/bin`` on ``PATH``."""

from __future__ import annotations

import sys

import pytest

from zeroplay.cli import main
from zeroplay.engine.arena import make_player
from zeroplay.engine.programs import ProgramNotFoundError, split_command
from zeroplay.games import make


def test_a_missing_program_is_named_when_the_player_is_made():
    with pytest.raises(ProgramNotFoundError, match="program 'no-such-engine-zp' not found on PATH"):
        make_player("gtp:no-such-engine-zp --mode gtp", make("go", size=9))
    with pytest.raises(ProgramNotFoundError, match="pbrain: program 'no-such-engine-zp' not found"):
        make_player("pbrain:no-such-engine-zp", make("gomoku", width=9, height=9))


def test_a_missing_usi_program_is_named_when_the_player_is_made():
    pytest.importorskip("cshogi", reason="shogi (usi:) needs cshogi")
    with pytest.raises(ProgramNotFoundError, match="usi: program 'no-such-engine-zp' not found"):
        make_player("usi:no-such-engine-zp@100", make("shogi"))
    with pytest.raises(ValueError, match="usi: empty command"):
        split_command([], "usi")


def test_a_path_that_is_not_runnable_and_unbalanced_quotes_are_refused(tmp_path):
    with pytest.raises(ProgramNotFoundError, match="is not a runnable file"):
        split_command(f"{tmp_path}/nothing --x", "gtp")
    with pytest.raises(ValueError, match="cannot split"):
        split_command('gnugo "--mode gtp', "gtp")
    with pytest.raises(ValueError, match="empty command"):
        split_command("   ", "pbrain")


def test_zeroplay_scripts_run_with_this_interpreter_when_not_on_path(tmp_path, monkeypatch):
    """The README's ``gtp:zeroplay gtp --playouts 2000`` after ``make play``, whose .venv/bin is
    not on PATH: ``zeroplay`` was not found and the match died with a traceback."""
    monkeypatch.setenv("PATH", str(tmp_path))
    assert split_command("zeroplay gtp --playouts 20", "gtp") == [sys.executable, "-m", "zeroplay", "gtp",
                                                                  "--playouts", "20"]
    assert split_command(["pbrain-zeroplay", "--playouts", "5"], "pbrain") == [
        sys.executable, "-m", "zeroplay", "pbrain", "--playouts", "5"]


def test_the_arena_command_reports_a_missing_engine_without_a_traceback(capsys):
    assert main(["arena", "gtp:no-such-engine-zp", "random:1", "--game", "go", "--size", "9", "--games", "1"]) == 2
    err = capsys.readouterr().err
    assert "program 'no-such-engine-zp' not found on PATH" in err and "Traceback" not in err
