"""Elo with its interval, the JSONL metrics log, and ``zeroplay plot``."""

import json
import math

from zeroplay.cli import main
from zeroplay.engine.elo import elo_estimate, elo_from_score, score_from_elo
from zeroplay.train import MetricsLog, read_metrics
from zeroplay.train.plot import plot_run


def test_elo_of_known_scores():
    assert elo_from_score(0.5) == 0.0
    assert math.isclose(elo_from_score(0.75), 190.848, abs_tol=1e-3)
    assert math.isclose(elo_from_score(0.25), -190.848, abs_tol=1e-3)
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    assert math.isclose(score_from_elo(elo_from_score(0.9)), 0.9)


# the interval itself (Wilson-type score interval with draws): tests/train/test_elo.py


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


def test_a_resumed_log_does_not_write_onto_a_torn_line(tmp_path):
    # helper-68: metrics.jsonl cut 30 bytes short, then the run resumed; its next record was
    # written onto the torn line and neither could be read
    path = tmp_path / "metrics.jsonl"
    MetricsLog(path).append("train", step=1, loss=2.5)
    path.write_bytes(path.read_bytes() + b'{"kind": "arena", "iteration": 1, "elo_lo')
    resumed = MetricsLog(path)
    resumed.append("selfplay", games=16, moves=300, seconds=9.0)
    resumed.append("train", step=2, loss=2.4)
    assert [r["kind"] for r in read_metrics(path)] == ["train", "selfplay", "train"]
    assert path.read_text().count("\n") == 4  # the torn line is ended, not rewritten
    MetricsLog(tmp_path / "new.jsonl").append("train", step=1, loss=1.0)  # a new file starts clean
    assert (tmp_path / "new.jsonl").read_text().startswith("{")


def test_bytes_that_are_not_utf8_are_skipped_with_their_line(tmp_path):
    # helper-71: garbage bytes appended to metrics.jsonl stopped the resume and `zeroplay plot`
    # with "'utf-8' codec can't decode byte 0xff", naming no file
    path = tmp_path / "metrics.jsonl"
    MetricsLog(path).append("train", step=1, loss=2.5)
    path.write_bytes(path.read_bytes() + b"\x00\x00\xff\xfe garbage\n")
    MetricsLog(path).append("train", step=2, loss=2.4)
    assert [r["step"] for r in read_metrics(path, kind="train")] == [1, 2]


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
    assert sorted(p.name for p in paths) == ["elo.png", "games_per_hour.png", "losses.png"]  # no iterations: no per-iteration charts
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


def test_a_redone_iterations_lines_count_once(tmp_path):
    # helper-79: an iteration redone on a resume (its checkpoint lost) wrote its train and arena
    # lines a second time, and the plots drew both
    m = MetricsLog(tmp_path / "metrics.jsonl")
    m.append("selfplay", iteration=2, games=4, first_id=0, last_id=3)
    m.append("train", iteration=2, step=10, loss=1.0)
    m.append("arena", iteration=2, opponent="previous best", elo=5.0)
    m.append("arena", iteration=2, opponent="rollout:200", elo=1.0)
    m.append("train", iteration=2, step=10, loss=0.9)  # the redo
    m.append("arena", iteration=2, opponent="previous best", elo=7.0)
    m.append("train", iteration=3, step=15, loss=0.8)
    records = read_metrics(tmp_path / "metrics.jsonl")
    assert [(r["kind"], r.get("loss"), r.get("elo")) for r in records] == [
        ("selfplay", None, None), ("arena", None, 1.0), ("train", 0.9, None), ("arena", None, 7.0),
        ("train", 0.8, None)]
