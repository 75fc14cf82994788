"""`zeroplay solve connect4|gomoku` from a user's side: Ctrl-C during a compiled search, option
checks (one-line errors, exit status 2), notes and wording."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from zeroplay.cli import _connect4_long_solve_note, _interrupt_ends_process, main
from zeroplay.search.connect4_solver import parse_position

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process: POSIX only")

LONG_PNS = "i9 e9 f8 h9 i8 h8 j8 e7 h7 g7 j7 i7 k7 l6 g6 e5 i6 f5 g5"
"""Puzzle white_vcf_057 as a game: the proof-number VCT runs about 30 s on it (tree pool full)."""


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


@POSIX
def test_ctrl_c_stops_the_connect4_empty_board_solve_at_once():
    proc = subprocess.Popen([sys.executable, "-m", "zeroplay", "solve", "connect4", ""],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    note = proc.stderr.readline()  # printed just before the compiled search starts
    assert "many minutes" in note
    seconds, err = _interrupt(proc, after=0.5)
    assert proc.returncode == -signal.SIGINT and "Traceback" not in err and seconds < 3


@POSIX
def test_ctrl_c_stops_the_gomoku_pns_solve_at_once():
    proc = subprocess.Popen([sys.executable, "-m", "zeroplay", "solve", "gomoku", "--moves", LONG_PNS,
                             "--method", "pns", "--nodes", "100000000"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds, err = _interrupt(proc, after=4)  # start-up is about 1.5 s, the search about 30 s
    assert proc.returncode == -signal.SIGINT and "Traceback" not in err and seconds < 3


@POSIX
def test_python_handler_is_restored_and_an_ignored_sigint_is_left_alone():
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with _interrupt_ends_process():
        assert signal.getsignal(signal.SIGINT) is signal.SIG_DFL
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a background job
    try:
        with _interrupt_ends_process():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


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
    assert "many minutes" in _connect4_long_solve_note(*parse_position(""))
    assert "many minutes" in _connect4_long_solve_note(*parse_position("4453"))
    assert "seconds" in _connect4_long_solve_note(*parse_position("1234567"))
    assert _connect4_long_solve_note(*parse_position("112233")) is None  # wins at once
    assert _connect4_long_solve_note(*parse_position("4444333322")) is None  # 10 stones
    assert main(["solve", "connect4", "112233"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "score: 18" in captured.out
