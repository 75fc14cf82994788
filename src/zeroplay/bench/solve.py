"""Exact solvers on public test sets: Connect Four on Pascal Pons' six sets (time, nodes, mismatches).

Timed as Pons did: the alpha-beta table cleared before each position (not timed), solve time
only (parsing and clearing excluded), compiled code warm (numba's on-disk cache, plus one untimed
solve first). Every score is checked against the set's expected one.

Data: ``../shared/data/connect4/Test_*`` beside the checkout (see its README), or ``--data DIR``.
"""

from __future__ import annotations

import time
from pathlib import Path

from zeroplay.engine.options import at_least_1

CONNECT4_SETS = ("Test_L3_R1", "Test_L2_R1", "Test_L1_R1", "Test_L2_R2", "Test_L1_R2", "Test_L1_R3")
"""Pons' sets, easiest first."""

PONS_MEAN_US = {
    "Test_L3_R1": 4.9,
    "Test_L2_R1": 42.0,
    "Test_L1_R1": 300.0,
    "Test_L2_R2": 4_300.0,
    "Test_L1_R2": 142_000.0,
    "Test_L1_R3": 6_000_000.0,
}
"""Mean time per position of Pons' C++ solver on this 2-core machine (issue 7; L1_R3: about, first 50)."""

TARGET_RATIO = 3.0
"""Issue 7's target: at most 3x Pons' mean time per set (no target for Test_L1_R3)."""

L1_R3_CAP = 50
"""Test_L1_R3 runs its first 50 positions only (about 6 s each even for Pons' C++)."""


def default_data_dir() -> Path:
    """``../shared/data/connect4`` beside the checkout (found from this file, then the cwd)."""
    here = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "connect4"
    if here.is_dir():
        return here
    return Path.cwd() / ".." / "shared" / "data" / "connect4"


def read_set(path: Path, limit: int | None = None) -> list[tuple[str, int]]:
    """``(moves, score)`` pairs of one test-set file (``<moves> <score>`` per line).

    Raises:
        ValueError: the file does not read, or a score is not a whole number (file and line named).
    """
    out = []
    try:
        with open(path, encoding="utf-8-sig") as f:
            for number, line in enumerate(f, 1):
                words = line.split()
                if len(words) == 2:
                    try:
                        out.append((words[0], int(words[1])))
                    except ValueError:
                        raise ValueError(f"{path}:{number}: not '<moves> <score>' (score {words[1]!r})") from None
                    if limit is not None and len(out) >= limit:
                        break
    except (OSError, UnicodeDecodeError) as e:  # unreadable, or not text (UTF-8)
        raise ValueError(f"--data {path}: {getattr(e, 'strerror', None) or e}") from None
    return out


def add_arguments(parser) -> None:
    parser.add_argument("--game", choices=["connect4"], default="connect4", help="solver to measure (default connect4)")
    parser.add_argument("--sets", default=",".join(CONNECT4_SETS),
                        help="comma-separated set names (default: all six, easiest first)")
    parser.add_argument("--limit", type=at_least_1, default=None,
                        help="positions per set, >= 1, from the start of each file (default: all; Test_L1_R3 is "
                        f"always capped at its first {L1_R3_CAP})")
    parser.add_argument("--table-mib", type=float, default=None,
                        help="alpha-beta table size, MiB, at most half of the machine's memory (default 16)")
    parser.add_argument("--repeats", type=int, default=1,
                        help="solves per position, the fastest kept (default 1, Pons' protocol; more damps the "
                        "noise of a shared machine)")
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                        help="wall: time.perf_counter (Pons' protocol, default); cpu: this thread's CPU time "
                        "(time.thread_time), which leaves out the time other processes hold the core")
    parser.add_argument("--data", default=None, help="folder of the Test_* files (default ../shared/data/connect4)")


def run(args) -> dict:
    """Figures for ``zeroplay bench solve`` (see ``measure_connect4``).

    Raises:
        ValueError: an option out of range, a set unknown or missing, or the table not fitting in memory.
    """
    try:
        return measure_connect4(
            sets=[s.strip() for s in args.sets.split(",") if s.strip()],
            limit=args.limit,
            table_mib=args.table_mib,
            repeats=args.repeats,
            clock=args.clock,
            data=Path(args.data) if args.data else None,
        )
    except MemoryError as e:  # cli's own message names the options of train and play
        raise ValueError(f"out of memory ({e or 'MemoryError'}): lower --table-mib") from None


