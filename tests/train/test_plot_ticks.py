"""``zeroplay plot``'s Elo chart: whole iterations on its axis."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")

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
