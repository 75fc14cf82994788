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

import argparse
import json
import math
import os
import shlex
import signal
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from zeroplay.files.atomic import atomic_write_text

SIDES = ("a", "b")
CPU_LOG = "cputime.jsonl"
ARENA_LOG = "arena.jsonl"
RESULT = "RESULT.md"
OPTIONS = "options.json"
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
    games = {side: check_train_options(f"{args.common} {extra}", side) for side, extra in (("a", args.a), ("b", args.b))}
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
        with RunLock(out, flag="--out", owner="zeroplay ablate"), _StopSignals() as stop:
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


HARNESS_OPTIONS = {"run_dir": "--run-dir", "iterations": "--iterations", "hours": "--hours"}
"""``zeroplay train`` options ablate sets itself (by argparse destination, so that ``--iterations=5``
and abbreviations such as ``--iter 5`` are caught as well)."""


class _OptionError(ValueError):
    pass


class _RaisingParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors raise (with argparse's message) instead of exiting."""

    def error(self, message):
        raise _OptionError(message)


def check_train_options(options: str, side: str) -> tuple:
    """Parse one side's ``zeroplay train`` options with train's own parser, before anything is
    written.

    Raises:
        ValueError: the string does not split (unbalanced quotes), train's parser refuses it
            (unknown option, bad value), or it sets an option ablate sets itself (``--run-dir``,
            ``--iterations``, ``--hours``, in any spelling argparse accepts), or asks for help.

    Returns:
        The game the options name: (game, size, n_in_row, rule, komi), None where not given.
    """
    from zeroplay.train.commands import add_parsers

    where = f"side {side.upper()}'s options (--common + --{side})"
    try:
        words = shlex.split(options)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    parser = _RaisingParser(prog="zeroplay", add_help=False)
    add_parsers(parser.add_subparsers(dest="command"))
    marker = "\0ablate"
    if any(w == "-h" or (len(w) > 3 and "--help".startswith(w)) for w in words):  # (argparse: --he, --hel)
        raise ValueError(f"{where}: --help is not a training option (see zeroplay train --help)")
    try:
        parsed = parser.parse_args(["train", "--run-dir", marker, *words])
    except _OptionError as e:
        raise ValueError(f"{where}: zeroplay train refuses them: {e}") from None
    given = {"run_dir": parsed.run_dir != marker, "iterations": parsed.iterations is not None,
             "hours": parsed.hours is not None}
    for dest, flag in HARNESS_OPTIONS.items():
        if given[dest]:
            raise ValueError(f"{flag} is set by zeroplay ablate; drop it from --common/--a/--b")
    return (parsed.game, parsed.size, parsed.n_in_row, parsed.rule, parsed.komi)


class _StopSignals:
    """While held: SIGINT, SIGTERM and SIGHUP to the ablate process stop it the way Ctrl-C does.

    The first one passes a SIGINT on to the running chunks and the arena (their own process group:
    a terminal's Ctrl-C reaches only ablate, so each child gets exactly one), which stop and are
    booked; ablate then ends with status 130. Further signals are only told about.
    """

    SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))

    def __init__(self):
        self.event = threading.Event()
        self._old: dict = {}

    def _handle(self, signum, frame) -> None:
        name = signal.Signals(signum).name
        if self.event.is_set():
            print(f"ablate: {name}: already stopping (the running chunks finish their step and are booked)",
                  file=sys.stderr, flush=True)
            return
        self.event.set()
        print(f"ablate: {name}: stopping; the running chunks get a SIGINT, finish their step and are booked",
              file=sys.stderr, flush=True)
        for proc in list(_LIVE):
            try:
                proc.send_signal(signal.SIGINT)
            except OSError:
                pass

    def __enter__(self) -> threading.Event:
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                self._old[sig] = signal.signal(sig, self._handle)
        return self.event

    def __exit__(self, *exc) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)


_LIVE: set = set()
"""The ``zeroplay train`` and ``zeroplay arena`` processes ablate is waiting on (for the signals)."""


@contextmanager
def _watched(proc: subprocess.Popen):
    """While ablate waits on ``proc``: in ``_LIVE`` (the stop signals reach it), and killed if
    the wait is abandoned by an exception (no orphan left working on OUT)."""
    _LIVE.add(proc)
    try:
        yield proc
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        _LIVE.discard(proc)


