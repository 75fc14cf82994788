"""The arena's ``gtp:COMMAND`` players: GNU Go (skipped where it is not installed), a fake engine
that resigns or answers nonsense, and the issue's 20-game 9x9 match against GNU Go level 1
(slow)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from zeroplay.engine.gtp_player import GtpClient, GtpCommandError, GtpIllegalMoveError, GtpPlayer, GtpProtocolError
from zeroplay.games import make
from zeroplay.engine.arena import make_player, play_match

GNUGO = shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")
needs_gnugo = pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")
ROOT = Path(__file__).resolve().parents[2]

FAKE = r"""
import sys
reply = sys.argv[1]
for line in sys.stdin:
    cmd = line.split()
    if not cmd:
        continue
    if cmd[0] == "quit":
        print("=\n", flush=True)
        break
    if cmd[0] == "genmove":
        print(reply.replace("\\n", "\n") + "\n", flush=True)
    else:
        print("=\n", flush=True)
"""


def _fake(tmp_path, reply):
    script = tmp_path / "fake_gtp.py"
    script.write_text(FAKE)
    return [sys.executable, str(script), reply]


def test_resign_loses_the_game(tmp_path):
    game = make("go", size=5)
    a = GtpPlayer(_fake(tmp_path, "= resign"), name="resigner")
    b = GtpPlayer(_fake(tmp_path, "= pass"), name="passer")
    try:
        result = play_match(game, a, b, 2)
    finally:
        a.close()
        b.close()
    assert (result.wins, result.losses) == (0, 2)


@pytest.mark.parametrize("reply,error", [("= Z9", GtpProtocolError), ("garbage", GtpProtocolError),
                                         ("? no", GtpCommandError)])
def test_bad_replies_raise(tmp_path, reply, error):
    game = make("go", size=5)
    p = GtpPlayer(_fake(tmp_path, reply), timeout_s=20)
    try:
        p.new_game(game)
        with pytest.raises(error):
            p.play(game.initial())
    finally:
        p.close()


def test_illegal_genmove_raises(tmp_path):
    game = make("go", size=5)
    p = GtpPlayer(_fake(tmp_path, "= C3"), timeout_s=20)
    try:
        state = game.initial().play("C3")
        p.new_game(game)
        with pytest.raises(GtpIllegalMoveError):
            p.play(state)
    finally:
        p.close()


def test_go_only():
    with pytest.raises(ValueError, match="Go"):
        GtpPlayer("true").new_game(make("connect4"))


@needs_gnugo
def test_gnugo_plays_itself_in_the_arena():
    game = make("go", size=5, komi=0)
    spec = "gtp:gnugo --mode gtp --level 0 --chinese-rules"
    a, b = make_player(spec, game), make_player(spec, game)
    try:
        result = play_match(game, a, b, 2)
    finally:
        a.close()
        b.close()
    assert result.played == 2 and a.name == spec
    client = GtpClient([GNUGO, "--mode", "gtp"])
    try:
        assert client.send("protocol_version") == "2"
        with pytest.raises(GtpCommandError):
            client.send("play b Z99")
    finally:
        client.close()


@needs_gnugo
@pytest.mark.slow
def test_20_games_against_gnugo_level_1():
    """Issue 22: 20 games 9x9, area scoring, komi 7: no illegal move, no protocol error (either
    would raise). The same as ``zeroplay arena "gtp:python -m zeroplay gtp --playouts 2000"
    "gtp:gnugo --mode gtp --level 1 --chinese-rules --capture-all-dead" --game go --size 9 --komi 7 --games 20``."""
    game = make("go", size=9, komi=7)
    ours = GtpPlayer([sys.executable, "-m", "zeroplay", "gtp", "--playouts", "2000"], name="zeroplay gtp")
    gnugo = GtpPlayer([GNUGO, "--mode", "gtp", "--level", "1", "--chinese-rules", "--capture-all-dead"], name="gnugo level 1")
    try:
        result = play_match(game, ours, gnugo, 20)
    finally:
        ours.close()
        gnugo.close()
    assert result.played == 20


SLOW_FIRST = r"""
import sys, time
genmoves = 0
for line in sys.stdin:
    cmd = line.split()
    if not cmd:
        continue
    if cmd[0] == "genmove":
        genmoves += 1
        time.sleep(1.5 if genmoves in (1, 3) else 0)  # 1: a compile; 3: a hang
        print("= pass\n", flush=True)
    else:
        print("=\n", flush=True)
"""


def test_the_first_genmove_may_take_longer_than_the_others(tmp_path):
    """``zeroplay arena "gtp:zeroplay gtp" gtp:gnugo ...`` on a fresh install: the first genmove
    compiled for over 120 s (the per-reply limit), the arena killed the engine mid-compile, and
    every rerun did the same. The first genmove now has its own, longer limit."""
    script = tmp_path / "slow_first.py"
    script.write_text(SLOW_FIRST)
    player = GtpPlayer([sys.executable, str(script)], timeout_s=0.7, first_genmove_timeout_s=30)
    game = make("go", size=5)
    try:
        start = game.initial()
        assert player.play(start) == game.pass_action  # 1.5 s: the first, allowed
        assert player.play(start) == game.pass_action
        with pytest.raises(GtpProtocolError, match="no reply within 0.7 s"):
            player.play(start)  # 1.5 s later on: too slow
    finally:
        player.close()


@needs_gnugo
def test_gnu_go_without_the_arenas_rules_is_noted_for_go():
    """The games are counted Tromp-Taylor by area; GNU Go left dead stones on the board without
    --capture-all-dead (its own count named another winner in 28 of 100 games), and plays
    Japanese rules without --chinese-rules."""
    from zeroplay.engine.arena import gnugo_notes

    go, gomoku = make("go", size=9, komi=7.0), make("gomoku", size=9)
    plain = make_player(f"gtp:{GNUGO} --mode gtp --level 1", go, playouts=10)
    notes = gnugo_notes(plain, go)
    assert len(notes) == 2 and "--capture-all-dead" in notes[0] and "--chinese-rules" in notes[1]
    territory = make("go", size=9, scoring="territory")
    assert len(gnugo_notes(make_player(f"gtp:{GNUGO} --mode gtp", territory, playouts=10), territory)) == 1
    both = make_player(f"gtp:{GNUGO} --mode gtp --level 1 --chinese-rules --capture-all-dead", go, playouts=10)
    assert gnugo_notes(both, go) == []
    assert gnugo_notes(make_player("heuristic:10", go, playouts=10), go) == []
    assert gnugo_notes(make_player("heuristic:10", gomoku, playouts=10), gomoku) == []
