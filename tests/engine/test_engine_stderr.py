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


def test_the_tail_shows_control_characters_and_reads_past_bad_bytes():
    import io

    raw = io.BytesIO(b"\x95\xb6\x8e\x9a sjis\n" * 3 + b"\x1b[31mred\x1b[0m\r\nfinal\x00 end\n")
    tail = StderrTail(io.TextIOWrapper(raw, encoding="utf-8", errors="replace"))  # as the players open it
    said = tail.said()
    assert "\x1b" not in said and "\x00" not in said and said.endswith("?[31mred?[0m | final? end")
    assert "sjis" in said


def test_a_usi_engine_that_writes_shift_jis_plays_on(tmp_path):
    # helper-77: a Shift-JIS info string killed the reader thread; the match waited out its bestmove
    engine = tmp_path / "sjis_usi.py"
    engine.write_text(
        "import sys\n"
        "out = sys.stdout.buffer\n"
        "for line in sys.stdin:\n"
        "    cmd = line.split()\n"
        "    if not cmd: continue\n"
        "    if cmd[0] == 'usi': out.write(b'id name sjis\\nusiok\\n')\n"
        "    elif cmd[0] == 'isready': out.write(b'readyok\\n')\n"
        "    elif cmd[0] == 'go': out.write(b'info string \\x95\\xb6\\x8e\\x9a\\nbestmove 7g7f\\n')\n"
        "    elif cmd[0] == 'quit': break\n"
        "    out.flush()\n")
    player = UsiPlayer([sys.executable, str(engine)])
    game = make("shogi")
    player.new_game(game)
    state = game.initial()
    assert state.move_text(player.play(state)) == "7g7f"
    player.close()
