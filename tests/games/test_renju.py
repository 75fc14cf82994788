"""Renju (RIF rules): Black's forbidden points, Black's exact five, White's overline, the legal
moves, the search and the threat solvers under the rule; checked against the plain-Python
statement of the definitions in ``renju_reference.py`` on random positions.

Positions are in text notation (``h8``: column letter, row from the bottom). "White fillers on
row 1": White stones far from the action, spaced so that they never make a line of their own.
"""

from __future__ import annotations

import numpy as np
import pytest
import renju_reference as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zeroplay.games import IllegalMoveError, make
from zeroplay.games.gomoku import renju

RENJU = make("gomoku", rule="renju")
FILLERS = [f"{c}1" for c in "acegikmo"]


def position(black, white=(), to_play=0, game=RENJU):
    """Black and White stones (text), ``to_play`` to move, White fillers where counts need them."""
    white = list(white) + FILLERS[: max(len(black) - len(white), 0)]
    return game.from_stones(black, white, to_play=to_play)


def forbidden(state) -> list[str]:
    return [RENJU.format_move(c) for c in RENJU.forbidden_moves(state)]


def reference_forbidden(state) -> list[str]:
    board = [list(map(int, row)) for row in state.board]
    return [RENJU.format_move(c) for c in ref.forbidden_cells(board)]


# --- the cases of issue 23 -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("black", "white", "expected"),
    [
        (["f8", "g8", "h10", "h9"], [], ["h8"]),  # double-three
        (["f8", "g8", "h10", "h9"], ["e8"], []),  # one three blocked: a three only
        (["e8", "f8", "g8", "h11", "h10", "h9"], [], ["h8"]),  # double-four (two straight fours)
        (["e8", "f8", "g8", "h11", "h10", "h9"], ["d8", "h12"], ["h8"]),  # double-four (closed)
        (["e8", "f8", "g8", "h10", "h9"], [], []),  # four-three is allowed
        (["c8", "d8", "e8", "g8", "h8"], [], ["f8"]),  # overline
    ],
    ids=["double-three", "three-blocked", "double-four", "double-four-closed", "four-three", "overline"],
)
def test_issue_cases(black, white, expected):
    s = position(black, white)
    assert forbidden(s) == expected
    assert reference_forbidden(s) == expected
    for text in expected:
        cell = RENJU.parse_move(text)
        assert cell not in s.legal_moves()
        with pytest.raises(IllegalMoveError, match="forbidden for Black"):
            s.play(text)


def test_forbidden_reason_names_the_pattern():
    assert RENJU.forbidden_reason(position(["f8", "g8", "h10", "h9"]), RENJU.parse_move("h8")) == "double-three"
    assert RENJU.forbidden_reason(position(["e8", "f8", "g8", "h11", "h10", "h9"]),
                                  RENJU.parse_move("h8")) == "double-four"
    assert RENJU.forbidden_reason(position(["c8", "d8", "e8", "g8", "h8"]), RENJU.parse_move("f8")) == "overline"
    with pytest.raises(IllegalMoveError, match=r"overline"):
        position(["c8", "d8", "e8", "g8", "h8"]).play("f8")


# --- two fours on one line ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("black", "point", "five_point"),
    [
        (["d8", "f8", "h8", "j8"], "g8", "e8"),  # X.X?X.X -> X.XXX.X: fives at e8 and i8
        (["c8", "d8", "g8", "i8", "j8"], "f8", "e8"),  # XX.?X.XX -> XX.XX.XX: fives at e8 and h8
        (["a8", "b8", "c8", "g8", "h8", "i8"], "e8", "d8"),  # XXX.?.XXX -> XXX.X.XXX: d8 and f8
    ],
    ids=["x.xxx.x", "xx.xx.xx", "xxx.x.xxx"],
)
def test_two_fours_on_one_line_are_a_double_four(black, point, five_point):
    s = position(black)
    assert point in forbidden(s)
    assert RENJU.forbidden_reason(s, RENJU.parse_move(point)) == "double-four"
    assert forbidden(s) == reference_forbidden(s)
    # a White stone on one of the five-points leaves one four: allowed
    blocked = position(black, [five_point])
    assert point not in forbidden(blocked)


# --- fives ---------------------------------------------------------------------------------------
def test_exact_five_wins_even_with_a_double_four():
    # h8 makes d8..h8 (exactly five) and two more fours (h9-h11 down, i9-k11 diagonal)
    s = position(["d8", "e8", "f8", "g8", "h9", "h10", "h11", "i9", "j10"], ["c8"])
    assert "h8" not in forbidden(s)
    after = s.play("h8")
    assert after.is_terminal and after.winner == 0


def test_exact_five_wins_even_with_an_overline():
    s = position(["d8", "e8", "f8", "g8", "h9", "h10", "h11", "h7", "h6"], ["c8"])
    assert RENJU.parse_move("h8") in s.winning_moves(0)
    after = s.play("h8")
    assert after.is_terminal and after.winner == 0


