"""``zeroplay ablate``: equal CPU time per side, resume, the result file; one real tiny run (slow)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from zeroplay.train.ablate import CPU_LOG, RESULT, run_ablation


def _fakes(calls, cpu_by_side):
    def train_chunk(out, side, options, iterations):
        calls.append((side, iterations, options))
        ck = out / side / "checkpoints"
        ck.mkdir(parents=True, exist_ok=True)
        (ck / f"iter-{iterations:06d}.safetensors").write_bytes(b"")
        return {"side": side, "iterations": iterations, "cpu_s": cpu_by_side[side], "wall_s": 1.0}

    def arena(out, nets, games, playouts, seed):
        calls.append(("arena", nets["a"].name, nets["b"].name))
        match = {"games": games, "wins": 120, "draws": 10, "losses": 70, "score": 0.625, "elo": 88.7,
                 "elo_low": 39.0, "elo_high": 140.1}
        return match, ["arena", str(nets["a"]), str(nets["b"]), "--games", str(games)]

    return train_chunk, arena


def test_equal_cpu_schedule_result_and_resume(tmp_path):
    calls = []
    # side b's iterations cost twice side a's: it gets half as many
    train_chunk, arena = _fakes(calls, {"a": 10.0, "b": 20.0})
    result = run_ablation(tmp_path, "--size 9", "--root-policy puct", "--root-policy gumbel", cpu_hours=60 / 3600,
                          games=200, playouts=100, seed=0, argv=["ablate", "--out", "X"], log=lambda m: None,
                          train_chunk=train_chunk, arena=arena)
    chunks = [c for c in calls if c[0] != "arena"]
    assert [c[0] for c in chunks].count("a") == 6 and [c[0] for c in chunks].count("b") == 3
    assert all(c[2].startswith("--size 9 --root-policy") for c in chunks)
    assert calls[-1] == ("arena", "iter-000006.safetensors", "iter-000003.safetensors")
    assert result["spent"]["a"]["cpu_s"] == result["spent"]["b"]["cpu_s"] == 60.0
    text = (tmp_path / RESULT).read_text()
    assert "A 120 / 10 / 70" in text and "+89 [+39, +140]" in text and "Rerun: `zeroplay ablate --out X`" in text
    assert len((tmp_path / CPU_LOG).read_text().splitlines()) == 9
    # a rerun trains nothing more and plays the (resumable) arena again
    calls.clear()
    run_ablation(tmp_path, "--size 9", "--root-policy puct", "--root-policy gumbel", cpu_hours=60 / 3600,
                 games=200, playouts=100, seed=0, log=lambda m: None, train_chunk=train_chunk, arena=arena)
    assert [c[0] for c in calls] == ["arena"]


def test_options_the_harness_sets_are_refused(tmp_path):
    out = subprocess.run([sys.executable, "-m", "zeroplay", "ablate", "--out", str(tmp_path / "x"), "--cpu-hours",
                          "0.1", "--a", "--iterations 5"], capture_output=True, text=True)
    assert out.returncode != 0 and "--iterations is set by zeroplay ablate" in out.stderr
    assert not (tmp_path / "x").exists()


@pytest.mark.slow
def test_tiny_real_ablation(tmp_path):
    """End to end on 5x5 four in a row with a one-block net: minutes of CPU, a plumbing check."""
    common = ("--game gomoku --size 5 --n-in-row 4 --net b1c8 --playouts 8 --games-per-iteration 4 --steps 2 "
              "--batch-size 16 --eval-games 0 --workers 0 --threads 1 --parallel-games 4")
    out = subprocess.run([sys.executable, "-m", "zeroplay", "ablate", "--out", str(tmp_path), "--common", common,
                          "--b", "--root-policy gumbel --gumbel-m 4", "--cpu-hours", "0.001", "--games", "4",
                          "--playouts", "8"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["arena"]["games"] == 4 and (tmp_path / "arena.jsonl").exists()


def test_parallel_trains_both_sides_each_round_with_the_same_accounting(tmp_path):
    calls = []
    train_chunk, arena = _fakes(calls, {"a": 10.0, "b": 20.0})
    result = run_ablation(tmp_path, "--size 9", "--root-policy puct", "--root-policy gumbel", cpu_hours=60 / 3600,
                          games=200, playouts=100, seed=0, log=lambda m: None, train_chunk=train_chunk,
                          arena=arena, parallel=True)
    chunks = [c[0] for c in calls if c[0] != "arena"]
    # both sides every round until b reaches the budget (3 rounds), then a alone up to 60 s
    assert chunks.count("a") == 6 and chunks.count("b") == 3
    assert result["spent"]["a"]["cpu_s"] == 60.0 and result["spent"]["b"]["cpu_s"] == 60.0


def test_chunk_cpu_time_is_that_process_trees_own(tmp_path, monkeypatch):
    # wait4 accounting: a child that burns CPU is measured, a concurrent sibling is not mixed in
    import zeroplay.train.ablate as ablate

    burn = "import time\nt=time.process_time()\nwhile time.process_time()-t<0.3: pass\n"
    monkeypatch.setattr(ablate, "_zeroplay", lambda: [sys.executable, "-c", burn])
    row = ablate._train_chunk(tmp_path, "a", "", 1)
    assert 0.25 <= row["cpu_s"] <= 1.5 and row["side"] == "a"


def test_a_side_string_that_starts_with_a_dash_is_its_value():
    # TRAINING.md's `--b "--ownership-head"` failed in argparse with "expected one argument"
    from zeroplay.cli import build_parser
    from zeroplay.train.ablate import glue_option_strings

    argv = ["ablate", "--out", "x", "--cpu-hours", "1", "--common", "--game go --size 9", "--a", "",
            "--b", "--ownership-head"]
    args = build_parser().parse_args(glue_option_strings(argv))
    assert (args.common, args.a, args.b) == ("--game go --size 9", "", "--ownership-head")
    assert glue_option_strings(["ablate", "--b"]) == ["ablate", "--b"]  # argparse reports the missing value


def _run(out, b, train_chunk, arena, cpu_s=60.0, **kw):
    return run_ablation(out, "--size 9", "", b, cpu_hours=cpu_s / 3600, games=4, playouts=10, seed=0,
                        log=kw.pop("log", lambda m: None), train_chunk=train_chunk, arena=arena, **kw)


def test_a_rerun_with_other_options_is_refused(tmp_path):
    """A new user reran a finished ablation with other --a/--b: nothing retrained, and RESULT.md
    named options its nets were not trained with (with budget left, a side mixed both)."""
    calls = []
    train_chunk, arena = _fakes(calls, {"a": 20.0, "b": 20.0})
    _run(tmp_path, "--root-policy gumbel", train_chunk, arena)
    with pytest.raises(ValueError, match="trained with other options"):
        _run(tmp_path, "--root-policy puct", train_chunk, arena, cpu_s=120.0)
    assert "B --root-policy puct" not in (tmp_path / RESULT).read_text()
    _run(tmp_path, " --root-policy   gumbel", train_chunk, arena)  # the same options, other spacing


def test_a_sweep_has_the_elo_of_its_sign(tmp_path):
    """RESULT.md said "Elo of A over B inf [?, -7]" for A 0 / 0 / 4."""
    calls = []
    train_chunk, _ = _fakes(calls, {"a": 60.0, "b": 60.0})

    def swept(out, nets, games, playouts, seed):
        return {"games": 4, "wins": 0, "draws": 0, "losses": 4, "score": 0.0, "elo": None,
                "elo_low": None, "elo_high": -7.2}, ["arena"]

    _run(tmp_path, "", train_chunk, swept)
    assert "score 0.000, Elo of A over B -inf [-inf, -7]" in (tmp_path / RESULT).read_text()


def test_raising_the_budget_after_the_arena_plays_the_new_nets_afresh(tmp_path):
    """The old arena.jsonl recorded other nets and the arena refused it with a traceback."""
    calls = []
    train_chunk, arena = _fakes(calls, {"a": 30.0, "b": 30.0})
    _run(tmp_path, "", train_chunk, arena)
    header = {"zeroplay_match": 1, "a": str(tmp_path / "a/checkpoints/iter-000002.safetensors"),
              "b": str(tmp_path / "b/checkpoints/iter-000002.safetensors")}
    (tmp_path / "arena.jsonl").write_text(json.dumps(header) + "\n")
    _run(tmp_path, "", train_chunk, arena, cpu_s=90.0)
    assert not (tmp_path / "arena.jsonl").exists()  # the fake arena writes none
    assert json.loads((tmp_path / "arena-until-2-2.jsonl").read_text()) == header
    assert calls[-1] == ("arena", "iter-000003.safetensors", "iter-000003.safetensors")


def test_a_chunk_stopped_by_ctrl_c_books_its_cpu_and_the_rerun_goes_on(tmp_path):
    """Ctrl-C reaches the training process too; its unfinished iteration's self-play games stay in
    the run directory and count when it resumes, so its CPU time is booked to its side."""
    from zeroplay.train.ablate import AblationStopped

    calls = []
    train_chunk, arena = _fakes(calls, {"a": 10.0, "b": 10.0})

    def stopped_in_b(out, side, options, iterations):
        if side == "b" and iterations == 2:
            return {"side": side, "iterations": iterations - 1, "cpu_s": 4.0, "wall_s": 1.0, "interrupted": True}
        return train_chunk(out, side, options, iterations)

    said = []
    with pytest.raises(AblationStopped):
        run_ablation(tmp_path, "", "--a", "--b", cpu_hours=40 / 3600, games=10, playouts=10, seed=0,
                     log=said.append, train_chunk=stopped_in_b, arena=arena)
    assert "side b 4" in said[-1] and "rerun the same command" in said[-1]
    rows = [json.loads(line) for line in (tmp_path / CPU_LOG).read_text().splitlines()]
    assert rows[-1] == {"side": "b", "iterations": 1, "cpu_s": 4.0, "wall_s": 1.0, "interrupted": True}
    calls.clear()
    result = run_ablation(tmp_path, "", "--a", "--b", cpu_hours=40 / 3600, games=10, playouts=10, seed=0,
                          log=lambda m: None, train_chunk=train_chunk, arena=arena)
    # b's second iteration is trained again, its 4 CPU-seconds counted: 10 + 4 + 10 + 10 + 10 >= 40
    assert result["spent"]["b"]["cpu_s"] == 44.0 and result["spent"]["b"]["iterations"] == 4


def test_train_chunk_reads_exit_130_as_interrupted(tmp_path, monkeypatch):
    import zeroplay.train.ablate as ablate

    monkeypatch.setattr(ablate, "_zeroplay", lambda: [sys.executable, "-c", "raise SystemExit(130)"])
    # the iterations a stopped chunk leaves are its run directory's (a chunk of several may have
    # finished some of them)
    (tmp_path / "a" / "checkpoints").mkdir(parents=True)
    (tmp_path / "a" / "checkpoints" / "iter-000002.safetensors").write_bytes(b"")
    row = ablate._train_chunk(tmp_path, "a", "", 5)
    assert row["interrupted"] is True and row["iterations"] == 2 and row["side"] == "a"
    monkeypatch.setattr(ablate, "_zeroplay", lambda: [sys.executable, "-c", "raise SystemExit(1)"])
    with pytest.raises(RuntimeError, match="failed .exit 1."):
        ablate._train_chunk(tmp_path, "a", "", 3)


def test_chunks_of_several_iterations_shrink_near_the_budget(tmp_path):
    """``chunk=4``: 4 iterations a call while the budget allows, then what the side is expected to
    have left at its CPU per iteration so far; both sides end at (or just over) the budget."""
    calls = []
    per_iteration = {"a": 10.0, "b": 25.0}

    def train_chunk(out, side, options, iterations):
        ck = out / side / "checkpoints"
        ck.mkdir(parents=True, exist_ok=True)
        done = len(list(ck.glob("iter-*.safetensors")))
        calls.append((side, done, iterations))
        for i in range(done + 1, iterations + 1):
            (ck / f"iter-{i:06d}.safetensors").write_bytes(b"")
        return {"side": side, "iterations": iterations, "cpu_s": per_iteration[side] * (iterations - done),
                "wall_s": 1.0}

    _, arena = _fakes([], {})
    result = run_ablation(tmp_path, "", "--a", "--b", cpu_hours=100 / 3600, games=10, playouts=10, seed=0,
                          log=lambda m: None, train_chunk=train_chunk, arena=arena, chunk=4)
    assert [(d, t) for s, d, t in calls if s == "a"] == [(0, 4), (4, 8), (8, 10)]
    assert [(d, t) for s, d, t in calls if s == "b"] == [(0, 4)]
    assert result["spent"]["a"] == {"cpu_s": 100.0, "wall_s": 3.0, "iterations": 10}
    assert result["spent"]["b"]["cpu_s"] == 100.0


def test_chunk_option_is_checked(capsys):
    from zeroplay.cli import main

    assert main(["ablate", "--out", "x", "--cpu-hours", "1", "--chunk", "0"]) == 2
    assert "--chunk must be 1..100, got 0" in capsys.readouterr().err
