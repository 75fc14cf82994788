"""OUT's records for ``zeroplay ablate``: the CPU ledger (OUT/cputime.jsonl), the arena's settings
and record, the sides' checkpoints."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from zeroplay.files.atomic import atomic_write_text

SIDES = ("a", "b")


CPU_LOG = "cputime.jsonl"


ARENA_LOG = "arena.jsonl"


RESULT = "RESULT.md"


OPTIONS = "options.json"


ARENA_SETTINGS = "arena.json"


def spent_so_far(out: Path) -> dict[str, dict]:
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


def run_iterations(run_dir: Path) -> int:
    """Iterations a run directory holds: its newest checkpoint's number (0 without one)."""
    found = sorted((run_dir / "checkpoints").glob("iter-*.safetensors"))
    try:
        return int(found[-1].stem.removeprefix("iter-")) if found else 0
    except ValueError:
        return 0


def chunk_target(spent: dict, budget: float, chunk: int) -> int:
    """The iteration count a side's next chunk trains to: ``chunk`` more, or fewer near the budget
    (the CPU left over its CPU per iteration so far, rounded up; at least one)."""
    done, cpu = spent["iterations"], spent["cpu_s"]
    if done > 0 and cpu > 0:
        left = math.ceil((budget - cpu) / (cpu / done))
        chunk = max(1, min(chunk, left))
    return done + chunk


def book_unbooked(out: Path, spent: dict, log, sides: tuple[str, ...] = SIDES) -> None:
    """Book iterations a side's run directory holds beyond OUT/cputime.jsonl's (a chunk that went
    on after the ablate process was killed) at the side's CPU per iteration so far (the other
    side's when it has none). Nothing is written when one side cannot be booked.

    Raises:
        ValueError: no side has a booked iteration to take a rate from.
    """
    rows, said = [], []
    for side in sides:
        held, booked = run_iterations(out / side), spent[side]["iterations"]
        if held <= booked:
            continue
        rates = [spent[s]["cpu_s"] / spent[s]["iterations"] for s in (side, *SIDES)
                 if spent[s]["iterations"] > 0 and spent[s]["cpu_s"] > 0]
        if not rates:
            raise ValueError(f"{out / side} holds {iterations_text(held)} that {CPU_LOG} does not book (the ablate "
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


def check_idle(out: Path, sides) -> None:
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


def final_checkpoint(run_dir: Path) -> Path:
    found = sorted((run_dir / "checkpoints").glob("iter-*.safetensors"))
    if not found:
        raise RuntimeError(f"{run_dir} has no checkpoint")
    return found[-1]


def retire_stale_arena(out: Path, nets: dict, log) -> None:
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


def check_arena_settings(out: Path, seed: int, playouts: int) -> None:
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


def iterations_text(n: int) -> str:
    return f"{n} iteration" if n == 1 else f"{n} iterations"