def test_white_wins_with_an_overline_black_does_not():
    line = ["c8", "d8", "e8", "g8", "h8"]
    f8 = RENJU.parse_move("f8")
    white_to_move = RENJU.from_stones(FILLERS[:6], line, to_play=1)
    assert f8 in white_to_move.winning_moves(1)
    after = white_to_move.play("f8")
    assert after.is_terminal and after.winner == 1
    black_to_move = position(line)
    assert f8 not in black_to_move.winning_moves(0)
    assert f8 not in black_to_move.legal_moves()
    # freestyle: the same overline wins for Black
    free = position(line, game=make("gomoku"))
    assert free.play("f8").winner == 0


def test_white_has_no_forbidden_points():
    s = RENJU.from_stones(FILLERS[:4], ["f8", "g8", "h10", "h9"], to_play=1)
    assert forbidden(s) == []
    assert not s.play("h8").is_terminal


# --- the recursive three rule ------------------------------------------------------------------
# Found by comparing the reference with and without the recursion on random positions: at g9 the
# two lines look like threes, but one three's straight-four points are themselves forbidden, so it
# is no three and g9 is allowed.
RECURSIVE_BLACK = ["e11", "g11", "g10", "i10", "j10", "e8", "h8", "k8", "e7", "j7", "h6", "f5"]


def test_recursive_three_is_not_a_three():
    s = position(RECURSIVE_BLACK)
    board = [list(map(int, row)) for row in s.board]
    naive = [RENJU.format_move(c) for c in ref.forbidden_cells(board, recursive=False)]
    assert "g9" in naive  # a double-three if every three counted
    assert "g9" not in forbidden(s)  # ... but one of them is not a three under RIF
    assert forbidden(s) == reference_forbidden(s)
    s.play("g9")  # legal


# --- against the reference on random positions -------------------------------------------------
@st.composite
def crowded_boards(draw):
    """A 15 x 15 board with stones packed in a 7 x 7 centre (many patterns); Black to move."""
    cells = draw(st.lists(st.tuples(st.integers(4, 10), st.integers(4, 10), st.sampled_from([1, 1, 2])),
                          min_size=4, max_size=22))
    board = [[0] * 15 for _ in range(15)]
    for x, y, v in cells:
        board[y][x] = v
    return board


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crowded_boards())
def test_forbidden_points_match_the_reference(board):
    flat = np.array(board, dtype=np.int8).ravel()
    out = np.empty(225, np.int64)
    k = renju.forbidden_cells(flat, 15, 15, out)
    assert list(out[:k]) == ref.forbidden_cells(board)
    assert np.array_equal(flat, np.array(board, dtype=np.int8).ravel())  # the board is unchanged


# --- rules options ------------------------------------------------------------------------------
def test_renju_needs_five_in_a_row():
    with pytest.raises(ValueError, match="renju"):
        make("gomoku", rule="renju", n_in_row=4)
    assert "renju" in RENJU.describe()


def test_legal_moves_skip_forbidden_points_for_black_only():
    s = position(["f8", "g8", "h10", "h9"])
    h8 = RENJU.parse_move("h8")
    assert h8 not in s.legal_moves()
    assert len(s.legal_moves()) == 225 - 8 - 1
    assert h8 in s.play("a15").legal_moves()  # White to move


# --- search and solvers respect the rule -----------------------------------------------------------
def test_search_loses_when_the_only_block_is_forbidden():
    from zeroplay.search import search

    # White's d8..g8 (c8 is Black's) threatens five at h8 only; h8 is a double-three point for
    # Black (h9 h10 and i9 j10): Black cannot block, and the search must not play h8
    s = RENJU.from_stones(["c8", "h9", "h10", "i9", "j10"], ["d8", "e8", "f8", "g8", "a1"], to_play=0)
    h8 = RENJU.parse_move("h8")
    assert h8 in s.winning_moves(1)
    assert h8 in RENJU.forbidden_moves(s)
    result = search(s, playouts=64)
    assert result.best_move != h8
    assert all(m.move != h8 for m in result.moves)
    assert result.root_q < -0.9  # every move loses to the five at h8


def test_vcf_needs_the_forbidden_double_four_in_freestyle_only():
    from zeroplay.solvers.threat_solver import solve_vcf

    black = ["e8", "f8", "g8", "h11", "h10", "h9"]
    white = ["d8", "h12", "a1", "c1", "e1", "g1"]
    free = make("gomoku").from_stones(black, white, to_play=0)
    found = solve_vcf(free)
    assert found.found and RENJU.format_move(found.line[0]) == "h8"
    r = solve_vcf(RENJU.from_stones(black, white, to_play=0))
    assert RENJU.parse_move("h8") not in r.line
    assert r.complete


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crowded_boards(), st.integers(0, 1))
def test_threat_lines_replay_legally(board, to_play):
    from zeroplay.solvers.threat_solver import ThreatSolver

    flat = np.array(board, dtype=np.int8).ravel()
    black = [int(c) for c in np.flatnonzero(flat == 1)]
    white = [int(c) for c in np.flatnonzero(flat == 2)]
    try:
        s = RENJU.from_stones(black, white, to_play=to_play)
    except ValueError:
        return  # both sides already hold a five
    if s.is_terminal:
        return
    solver = ThreatSolver(RENJU, table_mib=1)
    for result in (solver.vcf(s, nodes=2000), solver.vct(s, nodes=2000)):
        if result.found:
            after = s.play_many(result.line)  # raises on a forbidden point
            assert after.is_terminal and after.winner == to_play
