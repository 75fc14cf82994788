"""The USI front-end: the protocol's commands, time limits, go mate, bad input, fuzzing."""

from __future__ import annotations

import random
import re
import subprocess
import sys
import time

import pytest

from zeroplay.play.usi import DEFAULT_GO_SECONDS, UsiSession, _parse_go, think_seconds
from zeroplay.play.usi_fuzz import REPLY, random_lines

SCORE_LINE = re.compile(r"^info depth \d+ score (cp -?\d+|mate [+-]\d+) nodes \d+ nps \d+ time \d+( hashfull \d+)? pv \S+( \S+)*$")


class Session:
    def __init__(self, **kw):
        self.lines: list[str] = []
        self.usi = UsiSession(self.lines.append, **kw)

    def send(self, *lines):
        for line in lines:
            self.usi.handle(line)

    def wait_for(self, prefix: str, timeout: float = 60.0) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in self.lines:
                if line.startswith(prefix):
                    return line
            time.sleep(0.01)
        raise AssertionError(f"no {prefix!r} in {self.lines[-10:]}")


def _bestmove_with_score_line_before(lines):
    at = next(i for i, line in enumerate(lines) if line.startswith("bestmove"))
    assert SCORE_LINE.match(lines[at - 1]), lines[at - 1]
    return lines[at].split()[1]


def test_usi_lists_options_and_plays_a_legal_move():
    s = Session()
    s.send("usi")
    assert s.lines[0].startswith("id name zeroplay") and s.lines[-1] == "usiok"
    assert any(line.startswith("option name USI_Hash type spin") for line in s.lines)
    assert any(line.startswith("option name Engine type combo") for line in s.lines)
    s.send("setoption name USI_Hash value 8", "isready")
    assert s.lines[-1] == "readyok"
    s.send("usinewgame", "position startpos moves 7g7f 3c3d", "go btime 0 wtime 0 byoyomi 600")
    s.wait_for("bestmove")
    move = _bestmove_with_score_line_before(s.lines)
    from zeroplay.games import make

    assert move in {make("shogi").from_usi("startpos moves 7g7f 3c3d").move_text(int(m))
                    for m in make("shogi").from_usi("startpos moves 7g7f 3c3d").legal_moves()}
    s.send("gameover win", "quit")
    assert s.usi.finished


def test_resign_win_mate_and_go_mate():
    s = Session()
    s.send("setoption name USI_Hash value 4", "position sfen 7lk/9/8G/9/9/9/9/9/K8 b G 1 moves G*1b", "go byoyomi 100")
    s.wait_for("bestmove")
    assert _bestmove_with_score_line_before(s.lines) == "resign"
    s.lines.clear()
    s.send("position sfen RRBBGGGG1/4K4/SS7/9/9/9/9/9/4k4 b 2P 1", "go byoyomi 100")
    s.wait_for("bestmove")
    assert _bestmove_with_score_line_before(s.lines) == "win"
    s.lines.clear()
    s.send("position sfen 7lk/9/8G/9/9/9/9/9/K8 b G 1", "go byoyomi 1000")
    s.wait_for("bestmove")
    assert _bestmove_with_score_line_before(s.lines) == "G*1b" and "score mate +1" in s.lines[-2]
    s.lines.clear()
    s.send("go mate 2000")
    assert s.wait_for("checkmate") == "checkmate G*1b"
    s.lines.clear()
    s.send("position startpos", "go mate 500")
    assert s.wait_for("checkmate") == "checkmate nomate"


def test_infinite_and_ponder_answer_only_after_stop_or_ponderhit():
    s = Session()
    s.send("setoption name USI_Hash value 4", "setoption name USI_Ponder value true", "position startpos", "go infinite")
    time.sleep(0.3)
    assert not any(line.startswith("bestmove") for line in s.lines)
    s.send("stop")
    assert s.lines[-1].startswith("bestmove") and SCORE_LINE.match(s.lines[-2])
    s.lines.clear()
    s.send("position startpos moves 7g7f", "go ponder btime 0 wtime 0 byoyomi 300")
    time.sleep(0.3)
    assert not any(line.startswith("bestmove") for line in s.lines)
    s.send("ponderhit")
    s.wait_for("bestmove", timeout=30)


