"""``zeroplay ablate``: train two configurations at equal CPU time, then play their final nets.

Layout of OUT (resumable: rerun the same command to continue where it stopped)::

    OUT/a/, OUT/b/        the two training runs (``zeroplay train`` run directories)
    OUT/cputime.jsonl     one line per training chunk: side, iterations after it, CPU and wall
                          seconds (user + sys of the ``zeroplay train`` process and the workers
                          it reaped); a chunk stopped by Ctrl-C is booked too
                          (``"interrupted": true``): its self-play games count on resume
    OUT/arena.jsonl       the final match's games (``zeroplay arena --record``)
    OUT/arena.json        the match's --seed and --playouts (a resumed match keeps them)
    OUT/RESULT.md         the result: CPU per side, W/D/L of A, Elo with its 95 % interval, and
                          the command that reproduces it
    OUT/lock              held by the ``zeroplay ablate`` process working on OUT (one at a time)

Equal CPU time: one chunk at a time (``--chunk`` iterations, one ``zeroplay train`` call), the side
with less CPU so far trains next, until both have spent the budget; near the budget a chunk shrinks
to the iterations its side is expected to have left (from its CPU per iteration so far), and the
last one may overshoot by up to one iteration and its process start (both figures are written). With ``--parallel`` both
sides train their next chunk at the same time (two cores); each chunk's CPU time is still its own
process tree's (``wait4``), so the accounting is the same. Colours alternate in the arena.

Chunks of one iteration cost a process start each (imports, numba's cache, the self-play workers'
start): 9 of the 32 CPU-seconds of one 9x9 iteration at 64 playouts (2026-12-06; 3 iterations in
one call took 79). Both sides pay it alike, so a budget's comparison stays fair, but it is budget
the nets do not train with.

Every chunk is booked however it ends: finished, stopped (Ctrl-C, ``kill``/SIGTERM or a closed
terminal/SIGHUP to the ablate process, which passes a SIGINT on to its chunks: they run in their
own process group, so each gets exactly one), or failed (its exit status is in its row, and the
command then stops with the chunk's command named). A row books the iterations the run directory
holds after the chunk, not the ones asked for. Iterations no row books (the ablate process itself
was killed with SIGKILL while a chunk went on) are booked on the next run at the side's CPU per
iteration so far (``"estimated": true``).
"""

from __future__ import annotations

import json
import math
import shlex
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from zeroplay.files.atomic import atomic_write_text
from zeroplay.train import ablation_steps as steps
from zeroplay.train.ablation_ledger import (
    ARENA_LOG,
    CPU_LOG,
    RESULT,
    SIDES,
    book_unbooked,
    check_arena_settings,
    check_idle,
    chunk_target,
    final_checkpoint,
    iterations_text,
    retire_stale_arena,
    spent_so_far,
)
from zeroplay.train.ablation_options import SideAPending, check_a_from, check_kept_options, check_train_options, side_a_at_budget
from zeroplay.train.ablation_steps import AblationStopped, StepFailed, StopSignals

CHUNK_ITERATIONS = 4
"""Iterations per ``zeroplay train`` call by default (each call starts processes: ~9 CPU-s)."""


MAX_CHUNK = 100


