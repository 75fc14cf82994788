"""`zeroplay solve connect4|gomoku` from a user's side: Ctrl-C during a compiled search, option
checks (one-line errors, exit status 2), notes and wording."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from zeroplay.cli import _interrupt_ends_process, main
from zeroplay.solvers.commands import connect4_long_solve_note
from zeroplay.solvers.connect4_solver import parse_position

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process: POSIX only")

LONG_PNS = "i9 e9 f8 h9 i8 h8 j8 e7 h7 g7 j7 i7 k7 l6 g6 e5 i6 f5 g5"
"""Puzzle white_vcf_057 as a game: the proof-number VCT runs about 30 s on it (tree pool full)."""


def default_sigint() -> None:
    """``preexec_fn`` of a child that the test interrupts: SIGINT back to its default action.
    An ignored signal stays ignored across exec, so under ``make test &`` or a CI runner that
    ignores SIGINT the child would never see the test's Ctrl-C (issue 23)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# --- Ctrl-C ----------------------------------------------------------------------------------------
def _interrupt(proc: subprocess.Popen, *, after: float) -> tuple[float, str]:
    time.sleep(after)
    assert proc.poll() is None, "the solve ended before the interrupt"
    proc.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail("still running 5 s after SIGINT")
    return time.monotonic() - t0, proc.stderr.read()