def test_time_budgets():
    assert think_seconds({"btime": 0, "wtime": 0, "byoyomi": 1000}, 0, 300) == pytest.approx(0.7)
    assert think_seconds({"btime": 60_000, "wtime": 1000, "binc": 1000, "winc": 1000}, 1, 100) == pytest.approx(
        (1000 / 30 + 1000 - 100) / 1000)
    assert think_seconds({"btime": 40_000}, 0, 0) == pytest.approx(1.0)
    assert think_seconds({"btime": 10, "wtime": 10}, 0, 300) == pytest.approx(0.02)
    assert think_seconds({"infinite": True}, 0, 300) is None and think_seconds({"nodes": 5}, 0, 0) is None
    assert think_seconds({"movetime": 1500}, 0, 300) == pytest.approx(1.2)
    # a clock given is the whole clock: `go byoyomi 0` alone thought for the 5 s default
    assert think_seconds({"byoyomi": 0}, 0, 300) == pytest.approx(0.02)
    assert think_seconds({"wtime": 0}, 0, 0) == pytest.approx(0.02)
    assert think_seconds({}, 0, 300) == DEFAULT_GO_SECONDS
    for bad in (["btime"], ["btime", "x"], ["nodes", "-1"], ["mate"], ["mate", "soon"], ["banana"]):
        with pytest.raises(ValueError):
            _parse_go(bad)


def test_bad_input_is_answered_and_keeps_the_position():
    s = Session()
    s.send("position startpos moves 7g7f")
    for line in ["position startpos moves 7g7f 7g7f", "position sfen x b - 1", "setoption name USI_Hash value 0",
                 "setoption name Nope value 1", "setoption name Engine value Random", "frobnicate"]:
        s.lines.clear()
        s.send(line)
        assert len(s.lines) == 1 and s.lines[0].startswith("info string"), (line, s.lines)
    assert s.usi.state.usi_moves == ("7g7f",)


@pytest.mark.parametrize("sfen, why", [
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 99P 1", "pawns"),
    ("P3k4/9/9/9/9/9/9/9/4K4 b 99P 1", "can never move"),  # it answered go with bestmove 5i6i
    ("4k4/9/9/9/9/9/4P4/4P4/4K4 b - 1", "nifu"),
])
def test_an_impossible_sfen_is_refused_and_keeps_the_position(sfen, why):
    s = Session()
    s.send("position startpos moves 7g7f")
    s.lines.clear()
    s.send(f"position sfen {sfen}")
    assert len(s.lines) == 1 and s.lines[0].startswith("info string") and why in s.lines[0], s.lines
    assert s.usi.state.usi_moves == ("7g7f",)


def test_a_go_after_a_refused_position_resigns_until_a_good_one_comes():
    # it answered with a move of the position before, which is not the GUI's
    s = Session(max_seconds=0.05)
    s.send("position startpos moves 7g7f", "position startpos moves 7g7f 7g7f", "go nodes 50")
    assert s.lines[-2].startswith("info string go: the last position command was refused")
    assert s.lines[-1] == "bestmove resign"
    s.send("go mate 100")
    assert s.lines[-1] == "checkmate timeout"
    s.lines.clear()
    s.send("position startpos moves 7g7f", "go nodes 50")
    s.wait_for("bestmove")
    assert not any(line.startswith("info string") for line in s.lines)
    assert _bestmove_with_score_line_before(s.lines) != "resign"


def test_an_infinite_go_after_a_refused_position_answers_at_stop():
    s = Session(max_seconds=0.05)
    s.send("position startpos moves 7g7f 7g7f", "go infinite")
    time.sleep(0.2)
    assert not any(line.startswith("bestmove") for line in s.lines)  # not before stop
    s.send("stop")
    assert s.lines[-1] == "bestmove resign"


