"""``zeroplay play --game shogi``: moves, errors, undo, hint and a game to its end."""

from __future__ import annotations

import pytest

from zeroplay.play.shogi_terminal import ShogiTerminal


def test_session_plays_undoes_and_refuses_bad_moves():
    out: list[str] = []
    t = ShogiTerminal(out.append, seconds=0.1)
    assert "Your move" in out[-1] and "Black (sente) in hand" in "\n".join(out)
    t.handle("7g7f")
    assert len(t.history) == 3 and any(line.startswith("Engine plays") for line in out)
    out.clear()
    t.handle("7g7f")
    assert out and "illegal" in out[0]
    t.handle("undo")
    assert len(t.history) == 1
    t.handle("hint")
    assert out[-1].startswith("Hint: ")
    t.handle("new white")
    assert t.human == 1 and len(t.history) == 2
    t.handle("quit")
    assert t.finished


def test_mate_ends_the_game():
    out: list[str] = []
    t = ShogiTerminal(out.append, seconds=0.1)
    t.history = [t.game.from_sfen("7lk/9/8G/9/9/9/9/9/K8 b G 1")]
    t.handle("G*1b")
    assert t.state.is_terminal and "Black wins" in "\n".join(out)


def test_zeroplay_play_game_shogi_with_scripted_input(monkeypatch, capsys):
    # the whole command as a user runs it, input from a script (stdin), through zeroplay.cli
    import io

    from zeroplay.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO("7g7f\n7g7f\nx9\nhint\nundo\n2g2f\nquit\n"))
    assert main(["play", "--game", "shogi", "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    assert out.count("Engine plays") == 2  # after 7g7f and, once undone, after 2g2f
    assert "move '7g7f': illegal in this position" in out and "move 'x9': not a USI move" in out
    assert "Hint: " in out and out.count("move 1: Black to move") == 2  # the start, and after undo


@pytest.mark.parametrize("argv, words", [
    (["--size", "9"], "--size: Gomoku options; shogi has none"),
    (["--rule", "standard", "--n-in-row", "5"], "--n-in-row, --rule: Gomoku options; shogi has none"),
    (["--playouts", "10"], "--playouts: shogi's alpha-beta engine is limited by --seconds"),
])
def test_options_shogi_does_not_take_are_refused_not_ignored(argv, words, capsys):
    """``zeroplay play --game shogi --size 9`` (or --playouts without --model) started a game that
    silently ignored the option; Connect Four refuses the same options."""
    from zeroplay.cli import main

    assert main(["play", "--game", "shogi", *argv]) == 2
    assert words in capsys.readouterr().err


def test_help_explains_the_notation_and_commands_instead_of_refusing_it():
    # a new user typed "help" and got "move 'help': not a USI move"
    out: list[str] = []
    t = ShogiTerminal(out.append, seconds=0.1)
    out.clear()
    t.handle("help")
    text = "\n".join(out)
    assert "USI" in text and "P*5e" in text and "undo" in text and "not a USI move" not in text
    assert len(t.history) == 1
