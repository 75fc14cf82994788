"""`zeroplay solve gomoku --method pns`: the proof-number VCT from the command line."""

from __future__ import annotations

import json

import pytest

from zeroplay.cli import main
from zeroplay.games import make

# Black to move: g8 h8 and i9 i10 make a double-three set-up (no four yet, so no VCF)
DOUBLE_THREE = "g8 a1 h8 a3 i9 o15 i10 o13"


def test_solve_gomoku_method_pns_json_line_replays(capsys):
    assert main(["solve", "gomoku", "--moves", DOUBLE_THREE, "--method", "pns", "--threats", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "vct" and out["method"] == "pns" and out["found"] and out["complete"]
    s = make("gomoku").initial().play_many(DOUBLE_THREE.split()).play_many(out["line"])
    assert s.is_terminal and s.winner == 0


def test_solve_gomoku_method_pns_text_and_default_threats(capsys):
    assert main(["solve", "gomoku", "--moves", DOUBLE_THREE, "--vct", "--method", "pns"]) == 0
    out = capsys.readouterr().out
    assert "VCT found: black wins" in out and "main line" in out
    assert main(["solve", "gomoku", "--moves", "h8 a1", "--method", "pns", "--nodes", "5000", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["kind"] == "vct" and not out["found"] and out["line"] == []


def test_solve_gomoku_method_ab_is_the_default_and_unknown_method_is_refused(capsys):
    assert main(["solve", "gomoku", "--moves", DOUBLE_THREE, "--vct", "--threats", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "ab" and out["found"]
    with pytest.raises(SystemExit):
        main(["solve", "gomoku", "--method", "dfpn"])


def test_a_finished_game_says_who_won(capsys):
    from zeroplay.cli import main

    moves = "h8 h7 i8 i7 j8 j7 k8 k7 l8"
    assert main(["solve", "gomoku", "--moves", moves]) == 0
    assert "the game is over: black wins" in capsys.readouterr().out
    assert main(["solve", "gomoku", "--moves", moves, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["game_over"] == "black wins"


def test_solve_time_leaves_out_compiling_the_solver(capsys, monkeypatch):
    """It reported 46 s for 4 nodes on first use (issue 23): the compile is timed apart."""
    import time

    import zeroplay.solvers.threat_solver as vcf

    real = vcf.ThreatSolver.vct
    calls = []

    def first_call_slow(self, state, **kwargs):  # the first call stands for the compile
        calls.append(kwargs["nodes"])
        if len(calls) == 1:
            time.sleep(1.0)
        return real(self, state, **kwargs)

    monkeypatch.setattr(vcf.ThreatSolver, "vct", first_call_slow)
    assert main(["solve", "gomoku", "--moves", DOUBLE_THREE, "--vct", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert calls[0] == 1 and out["setup_seconds"] >= 1.0 and out["seconds"] < 1.0 and out["found"]
    assert main(["solve", "gomoku", "--moves", DOUBLE_THREE, "--vct"]) == 0
    assert "s to compile or load the solver)" in capsys.readouterr().out.splitlines()[-1]