def add_parser(sub) -> None:
    """Add ``ablate`` to the ``zeroplay`` subparsers ``sub``."""
    p = sub.add_parser(
        "ablate", help="train two configurations at equal CPU time and play their final nets (an ablation)",
        description="Trains OUT/a with COMMON + A and OUT/b with COMMON + B (zeroplay train options, each a "
        "quoted string), a chunk of --chunk iterations at a time, the side with less CPU time so far next, until each has "
        "spent --cpu-hours; then plays --games arena games between the two final nets (colours alternate) "
        "and writes OUT/RESULT.md with the command that reproduces it. Rerun the same command to resume.")
    p.add_argument("--out", required=True, help="output directory (created; reused to resume)")
    p.add_argument("--common", default="", help="zeroplay train options both sides get, e.g. "
                   "\"--game gomoku --size 9 --net b4c32 --playouts 64 --eval-games 0\"")
    p.add_argument("--a", default="", help="zeroplay train options of side A only, e.g. \"--root-policy puct\"")
    p.add_argument("--b", default="", help="zeroplay train options of side B only, e.g. \"--root-policy gumbel\"")
    p.add_argument("--cpu-hours", type=float, required=True,
                   help="training CPU time per side in CPU-hours (user + sys of the trainer and its workers)")
    p.add_argument("--games", type=int, default=200, help="arena games between the final nets (default 200)")
    p.add_argument("--playouts", type=int, default=200, help="arena playouts per move (default 200)")
    p.add_argument("--seed", type=int, default=0, help="arena seed (default 0)")
    p.add_argument("--parallel", action="store_true",
                   help="train both sides' next chunk at the same time (uses two cores; CPU time is "
                   "still counted per side)")
    p.add_argument("--chunk", type=int, default=CHUNK_ITERATIONS,
                   help=f"iterations per zeroplay train call, 1..{MAX_CHUNK} (default {CHUNK_ITERATIONS}): "
                   "fewer process starts; near the budget a chunk shrinks to what its side has left")
    p.add_argument("--a-from", default=None, metavar="DIR",
                   help="take side A from the ablation in DIR (its OUT) instead of training it here: A's "
                   "options must be DIR's; only B trains, and the arena waits until DIR's A has spent "
                   "--cpu-hours. One baseline then serves several ablations, at half the CPU each")
    p.set_defaults(func=_cmd_ablate)


OPTION_STRINGS = ("--common", "--a", "--b")


def glue_option_strings(argv: list[str]) -> list[str]:
    """Return ``argv`` with ``--common/--a/--b VALUE`` written as ``--b=VALUE``.

    argparse takes a separate value that starts with ``-`` for an option of its own, so
    ``--b "--ownership-head"`` failed with "expected one argument"; every value of these three is
    a string of ``zeroplay train`` options, so the word after them is always their value.
    """
    out: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] in OPTION_STRINGS and i + 1 < len(argv):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def _cmd_ablate(args) -> int:
    if not (args.cpu_hours > 0 and math.isfinite(args.cpu_hours)):
        raise ValueError(f"--cpu-hours must be a finite number > 0, got {args.cpu_hours}")
    for flag, value in (("--games", args.games), ("--playouts", args.playouts)):
        if value < 1:
            raise ValueError(f"{flag} must be >= 1, got {value}")
    if not 1 <= args.chunk <= MAX_CHUNK:
        raise ValueError(f"--chunk must be 1..{MAX_CHUNK}, got {args.chunk}")
    if not args.out.strip():
        raise ValueError("--out is empty: name the ablation's directory")
    runs = Path(args.out) if Path(args.out).is_dir() else None  # (an --out that is a file: RunLock says so)
    games = {side: check_train_options(f"{args.common} {extra}", side, runs / side if runs else None)
             for side, extra in (("a", args.a), ("b", args.b))}
    if games["a"] != games["b"]:
        raise ValueError("sides A and B name different games (--game, --size, --n-in-row, --rule, --komi): "
                         "the arena plays both nets on one; put those options in --common")
    if shlex.split(args.a) == shlex.split(args.b):
        print("ablate: note: sides A and B have the same options (an A/A test of the seeds)", file=sys.stderr)
    from zeroplay.train.runlock import RunLock

    out = Path(args.out)
    if args.a_from:
        check_a_from(Path(args.a_from), f"{args.common} {args.a}", out)
    try:
        with RunLock(out, flag="--out", owner="zeroplay ablate"), StopSignals() as stop:
            result = run_ablation(out, args.common, args.a, args.b, cpu_hours=args.cpu_hours,
                                  games=args.games, playouts=args.playouts, seed=args.seed, argv=sys.argv[1:],
                                  parallel=args.parallel, chunk=args.chunk, stop=stop,
                                  a_from=Path(args.a_from) if args.a_from else None)
    except AblationStopped:  # said, beside the training process's own line
        return 130
    except KeyboardInterrupt:
        # one line (the arena process it ran says its own): not cli's "interrupted" too
        print("ablate: interrupted; rerun the same command to continue", file=sys.stderr)
        return 130
    except StepFailed as e:  # the step's own output said why, above
        print(f"zeroplay ablate: error: {e}", file=sys.stderr)
        return 1
    except SideAPending as e:
        print(f"ablate: {e}", file=sys.stderr)
        return 3
    print((out / RESULT).read_text(encoding="utf-8"), end="")
    return 0 if result else 1


