"""Renju on the boards people play on (issue 23): the terminal and the web board mark Black's
forbidden points and refuse them with a clear message; ``zeroplay analyze`` takes the rule."""

from __future__ import annotations

from zeroplay.games import make

RENJU = make("gomoku", rule="renju")
# Black f8 g8 h10 h9: h8 is a double-three; White fillers on row 1
DOUBLE_THREE = RENJU.from_stones(["f8", "g8", "h10", "h9"], ["a1", "c1", "e1", "g1"], to_play=0)


def test_the_board_text_marks_forbidden_points_for_black_only():
    text = str(DOUBLE_THREE)
    row8 = next(line for line in text.splitlines() if line.startswith(" 8 "))
    assert row8.split()[1 + 7] == "!"  # column h
    assert "! = forbidden for Black" in text
    white = DOUBLE_THREE.play("a15")
    assert "!" not in str(white)
    assert "!" not in str(make("gomoku").from_stones(["f8", "g8", "h10", "h9"], ["a1", "c1", "e1", "g1"]))


def test_terminal_shows_the_mark_and_refuses_the_point():
    from zeroplay.engine.factory import make_engine
    from zeroplay.play.terminal import TerminalGame

    lines: list[str] = []
    t = TerminalGame(RENJU, make_engine(RENJU, use_shipped=False), 0, playouts=8, out=lines.append)
    t.state = DOUBLE_THREE
    t.show_board()
    assert "! = forbidden for Black" in lines[-1]
    t.handle("h8")
    assert lines[-1].startswith("Illegal: move h8: h8 is forbidden for Black under renju (double-three)")
    assert t.state is DOUBLE_THREE  # nothing played


def test_web_game_json_lists_forbidden_points_and_refuses_them():
    import pytest

    from zeroplay.play.webgame import GameInputError, Options, WebGame

    with pytest.raises(GameInputError, match="renju is played five in a row"):
        Options(size=9, rule="renju", n_in_row=4).check()
    moves = tuple(RENJU.parse_move(m) for m in ("f8", "a1", "g8", "c1", "h10", "e1", "h9", "g1"))
    g = WebGame("renju", Options(rule="renju").check(), moves)
    h8 = RENJU.parse_move("h8")
    view = g.to_json()
    assert view["forbidden"] == [h8] and view["options"]["rule"] == "renju"
    with pytest.raises(GameInputError, match=r"h8 is forbidden for Black under renju \(double-three\)"):
        g.play_human("h8")
    assert g.state.ply == 8
    assert WebGame("free", Options().check(), moves).to_json()["forbidden"] == []


def test_analyze_takes_the_renju_rule():
    import json

    from zeroplay.play.analyze import Analyzer

    a = Analyzer(max_playouts=50)
    bad = a.answer_line(json.dumps({"id": "r", "rule": "renju", "n_in_row": 4, "playouts": 10}))
    assert "renju is played five in a row" in bad["error"]
