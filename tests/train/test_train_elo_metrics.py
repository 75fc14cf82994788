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


def test_plot_of_a_run_without_metrics_yet_says_so(tmp_path, capsys):
    # a run that has only iteration 0 (the initial net): config.json, no metrics.jsonl yet
    run = tmp_path / "run"
    assert main(["train", "--run-dir", str(run), "--game", "tictactoe", "--hours", "0", "--workers", "0",
                 "--threads", "1", "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["plot", str(run)]) == 0
    err = capsys.readouterr().err
    assert "no metrics to plot yet" in err and "training run directory" not in err


def test_games_per_hour_is_per_iteration_not_per_shard():
    from zeroplay.train.plot import games_per_hour_points

    # iteration 1: two shards, the second flushed 10 ms after the first (workers finishing
    # together); per shard that read as 5.76 million games an hour
    records = [{"kind": "selfplay", "iteration": 1, "games": 16, "seconds": 100.0, "time": 1100.0},
               {"kind": "selfplay", "iteration": 1, "games": 16, "seconds": 0.01, "time": 1100.01},
               {"kind": "selfplay", "iteration": 2, "games": 32, "seconds": 120.0, "time": 1300.0}]
    x, y = games_per_hour_points(records)
    assert len(x) == 2
    assert math.isclose(y[0], 32 / 100.01 * 3600) and math.isclose(y[1], 32 / 120 * 3600)
    assert math.isclose(x[0], 100.01 / 3600) and math.isclose(x[1], 300 / 3600)
