"""training/value_by_ply.py: each checkpoint's value by ply range on recorded games."""

import json
import subprocess
import sys
from pathlib import Path

from zeroplay.games import make
from zeroplay.nn import build_model, save_checkpoint

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "training" / "value_by_ply.py"


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=300)


def _run_dir(tmp_path):
    game = make("gomoku", width=6, height=6, n_in_row=4, rule="freestyle")
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"game": "gomoku", "game_options": {
        "width": 6, "height": 6, "n_in_row": 4, "rule": "freestyle"}}))
    for it, seed in ((3, 1), (7, 2)):
        save_checkpoint(run / "checkpoints" / f"iter-{it:06d}.safetensors", build_model("tiny", game, "basic", seed=seed),
                        game=game, features="basic")
    record = tmp_path / "games.jsonl"
    games = [{"game": 1, "a_is_black": True, "winner": 0, "moves": [14, 0, 15, 1, 16, 2, 17]},  # Black's four
             {"game": 2, "a_is_black": False, "winner": None, "moves": [0, 1]}]  # a draw: left out
    header = {"zeroplay_match": 1, "game": "gomoku", "options": {"width": 6, "height": 6, "n_in_row": 4, "rule": "freestyle"}}
    record.write_text("\n".join(json.dumps(r) for r in [header, *games]) + "\n")
    return run, record


def test_it_prints_each_nets_value_by_ply(tmp_path):
    run, record = _run_dir(tmp_path)
    out = _run(run, "3,7", record)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "7 positions; Black won 1.00 of the games"
    assert [line.split(":")[0] for line in lines[1:]] == ["iteration 3", "iteration 7"]
    assert "ply 0-0: " in lines[1] and "ply 6-11: " in lines[1] and "ply 12-19" not in lines[1]


def test_bad_input_is_one_line_and_status_2(tmp_path):
    run, record = _run_dir(tmp_path)
    missing = _run(run, "5", record)
    assert _run(run, "3,5", record).returncode == 2  # a later one missing
    assert missing.returncode == 2 and missing.stderr.startswith("value_by_ply: ") and "Traceback" not in missing.stderr
    draws = tmp_path / "draws.jsonl"
    draws.write_text(json.dumps({"game": 1, "winner": None, "moves": [0]}) + "\n")
    nothing = _run(run, "3", draws)
    assert nothing.returncode == 2 and "no decided game" in nothing.stderr
    assert _run(run, "3,x", record).returncode == 2


def test_a_record_of_another_board_or_a_broken_line_is_named(tmp_path):
    run, record = _run_dir(tmp_path)
    other = tmp_path / "8x8.jsonl"
    other.write_text(record.read_text().replace('"width": 6, "height": 6', '"width": 8, "height": 8'))
    wrong = _run(run, "3", other)
    assert wrong.returncode == 2 and "8x8.jsonl: a record of gomoku" in wrong.stderr
    broken = tmp_path / "broken.jsonl"
    broken.write_text(record.read_text() + "{oops\n")
    bad = _run(run, "3", broken)
    assert bad.returncode == 2 and "broken.jsonl line 4: not JSON" in bad.stderr