def _zeroplay() -> list[str]:
    return [sys.executable, "-m", "zeroplay"]


def _spent(out: Path) -> dict[str, dict]:
    """Per side: CPU seconds and iterations so far, from OUT/cputime.jsonl."""
    spent = {side: {"cpu_s": 0.0, "wall_s": 0.0, "iterations": 0} for side in SIDES}
    path = out / CPU_LOG
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            side = spent[row["side"]]
            side["cpu_s"] += row["cpu_s"]
            side["wall_s"] += row["wall_s"]
            side["iterations"] = max(side["iterations"], row["iterations"])
    return spent


class AblationStopped(KeyboardInterrupt):
    """Ctrl-C stopped the training chunks; their CPU time is booked (``run_ablation`` said so)."""


INTERRUPTED_EXITS = (130, -2)
"""Exit statuses of a ``zeroplay train`` stopped by Ctrl-C (its own 130, or killed by SIGINT)."""


def _train_chunk(out: Path, side: str, options: str, iterations: int) -> dict:
    """One ``zeroplay train`` call up to ``iterations`` iterations; its row for OUT/cputime.jsonl.

    CPU time comes from ``wait4`` on that process alone (user + sys, including the workers it
    reaped), so chunks of the two sides may run at the same time. Every chunk is booked, with the
    iterations its run directory holds afterwards: a chunk stopped by SIGINT is a row with
    ``"interrupted": true`` (its unfinished iteration's self-play games are kept in the run
    directory and used when it resumes, so its CPU counts toward the side's budget); one that
    failed has ``"exit"``, its exit status (``run_ablation`` books it, then raises).
    """
    import time

    cmd = _zeroplay() + ["train", "--run-dir", str(out / side), "--iterations", str(iterations),
                         "--no-progress", *shlex.split(options)]
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, process_group=0)
    with _watched(proc):
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    row = {"side": side, "iterations": _run_iterations(out / side),
           "cpu_s": round(usage.ru_utime + usage.ru_stime, 2), "wall_s": round(time.monotonic() - started, 2)}
    if proc.returncode in INTERRUPTED_EXITS:
        row["interrupted"] = True
    elif proc.returncode != 0:
        row["exit"] = proc.returncode
        row["command"] = shlex.join(["zeroplay", *cmd[3:]])
    return row


class StepFailed(RuntimeError):
    """A training chunk (booked all the same) or the arena ended with an error; the message names
    its command."""


def _run_iterations(run_dir: Path) -> int:
    """Iterations a run directory holds: its newest checkpoint's number (0 without one)."""
    found = sorted((run_dir / "checkpoints").glob("iter-*.safetensors"))
    try:
        return int(found[-1].stem.removeprefix("iter-")) if found else 0
    except ValueError:
        return 0


def _chunk_target(spent: dict, budget: float, chunk: int) -> int:
    """The iteration count a side's next chunk trains to: ``chunk`` more, or fewer near the budget
    (the CPU left over its CPU per iteration so far, rounded up; at least one)."""
    done, cpu = spent["iterations"], spent["cpu_s"]
    if done > 0 and cpu > 0:
        left = math.ceil((budget - cpu) / (cpu / done))
        chunk = max(1, min(chunk, left))
    return done + chunk


def _check_options(out: Path, options: dict[str, str], a_from: Path | None = None) -> None:
    """Keep OUT to the sides' training options it started with: OUT/options.json, written at the
    first run (or, for a folder from before the file, at its first rerun), with ``a_from`` when
    side A comes from another ablation.

    Raises:
        ValueError: the command's options for a side differ from OUT's: its nets would mix
            iterations trained with both, and RESULT.md would name options they were not trained
            with; or ``a_from`` differs from OUT's; or ``a_from`` is no ablation, or its side A
            was trained with other options. ``--cpu-hours``, ``--games``, ``--playouts`` and
            ``--seed`` may change.
    """
    path = out / OPTIONS
    wanted: dict = {s: " ".join(shlex.split(options[s])) for s in SIDES}  # spacing is not an option
    if a_from is not None:
        check_a_from(a_from, options["a"], out)
        # relative to OUT, so that the folder means the same from any directory and in any clone
        wanted["a_from"] = os.path.relpath(a_from.resolve(), out.resolve())
    if path.exists():
        kept = json.loads(path.read_text(encoding="utf-8"))
        changed = [s for s in SIDES if kept.get(s) != wanted[s]]
        if changed:
            told = "; ".join(f"{s.upper()}: `{kept.get(s)}` there, `{wanted[s]}` here" for s in changed)
            raise ValueError(f"{out} was trained with other options ({told}): rerun with its own options to "
                             "resume it, or give another --out for these")
        theirs_from, ours_from = kept.get("a_from"), wanted.get("a_from")
        same = (theirs_from is None and ours_from is None) or (
            theirs_from is not None and ours_from is not None
            and (out / theirs_from).resolve() == (out / ours_from).resolve())
        if not same:
            raise ValueError(f"{out} takes side A from {theirs_from or 'its own training'}, this command from "
                             f"{ours_from or 'its own training'}: rerun with its own --a-from")
        return
    atomic_write_text(path, json.dumps(wanted, indent=2, sort_keys=True) + "\n")


