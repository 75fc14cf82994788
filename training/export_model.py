"""Copy one checkpoint of a training run into the package as a shipped model.

    .venv/bin/python training/export_model.py training/runs/gomoku-6x6-4 --iteration best \
        --out src/zeroplay/models/gomoku-6x6-4-freestyle.safetensors [--status final|intermediate]

The shipped file is the run's checkpoint without the optimizer tensors (a third of the size),
with the provenance in the checkpoint's ``extra`` record: run name, iteration, optimizer step,
self-play games and samples so far, the train options (``training/NAME.args``), the run's
CPU-hours up to that checkpoint and so far (``cputime.tsv``, written by ``training/run.sh``) and
whether training is finished (``zeroplay export`` with this repository's training command
recorded). ``--iteration best`` takes the run's best net (``evals/iter-N.json``: ``best_after`` of
the newest evaluation); ``latest`` the newest checkpoint; a number that iteration. A bad argument
is one line on stderr and exit status 2, as with ``zeroplay export``; nothing is written then.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir", type=Path)
    p.add_argument("--iteration", default="best", help="best (default), latest or a number")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--status", choices=["final", "intermediate"], default="intermediate")
    args = p.parse_args(argv)

    import json

    from zeroplay.train.export import export_model

    run_dir = args.run_dir
    args_file = ROOT / "training" / f"{run_dir.name}.args"  # wherever this is run from
    train_args = " ".join(l.strip() for l in args_file.read_text().splitlines()
                          if l.strip() and not l.startswith("#")) if args_file.exists() else None
    command = (f"training/run.sh {run_dir.name}  # = zeroplay train --run-dir training/runs/"
               f"{run_dir.name} {train_args} --hours H (repeated)")
    try:
        shipped = export_model(run_dir, args.out, iteration=args.iteration, status=args.status, command=command)
    except (ValueError, OSError) as e:
        print(f"export_model.py: {e}", file=sys.stderr)
        return 2
    print(f"{run_dir} -> {args.out} ({args.out.stat().st_size} bytes): {json.dumps(shipped)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
