"""GTP v2 front-end: replies, the commands of issue 22, preprocessing, and fuzzed input that
never crashes it or puts anything but GTP replies out."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from gtp_helpers import ask, gtp_session, stop_after_infos

from zeroplay.games import make
from zeroplay.play.gtp import clean_line, handicap_points
from zeroplay.play.gtp_text import AnalysisArgs, GtpFailure, parse_analysis

REPLY = re.compile(r"^[=?]\d*( [^\n]*)?(\n[^\n]+)*\n\n$")
ROOT = Path(__file__).resolve().parents[2]






def test_required_commands_and_ids():
    s, out = gtp_session()
    assert ask(s, out, "protocol_version") == "= 2\n\n"
    assert ask(s, out, "7 name") == "=7 zeroplay\n\n"
    assert ask(s, out, "known_command genmove") == "= true\n\n"
    assert ask(s, out, "known_command frobnicate") == "= false\n\n"
    listed = ask(s, out, "list_commands")[2:].split()
    for name in ("protocol_version", "name", "version", "known_command", "list_commands", "quit", "boardsize",
                 "clear_board", "komi", "play", "genmove", "undo", "showboard", "time_settings", "time_left",
                 "final_score", "final_status_list", "fixed_handicap", "place_free_handicap", "set_free_handicap",
                 "kgs-genmove_cleanup", "lz-analyze", "kata-analyze", "analyze", "genmove_analyze"):
        assert name in listed
    assert ask(s, out, "3 frobnicate") == "?3 unknown command\n\n"
    assert ask(s, out, "boardsize 25") == "? unacceptable size\n\n"
    assert ask(s, out, "boardsize x") == "? syntax error\n\n"
    assert ask(s, out, "quit") == "=\n\n"


def test_preprocessing():
    assert clean_line("  play\tb D4 # a comment\r") == "play b D4"
    assert clean_line("pl\x01ay b\x7f D4") == "play b D4"
    s, out = gtp_session()
    assert ask(s, out, "# only a comment") == "" and ask(s, out, "   ") == ""


def test_play_ko_and_undo():
    s, out = gtp_session()
    for i, v in enumerate("C4 E5 D5 E3 D3 F4 J9 D4 E4".split()):
        assert ask(s, out, f"play {'bw'[i % 2]} {v}") == "=\n\n"
    assert ask(s, out, "play w D4") == "? illegal move\n\n"
    assert ask(s, out, "play w Z9") == "? invalid vertex\n\n"
    assert ask(s, out, "play x D4") == "? invalid color\n\n"
    assert ask(s, out, "play b E5") == "? illegal move\n\n"  # occupied, out of turn
    assert ask(s, out, "undo") == "=\n\n"
    assert ask(s, out, "play b E4") == "=\n\n"
    board = ask(s, out, "showboard")
    assert board.startswith("= \n") and "prisoners: Black 1, White 0" in board


def test_out_of_turn_play_and_genmove():
    s, out = gtp_session()
    assert ask(s, out, "play b D4") == "=\n\n" and ask(s, out, "play b E5") == "=\n\n"
    reply = ask(s, out, "genmove b")
    assert REPLY.match(reply) and reply.startswith("= ")
    move = reply[2:].strip()
    assert move in ("pass", "resign") or s.game.parse_move(move) in [int(c) for c in s.state.stones(0)]


def test_handicap():
    assert handicap_points(19, 9) == ["D4", "Q16", "D16", "Q4", "D10", "Q10", "K4", "K16", "K10"]
    assert handicap_points(9, 2) == ["C3", "G7"] and handicap_points(9, 5)[-1] == "E5"
    s, out = gtp_session()
    assert ask(s, out, "fixed_handicap 3") == "= C3 G7 C7\n\n"
    assert s.state.to_play == 1
    assert ask(s, out, "fixed_handicap 2") == "? board not empty\n\n"
    assert ask(s, out, "undo") == "? cannot undo\n\n"
    assert ask(s, out, "clear_board") == "=\n\n"
    assert ask(s, out, "fixed_handicap 10") == "? invalid number of stones\n\n"
    assert ask(s, out, "set_free_handicap A1 A1") == "? bad vertex list\n\n"
    assert ask(s, out, "set_free_handicap A1 J9 E5") == "=\n\n"
    assert sorted(s.game.format_move(int(c)) for c in s.state.stones(0)) == ["A1", "E5", "J9"]


def test_handicap_after_passes_alone_starts_the_game_afresh():
    """GNU Go refuses a handicap only when stones are on the board; passes alone left ours
    refusing it too ("board not empty" on an empty board)."""
    s, out = gtp_session()
    assert ask(s, out, "play b pass") == "=\n\n" and ask(s, out, "play w pass") == "=\n\n"
    assert ask(s, out, "fixed_handicap 2") == "= C3 G7\n\n"
    assert s.state.to_play == 1 and len(s.state.stones(0)) == 2 and not s.state.is_terminal
    assert ask(s, out, "undo") == "? cannot undo\n\n"  # the passes went with the fresh start
    assert ask(s, out, "play w E5") == "=\n\n"
    assert ask(s, out, "fixed_handicap 2") == "? board not empty\n\n"


def test_scoring_hand_case_over_gtp():
    s, out = gtp_session()
    assert ask(s, out, "boardsize 5") == "=\n\n" and ask(s, out, "komi 0.5") == "=\n\n"
    for v in ("C1", "C2", "C3", "C4", "C5", "A1"):
        assert ask(s, out, f"play b {v}") == "=\n\n"
    for v in ("D1", "D2", "D3", "D4", "D5"):
        assert ask(s, out, f"play w {v}") == "=\n\n"
    assert ask(s, out, "final_score") == "= B+4.5\n\n"
    assert ask(s, out, "final_status_list dead") == "= \n\n".replace(" \n", "\n")


def test_final_status_finds_a_dead_stone():
    s, out = gtp_session()
    assert ask(s, out, "boardsize 5") == "=\n\n" and ask(s, out, "komi 0") == "=\n\n"
    for v in ("C1", "C2", "C3", "C4", "C5"):
        assert ask(s, out, f"play b {v}") == "=\n\n"
    for v in ("D1", "D2", "D3", "D4", "D5", "A3"):
        assert ask(s, out, f"play w {v}") == "=\n\n"
    assert ask(s, out, "final_status_list dead") == "= A3\n\n"
    assert ask(s, out, "final_score") == "= B+5\n\n"
    # the same once two passes have ended the game (a random game from the ended position played
    # no move, and every stone was counted alive: B+3)
    assert ask(s, out, "play b pass") == "=\n\n" and ask(s, out, "play w pass") == "=\n\n"
    assert s.state.is_terminal
    assert ask(s, out, "final_status_list dead") == "= A3\n\n"
    assert ask(s, out, "final_score") == "= B+5\n\n"


def test_time_controls_set_the_move_time():
    s, out = gtp_session()
    assert s._move_seconds(0) is None
    assert ask(s, out, "time_settings 300 10 5") == "=\n\n"
    assert s._move_seconds(0) == pytest.approx(10)
    assert ask(s, out, "time_left b 10 5") == "=\n\n"
    assert s._move_seconds(0) == pytest.approx(0.8 * 10 / 5 - 0.2)
    assert ask(s, out, "time_left b x 5").startswith("? syntax error")


@pytest.mark.parametrize("command,style", [("lz-analyze b 10", "lz"), ("kata-analyze 5", "kata"),
                                          ("analyze", "lz")])
def test_analysis_streams_info_lines(command, style):
    s, out = gtp_session()
    stop_after_infos(s)
    reply = ask(s, out, command)
    assert REPLY.match(reply) and reply.startswith("=\ninfo move ")
    first = reply.split("\n")[1]
    assert ("winrate 0." in first) == (style == "kata") and " pv " in first and " order 0 " in first


def test_genmove_analyze_ends_with_play():
    s, out = gtp_session()
    reply = ask(s, out, "genmove_analyze b 10")
    assert REPLY.match(reply) and re.search(r"\nplay [A-HJ-T]\d+\n\n$|\nplay pass\n\n$", reply)


def _fuzz_lines(n, seed):
    rng = random.Random(seed)
    commands = ["protocol_version", "name", "version", "known_command", "list_commands", "boardsize",
                "clear_board", "komi", "play", "genmove", "undo", "showboard", "time_settings", "time_left",
                "final_score", "final_status_list", "fixed_handicap", "place_free_handicap", "set_free_handicap",
                "kgs-genmove_cleanup", "lz-analyze", "kata-analyze", "analyze", "genmove_analyze", "bogus"]
    words = ["b", "w", "black", "white", "B", "pass", "PASS", "resign", "A1", "J9", "T19", "I5", "Z0", "D4", "E5",
             "0", "1", "2", "5", "9", "19", "-3", "7.5", "nan", "inf", "1e309", "9" * 30, "alive", "dead",
             "seki", "interval", "", "#", "\t", "\x00", "\x1b[2J", "é", "\u202e", "=", "?", "\r"]
    for _ in range(n):
        kind = rng.random()
        if kind < 0.75:
            parts = [rng.choice(commands)] + [rng.choice(words) for _ in range(rng.randrange(4))]
            if rng.random() < 0.2:
                parts.insert(0, str(rng.randrange(1000)))
            yield " ".join(parts)
        elif kind < 0.95:
            yield "".join(chr(rng.randrange(0, 0x250)) for _ in range(rng.randrange(60)))
        else:
            yield "play b " + "A" * rng.choice([10, 70000])


def _check_fuzz(n, seed):
    s, out = gtp_session(playouts=4)
    for line in _fuzz_lines(n, seed):
        if line.strip().split()[:1] == ["quit"]:
            continue
        out.clear()
        assert s.handle(line) is True
        reply = "".join(out)
        assert reply == "" or REPLY.match(reply), (line, reply)
        assert "internal error" not in reply, (line, reply)


def test_fuzzed_lines_get_gtp_replies():
    _check_fuzz(400, 1)


@pytest.mark.slow
def test_10000_fuzzed_lines_get_gtp_replies():
    _check_fuzz(10_000, 2)


def test_the_command_prints_only_replies():
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    script = "protocol_version\nboardsize 5\nplay b C3\ngenmove w\nbogus\nquit\n"
    proc = subprocess.run([sys.executable, "-m", "zeroplay", "gtp", "--playouts", "20"], input=script,
                          capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    replies = proc.stdout.split("\n\n")
    assert replies[-1] == "" and len(replies) == 7
    assert all(REPLY.match(r + "\n\n") for r in replies[:-1])
    assert replies[4] == "? unknown command" and "PUCT search" in proc.stderr


def test_flat_engine_plays_and_names_itself():
    s, out = gtp_session(engine_kind="flat")
    assert "flat Monte-Carlo" in ask(s, out, "version")
    reply = ask(s, out, "genmove b")
    assert REPLY.match(reply) and s.state.ply == 1
    with pytest.raises(ValueError, match="engine"):
        gtp_session(engine_kind="gnu")


def test_printsgf_and_loadsgf_round_trip(tmp_path):
    s, out = gtp_session()
    for i, v in enumerate("C4 E5 D5 E3 D3 F4 J9 D4 E4 pass".split()):
        assert ask(s, out, f"play {'bw'[i % 2]} {v}") == "=\n\n"
    sgf = ask(s, out, "printsgf")
    assert REPLY.match(sgf) and "GM[1]" in sgf and "KM[7.5]" in sgf and ";W[]" in sgf
    path = tmp_path / "game.sgf"
    path.write_text(sgf[3:-2])
    t, out2 = gtp_session()
    assert ask(t, out2, f"loadsgf {path}") == "= black\n\n"
    assert ask(t, out2, "showboard") == ask(s, out, "showboard")
    assert ask(t, out2, f"loadsgf {path} 9") == "= black\n\n"  # before move 9: Black to play E4
    # saved by Windows Notepad: UTF-8 with a byte-order mark (it was "cannot load file")
    bom = tmp_path / "bom.sgf"
    bom.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert ask(t, out2, f"loadsgf {bom} 9") == "= black\n\n"
    assert ask(t, out2, "play b E4") == "=\n\n"
    # a file that does not load leaves the game as it was
    board = ask(t, out2, "showboard")
    (tmp_path / "bad.sgf").write_text("(;GM[1]SZ[9];B[aa];W[aa])")
    for line in (f"loadsgf {tmp_path / 'bad.sgf'}", f"loadsgf {tmp_path / 'missing.sgf'}", "loadsgf",
                 f"loadsgf {path} x"):
        assert ask(t, out2, line).startswith("? ")
    assert ask(t, out2, "showboard") == board
    assert ask(t, out2, f"printsgf {tmp_path / 'x.sgf'}").startswith("? ") and not (tmp_path / "x.sgf").exists()


def test_printsgf_keeps_a_handicap_setup():
    s, out = gtp_session()
    assert ask(s, out, "fixed_handicap 2") == "= C3 G7\n\n"
    ask(s, out, "play w E5")
    sgf = ask(s, out, "printsgf")
    assert "AB[" in sgf and "PL[W]" in sgf and ";W[ee]" in sgf


@pytest.mark.parametrize("line, reply", [
    ("komi 1e308", "? komi out of range\n\n"),  # was "? internal error: OverflowError"
    ("komi -1e308", "? komi out of range\n\n"),
    ("boardsize \u00b2", "? syntax error\n\n"),  # was "? internal error: ValueError" ("²".isdigit())
    ("boardsize \u0669", "? syntax error\n\n"),  # Arabic-Indic nine
])
def test_extreme_komi_and_unicode_digits_are_refused_not_internal_errors(line, reply):
    s, out = gtp_session()
    assert ask(s, out, line) == reply
    assert ask(s, out, "komi 6.5") == "=\n\n"  # the session goes on


def _territory_game(s, out):
    for line in ("boardsize 5", "clear_board", "komi 0.5", "play b B1", "play w A1", "play b A2"):
        assert ask(s, out, line) == "=\n\n"
    assert "prisoners: Black 1, White 0" in ask(s, out, "showboard")


def test_a_move_out_of_turn_or_after_two_passes_keeps_the_prisoners():
    """GNU Go (``gnugo --mode gtp --japanese-rules``) scores this game B+23.5 either way."""
    s, out = gtp_session(8, scoring="territory")
    _territory_game(s, out)
    assert ask(s, out, "play b pass") == "=\n\n" and ask(s, out, "play w pass") == "=\n\n"  # out of turn
    assert "prisoners: Black 1, White 0" in ask(s, out, "showboard")
    assert ask(s, out, "final_score") == "= B+23.5\n\n"
    t, out2 = gtp_session(8, scoring="territory")
    _territory_game(t, out2)
    for line in ("play w pass", "play b pass", "play w E5", "play b pass", "play w pass"):  # on after the end
        assert ask(t, out2, line) == "=\n\n"
    assert t.game.prisoners(t.state) == (1, 0) and "prisoners: Black 1, White 0" in ask(t, out2, "showboard")
    # E5, a lone stone in the 5x5 corner, is dead (GNU Go agrees): 23 points of territory + the
    # prisoner A1 + the dead E5 - komi 0.5. It read B+1.5 when a game ended by two passes was
    # counted with every stone alive
    assert ask(t, out2, "final_status_list dead") == "= E5\n\n"
    assert ask(t, out2, "final_score") == "= B+24.5\n\n"


@pytest.mark.parametrize("command", ["lz-analyze b 10", "kata-analyze 5", "analyze", "lz-analyze w"])
def test_an_analysis_stopped_at_once_answers_one_empty_line(command):
    s, out = gtp_session()  # a command is always waiting: the analysis stops before its first playout
    assert ask(s, out, command) == "=\n\n"
    assert ask(s, out, "name") == "= zeroplay\n\n"


@pytest.mark.parametrize("komi", ["0.3", "1.25", "-6.1"])
def test_komi_that_is_not_a_multiple_of_half_a_point_is_refused_and_changes_nothing(komi):
    s, out = gtp_session()
    assert ask(s, out, "komi 6.5") == "=\n\n"
    assert ask(s, out, f"komi {komi}") == "? komi must be a multiple of 0.5\n\n"
    assert s.game.rules.komi == 6.5 and "KM[6.5]" in ask(s, out, "printsgf")
    assert ask(s, out, "komi -2") == "=\n\n" and s.game.rules.komi == -2


def test_loadsgf_says_why_a_file_does_not_load_on_stderr(tmp_path):
    """The answer stays GNU Go's "cannot load file"; a new user got no reason at all (each case of
    a missing file, a nested tree, a Gomoku record answered the same). The reason goes to the log."""
    import io

    log = io.StringIO()
    s, out = gtp_session(log=log)
    (tmp_path / "nested.sgf").write_text("(((;GM[1]SZ[9];B[ee])))")
    (tmp_path / "gomoku.sgf").write_text("(;GM[4]SZ[15];B[hh])")
    # helper-68: "move 20: C7 is occupied" for the record's second move (the action number)
    (tmp_path / "occupied.sgf").write_text("(;FF[4]GM[1]SZ[9];B[cc];W[cc])")
    for name, words in (("missing.sgf", "No such file"), ("nested.sgf", "does not begin with a node"),
                        ("gomoku.sgf", "not Go"), ("occupied.sgf", "move 2: C7 is occupied")):
        assert ask(s, out, f"loadsgf {tmp_path / name}") == "? cannot load file\n\n"
        assert words in log.getvalue().splitlines()[-1] and name in log.getvalue().splitlines()[-1]
    assert not any("loadsgf" in line for line in out)  # nothing of it on GTP's channel


def test_analysis_shows_the_network_prior_and_each_moves_principal_variation():
    # the info lines gave every move the prior 1/legal moves and a one-move pv (the move itself),
    # whatever the net and the tree said; Lizzie and Sabaki draw both
    s, out = gtp_session(playouts=400)
    ask(s, out, "play b E5")
    reply = ask(s, out, "genmove_analyze w 1000")
    line = reply.split("\n")[1]
    infos = [re.match(r"(\S+) visits (\d+) .* prior (\d+) .* pv (.*)$", part).groups()
             for part in line.removeprefix("info move ").split(" info move ")]
    assert len({prior for _, _, prior, _ in infos}) > 1  # not one uniform figure
    top, visits, _, pv = infos[0]
    assert pv.split()[0] == top and len(pv.split()) >= 2 and int(visits) >= 20
    engine = s.engine
    stats = engine.think(s.state, playouts=50)
    assert all(m.prior is not None and 0 <= m.prior <= 1 for m in stats)
    assert all(m.pv and m.pv[0] == m.move for m in stats)


def test_genmove_analyze_does_not_repeat_its_last_info_line():
    # a search that ended with a progress report printed that report again as the final line
    s, out = gtp_session(playouts=200)
    ask(s, out, "play b E5")
    ask(s, out, "play w C3")  # (an empty board's first move comes without a search)
    reply = ask(s, out, "genmove_analyze b 1")
    infos = [line for line in reply.split("\n") if line.startswith("info ")]
    assert infos and all(a != b for a, b in zip(infos, infos[1:]))


@pytest.mark.parametrize("command", ["kata-analyze w 5 ownership true", "kata-genmove_analyze w 5 ownership true"])
def test_kata_ownership_map_is_the_side_to_moves(command):
    s, out = gtp_session()
    for move in ("b A9", "w pass", "b B9", "w pass", "b A8", "w pass", "b B8", "w pass", "b C9", "w pass",
                 "b C8", "w pass", "b A7"):
        assert ask(s, out, f"play {move}").startswith("=")
    stop_after_infos(s)
    reply = ask(s, out, command)
    info = next(line for line in reply.split("\n") if line.startswith("info "))
    values = [float(v) for v in info.split(" ownership ")[1].split()]
    assert len(values) == 81 and all(-1 <= v <= 1 for v in values)
    assert values[0] < -0.2 and values[1] < -0.2  # A9, B9: Black's stones, White to move (random games
    #                                                 capture the corner group often: about -0.5)


@pytest.mark.parametrize("command", ["kata-analyze 5", "kata-analyze 5 ownership false", "kata-analyze 5 ownershipStdev true"])
def test_no_ownership_map_unless_kata_asks(command):
    s, out = gtp_session()
    stop_after_infos(s)
    reply = ask(s, out, command)
    assert "\ninfo move " in reply and " ownership " not in reply


@pytest.mark.parametrize("command", ["lz-analyze b 5 maxmoves 2", "kata-genmove_analyze b 5 maxmoves 2"])
def test_maxmoves_limits_each_line(command):
    s, out = gtp_session(playouts=100)
    ask(s, out, "play b E5")
    ask(s, out, "play w C3")
    stop_after_infos(s)
    reply = ask(s, out, command)
    infos = [line for line in reply.split("\n") if line.startswith("info ")]
    assert infos and all(line.count("info move ") <= 2 for line in infos), reply  # (no info once, loaded)
    assert max(line.count("info move ") for line in infos) == 2
    stop_after_infos(s, 2)
    again = [line for line in ask(s, out, "lz-analyze b 5").split("\n") if line.startswith("info ")]
    assert again and max(line.count("info move ") for line in again) > 2  # the next analysis has no limit


def test_an_analysis_outlasts_tables_sized_for_the_playouts():
    # a 10-playout session's tables filled in a fraction of a second: the analysis stopped "full"
    # and every later analysis of the position returned the same figures at once
    from zeroplay.engine.go_search import PuctRollout
    from zeroplay.play.terminal import MEMORY_BYTES

    engine = PuctRollout(10, timed_memory_bytes=MEMORY_BYTES)
    state = make("go", size=19).initial().play("K10")  # (the root's 360 edges filled them)
    engine.think(state, playouts=3000)
    assert engine.last.stopped_by != "full" and engine.last.root_visits >= 3000


def test_an_analysis_whose_search_ends_by_itself_waits_for_the_next_command(monkeypatch):
    # after `play b pass` the shipped net's search proved White's pass at once, and the reply
    # ended after 0.05 s, which a GUI takes for a dead engine; here the playout cap ends it
    import zeroplay.play.gtp as gtp

    monkeypatch.setattr(gtp, "MAX_ANALYSIS_PLAYOUTS", 40)
    s, out = gtp_session()
    ask(s, out, "play b E5")
    infos: list[float] = []  # when each info line was written
    write = s.write

    def timed(text: str) -> None:
        write(text)
        if text.startswith("info "):
            infos.append(time.perf_counter())

    class NextCommand:  # arrives 0.5 s after the last figures (a timer from the start raced a loaded machine)
        def is_set(self) -> bool:
            return bool(infos) and time.perf_counter() - infos[-1] >= 0.5

    s.write, s.interrupted = timed, NextCommand()
    reply = ask(s, out, "lz-analyze 20")
    assert time.perf_counter() - infos[-1] >= 0.45
    assert reply.startswith("=\ninfo move ") and reply.endswith("\n\n") and s.engine.last.root_visits <= 60


@pytest.mark.parametrize("command", ["lz-analyze 20", "kata-analyze 20 ownership true"])
def test_an_analysis_after_two_passes_plays_on_as_with_a_colour(command):
    s, out = gtp_session()
    for move in ("b E5", "w E3", "b pass", "w pass"):
        ask(s, out, f"play {move}")
    assert s.state.is_terminal
    stop_after_infos(s)
    reply = ask(s, out, command)
    assert "\ninfo move " in reply and ("ownership" in command) == (" ownership " in reply)


def test_analysis_arguments_as_katago_takes_them():
    assert parse_analysis(["50.0"], kata=False) == AnalysisArgs(interval=50.0)
    assert parse_analysis(["b", "interval", "12.5"], kata=False) == AnalysisArgs(color=0, interval=12.5)
    assert parse_analysis(["interval", "0.5"], kata=False).interval == 1.0
    assert parse_analysis(["W", "0"], kata=True) == AnalysisArgs(color=1, interval=1.0)
    assert parse_analysis(["maxmoves", "5", "minmoves", "2"], kata=False) == AnalysisArgs(max_moves=5)
    assert parse_analysis(["b", "30", "ownership", "TRUE", "pvVisits", "false"], kata=True) == \
        AnalysisArgs(color=0, interval=30.0, ownership=True)
    assert parse_analysis([], kata=True) == AnalysisArgs()
    # any decimal number as KataGo reads it; rootInfo is one of its booleans
    assert parse_analysis(["1e2", "interval", "+3"], kata=True) == AnalysisArgs(interval=3.0)
    assert parse_analysis(["maxmoves", "+3"], kata=False) == AnalysisArgs(max_moves=3)
    assert parse_analysis(["b", "rootInfo", "true", "movesOwnership", "false"], kata=True) == \
        AnalysisArgs(color=0, root_info=True)
    assert parse_analysis(["movesOwnershipStdev", "true"], kata=True) == AnalysisArgs()  # accepted, shows nothing


@pytest.mark.parametrize("args, kata, names", [
    (["ownership", "maybe"], True, "ownership"), (["interval", "abc"], False, "interval"),
    (["maxmoves", "-1"], False, "maxmoves"), (["-5"], False, "-5"), (["b", "10", "maxmoves"], False, "maxmoves"),
    (["ownership", "true"], False, "ownership"), (["frobnicate", "1"], True, "frobnicate"),
    (["avoid", "b", "D4", "1"], True, "avoid"), (["interval", "100001"], True, "interval"),
    (["maxmoves", "1000000000"], True, "maxmoves"), (["b", "w"], True, "w"),
    (["50", "maxmoves", "\u00b2"], False, "maxmoves"), (["interval", "-1"], True, "interval"),
    (["interval", "nan"], True, "interval"), (["interval", "1_000"], True, "interval"),
    (["interval", "\u0661\u0662"], False, "interval"), (["\u0661\u0662"], False, "\u0661\u0662"),
    (["\u00b2"], False, "unknown analysis argument"),
])
def test_bad_analysis_arguments_are_refused_before_anything_starts(args, kata, names):
    with pytest.raises(GtpFailure, match="syntax error") as failure:
        parse_analysis(args, kata=kata)
    assert names in str(failure.value)
    s, out = gtp_session()
    for command in (("kata-analyze " if kata else "lz-analyze "), ("kata-genmove_analyze " if kata else "genmove_analyze ")):
        reply = ask(s, out, command + " ".join(args))  # answered at once: no analysis waits for a stop
        assert reply.startswith("? syntax error") and reply.endswith("\n\n") and "info" not in reply
    assert s.events == []  # the failed genmove_analyze played nothing


    s, out = gtp_session()
    ask(s, out, "play b E5")
    reply = ask(s, out, "genmove_analyze 10")  # the colour is optional: the side to move
    assert re.search(r"\nplay ([A-HJ-T]\d+|pass)\n\n$", reply) and s.state.to_play == 0
    s.interrupted = threading.Event()
    threading.Timer(0.3, s.interrupted.set).start()
    assert ask(s, out, "lz-analyze b 10 maxmoves 0") == "=\n\n"  # no lines at all, as KataGo's


def test_maxmoves_cuts_the_lines_not_the_ownership_average():
    # `maxmoves 1` averaged the ownership map over the one move listed (up to 0.17 off a point)
    from types import SimpleNamespace

    s, out = gtp_session()
    seen = []
    owner = SimpleNamespace(at=lambda stats: seen.append(list(stats)) or [0.0] * 81)
    state = s.state
    stats = s.engine.think(state, playouts=40)
    assert len(stats) > 1
    s._asked = AnalysisArgs(max_moves=1, ownership=True)
    s._write_info(state, stats, "kata", owner)
    assert seen == [stats] and "".join(out).count("info move ") == 1


def test_a_command_id_is_ascii_digits():
    s, out = gtp_session()
    assert ask(s, out, "\u00b2 name").startswith("? ")  # not an id: an unknown command
    assert ask(s, out, "7 name") == "=7 zeroplay\n\n"


@pytest.mark.parametrize("args", ["7_5", "\u0667.\u0665", "nan", "inf", "7.5e"])
def test_komi_takes_ascii_decimals_only(args):
    # float() read "komi 7_5" as 75 (final_score said W+75) and took other scripts' digits
    s, out = gtp_session()
    assert ask(s, out, f"komi {args}") == "? syntax error\n\n" and s.game.options["komi"] == 7.5
    assert ask(s, out, "komi +6.5") == "=\n\n" and s.game.options["komi"] == 6.5
    assert ask(s, out, "time_settings \u0661\u0662 0 0").startswith("? ")
