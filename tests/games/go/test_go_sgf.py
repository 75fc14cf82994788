"""Go SGF records (GM[1]): write and read back, passes both ways, set-up stones, komi, result,
and clear errors for what is not a Go record."""

from __future__ import annotations

import numpy as np
import pytest

from zeroplay.games import IllegalMoveError, make
from zeroplay.games.go.sgf import GoRecord, load_go_sgf, read_go_sgf, record_of_state, write_go_sgf


def test_a_finished_game_round_trips():
    g = make("go", size=9, komi=6.5)
    s = g.initial().play_many("E5 C3 pass G7 E3 pass pass".split())
    assert s.is_terminal
    text = write_go_sgf(record_of_state(s, black="me", white="zeroplay"))
    assert "GM[1]" in text and "SZ[9]" in text and "KM[6.5]" in text and "RU[area]" in text
    assert f"RE[{g.result_text(s)}]" in text and ";W[]" in text and ";B[ee]" in text
    back = read_go_sgf(text)
    assert back.moves == list(s.moves) and back.komi == 6.5 and back.black == "me"
    t = load_go_sgf(text)
    assert t.is_terminal and t.moves == s.moves and t.game.score(t) == g.score(s)


def test_fixed_points_and_ff3_pass():
    text = "(;GM[1]FF[3]SZ[9]KM[7]RE[W+R];B[aa];W[ii];B[tt];W[ba])"
    r = read_go_sgf(text)
    g = make("go", size=9)
    assert r.moves == [0, 80, 81, 1] and r.result == "W+R" and r.komi == 7.0
    assert [g.format_move(a) for a in r.moves] == ["A9", "J1", "pass", "B9"]


def test_setup_stones_and_side_to_move():
    g = make("go", size=9)
    rec = GoRecord(9, 9, 0.5, black_setup=[g.parse_move("C3"), g.parse_move("G7")], to_play=1,
                   moves=[g.parse_move("E5"), g.pass_action])
    text = write_go_sgf(rec)
    assert "AB[cg][gc]" in text and "PL[W]" in text and ";W[ee];B[])" in text
    s = load_go_sgf(text)
    board = s._pos.board
    assert board[g.parse_move("C3")] == 1 and board[g.parse_move("E5")] == 2 and s.to_play == 1
    # a handicap record without PL: White moves first after Black's set-up stones
    assert read_go_sgf("(;GM[1]SZ[9]HA[2]AB[cc][gg];W[ee])").to_play == 1


def test_rectangular_board_and_territory_rule():
    g = make("go", width=7, height=5, scoring="territory", komi=0)
    s = g.initial().play_many(["A1", "G5"])
    text = write_go_sgf(record_of_state(s))
    assert "SZ[7:5]" in text and "RU[territory]" in text
    t = load_go_sgf(text)
    assert t.game.rules.scoring == "territory" and np.array_equal(t._pos.board, s._pos.board)


@pytest.mark.parametrize("text,needle", [
    ("(;GM[4]SZ[15];B[hh])", "not Go"),
    ("(;GM[1]SZ[25];B[aa])", "outside 2..19"),
    ("(;GM[1]SZ[9]KM[x])", "not a number"),
    ("(;GM[1]SZ[9];B[aa];B[bb])", "out of turn"),
    ("(;GM[1]SZ[9];B[zz])", "not on the 9x9"),
    ("(;GM[1]SZ[9];B[aa];AB[cc])", "after the root"),
    ("GM[1]", "no '\\(;'"),
    # refused like the web board's reader does (this one used to read it)
    ("(((;GM[1]SZ[9];B[ee])))", "does not begin with a node"),
])
def test_bad_records_are_refused(text, needle):
    with pytest.raises(ValueError, match=needle):
        read_go_sgf(text)


def test_an_illegal_move_is_named():
    with pytest.raises(IllegalMoveError, match="SGF record: .*occupied"):
        load_go_sgf("(;GM[1]SZ[9];B[aa];W[aa])")


def test_moves_out_of_turn_are_read_with_their_colours_when_asked_and_written_back():
    text = "(;GM[1]SZ[9];B[aa];B[bb];W[];W[cc])"
    record = read_go_sgf(text, any_order=True)
    assert record.moves == [0, 10, 81, 20] and record.colors == [0, 0, 1, 1]
    assert write_go_sgf(record).endswith(";B[aa];B[bb];W[];W[cc])\n")
    with pytest.raises(ValueError, match="out of turn"):
        record.replay()
    assert read_go_sgf("(;GM[1]SZ[9];B[aa];W[bb])").colors is None


@pytest.mark.parametrize("ru, scoring", [
    ("Japanese", "territory"), ("korean", "territory"), ("territory", "territory"),
    ("Chinese", "area"), ("AGA", "area"), ("NZ", "area"), ("Tromp-Taylor", "area"), ("area", "area"),
    ("Ing", None), ("", None),
])
def test_sgf_rule_names_give_the_scoring(ru, scoring):
    """A new user's RU[Japanese] record was scored by area on the web board: SGF's own rule names
    now count, this program's are read as before, others leave the scoring to the caller."""
    from zeroplay.games.go.sgf import scoring_of_rules

    assert scoring_of_rules(ru) == scoring
    rec = read_go_sgf(f"(;GM[1]SZ[9]KM[6.5]RU[{ru}];B[ee])")
    assert rec.game().rules.scoring == (scoring or "area")
