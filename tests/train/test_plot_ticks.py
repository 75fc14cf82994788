"""``zeroplay plot``'s Elo chart: whole iterations on its axis."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib", reason="matplotlib (the plots) is not installed: pip install matplotlib")

from zeroplay.engine.elo import elo_estimate  # noqa: E402
from zeroplay.train import MetricsLog, read_metrics  # noqa: E402
from zeroplay.train.plot import _elo, _pyplot, plot_run  # noqa: E402


@pytest.mark.parametrize("iterations", [(1, 2), (1,), (3, 4, 5), tuple(range(1, 40))])
def test_elo_chart_ticks_are_whole_iterations(tmp_path, iterations):
    """Two iterations used to get ticks at 1.25, 1.5 and 1.75: an iteration is a whole number."""
    log = MetricsLog(tmp_path / "metrics.jsonl")
    for it in iterations:
        e = elo_estimate(5 + it % 3, 2, 3)
        log.append("arena", iteration=it, opponent="rollout:200", elo=e.elo, elo_low=e.elo_low, elo_high=e.elo_high)
    plt = _pyplot()
    fig, ax = plt.subplots()
    try:
        assert _elo(ax, read_metrics(tmp_path / "metrics.jsonl"))
        fig.canvas.draw()
        low, high = ax.get_xlim()
        ticks = [t for t in ax.get_xticks() if low <= t <= high]
        assert ticks and all(float(t).is_integer() for t in ticks), ticks
    finally:
        plt.close(fig)
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
