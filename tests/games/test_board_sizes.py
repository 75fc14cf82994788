"""``Game.board_sizes``: the sides a person may choose, which front-ends ask the game for (the web
board said Go took 2..19 in one error and refused 3 in another)."""

from __future__ import annotations

import pytest

from zeroplay.games import board_sizes, make, names, option_names


def test_the_games_state_their_own_sizes():
    assert board_sizes("gomoku") == (5, 25)
    assert board_sizes("go") == (5, 19)
    assert board_sizes("tictactoe") is None and board_sizes("no such game") is None


@pytest.mark.parametrize("name", [n for n in names() if board_sizes(n) is not None])
def test_each_stated_size_makes_a_game_and_the_game_has_a_size_option(name):
    lo, hi = board_sizes(name)
    assert "size" in option_names(name) and 2 <= lo <= hi
    for size in (lo, hi):
        game = make(name, size=size)
        assert (game.width, game.height) == (size, size)
