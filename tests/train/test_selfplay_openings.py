"""Self-play from start positions (``SelfPlayConfig.openings``, ``zeroplay train --selfplay-openings``)."""

from __future__ import annotations

import json

import pytest

from zeroplay.games import make
from zeroplay.search import UniformEvaluator
from zeroplay.train.selfplay import SelfPlayConfig, SelfPlayer

pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")

from zeroplay.cli import main  # noqa: E402

TINY = ["--game", "tictactoe", "--net", "tiny", "--playouts", "8", "--games-per-iteration", "4",
        "--parallel-games", "2", "--steps", "1", "--batch-size", "8", "--eval-games", "0",
        "--flush-games", "2", "--workers", "0", "--no-progress", "--threads", "1"]


def test_each_game_starts_after_one_opening_whose_plies_give_no_sample():
    game = make("gomoku", width=7, height=7, n_in_row=4, rule="freestyle")
    openings = ([24, 25], [0, 48, 6])
    cfg = SelfPlayConfig(playouts=8, parallel_games=2, seed=5, openings=openings, resign_threshold=None)
    assert cfg.openings == ((24, 25), (0, 48, 6))  # lists, as config.json gives them, become tuples
    games = SelfPlayer(game, UniformEvaluator(), cfg).play(12)
    starts = {tuple(g.moves[:len(o)]) for g in games for o in cfg.openings if tuple(g.moves[:len(o)]) == o}
    assert starts == set(cfg.openings)  # both drawn in 12 games
    for g in games:
        n = 2 if tuple(g.moves[:2]) == (24, 25) else 3
        assert g.policies[:n] == [None] * n and all(p is not None for p in g.policies[n:])
        assert g.targets == len(g.moves) - n
        samples = g.samples(game, "basic")
        assert len(samples.planes) == g.targets and samples.ply.min() == n  # the first searched ply


def test_openings_are_bounded():
    with pytest.raises(ValueError, match="openings"):
        SelfPlayConfig(openings=[[]])
    with pytest.raises(ValueError, match="opening 2 has 65 plies"):
        SelfPlayConfig(openings=[[1], list(range(65))])


def test_the_option_stores_the_openings_in_the_run_and_none_clears_them(tmp_path, capsys):
    book = tmp_path / "book.txt"
    book.write_text("# two openings\nb2 a1\nc3\n")  # cells 4 6 and 2 (row 1 at the bottom)
    run = tmp_path / "run"
    assert main(["train", "--run-dir", str(run), *TINY, "--iterations", "1", "--selfplay-openings", str(book)]) == 0
    stored = json.loads((run / "config.json").read_text())["selfplay"]["openings"]
    assert stored == [[4, 6], [2]]
    assert main(["train", "--run-dir", str(run), *TINY, "--iterations", "2"]) == 0  # a resume keeps them
    assert json.loads((run / "config.json").read_text())["selfplay"]["openings"] == [[4, 6], [2]]
    assert main(["train", "--run-dir", str(run), *TINY, "--iterations", "3", "--selfplay-openings", "none"]) == 0
    assert json.loads((run / "config.json").read_text())["selfplay"]["openings"] == []


@pytest.mark.parametrize("text, needle", [("b2 b2\n", "line 1"), ("a1 b1 a2 b2 a3\n", "the game is over"), ("", "no opening")])
def test_a_bad_openings_file_is_refused_before_the_run_dir_is_created(tmp_path, capsys, text, needle):
    book = tmp_path / "book.txt"
    book.write_text(text)
    run = tmp_path / "run"
    assert main(["train", "--run-dir", str(run), *TINY, "--iterations", "1", "--selfplay-openings", str(book)]) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not run.exists()
    assert main(["train", "--run-dir", str(run), *TINY, "--iterations", "1",
                 "--selfplay-openings", str(tmp_path / "missing.txt")]) == 2
    assert not run.exists()


def test_a_hand_edited_opening_that_does_not_play_is_named_on_resume(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["train", "--run-dir", str(run), *TINY, "--iterations", "1"]) == 0
    config = json.loads((run / "config.json").read_text())
    config["selfplay"]["openings"] = [[4], [4, 4]]
    (run / "config.json").write_text(json.dumps(config))
    capsys.readouterr()
    assert main(["train", "--run-dir", str(run), *TINY, "--iterations", "2"]) == 2
    err = capsys.readouterr().err
    assert "opening 2 does not play" in err and "Traceback" not in err


def test_shogi_and_an_empty_name_are_refused(tmp_path, capsys):
    book = tmp_path / "book.txt"
    book.write_text("7g7f 3c3d\n")
    run = tmp_path / "run"
    assert main(["train", "--run-dir", str(run), "--game", "shogi", "--net", "tiny", "--playouts", "2",
                 "--games-per-iteration", "1", "--steps", "1", "--iterations", "1", "--max-moves", "8",
                 "--selfplay-openings", str(book)]) == 2
    assert "does not take --selfplay-openings" in capsys.readouterr().err
    assert main(["train", "--run-dir", str(run), *TINY, "--iterations", "1", "--selfplay-openings", " "]) == 2
    assert "needs a file" in capsys.readouterr().err and not run.exists()


def test_the_file_is_read_once_per_command(tmp_path, monkeypatch):
    from zeroplay.engine import arena_openings

    reads = []
    real = arena_openings.FileOpenings.__init__

    def counting(self, *a, **k):
        reads.append(1)
        real(self, *a, **k)

    monkeypatch.setattr(arena_openings.FileOpenings, "__init__", counting)
    book = tmp_path / "book.txt"
    book.write_text("b2\n")
    assert main(["train", "--run-dir", str(tmp_path / "run"), *TINY, "--iterations", "1",
                 "--selfplay-openings", str(book)]) == 0
    assert reads == [1]
