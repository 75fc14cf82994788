"""Copy one checkpoint of a training run into the package as a shipped model.

    .venv/bin/python training/export_model.py training/runs/gomoku-6x6-4 --iteration best \
        --out src/zeroplay/models/gomoku-6x6-4-freestyle.safetensors [--status final|intermediate]

The shipped file is the run's checkpoint without the optimizer tensors (a third of the size),
with the provenance in the checkpoint's ``extra`` record: run name, iteration, optimizer step,
self-play games and samples so far, the train options (``training/NAME.args``), the run's
CPU-hours so far (``cputime.tsv``, written by ``training/run.sh``) and whether training is
finished. ``--iteration best`` takes the run's best net (``evals/iter-N.json``: ``best_after`` of the
newest evaluation); ``latest`` the newest checkpoint; a number that iteration.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path


def cpu_hours(run_dir: Path) -> float | None:
    """Sum of the cpu_s column of run_dir/cputime.tsv, in hours (None without the file)."""
    path = run_dir / "cputime.tsv"
    if not path.exists():
        return None
    with path.open() as f:
        return round(sum(float(r["cpu_s"] or 0) for r in csv.DictReader(f, delimiter="\t")) / 3600.0, 3)


def pick_iteration(run_dir: Path, which: str) -> int:
    iters = sorted(int(p.stem.split("-")[1]) for p in (run_dir / "checkpoints").glob("iter-*.safetensors"))
    if not iters:
        raise SystemExit(f"no checkpoints in {run_dir}")
    if which == "latest":
        return iters[-1]
    if which == "best":
        evals = sorted((run_dir / "evals").glob("iter-*.json"))
        return int(json.loads(evals[-1].read_text())["best_after"])
    return int(which)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir", type=Path)
    p.add_argument("--iteration", default="best", help="best (default), latest or a number")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--status", choices=["final", "intermediate"], default="intermediate")
    args = p.parse_args(argv)

    from zeroplay.games import make
    from zeroplay.nn import load_checkpoint, save_checkpoint

    run_dir = args.run_dir
    it = pick_iteration(run_dir, args.iteration)
    src = run_dir / "checkpoints" / f"iter-{it:06d}.safetensors"
    config = json.loads((run_dir / "config.json").read_text())
    game = make(config["game"], **config["game_options"])
    ck = load_checkpoint(src, game=game)
    ev_path = run_dir / "evals" / f"iter-{it:06d}.json"
    elo = json.loads(ev_path.read_text()).get("elo_cumulative") if ev_path.exists() else None
    args_file = Path("training") / f"{run_dir.name}.args"
    train_args = " ".join(l.strip() for l in args_file.read_text().splitlines()
                          if l.strip() and not l.startswith("#")) if args_file.exists() else None
    run_extra = ck.meta.get("extra", {})
    extra = {
        "shipped": {
            "run": run_dir.name,
            "status": args.status,
            "iteration": it,
            "step": ck.step,
            "selfplay_games": run_extra.get("games_total"),
            "selfplay_samples": run_extra.get("samples_total"),
            "cpu_hours_run_so_far": cpu_hours(run_dir),
            "elo_vs_iteration_0": elo,
            "command": f"training/run.sh {run_dir.name}  # = zeroplay train --run-dir training/runs/"
                       f"{run_dir.name} {train_args} --hours H (repeated)",
        }
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_checkpoint(args.out, ck.model, game=game, features=ck.features, step=ck.step, elo=elo, extra=extra)
    print(f"{src} -> {args.out} ({args.out.stat().st_size} bytes): {json.dumps(extra['shipped'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
