"""``zeroplay bench tactics`` (bench/tactics.py): targets read, moves scored, a missing file told.

Two puzzles copied from ``shared/data/gomoku/puzzles.jsonl`` (intro_1move_vcf_001 and _002, the
lfz084 renju puzzles with Rapfi's answers; see that folder's README) so that the test runs
without ``../shared``.
"""

from __future__ import annotations

import json

import pytest

from zeroplay.bench.tactics import measure, proves_win_after, puzzle_state, read_targets
from zeroplay.games import make
from zeroplay.solvers.threat_solver import ThreatSolver

PUZZLES = [
    {"id": "intro_1move_vcf_001", "collection": "intro_1move_vcf", "to_move": "black",
     "black": [[7, 7], [2, 8], [6, 8], [3, 9], [5, 9]], "white": [[8, 6], [3, 7], [4, 8], [5, 8], [4, 9]],
     "rapfi_freestyle": {"move": [4, 10], "eval": "+M5", "win": True, "ms": 2},
     "freestyle_four_moves": [[3, 11], [4, 10]], "freestyle_winning_four_moves": [[4, 10, 5]]},
    {"id": "intro_1move_vcf_002", "collection": "intro_1move_vcf", "to_move": "black",
     "black": [[7, 7], [7, 8], [5, 9], [6, 10], [7, 10]], "white": [[7, 6], [6, 8], [8, 8], [6, 9], [8, 10]],
     "rapfi_freestyle": {"move": [7, 11], "eval": "+M5", "win": True, "ms": 2},
     "freestyle_four_moves": [[7, 9], [7, 11]], "freestyle_winning_four_moves": [[7, 11, 5]]},
    {"id": "no_freestyle_win", "collection": "white_vcf", "to_move": "black",
     "black": [[7, 7]], "white": [[0, 0]], "rapfi_freestyle": {"move": [7, 8], "eval": "12", "win": False},
     "freestyle_four_moves": []},
]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "puzzles.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PUZZLES))
    return path


def test_only_the_freestyle_targets_are_read(data):
    assert [p["id"] for p in read_targets(data)] == ["intro_1move_vcf_001", "intro_1move_vcf_002"]
    assert len(read_targets(data, limit=1)) == 1
    data.write_bytes(b"\xef\xbb\xbf" + data.read_bytes())  # --data FILE saved by Windows Notepad
    assert [p["id"] for p in read_targets(data)] == ["intro_1move_vcf_001", "intro_1move_vcf_002"]


def test_the_search_only_engine_solves_both(data):
    out = measure(data=data, playouts=16, engine="search-only")
    assert out["positions"] == 2 and out["solved"] == 2 and out["percent"] == 100.0
    assert out["collections"]["intro_1move_vcf"]["failures"] == []
    assert out["mean_seconds"] > 0


def test_skip_and_limit_split_a_run(data):
    second = measure(data=data, playouts=16, engine="search-only", skip=1)
    assert second["positions"] == 1 and second["collections"]["intro_1move_vcf"]["positions"] == 1
    assert measure(data=data, playouts=16, engine="search-only", skip=1, limit=5)["positions"] == 1
    assert measure(data=data, playouts=16, engine="search-only", skip=2)["positions"] == 0


def test_our_solver_proves_a_winning_four_and_rejects_a_wrong_move():
    game = make("gomoku", width=15, height=15)
    state = puzzle_state(game, PUZZLES[0])
    solver = ThreatSolver(game)
    assert proves_win_after(state, 10 * 15 + 4, solver)  # the listed four (4, 10)
    assert not proves_win_after(state, 11 * 15 + 3, solver)  # the other four (3, 11) does not win
    assert not proves_win_after(state, 0, solver)  # a corner: White is not lost by force after it


def test_missing_data_and_bad_options_are_told(tmp_path, data):
    with pytest.raises(ValueError, match="no Gomoku puzzles at"):
        measure(data=tmp_path / "nope.jsonl")
    with pytest.raises(ValueError, match="--playouts"):
        measure(data=data, playouts=0)
    with pytest.raises(ValueError, match="--skip"):
        measure(data=data, skip=-1)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    with pytest.raises(ValueError, match="not JSON"):
        read_targets(bad)


def test_the_other_benchmarks_read_data_saved_with_a_byte_order_mark(tmp_path):
    """``bench vcf`` / ``bench solve`` --data files saved by Windows Notepad start with a BOM."""
    from zeroplay.bench import vcf
    from zeroplay.bench.solve import read_set

    rows = tmp_path / "rows.jsonl"
    rows.write_bytes(b"\xef\xbb\xbf" + json.dumps(PUZZLES[0]).encode() + b"\n")
    assert [r["id"] for r in vcf.load(rows)] == ["intro_1move_vcf_001"]
    scored = tmp_path / "Test_L1_R1"
    scored.write_bytes(b"\xef\xbb\xbf4453 -3\n445 2\n")
    assert read_set(scored) == [("4453", -3), ("445", 2)]