def check_a_from(a_from: Path, options_a: str, out: Path) -> None:
    """Refuse an ``--a-from`` that cannot serve as this ablation's side A (nothing is written).

    Raises:
        ValueError: ``a_from`` is not an ablation's OUT, is OUT itself, takes its own A from
            another (name that one), or trained its A with other options than ``options_a``.
    """
    source = a_from / OPTIONS
    if not source.is_file():
        raise ValueError(f"--a-from {a_from}: no {OPTIONS} there (not a zeroplay ablate --out)")
    if a_from.resolve() == out.resolve():
        raise ValueError(f"--a-from {a_from} is --out itself")
    kept = json.loads(source.read_text(encoding="utf-8"))
    if kept.get("a_from"):
        origin = (a_from / kept["a_from"]).resolve()
        raise ValueError(f"--a-from {a_from} takes its own side A from {origin}: give that one")
    theirs, ours = kept.get("a"), " ".join(shlex.split(options_a))
    if theirs != ours:
        raise ValueError(f"--a-from {a_from}: its side A was trained with `{theirs}`, this ablation's A is "
                         f"`{ours}`: they must be the same")


def _side_a_at_budget(a_from: Path, budget: float) -> tuple[dict, Path]:
    """Side A of ``a_from`` where it first reached ``budget`` CPU-seconds: its spent figures (as
    ``_spent``'s) and that iteration's checkpoint, so that a baseline trained on later (a larger
    budget of its own) still gives this ablation the net of its budget.

    Raises:
        SideAPending: it has not spent ``budget`` yet.
        ValueError: that iteration's checkpoint is gone.
    """
    cpu = wall = 0.0
    path = a_from / CPU_LOG
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    for line in lines:
        row = json.loads(line) if line.strip() else None
        if row is None or row["side"] != "a":
            continue
        cpu += row["cpu_s"]
        wall += row["wall_s"]
        if cpu >= budget:
            net = a_from / "a" / "checkpoints" / f"iter-{row['iterations']:06d}.safetensors"
            if not net.is_file():
                raise ValueError(f"--a-from {a_from}: its side A reached {budget:.0f} CPU-seconds at iteration "
                                 f"{row['iterations']}, whose checkpoint {net} is not there (commit_ablation.sh "
                                 "keeps the newest only)")
            return {"cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "iterations": row["iterations"]}, net
    raise SideAPending(f"side B has spent its {budget:.0f} CPU-seconds; side A comes from {a_from}, whose A has "
                       f"spent {cpu:.0f}: train that one on to at least {budget / 3600:g} CPU-hours (rerun its "
                       "command, with that --cpu-hours if its own is smaller), then rerun this one for the arena")


class SideAPending(ValueError):
    """Side B has spent the budget, side A (``--a-from``) not yet: its ablation must go on first."""


def _retire_stale_arena(out: Path, nets: dict, log) -> None:
    """A match record of other nets (the budget was raised after the arena, so the sides trained
    on) is renamed ``arena-until-A-B.jsonl`` (the nets' iterations) and the new nets play afresh.
    """
    path = out / ARENA_LOG
    if not path.exists():
        return
    with open(path, encoding="utf-8") as f:
        try:
            header = json.loads(f.readline() or "{}")
        except json.JSONDecodeError:
            return  # not a record: the arena itself refuses it, with its own words
    if (header.get("a"), header.get("b")) == (str(nets["a"]), str(nets["b"])):
        return
    iters = [Path(str(header.get(s) or "none")).stem.removeprefix("iter-").lstrip("0") or "0" for s in SIDES]
    old = out / f"arena-until-{iters[0]}-{iters[1]}.jsonl"
    os.replace(path, old)
    log(f"{ARENA_LOG} played other nets ({header.get('a')}, {header.get('b')}): kept as {old.name}")


ARENA_SETTINGS = "arena.json"


def _check_arena_settings(out: Path, seed: int, playouts: int) -> None:
    """Keep a resumed match to the ``--seed`` and ``--playouts`` it started with (OUT/arena.json):
    its record would mix games of both, and RESULT.md would name the new ones.

    Raises:
        ValueError: OUT/arena.jsonl holds games of other settings.
    """
    path, wanted = out / ARENA_SETTINGS, {"seed": seed, "playouts": playouts}
    if (out / ARENA_LOG).exists() and path.exists():
        kept = json.loads(path.read_text(encoding="utf-8"))
        if kept != wanted:
            raise ValueError(f"{out / ARENA_LOG} was played with --seed {kept.get('seed')} --playouts "
                             f"{kept.get('playouts')}: rerun with those to resume or replay it, or remove that "
                             "file to play the match afresh with these")
    atomic_write_text(path, json.dumps(wanted, sort_keys=True) + "\n")


def _final_checkpoint(run_dir: Path) -> Path:
    found = sorted((run_dir / "checkpoints").glob("iter-*.safetensors"))
    if not found:
        raise RuntimeError(f"{run_dir} has no checkpoint")
    return found[-1]


def _arena(out: Path, nets: dict, games: int, playouts: int, seed: int) -> tuple[dict, list[str]]:
    """The match A vs B (``zeroplay arena --json``): its JSON object and the command's arguments.

    Raises:
        AblationStopped: the arena was stopped by SIGINT (its finished games stay in its record).
        StepFailed: it failed (the command is named).
    """
    args = ["arena", str(nets["a"]), str(nets["b"]), "--games", str(games), "--playouts", str(playouts),
            "--seed", str(seed), "--record", str(out / ARENA_LOG), "--json", "--no-progress"]
    proc = subprocess.Popen(_zeroplay() + args, stdout=subprocess.PIPE, text=True, process_group=0)
    with _watched(proc):
        stdout, _ = proc.communicate()
    if proc.returncode in INTERRUPTED_EXITS:
        raise AblationStopped
    if proc.returncode != 0:
        raise StepFailed(f"arena: zeroplay {shlex.join(args)} failed (exit {proc.returncode})")
    return json.loads(stdout.strip().splitlines()[-1]), args


def _book_unbooked(out: Path, spent: dict, log, sides: tuple[str, ...] = SIDES) -> None:
    """Book iterations a side's run directory holds beyond OUT/cputime.jsonl's (a chunk that went
    on after the ablate process was killed) at the side's CPU per iteration so far (the other
    side's when it has none). Nothing is written when one side cannot be booked.

    Raises:
        ValueError: no side has a booked iteration to take a rate from.
    """
    rows, said = [], []
    for side in sides:
        held, booked = _run_iterations(out / side), spent[side]["iterations"]
        if held <= booked:
            continue
        rates = [spent[s]["cpu_s"] / spent[s]["iterations"] for s in (side, *SIDES)
                 if spent[s]["iterations"] > 0 and spent[s]["cpu_s"] > 0]
        if not rates:
            raise ValueError(f"{out / side} holds {_iterations(held)} that {CPU_LOG} does not book (the ablate "
                             "process was killed during a chunk), and no side has a CPU per iteration to book them "
                             f"at: remove {out / side} and rerun (that side starts over)")
        cpu = round(rates[0] * (held - booked), 2)
        whose = "its" if spent[side]["iterations"] > 0 else "the other side's"
        rows.append({"side": side, "iterations": held, "cpu_s": cpu, "wall_s": 0.0, "estimated": True})
        said.append(f"side {side}: iterations {booked + 1}-{held} are in its run directory but were not booked (the "
                    f"ablate process was killed during a chunk); booked at {whose} CPU per iteration: {cpu:.0f} CPU-s")
    if rows:
        with open(out / CPU_LOG, "a", encoding="utf-8") as f:
            f.writelines(json.dumps(row) + "\n" for row in rows)
    for line in said:
        log(line)


def _check_idle(out: Path, sides) -> None:
    """Refuse to start while a ``zeroplay train`` process still works on a side's run directory
    (one left running by a killed ablate): a chunk started now would fail on its lock, and the
    other process's iterations would look like the chunk's.

    Raises:
        ValueError: a side's run directory is locked (the message names the process).
    """
    from zeroplay.train.runlock import RunLock, RunLockedError

    for side in sides:
        if not (out / side).is_dir():
            continue
        try:
            RunLock(out / side).acquire().release()
        except RunLockedError as e:
            raise ValueError(f"side {side}: {e}; it is probably a chunk left running by a killed ablate: wait "
                             "for it to end (its iterations are booked then), then rerun") from None


def run_ablation(out: Path, common: str, a: str, b: str, *, cpu_hours: float, games: int, playouts: int,
                 seed: int, argv: list[str] | None = None, log=None, train_chunk=None, arena=None,
                 parallel: bool = False, chunk: int = 1, stop: threading.Event | None = None,
                 a_from: Path | None = None) -> dict:
    """Train both sides to ``cpu_hours`` each, play the arena, write OUT/RESULT.md; returns the result.

    ``train_chunk(out, side, options, iterations) -> row`` and ``arena(out, nets, games, playouts,
    seed) -> (match, args)`` default to the real ``zeroplay train`` / ``zeroplay arena`` calls.
    ``parallel``: every side still short of the budget trains its next chunk at once. ``chunk``:
    iterations per ``train_chunk`` call (fewer near the budget, ``_chunk_target``). ``stop``: once
    set (a signal, ``_StopSignals``), no new chunk or arena starts. ``a_from``: side A is that
    ablation's (its run directory, CPU rows and final net; the same A options), trained there.

    Raises:
        AblationStopped: stopped (Ctrl-C or ``stop``); every chunk that ran is booked.
        StepFailed: a training chunk (booked) or the arena failed; its command is named.
        SideAPending: ``a_from``'s side A has not spent the budget yet (B has).
        ValueError: OUT was started with other options, or holds unbooked iterations it cannot book.
    """
    log = log or (lambda msg: print(f"ablate: {msg}", file=sys.stderr, flush=True))
    train_chunk, arena = train_chunk or _train_chunk, arena or _arena
    out.mkdir(parents=True, exist_ok=True)
    budget = cpu_hours * 3600.0
    options = {"a": f"{common} {a}", "b": f"{common} {b}"}
    _check_options(out, options, a_from)
    trained = ("b",) if a_from is not None else SIDES
    _check_idle(out, trained)
    _book_unbooked(out, _spent(out), log, sides=trained)

    def stopping() -> bool:
        return stop is not None and stop.is_set()

    while True:
        spent = _spent(out)
        todo = [s for s in trained if spent[s]["cpu_s"] < budget]
        if not todo:
            break
        if stopping():
            log("stopped between chunks; rerun the same command to continue")
            raise AblationStopped
        sides = todo if parallel else [min(todo, key=lambda s: spent[s]["cpu_s"])]
        with ThreadPoolExecutor(max_workers=len(sides)) as pool:
            futures = {s: pool.submit(train_chunk, out, s, options[s], _chunk_target(spent[s], budget, chunk))
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
    spent = _spent(out)
    nets = {s: _final_checkpoint(out / s) for s in trained}
    if a_from is not None:
        spent["a"], nets["a"] = _side_a_at_budget(a_from, budget)
        nets = {s: nets[s] for s in SIDES}
    _retire_stale_arena(out, nets, log)
    _check_arena_settings(out, seed, playouts)
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


def _iterations(n: int) -> str:
    return f"{n} iteration" if n == 1 else f"{n} iterations"


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
                    f"in {_iterations(r['spent'][s]['iterations'])}" for s in SIDES),
        f"- final nets: A `{r['nets']['a']}`, B `{r['nets']['b']}`",
        f"- arena ({m['games']} games, colours alternating): A {m['wins']} / {m['draws']} / {m['losses']} "
        f"(W/D/L), score {m['score']:.3f}, Elo of A over B {elo} [{low}, {high}] (95 %)",
        f"- games: `{ARENA_LOG}`; arena command: `{r['arena_command']}`",
        "",
        f"Rerun: `{rerun}`",
        "",
    ]
    return "\n".join(lines)
