"""What ``zeroplay ablate`` checks before it trains: each side's ``zeroplay train`` options, the
options OUT was started with, and a side A taken from another ablation (``--a-from``)."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import tempfile
from pathlib import Path

from zeroplay.files.atomic import atomic_write_text
from zeroplay.train.ablation_ledger import CPU_LOG, OPTIONS, SIDES

HARNESS_OPTIONS = {"run_dir": "--run-dir", "iterations": "--iterations", "hours": "--hours"}
"""``zeroplay train`` options ablate sets itself (by argparse destination, so that ``--iterations=5``
and abbreviations such as ``--iter 5`` are caught as well)."""


class _OptionError(ValueError):
    pass


class _RaisingParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors raise (with argparse's message) instead of exiting."""

    def error(self, message):
        raise _OptionError(message)


def check_train_options(options: str, side: str, run_dir: Path | None = None) -> tuple:
    """Parse one side's ``zeroplay train`` options with train's own parser, before anything is
    written.

    Raises:
        ValueError: the string does not split (unbalanced quotes), train's parser refuses it
            (unknown option, bad value), or it sets an option ablate sets itself (``--run-dir``,
            ``--iterations``, ``--hours``, in any spelling argparse accepts), or asks for help,
            or train's own checks refuse a value (``check_train_command``: a board size out of
            range, an unknown net, a setting that differs from ``run_dir``'s stored run).

    Args:
        run_dir: the side's run directory (its stored settings are checked when it exists);
            None checks the options as a new run's.

    Returns:
        The game the options name: (game, size, n_in_row, rule, komi), None where not given.
    """
    from zeroplay.train.commands import add_parsers, check_train_command

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
    # the values too (a board size out of range, an unknown net): a chunk that fails on them
    # would already have written OUT/options.json, and the corrected command be refused there
    parsed.run_dir = str(run_dir) if run_dir is not None else os.path.join(tempfile.gettempdir(), "zeroplay-ablate-no-run")
    try:
        check_train_command(parsed)
    except ValueError as e:
        raise ValueError(f"{where}: zeroplay train refuses them: {e}") from None
    return (parsed.game, parsed.size, parsed.n_in_row, parsed.rule, parsed.komi)


def check_kept_options(out: Path, options: dict[str, str], a_from: Path | None = None) -> None:
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


def side_a_at_budget(a_from: Path, budget: float) -> tuple[dict, Path]:
    """Side A of ``a_from`` where it first reached ``budget`` CPU-seconds: its spent figures (as
    ``spent_so_far``'s) and that iteration's checkpoint, so that a baseline trained on later (a larger
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
