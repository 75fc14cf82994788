"""Tactics: the play engine's move on the 1,811 free-style winning Gomoku puzzles (% solved, time).

Data: ``../shared/data/gomoku/puzzles.jsonl`` beside the checkout (its README tells the fields),
or ``--data FILE``. Test data only: it is read at run time, never shipped in the package. The
targets are the positions with a non-empty ``freestyle_winning_four_moves`` (the side to move
wins by force under free-style rules; 1,811 of the 2,256).

The engine (the one ``zeroplay play`` uses on 15x15: the shipped model with the threat solver;
``--engine search-only`` for the heuristic engine) searches each position afresh (tree emptied,
the threat solver's table kept, as within a game) and plays one move. The move is correct when
it is

1. one of the listed winning fours (``freestyle_winning_four_moves``), or
2. Rapfi's free-style move when Rapfi proved the win (``rapfi_freestyle`` with ``win: true``), or
3. a move after which our own threat solver proves the win for the mover (``proves_win_after``:
   every reply of the defender loses to a VCF or a proof-number VCT, or the move leaves two
   winning cells).

Figures: % solved, mean wall time per move (seconds; the search's own clock), and the failures
by collection with their ids.
"""

from __future__ import annotations

import time
from pathlib import Path

from zeroplay.bench._puzzles import puzzle_rows
from zeroplay.engine.options import at_least_0, at_least_1, whole_number_in
from zeroplay.games.gomoku import MAX_SIZE

TARGET_PERCENT = 97.0
"""Issue 20's target: at least 97 % of the 1,811 targets at 800 playouts."""

CHECK_VCF_NODES = 20_000
"""VCF budget (attacker nodes) per defender reply when a move is checked by our own solver."""
CHECK_VCT_NODES = 20_000
"""Proof-number VCT budget (work units) per defender reply the VCF did not settle."""
CHECK_MAX_REPLIES = 250
"""Most defender replies checked one by one (a quiet move on 15x15 has at most 224)."""


def default_data_file() -> Path:
    """``../shared/data/gomoku/puzzles.jsonl`` beside the checkout (found from this file, then the cwd)."""
    tail = Path("shared") / "data" / "gomoku" / "puzzles.jsonl"
    here = Path(__file__).resolve().parents[3] / ".." / tail
    return here if here.is_file() else Path.cwd() / ".." / tail


def read_targets(path: Path, limit: int | None = None, collections: set[str] | None = None) -> list[dict]:
    """The puzzles of ``path`` with a non-empty ``freestyle_winning_four_moves``, in file order
    (only those of ``collections`` when given; the first ``limit`` of them when given).

    Raises:
        ValueError: the file is missing (the message says where it was looked for), does not
            read, or a line is not a JSON object; ``limit`` < 1; a name of ``collections`` that no
            puzzle of the file has (the message names the file's collections).
    """
    if limit is not None and limit < 1:
        raise ValueError(f"--limit must be >= 1, got {limit}")
    if collections is not None and not collections:
        raise ValueError("--collections must name at least one collection (e.g. intro_3move_win,white_vcf)")
    if not path.is_file():
        raise ValueError(f"no Gomoku puzzles at {path}: the tactics benchmark reads the test data of "
                         f"../shared/data/gomoku beside the checkout (pass --data FILE)")
    out: list[dict] = []
    known: set[str] = set()
    for puzzle in puzzle_rows(path):
        if isinstance(puzzle.get("collection"), str):
            known.add(puzzle["collection"])
        if limit is not None and len(out) >= limit:
            if not collections:
                break
            continue  # read on: a name is known to be misspelt only at the end of the file
        if puzzle.get("freestyle_winning_four_moves") and (not collections or puzzle.get("collection") in collections):
            out.append(puzzle)
    unknown = sorted(set(collections or ()) - known)
    if unknown:
        raise ValueError(f"--collections: unknown collection {', '.join(map(repr, unknown))}; "
                         f"known in {path}: {', '.join(sorted(known))}")
    return out