@pytest.mark.parametrize("go", ["go byoyomi -5", "go nodes x", "go banana nodes 50", "go btime -300 wtime 10 byoyomi",
                                "go nodes mate"])
def test_every_go_gets_a_bestmove(go):
    # `go byoyomi -5` answered one info string and no bestmove: a GUI waited for ever
    s = Session(max_seconds=0.1)
    s.send("position startpos", go)
    s.wait_for("bestmove")
    said = [line for line in s.lines if line.startswith("info string")]
    assert (said != []) == (go != "go byoyomi -5")  # a negative time counts as 0, unsaid
    assert all(line.startswith("info string go: ") and line.endswith("left out") for line in said)
    _bestmove_with_score_line_before(s.lines)


def test_the_last_info_line_is_not_written_twice():
    s = Session()
    s.send("setoption name Depth value 2", "position startpos", "go nodes 100000")
    s.wait_for("bestmove")
    infos = [re.sub(r" (nps|time) \d+", "", line) for line in s.lines if line.startswith("info depth")]
    assert infos and len(infos) == len(set(infos)), infos


def _fuzz(count, seed):
    s = Session(max_seconds=0.02)
    s.send("setoption name USI_Hash value 2")
    for line in random_lines(random.Random(seed), count):
        s.send(line)
        assert not s.usi.finished
    s.send("stop", "setoption name Engine value AlphaBeta", "setoption name Model value <empty>", "position startpos",
           "go nodes 200")
    s.wait_for("bestmove")
    s.send("quit")
    bad = [line for line in s.lines if not REPLY.match(line) or "internal error" in line]
    assert not bad, bad[:5]


def test_fuzz_500_lines():
    _fuzz(500, seed=1)


@pytest.mark.slow
def test_fuzz_10000_lines():
    _fuzz(10_000, seed=2)


@pytest.mark.alone  # times itself
def test_console_script_starts_bare_and_answers_usiok_within_2_seconds():
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from zeroplay.play.usi import main; sys.exit(main([]))"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    t0 = time.monotonic()
    proc.stdin.write("usi\n")
    proc.stdin.flush()
    lines = []
    while not lines or lines[-1] != "usiok":
        lines.append(proc.stdout.readline().strip())
    elapsed = time.monotonic() - t0
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    assert proc.wait(timeout=30) == 0
    assert elapsed < 2.0 and all(REPLY.match(line) for line in lines)


def test_a_model_that_does_not_load_falls_back_to_alphabeta_with_readyok_and_bestmove():
    s = Session(max_seconds=0.3)
    s.send("usi", "setoption name Model value /nonexistent", "setoption name Engine value MCTS")
    s.lines.clear()
    s.send("isready")
    assert s.lines[-1] == "readyok", s.lines
    assert s.lines[0].startswith("info string") and "/nonexistent" in s.lines[0] and "AlphaBeta" in s.lines[0]
    s.lines.clear()
    s.send("position startpos", "go byoyomi 300")
    s.wait_for("bestmove")
    assert not s.lines[-1].startswith("bestmove resign") and not any("go:" in line for line in s.lines)
    # a go with no isready before it plays too
    fresh = Session(max_seconds=0.3)
    fresh.send("setoption name Engine value MCTS", "setoption name Model value /nonexistent", "go byoyomi 300")
    assert fresh.wait_for("bestmove") != "bestmove resign"


