"""``zeroplay plot RUN_DIR``: PNG charts of a run's ``metrics.jsonl`` (see ``train.metrics``).

Writes ``losses.png`` (training and validation losses by step), ``elo.png`` (arena Elo with
its 95 % interval by iteration, one chart per measure: against the baseline, the previous net,
cumulative, ...; a clean sweep, whose Elo is infinite, drawn as its finite bound, a triangle
pointing the way the Elo lies, the measured line broken there), ``games_per_hour.png`` (self-play
throughput over wall time from 0, one point per iteration: its games over its self-play seconds,
so that shards flushed moments apart do not show as spikes; the line broken at a pause of the
run), ``wins_by_colour.png`` (self-play results per iteration: Black's, White's and draws'
shares) and ``game_length.png`` (self-play moves per game per iteration). A chart without data
is skipped.
"""

from __future__ import annotations

import math
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
        from zeroplay.train.shogi_selfplay import is_python_loop_run

        if is_python_loop_run(run_dir):  # shogi's loop writes metrics.jsonl since 2026-12-06
            raise FileNotFoundError(f"{metrics} not found: {run_dir} is a shogi run whose iterations so far "
                                    "wrote none (its last iteration's figures are in last.json); the next "
                                    "iterations will")
        raise FileNotFoundError(f"{metrics} not found: is {run_dir} a training run directory?")
    given = out_dir is not None
    out_dir = Path(out_dir) if out_dir is not None else run_dir / "plots"
    hint = "" if given else "; give --out DIR to write them elsewhere"
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise OSError(f"cannot create the directory {out_dir}: {e.strerror or e}{hint}") from None
    records = read_metrics(metrics)
    plt = _pyplot()
    written = []
    measures = elo_measures(records)
    for name, draw in (("losses.png", _losses), ("elo.png", _elo), ("games_per_hour.png", _games_per_hour),
                       ("wins_by_colour.png", _wins_by_colour), ("game_length.png", _game_length)):
        if name == "elo.png" and measures:
            fig, axes = plt.subplots(len(measures), 1, figsize=(7, 2.6 * len(measures) + 0.8), dpi=100,
                                     sharex=True, squeeze=False)
            drawn = [_elo(ax, records, opponent) for ax, opponent in zip(axes[:, 0], measures)]
            for ax in axes[:-1, 0]:
                ax.set_xlabel("")
        else:
            fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
            axes, drawn = [[ax]], [draw(ax, records)]
        if any(drawn):
            for row in axes:
                row[0].grid(alpha=0.3)
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


def elo_measures(records) -> list[str]:
    """The opponents of the arena records (each its own Elo measure), in first-seen order."""
    seen: dict[str, None] = {}
    for r in records:
        if r.get("kind") == "arena" and any(r.get(k) is not None for k in ("elo", "elo_low", "elo_high")):
            seen.setdefault(str(r.get("opponent", "?")), None)
    return list(seen)


def _elo(ax, records, opponent: str | None = None) -> bool:
    """One measure's Elo by iteration (``opponent``; None: the first); a clean sweep (Elo
    infinite, written as null) is drawn at its finite bound: ^ at elo_low for all won, v at
    elo_high for all lost."""
    measures = elo_measures(records)
    if not measures:
        return False
    opponent = measures[0] if opponent is None else opponent
    rows = [r for r in records if r.get("kind") == "arena" and str(r.get("opponent", "?")) == opponent]
    rows = [(r.get("iteration", i), r) for i, r in enumerate(rows)]
    if any(r.get("elo") is not None for _, r in rows):
        # every iteration of the measure, NaN where the Elo is not finite (a clean sweep, drawn
        # as its bound below): the line breaks there instead of running straight across it
        x = [x for x, _ in rows]
        y = [r["elo"] if r.get("elo") is not None else math.nan for _, r in rows]
        low = [r["elo"] - r["elo_low"] if r.get("elo") is not None and r.get("elo_low") is not None else 0.0
               for _, r in rows]
        high = [r["elo_high"] - r["elo"] if r.get("elo") is not None and r.get("elo_high") is not None else 0.0
                for _, r in rows]
        ax.errorbar(x, y, yerr=[low, high], marker="o", capsize=3, label="Elo, 95 % interval")
    for marker, key, label in (("^", "elo_low", "clean sweep won: at least"), ("v", "elo_high", "all lost: at most")):
        pts = [(x, r[key]) for x, r in rows if r.get("elo") is None and r.get(key) is not None]
        if pts:
            ax.plot(*zip(*pts), marker, linestyle="none", markersize=9, label=label)
    _iteration_axis(ax)
    ax.set_ylabel("Elo")
    ax.set_title(f"Arena Elo vs {opponent}")
    ax.legend(fontsize="small")
    return True


def _iteration_axis(ax) -> None:
    from matplotlib.ticker import MaxNLocator

    # iterations are whole: no tick at 1.25 (min_n_ticks=1: one iteration alone gets its one tick)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    ax.set_xlabel("iteration")


