"""``zeroplay plot RUN_DIR``: PNG charts of a run's ``metrics.jsonl`` (see ``train.metrics``).

Writes ``losses.png`` (training and validation losses by step), ``elo.png`` (arena Elo with
its 95 % interval by iteration, one line per opponent) and ``games_per_hour.png`` (self-play
throughput over wall time). A chart without data is skipped.
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

    Raises:
        FileNotFoundError: ``run_dir`` has no ``metrics.jsonl``.
    """
    run_dir = Path(run_dir)
    metrics = run_dir / METRICS_FILE
    if not metrics.exists():
        raise FileNotFoundError(f"{metrics} not found: is {run_dir} a training run directory?")
    out_dir = Path(out_dir) if out_dir is not None else run_dir / "plots"
    out_dir.mkdir(parents=True, exist_ok=True)
    records = read_metrics(metrics)
    plt = _pyplot()
    written = []
    for name, draw in (("losses.png", _losses), ("elo.png", _elo), ("games_per_hour.png", _games_per_hour)):
        fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
        if draw(ax, records):
            ax.grid(alpha=0.3)
            fig.tight_layout()
            fig.savefig(out_dir / name)
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
    ax.set_xlabel("iteration")
    ax.set_ylabel("Elo (95 % interval)")
    ax.set_title("Arena Elo")
    ax.legend()
    return True


def _games_per_hour(ax, records) -> bool:
    rows = [r for r in records if r.get("kind") == "selfplay" and r.get("seconds") and "time" in r]
    if not rows:
        return False
    t0 = min(r["time"] - r["seconds"] for r in rows)
    x = [(r["time"] - t0) / 3600.0 for r in rows]
    y = [r["games"] / r["seconds"] * 3600.0 for r in rows]
    ax.plot(x, y, marker=".")
    ax.set_xlabel("wall time (hours)")
    ax.set_ylabel("games / hour")
    ax.set_title("Self-play throughput")
    return True
