"""GTP ``undo``: every accepted ``play`` / ``genmove`` -- passes, moves after a double pass and
moves out of turn included -- is one undo step, as in GNU Go 3.8 (``gnugo --mode gtp``) and
KataGo; ``undo`` with nothing to take back answers ``? cannot undo``. Checked without GNU Go on
the sequences a user found stuck, and against GNU Go itself where it is installed."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest
from gtp_helpers import ask, gtp_session

GNUGO = shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")


def stones(session, color):
    return sorted(session.game.format_move(int(c)) for c in session.state.stones(color))


def test_undo_steps_back_past_a_double_pass_and_the_move_after_it():
    """Was: the move after two passes pushed a hidden set-up entry, and ``undo`` stopped there."""
    s, out = gtp_session(8)
    for line in ("play b D4", "play w pass", "play b pass", "play w E5"):
        assert ask(s, out, line) == "=\n\n"
    assert stones(s, 1) == ["E5"]
    for _ in range(4):
        assert ask(s, out, "undo") == "=\n\n"
    assert ask(s, out, "undo") == "? cannot undo\n\n"
    assert stones(s, 0) == [] and stones(s, 1) == [] and s.state.to_play == 0


def test_undo_steps_back_past_moves_out_of_turn():
    s, out = gtp_session(8)
    assert ask(s, out, "play b D4") == "=\n\n" and ask(s, out, "play b E5") == "=\n\n"
    assert stones(s, 0) == ["D4", "E5"] and s.state.to_play == 1
    assert ask(s, out, "undo") == "=\n\n"
    assert stones(s, 0) == ["D4"] and s.state.to_play == 1
    assert ask(s, out, "undo") == "=\n\n"
    assert stones(s, 0) == [] and s.state.to_play == 0
    assert ask(s, out, "undo") == "? cannot undo\n\n"


def test_a_genmove_out_of_turn_is_one_undo_step():
    s, out = gtp_session(8)
    assert ask(s, out, "play b D4") == "=\n\n"
    reply = ask(s, out, "genmove b")
    assert reply.startswith("= ") and "resign" not in reply
    for _ in range(2):
        assert ask(s, out, "undo") == "=\n\n"
    assert ask(s, out, "undo") == "? cannot undo\n\n" and stones(s, 0) == []


def test_undo_keeps_the_handicap_and_the_game_goes_on():
    s, out = gtp_session(8)
    assert ask(s, out, "fixed_handicap 2") == "= C3 G7\n\n"
    assert ask(s, out, "play w E5") == "=\n\n" and ask(s, out, "play w D5") == "=\n\n"  # out of turn
    assert ask(s, out, "undo") == "=\n\n" and ask(s, out, "undo") == "=\n\n"
    assert ask(s, out, "undo") == "? cannot undo\n\n"
    assert stones(s, 0) == ["C3", "G7"] and stones(s, 1) == [] and s.state.to_play == 1


def test_printsgf_writes_every_move_out_of_turn_and_after_two_passes_with_its_colour():
    s, out = gtp_session(8)
    for line in ("play b E5", "play w C3", "play b pass", "play w pass", "play b G7", "play w F6", "play w C4"):
        assert ask(s, out, line) == "=\n\n"
    sgf = ask(s, out, "printsgf")
    assert "AB[" not in sgf and "AW[" not in sgf and "PL[" not in sgf
    assert sgf.endswith(";B[ee];W[cg];B[];W[];B[gc];W[fd];W[cf])\n\n"), sgf


def test_printsgf_after_a_handicap_keeps_the_setup_and_every_move():
    s, out = gtp_session(8)
    assert ask(s, out, "fixed_handicap 2") == "= C3 G7\n\n"
    for line in ("play w E5", "play w F6", "play b D4"):
        assert ask(s, out, line) == "=\n\n"
    sgf = ask(s, out, "printsgf")
    assert "AB[gc][cg]PL[W]" in sgf or "AB[cg][gc]PL[W]" in sgf
    assert "AW[" not in sgf and sgf.endswith(";W[ee];W[fd];B[df])\n\n"), sgf


def _random_script(seed: int, n: int) -> list[str]:
    """``play`` (either colour, often out of turn, passes), ``undo`` and ``clear_board`` lines on
    5x5; moves on empty points only, so both engines accept the same ones."""
    rng = random.Random(seed)
    lines = ["boardsize 5", "clear_board", "komi 0.5"]
    for _ in range(n):
        r = rng.random()
        if r < 0.3:
            lines.append("undo")
        elif r < 0.33:
            lines.append("clear_board")
        else:
            color = rng.choice("bw")
            vertex = "pass" if rng.random() < 0.25 else rng.choice("ABCDE") + str(rng.randrange(1, 6))
            lines.append(f"play {color} {vertex}")
    return lines


def _gnugo_replies(lines: list[str]) -> list[tuple[str, list[str], list[str]]]:
    """GNU Go's status (``=`` / ``?``) of each line, with its Black and White stones after it."""
    script = []
    for line in lines:
        script += [line, "list_stones black", "list_stones white"]
    argv = [GNUGO, "--mode", "gtp", "--chinese-rules", "--simple-ko", "--forbid-suicide"]
    proc = subprocess.run(argv, input="\n".join(script + ["quit"]) + "\n", capture_output=True, text=True,
                          timeout=120)
    replies = proc.stdout.split("\n\n")
    out = []
    for i in range(len(lines)):
        status, black, white = replies[3 * i: 3 * i + 3]
        out.append((status[0], sorted(black[1:].split()), sorted(white[1:].split())))
    return out


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")
@pytest.mark.parametrize("seed", range(3))
def test_play_and_undo_agree_with_gnugo(seed):
    lines = _random_script(seed, 120)
    theirs = _gnugo_replies(lines)
    s, out = gtp_session(8)
    for line, (status, black, white) in zip(lines, theirs):
        reply = ask(s, out, line)
        assert (reply[0], stones(s, 0), stones(s, 1)) == (status, black, white), line



def test_loadsgf_reads_back_a_record_with_moves_out_of_turn_and_after_two_passes(tmp_path):
    s, out = gtp_session(8, scoring="territory")
    for line in ("boardsize 5", "clear_board", "komi 0.5", "play b B1", "play w A1", "play b A2", "play b pass",
                 "play w pass", "play w E5", "play w D5", "play b pass"):
        assert ask(s, out, line) == "=\n\n"
    path = tmp_path / "game.sgf"
    path.write_text(ask(s, out, "printsgf")[3:-2])
    t, out2 = gtp_session(8, scoring="territory")
    assert ask(t, out2, f"loadsgf {path}") == "= white\n\n"
    assert ask(t, out2, "showboard") == ask(s, out, "showboard")  # stones, prisoners, to move
    assert [e[2] for e in t.events] == [e[2] for e in s.events]
    assert ask(t, out2, f"loadsgf {path} 6") == "= black\n\n"  # before W E5: after the two passes
    assert t.state.is_terminal and "prisoners: Black 1, White 0" in ask(t, out2, "showboard")
    assert ask(t, out2, "final_score") == "= B+23.5\n\n"
