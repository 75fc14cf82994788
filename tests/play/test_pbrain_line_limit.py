"""The Gomocup engine's bounds on its input: a line over ``MAX_LINE`` characters is read in pieces,
dropped and answered with one ERROR (a tester's 300 MB TURN line took 3.7 GB and 52 s), a
BOARD / YXBOARD block keeps at most one stone line per cell, and the lines read ahead of a busy
engine are bounded in characters too."""

from __future__ import annotations

import io
import re
import time

import pytest
from play_helpers import Engine, run_pbrain

from zeroplay.play import pbrain
from zeroplay.play.pbrain_engine import PbrainEngine
from zeroplay.play.pbrain_protocol import MAX_LINE

TOO_LONG = f"ERROR line too long ({MAX_LINE} characters at most); line ignored"
MOVE = re.compile(r"\d+,\d+")


class Input(io.StringIO):
    """stdin that records the longest piece the reader asked for, and refuses to be iterated
    (``for line in stdin`` reads a line whole, however long)."""

    longest = 0

    def readline(self, size=-1):  # type: ignore[override]
        line = super().readline(size)
        self.longest = max(self.longest, len(line))
        return line

    def __next__(self):
        raise AssertionError("the reader iterated the stream: its lines are read whole")


def serve(text: str, monkeypatch) -> tuple[list[str], list[int], Input]:
    """``pbrain.run`` on ``text`` (no search: the heuristic answers moves); the replies, the
    lengths of the lines the engine was given, and the stream."""
    handled: list[int] = []
    real = PbrainEngine.handle

    def spy(self, line: str) -> None:
        handled.append(len(line))
        real(self, line)

    monkeypatch.setattr(PbrainEngine, "handle", spy)
    replies: list[str] = []
    stdin = Input(text)
    assert pbrain.run(stdin, replies.append, search=False, warm_up=False, log=io.StringIO()) == 0
    return replies, handled, stdin


def test_an_over_long_line_gets_one_error_and_the_next_turn_is_played(monkeypatch):
    replies, handled, stdin = serve("START 15\nTURN " + "7" * 2_000_000 + "\nTURN 7,7\nEND\nTURN 8,8\n", monkeypatch)
    assert replies[:2] == ["OK", TOO_LONG]
    assert len(replies) == 3 and MOVE.fullmatch(replies[2]) and replies[2] != "7,7"  # END ended it
    assert max(handled) <= MAX_LINE + 2  # the line's text never reached the engine
    assert stdin.longest <= MAX_LINE + 2  # nor was it read whole


def test_the_limit_counts_the_characters_before_the_line_end(monkeypatch):
    at_limit = "INFO folder " + "a" * (MAX_LINE - len("INFO folder "))
    replies, handled, _ = serve(f"START 15\r\n{at_limit}\r\n{at_limit}a\r\n{at_limit}\nABOUT\nEND\n", monkeypatch)
    assert replies[:2] == ["OK", TOO_LONG]  # INFO answers nothing: the line at the limit was read
    assert replies[2].startswith("name=") and len(replies) == 3
    assert max(handled) == MAX_LINE + 2


def test_a_line_too_long_inside_a_board_block_discards_the_board(monkeypatch):
    text = "START 15\nBOARD\n1,1,1\n" + "1" * 100_000 + "\n2,2,2\nDONE\nTURN 7,7\nEND\n"
    replies, handled, _ = serve(text, monkeypatch)
    assert replies[:2] == ["OK", f"ERROR BOARD expects x,y,field lines then DONE, got a line too long "
                                 f"({MAX_LINE} characters at most); board discarded"]
    assert len(replies) == 3 and MOVE.fullmatch(replies[2])
    assert max(handled) <= MAX_LINE + 2


