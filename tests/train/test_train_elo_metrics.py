"""Elo with its interval, the JSONL metrics log, and ``zeroplay plot``."""

import json
import math

import pytest

from zeroplay.cli import main
from zeroplay.train import MetricsLog, elo_estimate, elo_from_score, read_metrics, score_from_elo
from zeroplay.train.plot import plot_run


def test_elo_of_known_scores():
    assert elo_from_score(0.5) == 0.0
    assert math.isclose(elo_from_score(0.75), 190.848, abs_tol=1e-3)
    assert math.isclose(elo_from_score(0.25), -190.848, abs_tol=1e-3)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    assert math.isclose(score_from_elo(elo_from_score(0.9)), 0.9)


def test_elo_interval_from_wins_draws_losses():
    e = elo_estimate(60, 20, 20)
    assert e.games == 100 and e.score == 0.7
    assert math.isclose(e.elo, 147.19, abs_tol=0.01)
    # score sd = sqrt((60*.09 + 20*.04 + 20*.49)/100) = 0.4; margin 1.96 * 0.04 = 0.0784
    assert math.isclose(e.elo_low, elo_from_score(0.7 - 1.959964 * 0.04), abs_tol=0.01)
    assert math.isclose(e.elo_high, elo_from_score(0.7 + 1.959964 * 0.04), abs_tol=0.01)
    assert e.elo_low < e.elo < e.elo_high
    mirrored = elo_estimate(20, 20, 60)
    assert math.isclose(mirrored.elo, -e.elo) and math.isclose(mirrored.elo_low, -e.elo_high)
    assert "Elo +147" in str(e)


def test_elo_edge_cases():
    draws = elo_estimate(0, 10, 0)
    # all games alike: the variance floor 1/(4N) keeps the interval from collapsing to a point
    margin = 1.959964 * math.sqrt(1 / (4 * 10) / 10)
    assert draws.elo == 0.0 and math.isclose(draws.elo_high, elo_from_score(0.5 + margin), abs_tol=0.01)
    assert math.isclose(draws.elo_low, -draws.elo_high)
    assert str(elo_estimate(0, 2, 0)).endswith("Elo +0 [-798, +798]")  # not "-0 [-0, -0]"
    perfect = elo_estimate(10, 0, 0)
    assert perfect.elo == math.inf and perfect.elo_high == math.inf and 0 < perfect.elo_low < math.inf
    with pytest.raises(ValueError, match="no games"):
        elo_estimate(0, 0, 0)
    with pytest.raises(ValueError):
        elo_estimate(-1, 0, 3)


def test_metrics_append_and_read_skip_a_torn_line(tmp_path):
    log = MetricsLog(tmp_path / "run" / "metrics.jsonl")
    log.append("train", step=1, loss=2.5)
    log.append("arena", iteration=1, opponent="best", elo=math.inf, elo_low=10.0, elo_high=math.inf)
    with open(log.path, "a") as f:
        f.write('{"kind": "train", "step": 2, "lo')  # killed mid-write
    records = read_metrics(log.path)
    assert [r["kind"] for r in records] == ["train", "arena"]
    assert records[1]["elo"] is None and "time" in records[0]
    assert read_metrics(log.path, kind="train") == records[:1]
    assert read_metrics(tmp_path / "missing.jsonl") == []


def _fake_run(run_dir):
    log = MetricsLog(run_dir / "metrics.jsonl")
    for step in range(1, 6):
        log.append("train", step=step * 100, loss=3.0 / step, value_loss=1.0 / step,
                   policy_loss=2.0 / step, val_value_loss=1.1 / step, val_policy_loss=2.1 / step)
        log.append("selfplay", games=20, moves=400, seconds=30.0 + step)
        e = elo_estimate(10 + step, 5, 10 - step)
        log.append("arena", iteration=step, opponent="rollout:1000", elo=e.elo,
                   elo_low=e.elo_low, elo_high=e.elo_high)


def test_plot_writes_three_pngs(tmp_path):
    _fake_run(tmp_path)
    paths = plot_run(tmp_path, tmp_path / "charts")
    assert sorted(p.name for p in paths) == ["elo.png", "games_per_hour.png", "losses.png"]
    for p in paths:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_command(tmp_path, capsys):
    _fake_run(tmp_path)
    assert main(["plot", str(tmp_path)]) == 0
    assert str(tmp_path / "plots" / "losses.png") in capsys.readouterr().out
    assert main(["plot", str(tmp_path / "nothing")]) == 2
    assert "metrics.jsonl" in capsys.readouterr().err


def test_plot_skips_charts_without_data(tmp_path):
    MetricsLog(tmp_path / "metrics.jsonl").append("train", step=1, loss=1.0, value_loss=0.5, policy_loss=0.5)
    assert [p.name for p in plot_run(tmp_path)] == ["losses.png"]
    assert json.loads((tmp_path / "metrics.jsonl").read_text())["kind"] == "train"