@pytest.mark.alone  # times itself
@POSIX
def test_ctrl_c_stops_the_connect4_empty_board_solve_at_once():
    proc = subprocess.Popen([sys.executable, "-m", "zeroplay", "solve", "connect4", ""],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    note = proc.stderr.readline()  # printed just before the compiled search starts
    assert "many minutes" in note
    seconds, err = _interrupt(proc, after=0.5)
    assert proc.returncode == -signal.SIGINT and "Traceback" not in err and seconds < 3


@pytest.mark.alone  # times itself
@POSIX
def test_ctrl_c_stops_the_gomoku_pns_solve_at_once():
    proc = subprocess.Popen([sys.executable, "-m", "zeroplay", "solve", "gomoku", "--moves", LONG_PNS,
                             "--method", "pns", "--nodes", "100000000"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    note = proc.stderr.readline()  # printed as the compiled search starts (after the start-up, which
    assert "can take minutes" in note  # takes 1.5 s on an idle machine and more than 4 s on a loaded one)
    seconds, err = _interrupt(proc, after=0.5)  # the search takes about 30 s
    assert proc.returncode == -signal.SIGINT and "Traceback" not in err and seconds < 3


@POSIX
def test_python_handler_is_restored_and_an_ignored_sigint_is_left_alone():
    started = signal.signal(signal.SIGINT, signal.default_int_handler)  # SIG_IGN under `make test &`
    with _interrupt_ends_process():
        assert signal.getsignal(signal.SIGINT) is signal.SIG_DFL
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a background job
    try:
        with _interrupt_ends_process():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, started)


# --- connect4 -------------------------------------------------------------------------------------
def _one_line_error(capsys, argv, *words):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err
    for word in words:
        assert word in captured.err, captured.err
    return captured.err


@pytest.mark.parametrize("mib", ["100000000", "0", "-1", "nan", "inf"])
def test_connect4_table_mib_out_of_range_is_a_one_line_error(capsys, mib):
    _one_line_error(capsys, ["solve", "connect4", "4455", "--table-mib", mib], "--table-mib")


def test_connect4_long_solve_note_only_for_openings_that_can_be_slow(capsys):
    assert "many minutes" in connect4_long_solve_note(*parse_position(""))
    assert "many minutes" in connect4_long_solve_note(*parse_position("4453"))
    assert "seconds" in connect4_long_solve_note(*parse_position("1234567"))
    assert connect4_long_solve_note(*parse_position("112233")) is None  # wins at once
    assert connect4_long_solve_note(*parse_position("4444333322")) is None  # 10 stones
    assert main(["solve", "connect4", "112233"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "score: 18" in captured.out


# --- gomoku ---------------------------------------------------------------------------------------
NO_VCF = "g8 a1 h8 a3 i9 o15 i10 o13"  # Black to move: no VCF (a complete search), a VCT with 1 threat


def _json(capsys, argv):
    import json

    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_gomoku_vct_none_found_is_not_called_a_proof(capsys):
    assert main(["solve", "gomoku", "--moves", "h8 h7", "--vct"]) == 0
    out = capsys.readouterr().out
    assert "none found within the threats allowed" in out and "no proof that none exists" in out
    assert "no VCT exists" not in out
    r = _json(capsys, ["solve", "gomoku", "--moves", "h8 h7", "--vct", "--json"])
    assert r["kind"] == "vct" and not r["found"] and r["complete"] and r["none_exists"] is False
    r = _json(capsys, ["solve", "gomoku", "--moves", NO_VCF, "--json"])  # a complete VCF search: a proof
    assert r["kind"] == "vcf" and not r["found"] and r["complete"] and r["none_exists"] is True


@pytest.mark.parametrize("options,words", [
    (["--nodes", "-5"], ["--nodes", ">= 1"]),
    (["--nodes", "0"], ["--nodes", ">= 1"]),
    (["--threats", "0"], ["--threats", ">= 1"]),
    (["--vct", "--threats", "-1"], ["--threats", ">= 1"]),
    (["--vct", "--shortest"], ["--shortest"]),
    (["--method", "ab", "--shortest"], ["--shortest"]),
    (["--threats", "2", "--shortest"], ["--shortest"]),
    (["--size", "6", "--n-in-row", "9"], ["--n-in-row", "3..6"]),
    (["--size", "4"], ["--size", "5..25"]),  # the option's name, not the game's "width"
    (["--size", "30"], ["--size", "5..25"]),
])
def test_gomoku_bad_options_are_one_line_errors(capsys, options, words):
    _one_line_error(capsys, ["solve", "gomoku", "--moves", "h8 h7", *options], *words)


def test_gomoku_method_and_threats_imply_vct(capsys):
    for options in (["--method", "ab"], ["--method", "pns"], ["--threats", "1"]):
        r = _json(capsys, ["solve", "gomoku", "--moves", NO_VCF, "--json", *options])
        assert r["kind"] == "vct" and r["method"] == (options[1] if options[0] == "--method" else "ab")
        assert r["found"] and r["line"][0] == "i8"
    r = _json(capsys, ["solve", "gomoku", "--moves", NO_VCF, "--json"])
    assert r["kind"] == "vcf" and r["method"] is None


def test_gomoku_n_in_row_four_on_6x6(capsys):
    from zeroplay.games import make

    moves = "c4 a1 d3 a6"  # Black to move: e2 makes the open three c4-d3-e2, a win with 4 in a row
    r = _json(capsys, ["solve", "gomoku", "--size", "6", "--n-in-row", "4", "--moves", moves, "--json"])
    assert r["n_in_row"] == 4 and r["found"] and r["distance"] == 3 and r["line"][0] == "e2"
    s = make("gomoku", size=6, n_in_row=4).initial().play_many(moves.split()).play_many(r["line"])
    assert s.winner == 0
    default = _json(capsys, ["solve", "gomoku", "--size", "6", "--moves", moves, "--method", "pns", "--json"])
    assert default["n_in_row"] == 4 and default["found"]  # 4 by default on 6x6, as zeroplay play
    five = _json(capsys, ["solve", "gomoku", "--size", "6", "--n-in-row", "5", "--moves", moves, "--json"])
    assert five["n_in_row"] == 5 and not five["found"]
    assert main(["solve", "gomoku", "--size", "6", "--moves", moves]) == 0
    assert "(freestyle, 6x6, 4 in a row)" in capsys.readouterr().out


def test_gomoku_text_counts_one_move_and_one_node(capsys):
    assert main(["solve", "gomoku", "--moves", "h8", "--nodes", "1"]) == 0
    out = capsys.readouterr().out
    assert "1 move played," in out and "1 moves" not in out


def test_gomoku_renju_white_none_found_is_not_called_a_proof(capsys):
    # helper-80: White wins by i7 (the four's only block, h8, is Black's double-three), which the
    # solvers leave unsearched under renju; the answer said "no VCF exists"
    moves = "5,7 4,4 6,7 5,5 7,5 6,6 7,6 14,0 3,3"
    r = _json(capsys, ["solve", "gomoku", "--moves", moves, "--rule", "renju", "--json"])
    assert r["to_move"] == "white" and not r["found"] and r["none_exists"] is False
    assert main(["solve", "gomoku", "--moves", moves, "--rule", "renju"]) == 0
    out = capsys.readouterr().out
    assert "no VCF exists" not in out and "which is no proof under renju" in out


def test_gomoku_pns_says_when_its_tree_is_full_not_the_budget(capsys, monkeypatch):
    # helper-80: "none found within the budget of 1,000,000,000,000 nodes" after 4,153,791, when
    # the proof tree had filled (here made small)
    import zeroplay.solvers.commands as commands
    import zeroplay.solvers.threat_solver as threat_solver

    monkeypatch.setattr(threat_solver, "PNS_MAX_POOL", 1 << 12)
    monkeypatch.setattr(commands, "PNS_MAX_POOL", 1 << 12)
    moves = "a5 b3 f15 c3 o9 k8 g6 d11 k1 m15 b11 l10 i7 b9 o14 k15 a15 o15 g13 o1 b12 o6 f4 k12 h11 k9 c11 h1 m13 g2"
    assert main(["solve", "gomoku", "--moves", moves, "--method", "pns", "--threats", "8", "--nodes", "1000000000"]) == 0
    out = capsys.readouterr().out
    assert "tree was full (its most: 4,096 tree nodes)" in out and "within the budget" not in out, out
