"""``zeroplay ablate``: equal CPU time per side, resume, the result file; one real tiny run (slow)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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


@pytest.mark.parametrize("opts, flag", [("--iterations 5", "--iterations"), ("--iterations=5", "--iterations"),
                                        ("--iter 5", "--iterations"), ("--run-dir=elsewhere", "--run-dir"),
                                        ("--hours=1", "--hours")])
def test_options_the_harness_sets_are_refused_in_any_spelling(tmp_path, capsys, opts, flag):
    # `--iterations=1` slipped through a word match: every later chunk did nothing while
    # RESULT.md counted the iterations asked for
    from zeroplay.cli import main

    assert main(["ablate", "--out", str(tmp_path / "x"), "--cpu-hours", "0.1", "--a", opts]) == 2
    assert f"{flag} is set by zeroplay ablate" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_bad_train_options_are_refused_before_out_is_written(tmp_path, capsys):
    # a bad option used to write OUT/options.json first, so the corrected command was refused
    from zeroplay.cli import main

    assert main(["ablate", "--out", str(tmp_path / "x"), "--cpu-hours", "0.1", "--common", "--bogus"]) == 2
    err = capsys.readouterr().err
    assert "side A's options" in err and "unrecognized arguments: --bogus" in err and "Traceback" not in err
    assert main(["ablate", "--out", str(tmp_path / "x"), "--cpu-hours", "0.1", "--b", "--playouts x"]) == 2
    assert "side B's options" in capsys.readouterr().err
    assert main(["ablate", "--out", str(tmp_path / "x"), "--cpu-hours", "0.1", "--b", "--net 'b4"]) == 2
    assert "No closing quotation" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("common, said", [("--size 99", "must be an integer in 5..25, got 99"),
                                          ("--game gomoku --size 9 --net bogus", "unknown architecture 'bogus'"),
                                          ("--game connect4 --threat-solver", "the threat solver is for Gomoku")])
def test_bad_train_values_are_refused_before_out_is_written(tmp_path, capsys, common, said):
    # a value train's parser takes but train refuses (a size out of range, an unknown net) used to
    # pass: the first chunk wrote OUT/options.json, failed, and the corrected command was refused
    # in that OUT ("was trained with other options")
    from zeroplay.cli import main

    assert main(["ablate", "--out", str(tmp_path / "x"), "--cpu-hours", "0.001", "--common", common]) == 2
    err = capsys.readouterr().err
    assert "side A's options" in err and said in err and "Traceback" not in err
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("flags, said", [(["--cpu-hours", "inf"], "--cpu-hours must be a finite number > 0"),
                                         (["--cpu-hours", "0"], "--cpu-hours must be a finite number > 0"),
                                         (["--cpu-hours", "1", "--games", "0"], "--games must be >= 1, got 0"),
                                         (["--cpu-hours", "1", "--playouts", "0"], "--playouts must be >= 1")])
def test_budget_and_arena_options_are_checked_one_by_one(tmp_path, capsys, flags, said):
    from zeroplay.cli import main

    assert main(["ablate", "--out", str(tmp_path / "x"), *flags]) == 2
    assert said in capsys.readouterr().err


def test_a_second_ablate_on_the_same_out_is_refused(tmp_path, capsys):
    from zeroplay.cli import main
    from zeroplay.train.runlock import RunLock

    with RunLock(tmp_path, flag="--out", owner="zeroplay ablate"):
        assert main(["ablate", "--out", str(tmp_path), "--cpu-hours", "0.1"]) == 2
    assert "--out " in (err := capsys.readouterr().err) and "in use by another zeroplay ablate process" in err
    (tmp_path / "f").write_text("")
    assert main(["ablate", "--out", str(tmp_path / "f"), "--cpu-hours", "0.1"]) == 2
    assert "--out" in (err := capsys.readouterr().err) and "is a file" in err and "Traceback" not in err


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
    import zeroplay.train.ablation_steps as steps

    burn = "import time\nt=time.process_time()\nwhile time.process_time()-t<0.3: pass\n"
    monkeypatch.setattr(steps, "_zeroplay", lambda: [sys.executable, "-c", burn])
    row = steps.train_chunk(tmp_path, "a", "", 1)
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
    import zeroplay.train.ablation_steps as steps

    monkeypatch.setattr(steps, "_zeroplay", lambda: [sys.executable, "-c", "raise SystemExit(130)"])
    # the iterations a stopped chunk leaves are its run directory's (a chunk of several may have
    # finished some of them)
    (tmp_path / "a" / "checkpoints").mkdir(parents=True)
    (tmp_path / "a" / "checkpoints" / "iter-000002.safetensors").write_bytes(b"")
    row = steps.train_chunk(tmp_path, "a", "", 5)
    assert row["interrupted"] is True and row["iterations"] == 2 and row["side"] == "a"
    # a failed chunk is booked too, with its exit status and command (run_ablation then raises)
    monkeypatch.setattr(steps, "_zeroplay", lambda: [sys.executable, "-c", "raise SystemExit(1)"])
    row = steps.train_chunk(tmp_path, "a", "", 3)
    assert row["exit"] == 1 and row["iterations"] == 2 and "interrupted" not in row
    assert row["command"].startswith("zeroplay train --run-dir")


def test_a_failed_chunk_is_booked_then_stops_the_ablation(tmp_path):
    """A chunk killed by SIGKILL (the OOM killer) kept its 4 iterations while its CPU time went
    unbooked, so that side trained on for free."""
    from zeroplay.train.ablate import StepFailed

    calls = []
    train_chunk, arena = _fakes(calls, {"a": 10.0, "b": 10.0})

    def killed_in_a(out, side, options, iterations):
        row = train_chunk(out, side, options, iterations)
        if side == "a" and iterations == 2:
            row.update(exit=-9, command="zeroplay train ...")
        return row

    with pytest.raises(StepFailed, match="side a: zeroplay train ... failed .exit -9.; its 10 CPU-seconds are booked"):
        run_ablation(tmp_path, "", "--a", "--b", cpu_hours=40 / 3600, games=10, playouts=10, seed=0,
                     log=lambda m: None, train_chunk=killed_in_a, arena=arena)
    result = run_ablation(tmp_path, "", "--a", "--b", cpu_hours=40 / 3600, games=10, playouts=10, seed=0,
                          log=lambda m: None, train_chunk=train_chunk, arena=arena)
    assert result["spent"]["a"] == {"cpu_s": 40.0, "wall_s": 4.0, "iterations": 4}


def test_iterations_no_row_books_are_booked_at_the_sides_rate(tmp_path):
    """The ablate process was SIGKILLed while its chunk went on and wrote iterations 3 and 4."""
    calls = []
    train_chunk, arena = _fakes(calls, {"a": 10.0, "b": 10.0})
    _run(tmp_path, "", train_chunk, arena, cpu_s=20.0)
    ck = tmp_path / "a" / "checkpoints"
    for i in (3, 4):
        (ck / f"iter-{i:06d}.safetensors").write_bytes(b"")
    said = []
    result = _run(tmp_path, "", train_chunk, arena, cpu_s=40.0, log=said.append)
    rows = [json.loads(line) for line in (tmp_path / CPU_LOG).read_text().splitlines()]
    assert {"side": "a", "iterations": 4, "cpu_s": 20.0, "wall_s": 0.0, "estimated": True} in rows
    assert any("iterations 3-4" in m and "not booked" in m for m in said)
    assert result["spent"]["a"]["iterations"] == 4 and result["spent"]["a"]["cpu_s"] == 40.0
    assert result["spent"]["b"]["iterations"] == 4
    # with nothing booked there is no rate: refused, not guessed
    other = tmp_path / "other"
    (other / "b" / "checkpoints").mkdir(parents=True)
    (other / "b" / "checkpoints" / "iter-000002.safetensors").write_bytes(b"")
    with pytest.raises(ValueError, match="no side has a CPU per iteration .* remove .*other/b and rerun"):
        _run(other, "", train_chunk, arena)
    assert not (other / CPU_LOG).exists()  # nothing booked, nothing said booked


_FAKE_TRAIN = """
import sys, time
from pathlib import Path
run = Path(sys.argv[sys.argv.index("--run-dir") + 1]) / "checkpoints"
run.mkdir(parents=True, exist_ok=True)
(run / "iter-000001.safetensors").write_bytes(b"")
try:
    time.sleep(60)
