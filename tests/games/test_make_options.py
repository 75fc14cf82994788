"""``games.make``: options by name, ``size`` shorthand, clear errors for unknown games and options."""

from __future__ import annotations

import pytest

from zeroplay.games import make


def test_size_is_a_shorthand_for_width_and_height():
    g = make("gomoku", size=9, n_in_row=4)
    assert (g.width, g.height, g.n_in_row) == (9, 9, 4)


@pytest.mark.parametrize(
    "name, options, message",
    [
        ("chess", {}, "unknown game 'chess'; known: "),
        ("tictactoe", {"size": 9}, "tictactoe has no option size (it takes none)"),
        ("connect4", {"width": 8}, "connect4 has no option width (it takes none)"),
        ("gomoku", {"size": 9, "colour": 1}, "gomoku has no option colour (it takes: size, width, height, n_in_row, rule)"),
    ],
)
def test_bad_names_and_options_say_what_is_accepted(name, options, message):
    with pytest.raises(ValueError) as err:
        make(name, **options)
    assert message in str(err.value)