def measure_connect4(sets=CONNECT4_SETS, limit: int | None = None, table_mib: float | None = None,
                     repeats: int = 1, clock: str = "wall", data: Path | None = None) -> dict:
    """Solve each set and return its figures.

    Returns:
        ``{"game", "table_mib", "repeats", "clock", "sets": {name: {"positions", "mean_us", "mean_nodes",
        "max_us", "mnodes_per_s", "mismatches", "pons_mean_us", "ratio_to_pons", "within_target"}},
        "mismatches"}`` -- ``mean_us`` the mean solve time per position (microseconds),
        ``ratio_to_pons`` = mean_us / Pons' mean on this machine, ``within_target`` whether that
        ratio is <= 3 (None for Test_L1_R3, which has no target).

    Raises:
        ValueError: the data folder or a set file is missing, no set or an unknown one is named,
            ``limit`` < 1, ``repeats`` < 1, ``table_mib`` outside one bucket .. half of the memory.
    """
    from zeroplay.bench.tt import check_table_mib
    from zeroplay.solvers.connect4_solver import DEFAULT_TABLE_MIB, Connect4Solver, parse_position, solve_bitboards
    from zeroplay.tt.ab_table import ab_clear

    if not sets:
        raise ValueError(f"--sets must name at least one set; known: {', '.join(CONNECT4_SETS)}")
    unknown = [name for name in sets if name not in PONS_MEAN_US]
    if unknown:  # (before the first set is timed, not after)
        raise ValueError(f"--sets: unknown set {unknown[0]!r}; known: {', '.join(CONNECT4_SETS)}")
    if limit is not None and limit < 1:
        raise ValueError(f"--limit must be >= 1, got {limit}")
    data = data if data is not None else default_data_dir()
    if not data.is_dir():
        raise ValueError(f"no Connect Four test sets at {data} (pass --data DIR)")
    if repeats < 1:
        raise ValueError(f"--repeats must be >= 1, got {repeats}")
    if clock not in ("wall", "cpu"):
        raise ValueError(f"clock must be 'wall' or 'cpu', got {clock!r}")
    timer = time.perf_counter if clock == "wall" else time.thread_time
    table_mib = DEFAULT_TABLE_MIB if table_mib is None else table_mib
    check_table_mib("--table-mib", table_mib)
    solver = Connect4Solver(table_mib)
    table, counters = solver.table, solver._counters
    solver.solve("4455")  # load the compiled code (numba cache) before any timing

    out_sets = {}
    total_mismatches = 0
    for name in sets:
        path = data / name
        if not path.is_file():
            raise ValueError(f"missing test set {path}")
        cap = limit
        if name == "Test_L1_R3":
            cap = L1_R3_CAP if cap is None else min(cap, L1_R3_CAP)
        positions = read_set(path, cap)
        total_s = 0.0
        max_s = 0.0
        total_nodes = 0
        mismatches = 0
        for moves, expected in positions:
            me, mask, stones = parse_position(moves)
            best = float("inf")
            for _ in range(repeats):
                ab_clear(table)
                counters[0] = 0
                t0 = timer()
                score = solve_bitboards(me, mask, stones, table, counters)
                best = min(best, timer() - t0)
            total_s += best
            max_s = max(max_s, best)
            total_nodes += int(counters[0])
            mismatches += int(score != expected)
        n = max(len(positions), 1)
        mean_us = total_s / n * 1e6
        ratio = mean_us / PONS_MEAN_US[name]
        out_sets[name] = {
            "positions": len(positions),
            "mean_us": round(mean_us, 2),
            "mean_nodes": round(total_nodes / n, 1),
            "max_us": round(max_s * 1e6, 1),
            "mnodes_per_s": round(total_nodes / total_s / 1e6, 2) if total_s > 0 else 0.0,
            "mismatches": mismatches,
            "pons_mean_us": PONS_MEAN_US[name],
            "ratio_to_pons": round(ratio, 2),
            "within_target": None if name == "Test_L1_R3" else bool(ratio <= TARGET_RATIO),
        }
        total_mismatches += mismatches
    return {
        "game": "connect4",
        "table_mib": table_mib,
        "repeats": repeats,
        "clock": clock,
        "sets": out_sets,
        "mismatches": total_mismatches,
    }