def run_ablation(out: Path, common: str, a: str, b: str, *, cpu_hours: float, games: int, playouts: int,
                 seed: int, argv: list[str] | None = None, log=None, train_chunk=None, arena=None,
                 parallel: bool = False, chunk: int = 1, stop: threading.Event | None = None,
                 a_from: Path | None = None) -> dict:
    """Train both sides to ``cpu_hours`` each, play the arena, write OUT/RESULT.md; returns the result.

    ``train_chunk(out, side, options, iterations) -> row`` and ``arena(out, nets, games, playouts,
    seed) -> (match, args)`` default to the real ``zeroplay train`` / ``zeroplay arena`` calls.
    ``parallel``: every side still short of the budget trains its next chunk at once. ``chunk``:
    iterations per ``train_chunk`` call (fewer near the budget, ``chunk_target``). ``stop``: once
    set (a signal, ``StopSignals``), no new chunk or arena starts. ``a_from``: side A is that
    ablation's (its run directory, CPU rows and final net; the same A options), trained there.

    Raises:
        AblationStopped: stopped (Ctrl-C or ``stop``); every chunk that ran is booked.
        StepFailed: a training chunk (booked) or the arena failed; its command is named.
        SideAPending: ``a_from``'s side A has not spent the budget yet (B has).
        ValueError: OUT was started with other options, or holds unbooked iterations it cannot book.
    """
    log = log or (lambda msg: print(f"ablate: {msg}", file=sys.stderr, flush=True))
    train_chunk, arena = train_chunk or steps.train_chunk, arena or steps.play_arena
    out.mkdir(parents=True, exist_ok=True)
    budget = cpu_hours * 3600.0
    options = {"a": f"{common} {a}", "b": f"{common} {b}"}
    check_kept_options(out, options, a_from)
    trained = ("b",) if a_from is not None else SIDES
    check_idle(out, trained)
    book_unbooked(out, spent_so_far(out), log, sides=trained)

    def stopping() -> bool:
        return stop is not None and stop.is_set()

    while True:
        spent = spent_so_far(out)
        todo = [s for s in trained if spent[s]["cpu_s"] < budget]
        if not todo:
            break
        if stopping():
            log("stopped between chunks; rerun the same command to continue")
            raise AblationStopped
        sides = todo if parallel else [min(todo, key=lambda s: spent[s]["cpu_s"])]
        with ThreadPoolExecutor(max_workers=len(sides)) as pool:
            futures = {s: pool.submit(train_chunk, out, s, options[s], chunk_target(spent[s], budget, chunk))
                       for s in sides}
            rows: dict = {}
            stopped = False
            for s, fut in futures.items():
                while s not in rows:
                    try:
                        rows[s] = fut.result()
                    except KeyboardInterrupt:  # the chunks got Ctrl-C too: they stop and say so
                        stopped = True
                    except Exception as exc:  # keep the other side's finished chunk before failing
                        rows[s] = exc
        with open(out / CPU_LOG, "a", encoding="utf-8") as f:
            for row in rows.values():
                if isinstance(row, dict):
                    f.write(json.dumps(row) + "\n")
        booked = {s: row for s, row in rows.items() if isinstance(row, dict)}
        for s, row in booked.items():
            log(f"side {s}: iteration {row['iterations']}, {spent[s]['cpu_s'] + row['cpu_s']:.0f} of "
                f"{budget:.0f} CPU-seconds{' (stopped)' if row.get('interrupted') else ''}"
                f"{' (failed)' if 'exit' in row else ''}")
        failed = [row for row in booked.values() if "exit" in row]
        if failed:
            row = failed[0]
            raise StepFailed(f"side {row['side']}: {row['command']} failed (exit {row['exit']}); its "
                              f"{row['cpu_s']:.0f} CPU-seconds are booked; fix the cause and rerun the same command "
                              "(other --common/--a/--b options need another --out)")
        for row in rows.values():
            if isinstance(row, Exception):
                raise row
        if stopped or stopping() or any(row.get("interrupted") for row in booked.values()):
            told = ", ".join(f"side {s} {row['cpu_s']:.0f}" for s, row in booked.items()) or "none"
            log(f"stopped; CPU-seconds of this round's chunks booked: {told}; rerun the same command to continue")
            raise AblationStopped
    spent = spent_so_far(out)
    nets = {s: final_checkpoint(out / s) for s in trained}
    if a_from is not None:
        spent["a"], nets["a"] = side_a_at_budget(a_from, budget)
        nets = {s: nets[s] for s in SIDES}
    retire_stale_arena(out, nets, log)
    check_arena_settings(out, seed, playouts)
    if stopping():
        log("stopped before the arena; rerun the same command to continue")
        raise AblationStopped
    try:
        match, arena_args = arena(out, nets, games, playouts, seed)
    except AblationStopped:
        log(f"the arena was stopped; its finished games are in {out / ARENA_LOG}; rerun the same command to "
            "continue it")
        raise
    result = {"a": options["a"].strip(), "b": options["b"].strip(), "cpu_hours_budget": cpu_hours,
              "spent": spent, "nets": {s: str(p) for s, p in nets.items()}, "arena": match,
              "arena_command": shlex.join(["zeroplay", *arena_args])}
    if a_from is not None:
        result["a_from"] = str(a_from)
    atomic_write_text(out / RESULT, _result_text(result, argv))
    atomic_write_text(out / "result.json", json.dumps(result, indent=2, sort_keys=True) + "\n")
    return result


