"""An engine that exits says why: the last lines of its stderr end the error (helper-76: a
mistyped ``usi:python -m ...`` said only "the engine exited before 'usiok'")."""

from __future__ import annotations

import sys

import pytest

from zeroplay.engine.gtp_player import GtpClient, GtpProtocolError
from zeroplay.engine.pbrain_player import PbrainError, PbrainPlayer
from zeroplay.engine.programs import StderrTail
from zeroplay.engine.shogi_players import UsiError, UsiPlayer
from zeroplay.games import make

DIES = [sys.executable, "-c", "import sys; print('noise', file=sys.stderr); sys.exit('No module named zeroplay')"]


def test_a_usi_engine_that_exits_at_start_names_its_last_words():
    with pytest.raises(UsiError, match=r"exited before 'usiok'; its stderr ended: noise \| No module named zeroplay"):
        UsiPlayer(DIES).new_game(make("shogi"))


def test_a_gtp_engine_that_exits_names_its_last_words():
    with pytest.raises(GtpProtocolError, match=r"the engine exited; its stderr ended: noise \| No module named zeroplay"):
        GtpClient(DIES).send("boardsize 9")


def test_a_pbrain_engine_that_exits_names_its_last_words():
    player = PbrainPlayer(DIES, startup_grace_s=10)
    with pytest.raises(PbrainError, match=r"the engine exited; its stderr ended: noise \| No module named zeroplay"):
        player.new_game(make("gomoku", size=15))


def test_the_tail_is_bounded_in_lines_and_width():
    import io

    tail = StderrTail(io.StringIO("".join(f"line {i}\n" for i in range(100)) + "x" * 10_000))
    said = tail.said()
    assert len(tail.lines) == StderrTail.LINES and all(len(line) <= StderrTail.WIDTH for line in tail.lines)
    assert said.startswith("; its stderr ended: ") and "line 0" not in said
