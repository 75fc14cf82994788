"""``zeroplay bench inference``: its figures from a tiny run, and its option checks."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")

from zeroplay.nn.shipped import MODELS_DIR  # noqa: E402


def test_bench_inference_reports_the_three_ways_and_restores_threads():
    if not (MODELS_DIR / "gomoku-15x15-freestyle.safetensors").exists():
        pytest.skip("the shipped 15x15 model is not in this checkout (src/zeroplay/models/)")
    from zeroplay.bench.inference import measure

    before = torch.get_num_threads()
    out = measure(batch=2, calls=2, repeats=1)
    assert set(out["positions_per_s"]) == {"unlimited", "limit_lost", "limit_held"}
    assert all(v > 0 for v in out["positions_per_s"].values()) and out["check_ns"] > 0
    assert out["details"]["limit_threads"] >= 1 and torch.get_num_threads() == before


def test_bench_inference_refuses_bad_options(capsys):
    from zeroplay.cli import main

    assert main(["bench", "inference", "--calls", "0"]) == 2
    assert capsys.readouterr().err == "zeroplay bench inference: error: --calls must be >= 1, got 0\n"