def _result_text(r: dict, argv: list[str] | None) -> str:
    from zeroplay.engine.elo import format_elo

    m = r["arena"]
    # the arena's JSON has None for an infinite Elo (a sweep): its sign is the score's, and an
    # infinite bound is the low one below, the high one above
    sweep = math.inf if m["score"] > 0.5 else -math.inf
    elo = format_elo(sweep if m.get("elo") is None else m["elo"])
    low = format_elo(-math.inf if m.get("elo_low") is None else m["elo_low"])
    high = format_elo(math.inf if m.get("elo_high") is None else m["elo_high"])
    rerun = shlex.join(["zeroplay", *argv]) if argv else "(run by a script)"
    lines = [
        "# Ablation result",
        "",
        f"- A: `{r['a']}`" + (f" (side A of `{r['a_from']}`, trained there)" if r.get("a_from") else ""),
        f"- B: `{r['b']}`",
        f"- budget: {r['cpu_hours_budget']} CPU-hours per side; spent: "
        + "; ".join(f"{s.upper()} {r['spent'][s]['cpu_s'] / 3600:.3f} CPU-h ({r['spent'][s]['cpu_s']:,.0f} CPU-s) "
                    f"in {iterations_text(r['spent'][s]['iterations'])}" for s in SIDES),
        f"- final nets: A `{r['nets']['a']}`, B `{r['nets']['b']}`",
        f"- arena ({m['games']} games, colours alternating): A {m['wins']} / {m['draws']} / {m['losses']} "
        f"(W/D/L), score {m['score']:.3f}, Elo of A over B {elo} [{low}, {high}] (95 %)",
        f"- games: `{ARENA_LOG}`; arena command: `{r['arena_command']}`",
        "",
        f"Rerun: `{rerun}`",
        "",
    ]
    return "\n".join(lines)