except KeyboardInterrupt:
    sys.exit(130)
sys.exit(3)
"""


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
def test_a_signal_to_ablate_stops_its_chunk_which_is_booked(tmp_path, monkeypatch, capsys, signame):
    """SIGTERM (kill, batch schedulers) killed ablate at once while its chunk ran on unbooked; and
    a SIGINT that reached ablate alone waited for the whole chunk. Now either is passed on as one
    SIGINT to the chunk (its own process group), which stops and is booked."""
    import os
    import signal
    import threading
    import time

    import zeroplay.train.ablation_steps as steps
    from zeroplay.cli import main

    monkeypatch.setattr(steps, "_zeroplay", lambda: [sys.executable, "-c", _FAKE_TRAIN])

    def send():
        t = time.monotonic()
        while time.monotonic() - t < 30:
            if steps.LIVE and (tmp_path / "a" / "checkpoints").exists():
                time.sleep(0.3)
                os.kill(os.getpid(), getattr(signal, signame))
                return
            time.sleep(0.05)

    threading.Thread(target=send, daemon=True).start()
    started = time.monotonic()
    assert main(["ablate", "--out", str(tmp_path), "--cpu-hours", "1"]) == 130
    assert time.monotonic() - started < 30  # not the chunk's whole minute
    rows = [json.loads(line) for line in (tmp_path / CPU_LOG).read_text().splitlines()]
    assert rows[0]["interrupted"] is True and rows[0]["iterations"] == 1
    err = capsys.readouterr().err
    assert f"{signame}: stopping" in err and "rerun the same command" in err
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # handlers restored


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


def test_side_a_from_another_ablation_trains_only_b(tmp_path):
    """``--a-from``: one baseline serves several ablations; only B trains, and the arena waits for
    the baseline's budget."""
    from zeroplay.train.ablate import SideAPending

    calls = []
    train_chunk, arena = _fakes(calls, {"a": 10.0, "b": 10.0})
    base, other = tmp_path / "base", tmp_path / "other"
    _run(base, "--forced-playouts 2", train_chunk, arena, cpu_s=20.0)
    calls.clear()
    # the baseline has spent 20 CPU-s; this ablation's budget is 30: B trains, then it must wait
    with pytest.raises(SideAPending, match="side A comes from .*base, whose A has spent 20"):
        _run(other, "--threat-planes", train_chunk, arena, cpu_s=30.0, a_from=base)
    assert {c[0] for c in calls} == {"b"} and not (other / "a").exists()
    _run(base, "--forced-playouts 2", train_chunk, arena, cpu_s=30.0)  # the baseline goes on
    calls.clear()
    result = _run(other, "--threat-planes", train_chunk, arena, cpu_s=30.0, a_from=base)
    assert calls == [("arena", "iter-000003.safetensors", "iter-000003.safetensors")]
    assert result["nets"]["a"].startswith(str(base / "a")) and result["spent"]["a"]["cpu_s"] == 30.0
    assert f"(side A of `{base}`, trained there)" in (other / RESULT).read_text()
    # the baseline trained on (a larger budget of its own): this ablation keeps A's net of its budget
    _run(base, "--forced-playouts 2", train_chunk, arena, cpu_s=50.0)
    calls.clear()
    again = _run(other, "--threat-planes", train_chunk, arena, cpu_s=30.0, a_from=base)
    assert calls == [("arena", "iter-000003.safetensors", "iter-000003.safetensors")]
    assert again["spent"]["a"] == {"cpu_s": 30.0, "wall_s": 3.0, "iterations": 3}
    # a relative --a-from means the same folder from any working directory
    import os

    assert json.loads((other / "options.json").read_text())["a_from"] == os.path.join("..", "base")
    here = os.getcwd()
    try:
        os.chdir(tmp_path)
        _run(other, "--threat-planes", train_chunk, arena, cpu_s=30.0, a_from=Path("base"))
        os.chdir(other)
        _run(Path("."), "--threat-planes", train_chunk, arena, cpu_s=30.0, a_from=Path("../base"))
    finally:
        os.chdir(here)
    # a chain is refused: name the origin
    with pytest.raises(ValueError, match="takes its own side A from .*base: give that one"):
        _run(tmp_path / "chain", "--x", train_chunk, arena, a_from=other)
    # the source's A must have the same options, and OUT keeps its source
    with pytest.raises(ValueError, match="its side A was trained with"):
        run_ablation(tmp_path / "third", "--size 7", "", "--b", cpu_hours=0.01, games=4, playouts=10, seed=0,
                     log=lambda m: None, train_chunk=train_chunk, arena=arena, a_from=base)
    with pytest.raises(ValueError, match="takes side A from"):
        _run(other, "--threat-planes", train_chunk, arena, cpu_s=30.0)


