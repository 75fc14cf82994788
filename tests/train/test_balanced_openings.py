"""training/balanced_openings.py: openings a net rates near even, readable by --selfplay-openings."""

import subprocess
import sys
from pathlib import Path

from zeroplay.engine.arena_openings import FileOpenings
from zeroplay.games import make
from zeroplay.nn import build_model, save_checkpoint

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "training" / "balanced_openings.py"


def _run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, timeout=300)


def _checkpoint(tmp_path, game):
    path = tmp_path / "net.safetensors"
    save_checkpoint(path, build_model("tiny", game, "basic", seed=3), game=game, features="basic")
    return path


def test_it_writes_openings_near_the_centre_that_the_file_reader_takes(tmp_path):
    game = make("gomoku", width=9, height=9, n_in_row=5, rule="freestyle")
    out = tmp_path / "book.txt"
    done = _run(_checkpoint(tmp_path, game), "--plies", "3", "--radius", "1", "--count", "20",
                "--max-value", "1", "--out", out)
    assert done.returncode == 0, done.stderr
    lines = FileOpenings(out, game).lines
    assert len(lines) == 20
    for line in lines:
        assert len(line) == 3
        for action in line:
            y, x = divmod(game.action_to_cell(action), 9)
            assert max(abs(y - 4), abs(x - 4)) <= 1
    assert len({(frozenset(line[0::2]), frozenset(line[1::2])) for line in lines}) == 20  # no repeats


def test_a_tight_bound_keeps_only_near_even_openings_or_says_none(tmp_path):
    game = make("gomoku", width=9, height=9, n_in_row=5, rule="freestyle")
    out = tmp_path / "book.txt"
    none = _run(_checkpoint(tmp_path, game), "--plies", "2", "--radius", "1", "--max-value", "0", "--tries", "5",
                "--out", out)
    assert none.returncode == 2 and "none of" in none.stderr and "Traceback" not in none.stderr
    assert not out.exists()


def test_bad_arguments_are_one_line_and_status_2(tmp_path):
    game = make("gomoku", width=9, height=9, n_in_row=5, rule="freestyle")
    ck = _checkpoint(tmp_path, game)
    for args in (["--plies", "0"], ["--max-value", "2"], ["--radius", "0", "--plies", "3"]):
        bad = _run(ck, *args, "--out", tmp_path / "x.txt")
        assert bad.returncode == 2 and "Traceback" not in bad.stderr
    missing = _run(tmp_path / "nope.safetensors", "--out", tmp_path / "x.txt")
    assert missing.returncode == 2 and missing.stderr.startswith("balanced_openings: ")
    assert not (tmp_path / "x.txt").exists()


def test_an_unwritable_out_is_refused_before_the_work(tmp_path):
    game = make("gomoku", width=9, height=9, n_in_row=5, rule="freestyle")
    ck = _checkpoint(tmp_path, game)
    for out in (tmp_path / "no-such-folder" / "book.txt", tmp_path):
        bad = _run(ck, "--out", out)
        assert bad.returncode == 2 and "--out" in bad.stderr and "Traceback" not in bad.stderr


def test_another_board_size_for_a_fully_convolutional_net(tmp_path):
    game = make("gomoku", width=9, height=9, n_in_row=5, rule="freestyle")
    path = tmp_path / "net.safetensors"
    save_checkpoint(path, build_model("b1c8", game, "basic", seed=3), game=game, features="basic")
    out = tmp_path / "book.txt"
    done = _run(path, "--size", "7", "--plies", "2", "--radius", "1", "--count", "5", "--max-value", "1", "--out", out)
    assert done.returncode == 0, done.stderr
    seven = make("gomoku", width=7, height=7, n_in_row=5, rule="freestyle")
    for line in FileOpenings(out, seven).lines:
        assert all(max(abs(c // 7 - 3), abs(c % 7 - 3)) <= 1 for c in map(seven.action_to_cell, line))
