"""The processes ``zeroplay ablate`` runs (training chunks, the arena) and the signals that stop
them: each in its own process group, booked however it ends."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

from zeroplay.train.ablation_ledger import ARENA_LOG, run_iterations


class StopSignals:
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
        for proc in list(LIVE):
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


LIVE: set = set()
"""The ``zeroplay train`` and ``zeroplay arena`` processes ablate is waiting on (for the signals)."""


@contextmanager
def watched(proc: subprocess.Popen):
    """While ablate waits on ``proc``: in ``LIVE`` (the stop signals reach it), and killed if
    the wait is abandoned by an exception (no orphan left working on OUT)."""
    LIVE.add(proc)
    try:
        yield proc
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        LIVE.discard(proc)


def _zeroplay() -> list[str]:
    return [sys.executable, "-m", "zeroplay"]


class AblationStopped(KeyboardInterrupt):
    """Ctrl-C stopped the training chunks; their CPU time is booked (``run_ablation`` said so)."""


INTERRUPTED_EXITS = (130, -2)
"""Exit statuses of a ``zeroplay train`` stopped by Ctrl-C (its own 130, or killed by SIGINT)."""


def train_chunk(out: Path, side: str, options: str, iterations: int) -> dict:
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
    with watched(proc):
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    row = {"side": side, "iterations": run_iterations(out / side),
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


def play_arena(out: Path, nets: dict, games: int, playouts: int, seed: int) -> tuple[dict, list[str]]:
    """The match A vs B (``zeroplay arena --json``): its JSON object and the command's arguments.

    Raises:
        AblationStopped: the arena was stopped by SIGINT (its finished games stay in its record).
        StepFailed: it failed (the command is named).
    """
    args = ["arena", str(nets["a"]), str(nets["b"]), "--games", str(games), "--playouts", str(playouts),
            "--seed", str(seed), "--record", str(out / ARENA_LOG), "--json", "--no-progress"]
    proc = subprocess.Popen(_zeroplay() + args, stdout=subprocess.PIPE, text=True, process_group=0)
    with watched(proc):
        stdout, _ = proc.communicate()
    if proc.returncode in INTERRUPTED_EXITS:
        raise AblationStopped
    if proc.returncode != 0:
        raise StepFailed(f"arena: zeroplay {shlex.join(args)} failed (exit {proc.returncode})")
    return json.loads(stdout.strip().splitlines()[-1]), args
