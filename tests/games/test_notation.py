"""Move notation: ``h8`` (column letter from the left, i included; row number from the bottom) and
Gomocup ``x,y`` (x = column, y = row from the top, 0-based), on square and non-square boards."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zeroplay.games import IllegalMoveError, make

SHAPES = [(15, 15), (20, 20), (9, 7), (7, 9), (25, 5), (5, 25), (3, 3)]


def _game(width, height):
    return make("tictactoe") if (width, height) == (3, 3) else make("gomoku", width=width, height=height)


@pytest.mark.parametrize("width, height", SHAPES)
def test_round_trip_every_cell(width, height):
    g = _game(width, height)
    letters = "abcdefghijklmnopqrstuvwxyz"
    for c in range(g.num_actions):
        x, y = c % width, c // width
        alg = g.format_move(c)
        assert alg == f"{letters[x]}{height - y}"
        assert g.parse_move(alg) == c
        assert g.parse_move(alg.upper()) == c
        cup = g.format_move(c, style="gomocup")
        assert cup == f"{x},{y}"
        assert g.parse_move(cup) == c
        assert g.parse_move(f" {x} , {y} ") == c


def test_known_cells_15x15():
    g = make("gomoku")
    assert g.parse_move("h8") == 7 * 15 + 7 == 112
    assert g.parse_move("a1") == 14 * 15  # bottom left
    assert g.parse_move("a15") == 0  # top left
    assert g.parse_move("o15") == 14  # top right
    assert g.parse_move("o1") == 224  # bottom right
    assert g.parse_move("i1") == 14 * 15 + 8  # the letter i is a column
    assert g.parse_move("j1") == 14 * 15 + 9
    assert g.parse_move("0,0") == 0 and g.parse_move("14,0") == 14 and g.parse_move("0,14") == 210
    assert g.format_move(0) == "a15" and g.format_move(224) == "o1"
    assert g.format_move(0, "gomocup") == "0,0"


def test_known_cells_non_square():
    g = make("gomoku", width=9, height=7)
    assert g.parse_move("a7") == 0
    assert g.parse_move("i7") == 8
    assert g.parse_move("a1") == 54
    assert g.parse_move("i1") == 62
    assert g.parse_move("8,6") == 62
    assert g.parse_move("8,0") == 8
    assert g.format_move(62) == "i1" and g.format_move(62, "gomocup") == "8,6"
    for bad in ("j1", "a8", "a0", "9,0", "0,7"):
        with pytest.raises(IllegalMoveError, match=bad):
            g.parse_move(bad)


def test_20x20_uses_letters_through_t():
    g = make("gomoku", width=20, height=20)
    assert g.parse_move("t20") == 19
    assert g.parse_move("t1") == 399
    assert g.format_move(19) == "t20"
    with pytest.raises(IllegalMoveError):
        g.parse_move("u1")


@pytest.mark.parametrize(
    "text",
    ["", " ", "h", "8", "hh8", "h8x", "8h", "h-1", "h0", "h16", "p1", "z26", "1,", ",1", "1,2,3",
     "-1,0", "0,-1", "15,0", "0,15", "1;2", "1 2", "h 8 9", "\u00e98"],
)
def test_malformed_or_off_board_text(text):
    g = make("gomoku")
    with pytest.raises(IllegalMoveError) as info:
        g.parse_move(text)
    assert isinstance(info.value, ValueError)
    assert repr(text) in str(info.value) or text in str(info.value)


@pytest.mark.parametrize("value", [None, 5, 1.0, b"h8"])
def test_parse_move_rejects_non_text(value):
    with pytest.raises(IllegalMoveError):
        make("gomoku").parse_move(value)


def test_format_move_errors():
    g = make("gomoku")
    with pytest.raises(ValueError):
        g.format_move(225)
    with pytest.raises(ValueError):
        g.format_move(-1)
    with pytest.raises(ValueError):
        g.format_move(0, style="sgf")


def test_play_by_text_uses_the_same_cells():
    g = make("gomoku", width=9, height=7)
    s = g.initial().play("a1").play("8,0")
    assert s.board[6, 0] == 1 and s.board[0, 8] == 2


@pytest.mark.parametrize("text", ["h\uff18", "\u0663,\u0663", "h\u0668", "\uff13,3"])
def test_non_ascii_digits_are_malformed(text):
    """Regression: ``\\d`` once accepted any script's digits, so "h\uff18" parsed as h8."""
    with pytest.raises(IllegalMoveError):
        make("gomoku").parse_move(text)


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=10), shape=st.sampled_from(SHAPES[:4]))
def test_any_text_parses_to_a_cell_or_raises_illegal_move(text, shape):
    g = _game(*shape)
    try:
        c = g.parse_move(text)
    except IllegalMoveError as e:
        assert repr(text) in str(e) or text in str(e)
        return
    assert 0 <= c < g.num_actions
    assert g.parse_move(g.format_move(c)) == c


@settings(max_examples=100, deadline=None)
@given(x=st.integers(-3, 30), y=st.integers(-3, 30), shape=st.sampled_from(SHAPES))
def test_gomocup_text_on_and_off_the_board(x, y, shape):
    width, height = shape
    g = _game(width, height)
    if 0 <= x < width and 0 <= y < height:
        assert g.parse_move(f"{x},{y}") == y * width + x
    else:
        with pytest.raises(IllegalMoveError):
            g.parse_move(f"{x},{y}")


def test_render_keeps_the_row_labels_aligned_when_the_last_move_is_on_the_right_edge():
    """The last-move marker ')' takes the gap before the right-hand label, not a column more."""
    from zeroplay.games import make

    game = make("gomoku", size=8)
    lines = str(game.initial().play("h8")).splitlines()
    assert lines[1] == " 8 . . . . . . . X) 8"
    assert lines[2] == " 7 . . . . . . . .  7"
    assert len({len(l) for l in lines[1:9]}) == 1


@pytest.mark.parametrize("size, examples", [(15, "'h8' or '7,7'"), (6, "'d3' or '3,3'"), (9, "'e5' or '4,4'")])
def test_a_malformed_move_is_answered_with_examples_on_this_board(size, examples):
    """On 6x6 the message offered 'h8' and '7,7', both off the board."""
    with pytest.raises(IllegalMoveError) as info:
        make("gomoku", size=size).parse_move("zz")
    assert str(info.value) == f"move 'zz': expected a move such as {examples}"
