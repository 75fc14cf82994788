"""GTP commands GUIs and servers send beyond the standard set: KataGo's ``get_komi``,
``clear_cache`` and ``stop``, GoGui's ``cputime`` and KGS's ``kgs-time_settings`` (answered
``? unknown command`` before)."""

from __future__ import annotations

import pytest
from gtp_helpers import ask, gtp_session

from zeroplay.play.gtp_time import MIN_MOVE_SECONDS, TimeControl, TimeError


def test_they_are_listed_and_known():
    session, out = gtp_session(size=5)
    listed = ask(session, out, "list_commands").split()
    for name in ("get_komi", "clear_cache", "stop", "cputime", "kgs-time_settings"):
        assert name in listed
        assert ask(session, out, f"known_command {name}") == "= true\n\n"


def test_get_komi_follows_komi():
    session, out = gtp_session(size=5, komi=6.5)
    assert ask(session, out, "get_komi") == "= 6.5\n\n"
    ask(session, out, "komi 7")
    assert ask(session, out, "get_komi") == "= 7\n\n"
    ask(session, out, "komi -3.5")
    assert ask(session, out, "get_komi") == "= -3.5\n\n"


def test_clear_cache_drops_the_tree_and_the_game_goes_on():
    session, out = gtp_session(playouts=40, size=5)
    assert ask(session, out, "genmove b").startswith("= ")
    assert session.engine._searcher is not None
    assert ask(session, out, "clear_cache") == "=\n\n"
    assert session.engine._searcher is None  # the next search starts afresh
    move = ask(session, out, "genmove w")
    assert move.startswith("= ") and "resign" not in move
    assert len(session.events) == 2  # the game itself is kept


def test_stop_and_cputime():
    session, out = gtp_session(playouts=40, size=5)
    assert ask(session, out, "stop") == "=\n\n"
    first = float(ask(session, out, "cputime")[2:])
    ask(session, out, "genmove b")
    assert float(ask(session, out, "cputime")[2:]) > first >= 0


@pytest.mark.parametrize("args, left, seconds", [
    (["none"], None, None),
    (["absolute", "300"], None, 10.0),
    (["absolute", "300"], ["60", "0"], 2.0),
    (["canadian", "300", "100", "10"], ["100", "10"], 0.8 * 100 / 10 - 0.2),
    (["byoyomi", "300", "30", "5"], None, 10.0),  # main time first
    # Japanese byo-yomi: time_left gives the period's seconds and the periods left; a move has
    # the period (not period / periods, as the stones of Canadian byo-yomi would)
    (["byoyomi", "0", "30", "5"], None, 0.8 * 30 - 0.2),
    (["byoyomi", "300", "30", "5"], ["30", "5"], 0.8 * 30 - 0.2),
    (["byoyomi", "300", "30", "5"], ["12", "1"], 0.8 * 12 - 0.2),
    (["byoyomi", "300", "30", "5"], ["0.1", "1"], MIN_MOVE_SECONDS),
    (["BYOYOMI", "300", "0", "0"], ["60", "0"], 2.0),  # no byo-yomi: absolute
])
def test_kgs_time_settings(args, left, seconds):
    clock = TimeControl()
    clock.parse_kgs_settings(args)
    if left is not None:
        clock.parse_left(0, left)
    assert clock.move_seconds(0) == (None if seconds is None else pytest.approx(seconds))


@pytest.mark.parametrize("args", [[], ["sudden"], ["absolute"], ["absolute", "1", "2"], ["byoyomi", "300", "30"],
                                  ["byoyomi", "300", "30", "0"], ["canadian", "300", "inf", "5"],
                                  ["absolute", "-1"], ["byoyomi", "300", "30", "1.5"]])
def test_bad_kgs_time_settings_are_refused_and_change_nothing(args):
    session, out = gtp_session(size=5)
    ask(session, out, "time_settings 300 10 5")
    reply = ask(session, out, "kgs-time_settings " + " ".join(args))
    assert reply.startswith("? syntax error: ")
    assert (session.clock.main_s, session.clock.byo_s, session.clock.byo_stones) == (300, 10, 5)
    with pytest.raises(TimeError):
        TimeControl().parse_kgs_settings(args)