def test_isready_during_an_infinite_or_ponder_search_answers_at_once_and_the_search_goes_on():
    # helper-76: isready stopped the search and wrote a bestmove no go was waiting for
    s = Session()
    s.send("setoption name USI_Hash value 4", "isready", "position startpos", "go infinite")
    time.sleep(0.2)
    s.lines.clear()
    s.send("isready")
    assert "readyok" in s.lines  # (among the search's info lines)
    time.sleep(0.2)
    assert not any(line.startswith("bestmove") for line in s.lines)
    s.send("stop")
    assert s.lines[-1].startswith("bestmove")
    s.lines.clear()
    s.send("setoption name USI_Ponder value true", "position startpos moves 7g7f", "go ponder byoyomi 300", "isready")
    assert "readyok" in s.lines and not any(line.startswith("bestmove") for line in s.lines)
    s.send("ponderhit")
    s.wait_for("bestmove", timeout=30)


def test_isready_during_a_search_builds_the_engine_of_options_set_during_it():
    # session 33: a setoption sent mid-search got its engine only at the next go, inside its time
    s = Session()
    s.send("setoption name USI_Hash value 4", "isready", "position startpos", "go infinite")
    old = s.usi.engine
    s.send("setoption name USI_Hash value 8", "isready")
    assert "readyok" in s.lines and s.usi.engine is not old
    assert s.usi._engine_key == s.usi._options_key()
    time.sleep(0.2)
    assert not any(line.startswith("bestmove") for line in s.lines)
    s.send("stop")
    assert s.lines[-1].startswith("bestmove")
    built = s.usi.engine
    s.lines.clear()
    s.send("position startpos moves 7g7f", "go byoyomi 200")
    s.wait_for("bestmove", timeout=30)
    assert s.usi.engine is built


@pytest.mark.parametrize("position, outcome", [
    # fourfold repetition of kings: a draw (sennichite), not a mate of the side to move
    ("sfen k8/9/9/9/9/9/9/9/K8 b - 1 moves" + " 9i9h 9a9b 9h9i 9b9a" * 3, "sennichite (a draw)"),
])
def test_a_position_over_by_repetition_is_searched_not_resigned(position, outcome):
    # helper-76: it answered "score mate -0" and "bestmove resign"
    s = Session()
    s.send("setoption name USI_Hash value 4", f"position {position}", "go byoyomi 200")
    best = s.wait_for("bestmove").split()[1]
    assert any(outcome in line for line in s.lines if line.startswith("info string")), s.lines
    from zeroplay.games import make

    state = make("shogi").from_sfen(make("shogi").from_usi(position).sfen())
    assert best in {state.move_text(int(m)) for m in state.legal_moves()}
    assert not any("mate -0" in line for line in s.lines)


REPETITION = "sfen 8k/9/8P/9/9/9/9/9/K8 b G 1 moves" + " 9i9h 1a2a 9h9i 2a1a" * 3  # sennichite, a mate on


def test_go_mate_on_a_position_over_by_repetition_solves_the_board():
    # helper-77: "checkmate nomate" while G*1b mates
    s = Session()
    s.send("setoption name USI_Hash value 4", f"position {REPETITION}", "go mate 2000")
    assert s.wait_for("checkmate") == "checkmate G*1b"
    assert any("go mate: the game is over by sennichite" in line for line in s.lines), s.lines


def test_moves_after_a_repetition_end_are_played_on():
    # helper-77: one move past the fourfold repetition was refused, and the next go resigned
    s = Session()
    s.send("setoption name USI_Hash value 4", f"position {REPETITION} 9i8h", "go byoyomi 300")
    best = s.wait_for("bestmove").split()[1]
    assert best not in ("resign", "win") and not any("refused" in line for line in s.lines), s.lines


@pytest.mark.parametrize("number", ["100000", "1000000", "99999999999999999999999"])
def test_a_large_sfen_move_number_is_the_guis_count_not_the_end_of_the_game(number):
    # helper-77: move number 100,000 or more made the start position over by the move limit
    s = Session()
    s.send("setoption name USI_Hash value 4",
           f"position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - {number} moves 7g7f",
           "go byoyomi 200")
    assert s.wait_for("bestmove").split()[1] != "resign"
    assert not any("mate -0" in line for line in s.lines), s.lines
