"""The scripts of training/ that run the shipped-model runs: bad input is one line and changes nothing."""

import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def default_sigint() -> None:
    """``preexec_fn`` of a child that the test interrupts: SIGINT back to its default action.
    An ignored signal stays ignored across exec, so under ``make test &`` or a CI runner that
    ignores SIGINT the child would never see the test's Ctrl-C (issue 23)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("argv", [[], ["typo-name"], ["a", "b"]])
def test_run_sh_refuses_a_name_without_an_args_file(argv, tmp_path):
    # a mistyped name used to start an unbounded 15x15 run with default settings
    runs = sorted(p.name for p in (ROOT / "training" / "runs").iterdir())
    out = subprocess.run(["bash", str(ROOT / "training" / "run.sh"), *argv], capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "ZEROPLAY": "false"}, timeout=60)
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1
    assert ("usage: training/run.sh NAME" in out.stderr) if len(argv) != 1 else ("gomoku-8x8-5" in out.stderr)
    assert sorted(p.name for p in (ROOT / "training" / "runs").iterdir()) == runs


def test_export_model_py_refuses_a_missing_iteration_in_one_line(tmp_path):
    out_file = tmp_path / "m.safetensors"
    out = subprocess.run([sys.executable, str(ROOT / "training" / "export_model.py"),
                          str(ROOT / "training" / "runs" / "gomoku-6x6-4"), "--iteration", "99",
                          "--out", str(out_file)], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().splitlines() == [
        out.stderr.strip()] and "no checkpoint of iteration 99" in out.stderr and "iterations 12 and 16" in out.stderr
    assert not out_file.exists()


def _sandbox(tmp_path, fake_train: str) -> tuple[Path, dict]:
    """A copy of training/run.sh with run ``x`` (3 iterations) and a stand-in for zeroplay."""
    (tmp_path / "training").mkdir()
    script = tmp_path / "training" / "run.sh"
    script.write_text((ROOT / "training" / "run.sh").read_text())
    (tmp_path / "training" / "x.args").write_text("# test run\n--game tictactoe\n--iterations 3\n")
    fake = tmp_path / "fake-zeroplay"
    fake.write_text("#!/bin/sh\n" + fake_train)
    fake.chmod(0o755)
    return script, {"PATH": "/usr/bin:/bin", "ZEROPLAY": str(fake)}


@pytest.mark.parametrize("how", ["term", "ctrl-c"])
def test_stopping_run_sh_stops_its_chunk(tmp_path, how):
    """Killing run.sh (or Ctrl-C in its terminal) left the zeroplay train chunk running, adopted
    by init and deaf to SIGINT."""
    import os
    import signal
    import time

    pid_file = tmp_path / "train.pid"
    script, env = _sandbox(tmp_path, f"echo $$ > {pid_file}\nexec sleep 300\n")
    proc = subprocess.Popen(["bash", str(script), "x"], env=env, start_new_session=True, preexec_fn=default_sigint,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(200):
            if pid_file.exists() and pid_file.read_text().strip():
                break
            time.sleep(0.05)
        train_pid = int(pid_file.read_text())
        if how == "term":
            proc.send_signal(signal.SIGTERM)
        else:
            os.killpg(proc.pid, signal.SIGINT)  # the terminal signals the whole foreground group
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130 and "rerun training/run.sh x to resume" in err
    time.sleep(0.2)
    assert not Path(f"/proc/{train_pid}").exists() or "Z" in Path(f"/proc/{train_pid}/stat").read_text().split()[2]
    live = (tmp_path / "training" / "runs" / "x" / "cputime.live").read_text().split()
    assert len(live) == 3  # booked as a killed chunk at the next start


def test_run_sh_gives_up_at_once_when_train_refuses_its_options(tmp_path):
    script, env = _sandbox(tmp_path, "echo 'zeroplay train: error: bad option' >&2\nexit 2\n")
    out = subprocess.run(["bash", str(script), "x"], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "refused the options of training/x.args" in out.stderr
    # no training ran: no CPU row is booked for it
    assert (tmp_path / "training" / "runs" / "x" / "cputime.tsv").read_text().count("\n") == 1


def test_run_sh_leaves_a_finished_run_alone(tmp_path):
    script, env = _sandbox(tmp_path, "echo started > $(dirname $0)/started\nexit 0\n")
    run = tmp_path / "training" / "runs" / "x"
    (run / "evals").mkdir(parents=True)
    (run / "evals" / "iter-000003.json").write_text("{}")
    (run / "cputime.tsv").write_text("start\twall_s\tuser_s\tsys_s\tcpu_s\trc\n")
    out = subprocess.run(["bash", str(script), "x"], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "x has its 3 iterations" in out.stderr
    assert not (tmp_path / "started").exists()
    assert (run / "cputime.tsv").read_text() == "start\twall_s\tuser_s\tsys_s\tcpu_s\trc\n"


def test_run_sh_reads_iterations_written_with_an_equals_sign(tmp_path):
    script, env = _sandbox(tmp_path, "echo started > $(dirname $0)/started\nexit 0\n")
    (tmp_path / "training" / "x.args").write_text("--game tictactoe\n--iterations=3\n")
    (tmp_path / "training" / "runs" / "x" / "evals").mkdir(parents=True)
    (tmp_path / "training" / "runs" / "x" / "evals" / "iter-000003.json").write_text("{}")
    out = subprocess.run(["bash", str(script), "x"], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "x has its 3 iterations" in out.stderr
    assert not (tmp_path / "started").exists()


@pytest.mark.parametrize("args_file", sorted((Path(__file__).resolve().parents[2] / "training").glob("*.args")),
                         ids=lambda p: p.name)
def test_every_recipe_parses_as_train_options(args_file):
    # a recipe that argparse refuses would only show when its run starts, in run.sh's log
    import shlex

    from zeroplay.cli import build_parser

    words = []
    for line in args_file.read_text().splitlines():
        if not line.lstrip().startswith("#"):
            words += shlex.split(line)
    ns = build_parser().parse_args(["train", "--run-dir", "unused", *words])
    assert ns.game in ("gomoku", "go", "connect4", "othello", "tictactoe", "shogi")