def _by_iteration(records, keys: tuple[str, ...]) -> dict:
    """Sums of ``keys`` over the selfplay records of each iteration (records without one: skipped)."""
    out: dict = {}
    for r in records:
        if r.get("kind") == "selfplay" and isinstance(r.get("iteration"), int):
            sums = out.setdefault(r["iteration"], dict.fromkeys(keys, 0))
            for k in keys:
                sums[k] += r.get(k) or 0
    return dict(sorted(out.items()))


def _wins_by_colour(ax, records) -> bool:
    rows = {it: v for it, v in _by_iteration(records, ("black_wins", "white_wins", "draws")).items()
            if sum(v.values())}
    if not rows:
        return False
    x = list(rows)
    for key, label in (("black_wins", "Black wins"), ("white_wins", "White wins"), ("draws", "draws")):
        ax.plot(x, [100.0 * v[key] / sum(v.values()) for v in rows.values()], marker=".", label=label)
    ax.set_ylim(0, 100)
    _iteration_axis(ax)
    ax.set_ylabel("% of self-play games")
    ax.set_title("Self-play results by colour")
    ax.legend(fontsize="small")
    return True


def _game_length(ax, records) -> bool:
    rows = {it: v for it, v in _by_iteration(records, ("moves", "games")).items() if v["games"] and v["moves"]}
    if not rows:
        return False
    ax.plot(list(rows), [v["moves"] / v["games"] for v in rows.values()], marker=".")
    ax.set_ylim(bottom=0)
    _iteration_axis(ax)
    ax.set_ylabel("moves per game")
    ax.set_title("Self-play game length")
    return True


def _games_per_hour_rows(records) -> tuple[float, list[tuple[float, int, float]]]:
    """(the first shard's start, [(the iteration's last shard's time, its games, its self-play
    seconds)] by time); (0, []) without self-play records."""
    rows = [r for r in records if r.get("kind") == "selfplay" and r.get("seconds") is not None and "time" in r]
    if not rows:
        return 0.0, []
    t0 = min(r["time"] - r["seconds"] for r in rows)
    by_iteration: dict = {}
    for i, r in enumerate(rows):
        key = r.get("iteration", ("record", i))  # records without an iteration: one point each
        games, seconds, end = by_iteration.get(key, (0, 0.0, r["time"]))
        by_iteration[key] = (games + r["games"], seconds + r["seconds"], max(end, r["time"]))
    return t0, sorted((end, games, seconds) for games, seconds, end in by_iteration.values() if seconds > 0)


def games_per_hour_points(records) -> tuple[list[float], list[float]]:
    """Self-play throughput, one point per iteration: (hours since the first shard's start at the
    iteration's last shard, the iteration's games / its self-play hours).

    Each ``selfplay`` record counts the seconds since the previous shard of its call, so one
    record alone can span milliseconds (workers finishing together) and read as millions of games
    an hour; the sum over an iteration is its self-play wall time.
    """
    t0, points = _games_per_hour_rows(records)
    return ([(end - t0) / 3600.0 for end, _, _ in points],
            [games / seconds * 3600.0 for _, games, seconds in points])


PAUSE_FACTOR = 5.0
"""A gap between two iterations' self-play (the end of one to the start of the next) longer
than this many times the usual one is a pause (the run stopped, then resumed)."""
PAUSE_MIN_S = 600.0
"""No gap under 10 minutes is a pause."""


def games_per_hour_line(records) -> tuple[list[float], list[float]]:
    """``games_per_hour_points`` with a NaN point (a break in the drawn line) at each pause: a gap
    from one iteration's self-play end to the next one's start (its end less its self-play
    seconds) over PAUSE_FACTOR times the usual gap (their median; with fewer than three gaps,
    the median self-play time of an iteration) and over PAUSE_MIN_S. A straight line across a
    night the run was stopped would read as a measured throughput."""
    t0, points = _games_per_hour_rows(records)
    gaps = [end - seconds - before for (before, _, _), (end, _, seconds) in zip(points, points[1:])]
    usual = sorted(gaps)[len(gaps) // 2] if len(gaps) >= 3 else \
        sorted(seconds for _, _, seconds in points)[len(points) // 2] if points else 0.0
    x: list[float] = []
    y: list[float] = []
    for i, (end, games, seconds) in enumerate(points):
        if i and gaps[i - 1] > max(PAUSE_FACTOR * usual, PAUSE_MIN_S):
            x.append((end - seconds - t0) / 3600.0)  # where the pause ends: no line drawn to it
            y.append(math.nan)
        x.append((end - t0) / 3600.0)
        y.append(games / seconds * 3600.0)
    return x, y


def _games_per_hour(ax, records) -> bool:
    x, y = games_per_hour_line(records)
    if not x:
        return False
    ax.plot(x, y, marker=".")
    ax.set_ylim(bottom=0)  # from 0: a throughput axis cut at its minimum exaggerates a dip
    ax.set_xlabel("wall time (hours)")
    ax.set_ylabel("games / hour")
    ax.set_title("Self-play throughput")
    return True
