"""``zeroplay train`` end to end on tic-tac-toe: layout, metrics, resume, refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")

from zeroplay.cli import main  # noqa: E402
from zeroplay.games import make  # noqa: E402
from zeroplay.nn import load_checkpoint  # noqa: E402
from zeroplay.train import ReplayBuffer, read_metrics  # noqa: E402
from zeroplay.train.shards import read_shard  # noqa: E402

TINY = ["--game", "tictactoe", "--net", "tiny", "--playouts", "12", "--games-per-iteration", "6",
        "--parallel-games", "3", "--steps", "3", "--batch-size", "16", "--eval-games", "2",
        "--baseline", "uniform:8", "--eval-playouts", "8", "--flush-games", "4", "--workers", "0",
        "--no-progress", "--threads", "1"]


def _train(run_dir, *extra):
    return main(["train", "--run-dir", str(run_dir), *TINY, *extra])


def _shard_ids(run_dir):
    game = make("tictactoe")
    ids = []
    for path in ReplayBuffer(run_dir / "shards", game, "basic").shard_paths:
        ids.extend(read_shard(path, game, "basic").game_ids.tolist())
    return ids


def test_two_iterations_write_the_documented_layout(tmp_path, capsys):
    run = tmp_path / "run"
    assert _train(run, "--iterations", "2") == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["iteration"] == 2 and summary["step"] == 6 and summary["games_total"] == 12
    config = json.loads((run / "config.json").read_text())
    assert config["game"] == "tictactoe" and config["selfplay"]["playouts"] == 12
    assert config["loop"]["games_per_iteration"] == 6
    for it in (0, 1, 2):
        assert (run / "checkpoints" / f"iter-{it:06d}.safetensors").exists()
        assert json.loads((run / "evals" / f"iter-{it:06d}.json").read_text())["iteration"] == it
    ck = load_checkpoint(run / "checkpoints" / "iter-000002.safetensors", game=make("tictactoe"))
    assert ck.step == 6 and ck.meta["extra"]["games_total"] == 12 and ck.optimizer is not None
    assert _shard_ids(run) == list(range(12))
    assert len(list((run / "records").glob("game-*.psq"))) == 12
    kinds = {r["kind"] for r in read_metrics(run / "metrics.jsonl")}
    assert kinds == {"selfplay", "train", "arena"}
    arena = read_metrics(run / "metrics.jsonl", "arena")
    assert {r["opponent"] for r in arena} == {"previous best", "uniform:8", "cumulative (iteration 0 = 0)"}
    assert (run / "plots" / "losses.png").exists()


def test_a_second_call_continues_the_run(tmp_path, capsys):
    run = tmp_path / "run"
    assert _train(run, "--iterations", "1") == 0
    first_ids = _shard_ids(run)
    one = load_checkpoint(run / "checkpoints" / "iter-000001.safetensors")
    capsys.readouterr()
    assert _train(run, "--iterations", "1") == 0  # already there: nothing more
    assert _shard_ids(run) == first_ids
    assert "resuming after iteration 1 (step 3, 6 self-play games; 6 games in the replay shards)" \
        in capsys.readouterr().err
    assert _train(run, "--iterations", "2") == 0
    ids = _shard_ids(run)
    assert ids == list(range(12)) and len(set(ids)) == len(ids)
    two = load_checkpoint(run / "checkpoints" / "iter-000002.safetensors")
    assert (one.step, two.step) == (3, 6)
    # the first iteration's files are untouched
    again = load_checkpoint(run / "checkpoints" / "iter-000001.safetensors")
    assert again.meta["tensors_sha256"] == one.meta["tensors_sha256"]
    steps = [r["step"] for r in read_metrics(run / "metrics.jsonl", "train")]
    assert steps == [3, 6]


def test_resume_keeps_stored_settings_and_applies_new_ones(tmp_path):
    run = tmp_path / "run"
    assert _train(run, "--iterations", "1") == 0
    # a bare resume: only the run dir and the total
    assert main(["train", "--run-dir", str(run), "--iterations", "2", "--workers", "0", "--no-progress",
                 "--threads", "1"]) == 0
    assert json.loads((run / "config.json").read_text())["selfplay"]["playouts"] == 12
    assert _train(run, "--iterations", "3", "--games-per-iteration", "2") == 0
    assert json.loads((run / "config.json").read_text())["loop"]["games_per_iteration"] == 2
    assert _shard_ids(run) == list(range(14))


def test_another_game_in_the_same_run_dir_is_refused(tmp_path, capsys):
    run = tmp_path / "run"
    assert _train(run, "--iterations", "1", "--eval-games", "0") == 0
    capsys.readouterr()
    code = main(["train", "--run-dir", str(run), "--game", "gomoku", "--size", "6", "--iterations", "2",
                 "--workers", "0"])
    assert code == 2
    assert "another setting" in capsys.readouterr().err


def test_sample_counts_match_the_games(tmp_path):
    run = tmp_path / "run"
    assert _train(run, "--iterations", "1", "--eval-games", "0") == 0
    game = make("tictactoe")
    buf = ReplayBuffer(run / "shards", game, "basic")
    selfplay = read_metrics(run / "metrics.jsonl", "selfplay")
    assert sum(r["games"] for r in selfplay) == buf.total_games == 6
    assert sum(r["samples"] for r in selfplay) == buf.total_samples
    # every sample's z agrees with the saved record of its game
    from zeroplay.games.records import load_record

    for path in buf.shard_paths:
        shard = read_shard(path, game, "basic")
        for gid in shard.game_ids:
            rec = load_record(run / "records" / f"game-{gid:09d}.psq")
            rows = shard.game_id == gid
            z, ply = shard.samples.z[rows], shard.samples.ply[rows]
            final = rec.replay(game)
            winner = final.winner if final.is_terminal else None
            if winner is None and final.is_terminal:
                assert (z == 0).all()
            elif winner is not None:
                np.testing.assert_array_equal(z, np.where(ply % 2 == winner, 1.0, -1.0))


def test_hours_limit_stops_before_the_next_iteration(tmp_path, capsys):
    run = tmp_path / "run"
    assert _train(run, "--hours", "0") == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["iteration"] == 0 and summary["games_total"] == 0
    assert (run / "checkpoints" / "iter-000000.safetensors").exists()


def test_resume_after_old_shards_were_deleted_plays_only_the_owed_games(tmp_path, capsys):
    # regression: games owed were counted from the shards on disk, so deleting old shards (a
    # trimmed window) made the next iteration replay every deleted game
    run = tmp_path / "run"
    assert _train(run, "--iterations", "1") == 0
    shards = sorted((run / "shards").glob("shard-*.npz"))
    assert shards
    shards[0].unlink()
    assert _train(run, "--iterations", "2") == 0
    ids = _shard_ids(run)
    assert ids[-6:] == list(range(6, 12))  # iteration 2 played exactly its 6 games, ids 6..11
    ck = load_checkpoint(run / "checkpoints" / "iter-000002.safetensors", game=make("tictactoe"))
    assert ck.meta["extra"]["games_total"] == 12


@pytest.mark.parametrize("which", ["all", "newest"])
def test_resume_after_the_newest_or_every_shard_was_deleted_plays_only_the_owed_games(tmp_path, capsys, which):
    # helper-79: with every shard deleted, the next iteration played games_total + its own games
    # (ids from 0 again) and wrote over the kept records of the first games
    run = tmp_path / "run"
    assert _train(run, "--iterations", "1") == 0
    record = (run / "records" / "game-000000000.psq").read_bytes()
    shards = sorted((run / "shards").glob("shard-*.npz"))
    for path in shards if which == "all" else shards[-1:]:
        path.unlink()
    kept = _shard_ids(run)
    capsys.readouterr()
    assert _train(run, "--iterations", "2") == 0
    assert _shard_ids(run) == kept + list(range(6, 12))  # the 6 games of iteration 2, no other
    assert (run / "records" / "game-000000000.psq").read_bytes() == record
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["games_total"] == 12 and summary["games_in_shards"] == len(kept) + 6
    ck = load_checkpoint(run / "checkpoints" / "iter-000002.safetensors", game=make("tictactoe"))
    assert ck.meta["extra"]["games_total"] == 12


def test_an_iteration_without_an_arena_does_not_restart_the_elo_chain(tmp_path):
    # helper-79: after one iteration with --eval-games 0 the cumulative Elo went back to 0
    run = tmp_path / "run"
    assert _train(run, "--iterations", "1") == 0
    path = run / "evals" / "iter-000001.json"  # as if iteration 1 had won its arena (seeds decide it)
    path.write_text(json.dumps({**json.loads(path.read_text()), "best_after": 1, "elo_cumulative": 500.0}))
    first = 500.0
    assert _train(run, "--iterations", "2", "--eval-games", "0") == 0
    untested = json.loads((run / "evals" / "iter-000002.json").read_text())
    assert untested["elo_cumulative"] is None and untested["best_after"] == 2
    assert _train(run, "--iterations", "3", "--eval-games", "2") == 0
    third = json.loads((run / "evals" / "iter-000003.json").read_text())
    from zeroplay.engine.elo import elo_from_score

    m = third["matches"]["previous best"]
    step = elo_from_score((m["wins"] + 0.5 * m["draws"] + 0.5) / (m["games"] + 1))
    assert third["best_before"] == 2 and third["elo_cumulative"] == round(first + step, 1), (first, third)


def test_an_arena_redone_on_a_resume_ends_with_a_done_line(tmp_path, capsys):
    # helper-79: after a kill in iteration N's arena, the resume played it and said nothing after
    run = tmp_path / "run"
    assert _train(run, "--iterations", "1") == 0
    (run / "evals" / "iter-000001.json").unlink()
    capsys.readouterr()
    assert _train(run, "--iterations", "1") == 0
    err = capsys.readouterr().err
    assert "iteration 1 done (its arena, cut short before, played on this resume with --eval-games 2)" in err, err
    assert (run / "evals" / "iter-000001.json").exists()
