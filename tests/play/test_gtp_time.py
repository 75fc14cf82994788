"""GTP time controls: the think time of a move is capped (``--max-seconds``), whatever
``time_settings`` / ``time_left`` say, and numbers that are not finite are refused. A fresh user's
``time_settings 1e308 0 0`` made every ``genmove`` think for 3e306 s."""

from __future__ import annotations

import time

import pytest
from gtp_helpers import ask, gtp_session

from zeroplay.play.gtp import main
from zeroplay.play.gtp_time import DEFAULT_MAX_MOVE_SECONDS, MIN_MOVE_SECONDS, TimeControl, TimeError


@pytest.mark.parametrize("args, left, seconds", [
    (["1e308", "0", "0"], None, DEFAULT_MAX_MOVE_SECONDS),  # was 1/30 of 1e308
    (["1e308", "1e308", "1"], None, DEFAULT_MAX_MOVE_SECONDS),
    (["300", "10", "5"], None, 10.0),
    (["300", "10", "5"], ["10", "5"], 0.8 * 10 / 5 - 0.2),
    (["300", "10", "5"], ["1e308", "0"], DEFAULT_MAX_MOVE_SECONDS),  # a huge time_left
    (["300", "10", "5"], ["1e308", "1"], DEFAULT_MAX_MOVE_SECONDS),
    (["300", "10", "5"], ["-5", "1"], MIN_MOVE_SECONDS),  # a clock past zero
    (["0", "0", "0"], None, None),  # no time controls: the engine's playouts
    (["0", "10", "0"], None, None),  # GTP 4.2: byo-yomi time with 0 stones is "no time limit"
])
def test_move_seconds_are_bounded(args, left, seconds):
    clock = TimeControl()
    clock.parse_settings(args)
    if left is not None:
        clock.parse_left(0, left)
    assert clock.move_seconds(0) == (None if seconds is None else pytest.approx(seconds))


@pytest.mark.parametrize("args", [["inf", "0", "0"], ["nan", "0", "0"], ["1e309", "0", "0"], ["0", "inf", "1"],
                                  ["-1", "0", "0"], ["300", "10", "-1"], ["300", "10", "1e3"], ["300", "10"]])
def test_time_settings_refuses_what_is_not_a_finite_time(args):
    clock = TimeControl()
    clock.parse_settings(["300", "10", "5"])
    with pytest.raises(TimeError):
        clock.parse_settings(args)
    assert clock.move_seconds(0) == pytest.approx(10.0)  # the clock is as it was


@pytest.mark.parametrize("max_seconds", [0, -1, float("inf"), float("nan")])
def test_the_cap_itself_must_be_finite_and_positive(max_seconds):
    with pytest.raises(ValueError, match="max_seconds"):
        TimeControl(max_seconds)


@pytest.mark.parametrize("line", ["time_settings inf 0 0", "time_settings nan 0 0", "time_settings 1e309 0 0",
                                  "time_left b inf 0", "time_left w nan 1", "time_left b 1e400 0"])
def test_gtp_refuses_non_finite_times(line):
    s, out = gtp_session(8)
    reply = ask(s, out, line)
    assert reply.startswith("? syntax error: ") and "finite" in reply


def test_a_huge_time_setting_still_ends_the_move_at_the_cap():
    s, out = gtp_session(8, max_seconds=0.3)
    assert ask(s, out, "time_settings 1e308 0 0") == "=\n\n"
    assert ask(s, out, "time_left b 1e308 0") == "=\n\n"
    assert s._move_seconds(0) == pytest.approx(0.3)
    started = time.monotonic()
    reply = ask(s, out, "genmove b")
    assert reply.startswith("= ") and time.monotonic() - started < 60


def test_seconds_above_the_cap_are_refused_at_start():
    with pytest.raises(ValueError, match="max-seconds"):
        gtp_session(8, seconds=5.0, max_seconds=1.0)
    assert main(["--seconds", "700"]) == 2  # above the default cap: refused before reading stdin
    assert main(["--max-seconds", "inf"]) == 2
    assert main(["--max-seconds", "0"]) == 2
