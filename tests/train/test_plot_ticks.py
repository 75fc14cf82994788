"""``zeroplay plot``'s charts: whole iterations on the Elo axis; the Elo line broken at clean
sweeps and the throughput line at a pause of the run."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("matplotlib", reason="matplotlib (the plots) is not installed: pip install matplotlib")

from zeroplay.engine.elo import elo_estimate  # noqa: E402
from zeroplay.train import MetricsLog, read_metrics  # noqa: E402
from zeroplay.train.plot import (  # noqa: E402
    _elo,
    _game_length,
    _games_per_hour,
    _pyplot,
    _wins_by_colour,
    games_per_hour_line,
    plot_run,
)


@pytest.mark.parametrize("iterations", [(1, 2), (1,), (3, 4, 5), tuple(range(1, 40))])
def test_elo_chart_ticks_are_whole_iterations(tmp_path, iterations):
    """Two iterations used to get ticks at 1.25, 1.5 and 1.75: an iteration is a whole number."""
    log = MetricsLog(tmp_path / "metrics.jsonl")
    for it in iterations:
        e = elo_estimate(5 + it % 3, 2, 3)
        log.append("arena", iteration=it, opponent="rollout:200", elo=e.elo, elo_low=e.elo_low, elo_high=e.elo_high)
    _assert_whole_ticks(_elo, tmp_path)
    assert [p.name for p in plot_run(tmp_path, tmp_path / "plots")] == ["elo.png"]


def _run_with_sweeps(tmp_path):
    log = MetricsLog(tmp_path / "metrics.jsonl")
    for it in (1, 2, 3):
        log.append("selfplay", iteration=it, games=10, moves=100 + 20 * it, seconds=60.0, first_id=10 * it,
                   black_wins=6, white_wins=3, draws=1)
        e = elo_estimate(5, 2, 3)
        log.append("arena", iteration=it, opponent="previous", elo=e.elo, elo_low=e.elo_low, elo_high=e.elo_high)
        sweep = elo_estimate(20, 0, 0)  # a clean sweep: Elo +inf, written as null, its lower bound finite
        log.append("arena", iteration=it, opponent="baseline rollout:200", elo=sweep.elo, elo_low=sweep.elo_low,
                   elo_high=sweep.elo_high)
    return read_metrics(tmp_path / "metrics.jsonl")


def test_one_elo_chart_per_measure_and_clean_sweeps_drawn_as_bounds(tmp_path):
    records = _run_with_sweeps(tmp_path)
    assert records[2]["elo"] is None and records[2]["elo_low"] is not None  # what a sweep leaves
    plt = _pyplot()
    fig, ax = plt.subplots()
    try:
        assert _elo(ax, records, "baseline rollout:200")
        bounds = [line for line in ax.get_lines() if line.get_marker() == "^"]
        assert len(bounds) == 1 and list(bounds[0].get_xdata()) == [1, 2, 3]
        assert ax.get_title() == "Arena Elo vs baseline rollout:200"
    finally:
        plt.close(fig)
    names = sorted(p.name for p in plot_run(tmp_path, tmp_path / "plots"))
    assert names == ["elo.png", "game_length.png", "games_per_hour.png", "wins_by_colour.png"]
    from matplotlib.image import imread

    height = imread(tmp_path / "plots" / "elo.png").shape[0]
    assert height > 500  # two stacked charts (one is 400 px high)


def test_games_per_hour_starts_at_zero_and_per_iteration_charts(tmp_path):
    from zeroplay.train.plot import _game_length, _games_per_hour, _wins_by_colour

    records = _run_with_sweeps(tmp_path)
    plt = _pyplot()
    for draw in (_games_per_hour, _game_length, _wins_by_colour):
        fig, ax = plt.subplots()
        try:
            assert draw(ax, records) and ax.get_ylim()[0] == 0
        finally:
            plt.close(fig)
    fig, ax = plt.subplots()
    try:
        _game_length(ax, records)
        assert list(ax.get_lines()[0].get_ydata()) == [12.0, 14.0, 16.0]
    finally:
        plt.close(fig)


def test_the_elo_line_breaks_at_clean_sweeps_between_measured_points(tmp_path):
    """Against a fixed baseline, iterations 2 and 3 swept (Elo infinite, drawn as bounds): the
    measured line used to run straight from iteration 1 to 4 across them."""
    log = MetricsLog(tmp_path / "metrics.jsonl")
    for it, (w, d, lost) in enumerate([(6, 2, 2), (10, 0, 0), (10, 0, 0), (7, 2, 1)], start=1):
        e = elo_estimate(w, d, lost)
        log.append("arena", iteration=it, opponent="baseline rollout:200", elo=e.elo, elo_low=e.elo_low,
                   elo_high=e.elo_high)
    plt = _pyplot()
    fig, ax = plt.subplots()
    try:
        assert _elo(ax, read_metrics(tmp_path / "metrics.jsonl"))
        line = next(line for line in ax.get_lines() if line.get_marker() == "o")
        assert list(line.get_xdata()) == [1, 2, 3, 4]
        y = list(line.get_ydata())
        assert math.isfinite(y[0]) and math.isfinite(y[3]) and math.isnan(y[1]) and math.isnan(y[2])
        bounds = next(line for line in ax.get_lines() if line.get_marker() == "^")
        assert list(bounds.get_xdata()) == [2, 3]
    finally:
        plt.close(fig)


def test_the_games_per_hour_line_breaks_at_a_long_pause():
    """Iterations every ~15 minutes (10 of self-play, 5 of training), then the run stopped for
    a night: no line from the last point before the pause to the first after it."""
    records, t = [], 0.0
    for it in range(1, 9):
        t += 600.0 + (12 * 3600.0 if it == 5 else 300.0)  # a 12-hour pause before iteration 5
        records.append({"kind": "selfplay", "iteration": it, "games": 100, "seconds": 600.0, "time": t})
    x, y = games_per_hour_line(records)
    assert len(x) == len(y) == 9
    gaps = [i for i, v in enumerate(y) if math.isnan(v)]
    assert gaps == [4]  # between iterations 4 and 5
    assert x[3] < x[4] < x[5] and math.isclose(x[5] - x[4], 600.0 / 3600)
    assert all(math.isclose(v, 600.0) for v in y if not math.isnan(v))
    plt = _pyplot()
    fig, ax = plt.subplots()
    try:
        assert _games_per_hour(ax, records)
        assert math.isnan(ax.get_lines()[0].get_ydata()[4])
    finally:
        plt.close(fig)
    # the usual gaps, or a run too short to say what usual is, break nothing
    for n in (2, 8):
        steady = [{"kind": "selfplay", "iteration": it, "games": 100, "seconds": 600.0, "time": 900.0 * it}
                  for it in range(1, n + 1)]
        assert not any(math.isnan(v) for v in games_per_hour_line(steady)[1])


@pytest.mark.parametrize("draw", [_wins_by_colour, _game_length])
def test_self_play_charts_ticks_are_whole_iterations(tmp_path, draw):
    # a two-iteration shogi run's charts had ticks at 1.2, 1.4, ...
    log = MetricsLog(tmp_path / "metrics.jsonl")
    for it in (1, 2):
        log.append("selfplay", iteration=it, games=2, moves=24, seconds=1.0, black_wins=1, white_wins=0, draws=1)
    _assert_whole_ticks(draw, tmp_path)


def _assert_whole_ticks(draw, tmp_path) -> None:
    """``draw`` charts the run's metrics with ticks at whole iterations only."""
    plt = _pyplot()
    fig, ax = plt.subplots()
    try:
        assert draw(ax, read_metrics(tmp_path / "metrics.jsonl"))
        fig.canvas.draw()
        low, high = ax.get_xlim()
        ticks = [t for t in ax.get_xticks() if low <= t <= high]
        assert ticks and all(float(t).is_integer() for t in ticks), ticks
    finally:
        plt.close(fig)
