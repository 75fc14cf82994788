"""training/vct_blunders.py: finds a recorded move that lets the opponent a VCT, and a move that
does not; refuses a record of another game."""

from __future__ import annotations

import importlib.util
import io
import json
from pathlib import Path

import pytest

from zeroplay.games import make

SCRIPT = Path(__file__).resolve().parents[2] / "training" / "vct_blunders.py"
# iteration 83's game 79 against heuristic:800 up to White's d8 (tests/search/test_root_guard.py)
MOVES = "g8 f8 f9 h7 h9 f7 g9 i9 i7 g10 j8 h8 j10 h6 j9 j11 i5 f6 j6 j7 h4 k7 f5 e6 g6 g7 e5 e9 d10 e7 d7 d8"


def _script():
    spec = importlib.util.spec_from_file_location("vct_blunders", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_losing_move_is_found_and_another_clears(tmp_path):
    game = make("gomoku", width=15, height=15)
    moves = [game.parse_move(m) for m in MOVES.split()]
    record = tmp_path / "match.jsonl"
    header = {"zeroplay_match": 1, "a": "x", "b": "y", "game": "gomoku", "playouts": 800, "opening_moves": 2,
              "options": {"width": 15, "height": 15, "n_in_row": 5, "rule": "freestyle"}}
    game_line = {"game": 1, "a_is_black": False, "winner": 0, "moves": moves}
    record.write_text(json.dumps(header) + "\n" + json.dumps(game_line) + "\n" + json.dumps(game_line) + "\n")
    out = io.StringIO()
    totals = _script().blunders(str(record), 50_000, out=out)
    assert totals["games"] == 1 and totals["lost"] == 1 and totals["cleared"] == 1  # the repeated game once
    assert "ply 31: A (White) played d8" in out.getvalue()


def test_lost_only_and_a_smaller_guards_view(tmp_path):
    # White's g5 in game 79 loses to a VCT of about 70,500 units: found within 100,000, not 50,000
    game = make("gomoku", width=15, height=15)
    moves = [game.parse_move(m) for m in MOVES.split()[:-1] + ["g5"]]
    record = tmp_path / "match.jsonl"
    header = {"zeroplay_match": 1, "a": "x", "b": "y", "game": "gomoku", "playouts": 800, "opening_moves": 2,
              "options": {"width": 15, "height": 15, "n_in_row": 5, "rule": "freestyle"}}
    lost = {"game": 1, "a_is_black": False, "winner": 0, "moves": moves}
    won = {"game": 2, "a_is_black": True, "winner": 0, "moves": moves[:-1] + [game.parse_move("e10")]}
    record.write_text("\n".join(json.dumps(x) for x in (header, lost, won)) + "\n")
    out = io.StringIO()
    totals = _script().blunders(str(record), 100_000, out=out, lost_only=True, within=50_000)
    assert totals["games"] == 1 and totals["lost"] == 1 and totals["deeper"] == 1
    assert "played g5" in out.getvalue() and "not found within 50000 units" in out.getvalue()


def test_another_game_is_refused(tmp_path):
    record = tmp_path / "go.jsonl"
    record.write_text(json.dumps({"game": "go", "options": {}}) + "\n")
    with pytest.raises(ValueError, match="Gomoku"):
        _script().blunders(str(record), 1000)
    assert _script().main([str(record)]) == 1


def test_missed_finds_a_vct_the_player_did_not_take(tmp_path):
    # after White's d8 in game 79, Black (A here) wins by a VCT; a record where Black played a1
    # instead and the game was drawn is a missed win; a game A won is not read
    game = make("gomoku", width=15, height=15)
    moves = [game.parse_move(m) for m in MOVES.split() + ["a1"]]
    record = tmp_path / "match.jsonl"
    header = {"zeroplay_match": 1, "a": "x", "b": "y", "game": "gomoku", "playouts": 800, "opening_moves": 2,
              "options": {"width": 15, "height": 15, "n_in_row": 5, "rule": "freestyle"}}
    drawn = {"game": 1, "a_is_black": True, "winner": None, "moves": moves}
    won = {"game": 2, "a_is_black": True, "winner": 0, "moves": moves[:-2]}
    record.write_text("\n".join(json.dumps(x) for x in (header, drawn, won)) + "\n")
    out = io.StringIO()
    totals = _script().missed_wins(str(record), 50_000, out=out)
    assert totals["games"] == 1 and totals["missed"] == 1
    assert "ply 32: A (Black) had a VCT" in out.getvalue() and "and played a1" in out.getvalue()
    assert _script().main([str(record), "--missed", "--nodes", "50000"]) == 0
