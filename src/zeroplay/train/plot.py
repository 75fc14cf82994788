"""``zeroplay plot RUN_DIR``: PNG charts of a run's ``metrics.jsonl`` (see ``train.metrics``).

Writes ``losses.png`` (training and validation losses by step), ``elo.png`` (arena Elo with
its 95 % interval by iteration, one line per opponent) and ``games_per_hour.png`` (self-play
throughput over wall time, one point per iteration: its games over its self-play seconds, so
that shards flushed moments apart do not show as spikes). A chart without data is skipped.
"""

from __future__ import annotations

import os
from pathlib import Path

from zeroplay.train.metrics import METRICS_FILE, read_metrics


def _pyplot():
    try:
        import matplotlib
    except ImportError:  # an optional-looking dependency: say how to get it
        raise RuntimeError("zeroplay plot needs matplotlib: pip install matplotlib") from None
    matplotlib.use("Agg")  # files only; never open a window
    import matplotlib.pyplot as plt

    return plt


def plot_run(run_dir: str | os.PathLike, out_dir: str | os.PathLike | None = None) -> list[Path]:
    """Write the charts of ``run_dir`` into ``out_dir`` (default ``run_dir/plots``, where training
    writes them too); returns their paths.

    A run that has no metrics yet (only iteration 0, the initial net) has nothing to chart: []

    Raises:
        FileNotFoundError: ``run_dir`` is not a training run directory (no ``metrics.jsonl`` and
            no ``config.json``).
        OSError: ``out_dir`` cannot be created or a chart cannot be written (read-only, a file in
            the way, a full disk); one line, and charts already there stay as they were.
    """
    run_dir = Path(run_dir)
    metrics = run_dir / METRICS_FILE
    if not metrics.exists():
        if (run_dir / "config.json").exists():
            return []  # a run that has not finished a self-play shard yet
        raise FileNotFoundError(f"{metrics} not found: is {run_dir} a training run directory?")
    given = out_dir is not None
    out_dir = Path(out_dir) if given else run_dir / "plots"
    hint = "" if given else "; give --out DIR to write them elsewhere"
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OSError(f"cannot create the directory {out_dir}: {e.strerror or e}{hint}") from None
    records = read_metrics(metrics)
    plt = _pyplot()
    written = []
    for name, draw in (("losses.png", _losses), ("elo.png", _elo), ("games_per_hour.png", _games_per_hour)):
        fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
        if draw(ax, records):
            ax.grid(alpha=0.3)
            fig.tight_layout()
            # temp file + rename: a failed write leaves the previous chart whole
            tmp = out_dir / f".{name}.tmp"
            try:
                fig.savefig(tmp, format="png")
                os.replace(tmp, out_dir / name)
            except OSError as e:
                tmp.unlink(missing_ok=True)
                plt.close(fig)
                raise OSError(f"cannot write {out_dir / name}: {e.strerror or e}{hint}") from None
            written.append(out_dir / name)
        plt.close(fig)
    return written


def _losses(ax, records) -> bool:
    train = [r for r in records if r.get("kind") == "train" and "step" in r]
    if not train:
        return False
    steps = [r["step"] for r in train]
    for key, label, style in (("loss", "total", "-"), ("value_loss", "value", "-"),
                              ("policy_loss", "policy", "-"), ("val_value_loss", "value (validation)", "--"),
                              ("val_policy_loss", "policy (validation)", "--")):
        pts = [(s, r[key]) for s, r in zip(steps, train) if r.get(key) is not None]
        if pts:
            ax.plot(*zip(*pts), style, label=label)
    ax.set_xlabel("training step")
    ax.set_ylabel("loss")
    ax.set_title("Losses")
    ax.legend()
    return True


def _elo(ax, records) -> bool:
    arena = [r for r in records if r.get("kind") == "arena" and r.get("elo") is not None]
    if not arena:
        return False
    for opponent in sorted({r.get("opponent", "?") for r in arena}):
        rows = [r for r in arena if r.get("opponent", "?") == opponent]
        x = [r.get("iteration", i) for i, r in enumerate(rows)]
        y = [r["elo"] for r in rows]
        low = [r["elo"] - r["elo_low"] if r.get("elo_low") is not None else 0.0 for r in rows]
        high = [r["elo_high"] - r["elo"] if r.get("elo_high") is not None else 0.0 for r in rows]
        ax.errorbar(x, y, yerr=[low, high], marker="o", capsize=3, label=f"vs {opponent}")
    from matplotlib.ticker import MaxNLocator

    # iterations are whole: no tick at 1.25 (min_n_ticks=1: one iteration alone gets its one tick)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    ax.set_xlabel("iteration")
    ax.set_ylabel("Elo (95 % interval)")
    ax.set_title("Arena Elo")
    ax.legend()
    return True


def games_per_hour_points(records) -> tuple[list[float], list[float]]:
    """Self-play throughput, one point per iteration: (hours since the first shard's start at the
    iteration's last shard, the iteration's games / its self-play hours).

    Each ``selfplay`` record counts the seconds since the previous shard of its call, so one
    record alone can span milliseconds (workers finishing together) and read as millions of games
    an hour; the sum over an iteration is its self-play wall time.
    """
    rows = [r for r in records if r.get("kind") == "selfplay" and r.get("seconds") is not None and "time" in r]
    if not rows:
        return [], []
    t0 = min(r["time"] - r["seconds"] for r in rows)
    by_iteration: dict = {}
    for i, r in enumerate(rows):
        key = r.get("iteration", ("record", i))  # records without an iteration: one point each
        games, seconds, end = by_iteration.get(key, (0, 0.0, r["time"]))
        by_iteration[key] = (games + r["games"], seconds + r["seconds"], max(end, r["time"]))
    points = sorted((end, games, seconds) for games, seconds, end in by_iteration.values() if seconds > 0)
    return ([(end - t0) / 3600.0 for end, _, _ in points],
            [games / seconds * 3600.0 for _, games, seconds in points])


def _games_per_hour(ax, records) -> bool:
    x, y = games_per_hour_points(records)
    if not x:
        return False
    ax.plot(x, y, marker=".")
    ax.set_xlabel("wall time (hours)")
    ax.set_ylabel("games / hour")
    ax.set_title("Self-play throughput")
    return True