def puzzle_state(game, puzzle: dict):
    """The puzzle's position as a State of ``game`` (15x15 free-style), its side to move checked.

    Raises:
        ValueError: the stone counts do not give ``to_move`` the move.
    """
    width = game.width
    black = [y * width + x for x, y in puzzle["black"]]
    white = [y * width + x for x, y in puzzle["white"]]
    state = game.from_stones(black, white)
    want = 0 if puzzle["to_move"] == "black" else 1
    if state.to_play != want:
        raise ValueError(f"{puzzle['id']}: {len(black)} black and {len(white)} white stones, "
                         f"but {puzzle['to_move']} is to move")
    return state


def listed_moves(puzzle: dict, width: int) -> set[int]:
    """Cells that count as correct without a search: the listed winning fours and Rapfi's proven move."""
    moves = {y * width + x for x, y, _ in puzzle["freestyle_winning_four_moves"]}
    rapfi = puzzle.get("rapfi_freestyle") or {}
    if rapfi.get("win") and rapfi.get("move"):
        x, y = rapfi["move"]
        moves.add(y * width + x)
    return moves


def proves_win_after(state, move: int, solver) -> bool:
    """Whether our threat solver proves that ``move`` wins for ``state``'s side to move (A).

    After the move: a five wins; the defender (D) having a five loses it; two or more winning
    cells for A win; one winning cell leaves D the block only; otherwise every D reply is
    checked (at most ``CHECK_MAX_REPLIES``). Each reply must leave A a VCF
    (``CHECK_VCF_NODES``) or a proof-number VCT (``CHECK_VCT_NODES``). A proof by construction,
    so "False" means "not proven", not "loses".
    """
    a = state.to_play
    after = state.play(int(move))
    if after.is_terminal:
        return after.winner == a
    if after.num_winning_moves(after.to_play) > 0:
        return False  # D plays a five
    wins = [int(c) for c in after.winning_moves(a)]
    if len(wins) >= 2:
        return True
    replies = wins if wins else [int(c) for c in after.legal_moves()]
    if len(replies) > CHECK_MAX_REPLIES:
        return False
    for reply in replies:
        s = after.play(reply)
        if s.is_terminal:
            if s.winner != a:
                return False
            continue
        if solver.vcf(s, nodes=CHECK_VCF_NODES).found:
            continue
        if not solver.vct(s, nodes=CHECK_VCT_NODES, method="pns").found:
            return False
    return True


def add_arguments(parser) -> None:
    parser.add_argument("--limit", type=at_least_1, default=None,
                        help="the first N targets only, >= 1 (default: all 1,811)")
    parser.add_argument("--skip", type=at_least_0, default=0,
                        help="skip the first N targets (after --collections; to split a run over processes) "
                        "(default 0)")
    parser.add_argument("--playouts", type=at_least_1, default=800, help="playouts per move, >= 1 (default 800)")
    parser.add_argument("--engine", choices=["play", "search-only"], default="play",
                        help="play: the engine of `zeroplay play` on 15x15 (shipped model, threat solver; "
                        "default); search-only: the heuristic evaluator with the threat solver")
    parser.add_argument("--data", default=None, help="the puzzles file (default ../shared/data/gomoku/puzzles.jsonl)")
    parser.add_argument("--collections", default=None,
                        help="comma-separated collections only (e.g. intro_3move_win,white_vcf; default: all)")
    parser.add_argument("--progress", action="store_true", help="one line per position on stderr")
    parser.add_argument("--candidate-radius", type=whole_number_in(0, MAX_SIZE), default=None,
                        help=f"SearchConfig.candidate_radius for the ablation (cells, 0..{MAX_SIZE}; default: the "
                        "engine's own, 0 = off)")


def run(args) -> dict:
    """Figures for ``zeroplay bench tactics`` (see ``measure``)."""
    names = None if args.collections is None else {c.strip() for c in args.collections.split(",") if c.strip()}
    return measure(limit=args.limit, skip=args.skip, playouts=args.playouts, engine=args.engine,
                   data=Path(args.data) if args.data else None, progress=args.progress, collections=names,
                   config=None if args.candidate_radius is None else {"candidate_radius": args.candidate_radius})


