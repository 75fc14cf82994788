"""The scripts of training/ that run the shipped-model runs: bad input is one line and changes nothing."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


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
