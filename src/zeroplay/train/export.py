"""``zeroplay export``: one checkpoint of a training run as a model file to play or ship.

The model file is the run's checkpoint without the optimizer tensors (about a third of the size),
with its provenance under ``extra.shipped`` of the checkpoint metadata: run name, status, iteration,
optimizer step, self-play games and samples so far, the CPU-hours up to that checkpoint and the
run's CPU-hours so far (when the run directory has a ``cputime.tsv``, as ``training/run.sh``
writes), cumulative Elo and the command that trained it. ``zeroplay play --model FILE`` prints
that status; files exported into ``src/zeroplay/models/`` ship with the package
(docs/TRAINING.md, "Shipped models").
"""

from __future__ import annotations

import csv
import json
import os
import re
import sys
from pathlib import Path

from zeroplay.train.metrics import METRICS_FILE, read_metrics


def _utc_seconds(stamp: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def cpu_hours(run_dir: Path, until: str | None = None) -> float | None:
    """CPU-hours of the run from ``run_dir/cputime.tsv`` (the ``cpu_s`` of each chunk
    ``training/run.sh`` ran; plus ``cputime.live``, the last sample of a chunk killed before it
    was booked), or None without ``cputime.tsv``.

    Args:
        until: an ISO 8601 UTC time (a checkpoint's ``created``): only the CPU time spent before
            it, so that an older checkpoint is not credited with later training. Chunks that
            ended before it count whole; the chunk running at that time counts in proportion to
            its wall time elapsed (an estimate: self-play and training share a chunk unevenly).
    """
    path = Path(run_dir) / "cputime.tsv"
    if not path.exists():
        return None
    chunks = []  # (start in UTC seconds, wall seconds, cpu seconds)

    def chunk(where: str, start, wall, cpu) -> None:
        try:
            chunks.append((_utc_seconds(start), float(wall or 0), float(cpu or 0)))
        except (ValueError, TypeError, AttributeError):
            raise ValueError(f"{where} is damaged (start {start!r}, wall_s {wall!r}, cpu_s {cpu!r}): "
                             "mend or remove that line") from None

    with path.open() as f:
        for n, r in enumerate(csv.DictReader(f, delimiter="\t"), start=2):
            chunk(f"{path} line {n}", r.get("start"), r.get("wall_s"), r.get("cpu_s"))
    live = Path(run_dir) / "cputime.live"
    if live.exists():
        fields = live.read_text().split()
        if len(fields) == 3:
            chunk(str(live), *fields)
    if until is None:
        return round(sum(cpu for _, _, cpu in chunks) / 3600.0, 3)
    end = _utc_seconds(until)
    total = 0.0
    for begun, wall, cpu in chunks:
        if begun + wall <= end:
            total += cpu
        elif begun < end and wall > 0:
            total += cpu * (end - begun) / wall
    return round(total / 3600.0, 3)


def _list_iterations(iters: list[int]) -> str:
    """``iterations 9, 149 and 154``; a long list is cut to its ends."""
    shown = [str(i) for i in iters]
    if len(shown) > 8:
        shown = shown[:3] + [f"... ({len(iters) - 6} more)"] + shown[-3:]
    if len(shown) == 1:
        return f"iteration {shown[0]}"
    return "iterations " + ", ".join(shown[:-1]) + " and " + shown[-1]


def pick_iteration(run_dir: Path, which: str | int) -> int:
    """The iteration ``which`` names: ``"best"`` (``best_after`` of the newest ``evals/iter-N.json``;
    the newest checkpoint when the run has no evaluation), ``"latest"`` or a number.

    Raises:
        ValueError: no checkpoints, or no checkpoint of that iteration.
    """
    run_dir = Path(run_dir)
    iters = sorted(int(p.stem.split("-")[1]) for p in (run_dir / "checkpoints").glob("iter-*.safetensors")
                   if p.stem.split("-")[1].isdigit())
    if not iters:
        raise ValueError(f"no checkpoints in {run_dir / 'checkpoints'}: is {run_dir} a training run directory?")
    if which == "latest":
        return iters[-1]
    if which == "best":
        evals = sorted((run_dir / "evals").glob("iter-*.json"))
        if not evals:
            return iters[-1]
        try:
            it = int(json.loads(evals[-1].read_text())["best_after"])
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{evals[-1]} is damaged ({e}); give --iteration latest or a number") from None
    else:
        try:
            it = int(which)
        except ValueError:
            raise ValueError(f"--iteration must be best, latest or a number, got {which!r}") from None
    if it not in iters:
        raise ValueError(f"no checkpoint of iteration {it} in {run_dir / 'checkpoints'} "
                         f"(it has {_list_iterations(iters)})")
    return it


def export_model(run_dir: str | os.PathLike, out: str | os.PathLike, *, iteration: str | int = "best",
                 status: str = "intermediate", command: str | None = None) -> dict:
    """Write iteration ``iteration`` of the run at ``run_dir`` to ``out`` (atomically) as a model file.

    ``out`` must end in ``.safetensors`` and its directory must exist; an existing file there is
    replaced (atomically).

    Args:
        status: ``"final"`` (training finished) or ``"intermediate"``.
        command: how the run was trained, for the record (default: ``zeroplay train --run-dir
            RUN_DIR`` with the run's stored options).

    Returns:
        The provenance record written under ``extra.shipped``.

    Raises:
        ValueError: not a run directory, no such iteration, a bad status, a bad ``out`` or a failed
            write (``out`` is then left as it was).
        zeroplay.nn.CheckpointError: the checkpoint does not load (damaged or foreign).
    """
    from zeroplay.games import make
    from zeroplay.nn import load_checkpoint, save_checkpoint

    if status not in ("final", "intermediate"):
        raise ValueError(f"status must be final or intermediate, got {status!r}")
    run_dir = Path(run_dir)
    from zeroplay.train.shogi_selfplay import is_python_loop_run

    if is_python_loop_run(run_dir):
        return _export_python_loop(run_dir, Path(out), iteration, status, command)
    try:
        config = json.loads((run_dir / "config.json").read_text())
        game = make(config["game"], **config["game_options"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{run_dir} is not a readable training run directory ({e})") from None
    it = pick_iteration(run_dir, iteration)
    src = run_dir / "checkpoints" / f"iter-{it:06d}.safetensors"
    ck = load_checkpoint(src, game=game)
    ev_path = run_dir / "evals" / f"iter-{it:06d}.json"
    elo = None
    if ev_path.exists():
        try:
            elo = json.loads(ev_path.read_text()).get("elo_cumulative")
        except ValueError:
            elo = None
    run_extra = ck.meta.get("extra") or {}
    if command is None:
        command = f"zeroplay train --run-dir {run_dir} (options in its config.json)"
    shipped = {
        "run": run_dir.name,
        "status": status,
        "iteration": it,
        "step": ck.step,
        "selfplay_games": run_extra.get("games_total"),
        "selfplay_samples": run_extra.get("samples_total"),
        # CPU-hours up to this checkpoint; the run's total at export time is there too, since an
        # earlier export of the same iteration wrote that number as its cost
        "cpu_hours": cpu_hours(run_dir, until=ck.meta.get("created")),
        "cpu_hours_run_so_far": cpu_hours(run_dir),
        "elo_vs_iteration_0": elo,
        "command": command,
    }
    shipped["train_config"] = config  # every setting of the run (config.json), for the record
    out = Path(out)
    _check_out(out, run_dir)
    try:
        save_checkpoint(out, ck.model, game=game, features=ck.features, step=ck.step, elo=elo,
                        extra={"shipped": shipped})
    except OSError as e:  # the file is left as it was (atomic write)
        raise ValueError(f"cannot write {out}: {e.strerror or e}") from None
    return shipped


def _check_out(out: Path, run_dir: Path) -> None:
    if in_run_checkpoints(out):  # a run's checkpoint would be replaced by other weights
        raise ValueError(f"--out {out} is a training run's checkpoint file; name a file outside the run's checkpoints")
    if out.is_dir():
        raise ValueError(f"--out {out} is a directory; name the file, e.g. {out / (run_dir.name + '.safetensors')}")
    if out.suffix != ".safetensors":
        raise ValueError(f"--out must name a .safetensors file, got {str(out)!r}")
    if not out.parent.is_dir():
        blocker = next((q for q in out.parents if q.exists()), None)
        if blocker is not None and not blocker.is_dir():
            raise ValueError(f"--out {out}: {blocker} is a file, not a directory")
        raise ValueError(f"no directory {out.parent} for --out (create it first)")


def in_run_checkpoints(path: Path) -> bool:
    """Whether ``path`` (followed through links) names a checkpoint file of any training run: one
    in a run's ``checkpoints/`` folder (beside its ``config.json``), or a ``net-NNNN.safetensors``
    of shogi's Python loop (beside its ``python-loop.json``), whether or not the file exists yet."""
    from zeroplay.train.shogi_selfplay import MARKER

    resolved = path.resolve()
    where = resolved.parent
    if where.name == "checkpoints" and ((where.parent / "config.json").exists() or any(where.glob("iter-*.safetensors"))):
        return True
    return bool(re.fullmatch(r"net-\d{4}\.safetensors", resolved.name)) and (
        (where / MARKER).exists() or any(where.glob("net-[0-9][0-9][0-9][0-9].safetensors")))


def _export_python_loop(run_dir: Path, out: Path, which: str | int, status: str, command: str | None) -> dict:
    """``export_model`` for a run of shogi's Python loop (``train.shogi_selfplay``): its
    ``net-NNNN.safetensors`` checkpoints are already shogi network files (``nn.shogi_net``); the
    one picked is written again with the provenance in its facts. That loop plays no arena, so
    ``best`` is the newest checkpoint, and the record says so."""
    from zeroplay.nn.shogi_net import load_shogi_net, save_shogi_net

    found = {int(p.stem.split("-")[1]): p for p in run_dir.glob("net-[0-9][0-9][0-9][0-9].safetensors")}
    if not found:
        raise ValueError(f"no checkpoints (net-NNNN.safetensors) in {run_dir}, a shogi training run directory")
    if which in ("best", "latest"):
        it = max(found)
    else:
        try:
            it = int(which)
        except (TypeError, ValueError):
            raise ValueError(f"--iteration must be best, latest or a number, got {which!r}") from None
        if it not in found:
            raise ValueError(f"no checkpoint of iteration {it} in {run_dir} (there are {_list_iterations(sorted(found))})")
    net, facts = load_shogi_net(found[it])
    records = read_metrics(run_dir / METRICS_FILE)
    shipped = {
        "run": run_dir.name,
        "status": status,
        "iteration": it,
        "picked": "the newest checkpoint (this loop plays no arena, so it has no best)" if which == "best" else which,
        "step": max((r.get("step", 0) for r in records if r.get("kind") == "train" and r.get("iteration", 0) <= it),
                    default=None),
        "selfplay_games": sum(r.get("games", 0) for r in records
                              if r.get("kind") == "selfplay" and r.get("iteration", 0) <= it) or None,
        "command": command or (f"zeroplay train --game shogi --run-dir {run_dir} --net b{net.blocks_count}c{net.channels} "
                               "(the other options as each call gave them: this loop stores none)"),
    }
    _check_out(out, run_dir)
    try:
        save_shogi_net(out, net, **{**facts, "shipped": shipped})
    except OSError as e:  # the file is left as it was (atomic write)
        raise ValueError(f"cannot write {out}: {e.strerror or e}") from None
    return shipped


def add_parser(sub) -> None:
    p = sub.add_parser("export", help="write one checkpoint of a training run as a model file (no optimizer state, "
                                      "with its provenance)",
                       description="Write one checkpoint of a training run as a model file: the weights without "
                                   "the optimizer state, with the run's settings, iteration, self-play games and "
                                   "status in its metadata. Play it with zeroplay play --model FILE; files put in "
                                   "src/zeroplay/models/ ship with the package.")
    p.add_argument("run_dir", metavar="RUN_DIR", help="training run directory")
    p.add_argument("--out", required=True, help="model file to write (.safetensors)")
    p.add_argument("--iteration", default="best",
                   help="best (the run's best net, default), latest, or an iteration number")
    p.add_argument("--status", choices=["final", "intermediate"], default="intermediate",
                   help="whether training is finished (default intermediate)")
    p.set_defaults(func=_cmd_export)


def _cmd_export(args) -> int:
    from zeroplay.nn import CheckpointError

    replaced = Path(args.out).is_file()
    try:
        shipped = export_model(args.run_dir, args.out, iteration=args.iteration, status=args.status)
    except CheckpointError as e:
        raise ValueError(str(e)) from None
    from zeroplay.train.shogi_selfplay import is_python_loop_run

    if is_python_loop_run(args.run_dir):
        was = "replaced the file that was there; " if replaced else ""
        print(f"{args.out}: iteration {shipped['iteration']} of {args.run_dir} (a shogi network, "
              f"{shipped['status']}); {was}play it with: zeroplay usi, then setoption name Engine value MCTS and "
              f"setoption name Model value {args.out} (or zeroplay arena shogimcts:800@{args.out} ...)", file=sys.stderr)
        print(json.dumps(shipped))
        return 0
    from zeroplay.nn import read_checkpoint_meta

    game = read_checkpoint_meta(args.out)["game"]
    opts = game["options"]
    from zeroplay.games import option_names

    if "n_in_row" in option_names(game["name"]):  # the board options, as zeroplay play takes them
        setting = f"--size {opts['width']} --n-in-row {opts['n_in_row']} --rule {opts['rule']} "
    else:
        setting = f"--game {game['name']} "
    size = Path(args.out).stat().st_size
    print(f"{args.out}: iteration {shipped['iteration']} of {args.run_dir} ({size:,} bytes, {shipped['status']}); "
          f"{'replaced the file that was there; ' if replaced else ''}"
          f"play it with: zeroplay play {setting}--model {args.out}", file=sys.stderr)
    print(json.dumps(shipped))
    return 0