def measure(limit: int | None = None, playouts: int = 800, engine: str = "play", data: Path | None = None,
            progress: bool = False, config: dict | None = None, collections: set[str] | None = None,
            skip: int = 0) -> dict:
    """Play one move on each target and score it.

    Args:
        limit: the first ``limit`` targets (None: all).
        playouts: playouts per move (>= 1).
        engine: "play" (``make_engine``: shipped model) or "search-only".
        data: the puzzles file (None: ``default_data_file()``).
        progress: print one line per position on stderr.
        config: extra ``SearchConfig`` fields (ablations: ``{"defence": False}``).
        collections: only the targets of these collections (None: all; each must be in the file).
        skip: leave out the first ``skip`` targets (of those ``collections`` selects); ``limit``
            counts after them.

    Returns:
        ``{"engine", "playouts", "positions", "solved", "percent", "target_percent",
        "mean_seconds", "by": {"listed", "rapfi", "solver"}, "collections": {name: {"positions",
        "solved", "failures": [ids]}}, "data"}``; ``mean_seconds`` is the mean wall time of a
        search (seconds), "by" counts which rule made a move correct.

    Raises:
        ValueError: the data file is missing or damaged, ``playouts`` < 1, ``skip`` < 0,
            ``limit`` < 1, an unknown engine, an empty or unknown collection.
    """
    import sys

    from zeroplay.engine.factory import make_engine
    from zeroplay.games import make
    from zeroplay.solvers.threat_solver import ThreatSolver

    if playouts < 1:
        raise ValueError(f"--playouts must be >= 1, got {playouts}")
    if skip < 0:
        raise ValueError(f"--skip must be >= 0, got {skip}")
    if limit is not None and limit < 1:  # (read_targets sees skip + limit)
        raise ValueError(f"--limit must be >= 1, got {limit}")
    if engine not in ("play", "search-only"):
        raise ValueError(f"engine must be 'play' or 'search-only', got {engine!r}")
    path = data if data is not None else default_data_file()
    targets = read_targets(path, None if limit is None else skip + limit, collections)[skip:]
    game = make("gomoku", width=15, height=15, rule="freestyle")
    chosen = make_engine(game, use_shipped=engine == "play")
    searcher = chosen.new_searcher(playouts=playouts, **(config or {}))  # the search's sizing rule
    checker = ThreatSolver(game)
    searcher.search(game.initial(), playouts=8)  # compile / load the kernels before any timing

    by_collection: dict[str, dict] = {}
    by = {"listed": 0, "rapfi": 0, "solver": 0}
    total_s = 0.0
    solved = 0
    for i, puzzle in enumerate(targets):
        state = puzzle_state(game, puzzle)
        searcher.reset()
        t0 = time.perf_counter()
        move = int(searcher.search(state, playouts=playouts).best_move)
        seconds = time.perf_counter() - t0
        total_s += seconds
        listed = {y * game.width + x for x, y, _ in puzzle["freestyle_winning_four_moves"]}
        how = None
        if move in listed:
            how = "listed"
        elif move in listed_moves(puzzle, game.width):
            how = "rapfi"
        elif proves_win_after(state, move, checker):
            how = "solver"
        row = by_collection.setdefault(puzzle["collection"], {"positions": 0, "solved": 0, "failures": []})
        row["positions"] += 1
        if how:
            by[how] += 1
            row["solved"] += 1
            solved += 1
        else:
            row["failures"].append(puzzle["id"])
        if progress:
            print(f"{i + 1}/{len(targets)} {puzzle['id']} {game.format_move(move)} {how or 'FAIL'} "
                  f"{solved / (i + 1):.1%} {seconds:.3f}s", file=sys.stderr, flush=True)
    n = max(len(targets), 1)
    return {
        "engine": chosen.name,
        "playouts": playouts,
        "positions": len(targets),
        "solved": solved,
        "percent": round(100.0 * solved / n, 2),
        "target_percent": TARGET_PERCENT,
        "mean_seconds": round(total_s / n, 4),
        "by": by,
        "collections": by_collection,
        "data": str(path),
    }