def test_a_list_of_lines_is_bounded_too():
    replies: list[str] = []
    lines = ["START 9\n", "TURN " + "7" * (MAX_LINE + 1) + "\n", "TURN 4,4\n", "END\n"]
    pbrain.run(iter(lines), replies.append, search=False, warm_up=False, log=io.StringIO())
    assert replies[:2] == ["OK", TOO_LONG] and MOVE.fullmatch(replies[2])
    e = Engine(search=False)  # and a caller of handle() itself
    replies = e.send("START 9", "X" * (MAX_LINE + 1), "ABOUT")
    assert replies[1] == TOO_LONG and replies[2].startswith("name=") and len(replies) == 3


def test_an_over_long_yxstop_line_stops_nothing(monkeypatch):
    # the engine refuses the line, so the reader must not take it as YXSTOP: the stop flag it
    # would set stays set (only a YXSTOP command clears it) and the next search would stop at once
    stops: list[str] = []
    monkeypatch.setattr(PbrainEngine, "interrupt_search", lambda self: stops.append("stop"))
    replies, _, _ = serve("START 9\nYXSTOP " + " " * MAX_LINE + "x\nYXSTOP\nEND\n", monkeypatch)
    assert replies == ["OK", TOO_LONG] and stops == ["stop"]


@pytest.mark.parametrize("command", ["BOARD", "YXBOARD"])
def test_a_board_block_keeps_one_stone_line_per_cell(command):
    e = Engine(search=False)
    e.send("START 5", command)
    cells = [f"{x},{y},{1 + (x + y) % 2}" for y in range(5) for x in range(5)]
    assert e.send(*cells) == []
    e.send(*["  1 ,  1 , 1" + " " * 1000] * 5000)  # lines past the board's 25 cells are dropped
    assert len(e.engine._board_lines) == 25 and all(len(line) <= 8 for line in e.engine._board_lines)
    assert e.send("DONE") == [f"ERROR {command} expects x,y,field lines then DONE, got more than 25 stone "
                              "lines (the 5x5 board has 25 cells); board discarded"]
    assert not e.engine.board.any()
    e.send("YXBOARD", *cells)  # a full board is read (YXBOARD answers nothing)
    assert e.send("DONE") == [] and e.engine.board.all()


def test_a_block_before_start_is_bounded_by_the_largest_board():
    e = Engine(search=False)
    e.send("BOARD", *["0,0,1"] * 10_000)
    assert len(e.engine._board_lines) == 25 * 25
    assert e.send("DONE")[0].startswith("ERROR no game")


def test_swap2board_keeps_six_lines():
    e = Engine(search=False)
    e.send("START 15", "SWAP2BOARD", *[f"{x},0" for x in range(9)])
    assert len(e.engine._board_lines) == 6
    assert e.send("DONE") == ["ERROR SWAP2BOARD expects x,y lines then DONE, got more than 6 stone lines"]


def test_lines_read_ahead_of_a_busy_engine_are_bounded_in_characters(monkeypatch):
    monkeypatch.setattr(pbrain, "MAX_QUEUED_CHARS", 100)
    stdin = Input("START 15\n" + "INFO folder abcdefghijklmnopqrstuvwxyz\n" * 50 + "END\n")
    read_ahead: list[int] = []
    real = PbrainEngine.handle

    def slow(self, line: str) -> None:
        if not read_ahead:
            time.sleep(0.3)  # a search: the reader goes on meanwhile
            read_ahead.append(stdin.tell())
        real(self, line)

    monkeypatch.setattr(PbrainEngine, "handle", slow)
    replies: list[str] = []
    pbrain.run(stdin, replies.append, search=False, warm_up=False, log=io.StringIO())
    assert replies == ["OK"]
    assert read_ahead[0] <= len("START 15\n") + 5 * 40  # ~100 characters queued, one line in hand


def test_process_answers_over_long_and_non_ascii_lines():
    proc = run_pbrain("START 15\r\nTURN " + "7" * 1_000_000 + "\r\nSTART \uff11\uff15\r\nEND\r\n")
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    assert proc.stdout.decode("ascii").splitlines() == [
        "OK", TOO_LONG, "ERROR START expects a board size such as 15, got '\\uff11\\uff15'"]