def test_refused_commands_write_nothing_and_sides_must_play_one_game(tmp_path, capsys):
    from zeroplay.cli import main

    base = ["ablate", "--cpu-hours", "0.1"]
    assert main([*base, "--out", ""]) == 2
    assert "--out is empty" in capsys.readouterr().err
    assert main([*base, "--out", str(tmp_path / "x"), "--a-from", str(tmp_path / "nowhere")]) == 2
    assert "not a zeroplay ablate --out" in capsys.readouterr().err
    assert main([*base, "--out", str(tmp_path / "x"), "--b", "--size 7"]) == 2
    assert "name different games" in capsys.readouterr().err
    assert main([*base, "--out", str(tmp_path / "x"), "--b", "--help"]) == 2
    assert "--help is not a training option" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_a_resumed_match_keeps_its_seed_and_playouts(tmp_path):
    calls = []
    train_chunk, arena = _fakes(calls, {"a": 10.0, "b": 10.0})
    _run(tmp_path, "", train_chunk, arena, cpu_s=10.0)
    nets = {s: str(tmp_path / s / "checkpoints" / "iter-000001.safetensors") for s in "ab"}
    (tmp_path / "arena.jsonl").write_text(json.dumps(nets) + "\n")  # the same nets' record
    with pytest.raises(ValueError, match="was played with --seed 0 --playouts 10: rerun with those"):
        run_ablation(tmp_path, "--size 9", "", "", cpu_hours=10 / 3600, games=4, playouts=10, seed=5,
                     log=lambda m: None, train_chunk=train_chunk, arena=arena)


def test_a_side_still_worked_on_by_a_leftover_trainer_is_not_started(tmp_path):
    """ablate killed with SIGKILL leaves its chunk running; a rerun started a chunk that failed on the
    run directory's lock and booked the leftover's iterations as its own."""
    from zeroplay.train.runlock import RunLock

    calls = []
    train_chunk, arena = _fakes(calls, {"a": 10.0, "b": 10.0})
    with RunLock(tmp_path / "a"):
        with pytest.raises(ValueError, match="side a: .*in use by another zeroplay train process.*wait for it"):
            _run(tmp_path, "", train_chunk, arena)
    assert calls == []
