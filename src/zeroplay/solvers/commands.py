"""The ``zeroplay solve`` commands: Gomoku threats (VCF / VCT) and exact Connect Four.

The argument parsers stay in ``zeroplay.cli``; these take its namespace, print, and return the
exit status. Errors a user can cause are ``ValueError``s with the option's name.
"""

from __future__ import annotations

import json
import sys
import time

from zeroplay.solvers.threat_solver import PNS_MAX_POOL, ThreatSolver
from zeroplay.tt.ab_table import MAX_DEPTH

MAX_THREATS = MAX_DEPTH
"""Most ``--threats``: the depth-first VCT stores the threats left as its table entries' depth
(``tt.ab_table.MAX_DEPTH``); the proof-number VCT gets the same bound."""

LONG_SOLVE_NODES = 10_000_000
"""A ``--nodes`` budget from which ``solve gomoku`` says on stderr, as its search starts, that it
may take minutes (about 30 s per ten million nodes of the proof-number VCT on this machine)."""


def solve_gomoku_command(args) -> int:
    """``zeroplay solve gomoku``: set up the position from ``args.moves``, search, print.

    Args (argparse namespace): moves (text, moves separated by spaces, ``h8`` or ``x,y``),
    size, n_in_row (None: 5; the command line passes 4 on 6x6, as ``zeroplay play``), rule,
    vct, method ("ab", "pns" or None), threats (None: the method's default), nodes, shortest,
    json. A method or a threat count implies vct.

    JSON: ``seconds``: the solve's wall time; ``setup_seconds``: compiling (first use) or loading
    the solver's kernels before it, not counted in ``seconds``; ``found``; ``complete``: the
    search ran to its end within the node budget;
    ``none_exists``: true only when nothing was found and that proves that no win of the kind
    exists (a complete VCF search); a VCT search that finds nothing proves nothing (its threat
    moves are restricted), so it is false for VCT.

    Raises:
        ValueError: an illegal or malformed move (IllegalMoveError is a ValueError), an option
            out of range, or options that do not combine (``--shortest`` with VCT).
    """
    from zeroplay.games import make

    method = getattr(args, "method", None)
    threats = getattr(args, "threats", None)
    vct = bool(args.vct or method is not None or threats is not None)
    method = method or "ab"
    if args.nodes < 1:
        raise ValueError(f"--nodes must be >= 1, got {args.nodes}")
    if threats is not None and threats < 1:
        raise ValueError(f"--threats must be >= 1, got {threats} (without threats the search is a VCF: "
                         f"leave out --vct, --method and --threats)")
    if threats is not None and threats > MAX_THREATS:
        raise ValueError(f"--threats must be in 1..{MAX_THREATS}, got {threats} (the solver's table stores the "
                         f"threats left in its 8-bit depth field)")
    if vct and args.shortest:
        raise ValueError("--shortest is for the VCF only; it does not combine with --vct, --method or --threats")
    n_in_row = getattr(args, "n_in_row", None)
    if n_in_row is None:
        n_in_row = 5  # (the command line resolves its own default before: cli._cmd_solve_gomoku)
    # a bad size is the game's ValueError in its parameters' words; the command line says the option
    # (``engine.options.option_words`` in ``zeroplay.cli``)
    game = make("gomoku", width=args.size, height=args.size, n_in_row=n_in_row, rule=args.rule)
    state = game.initial()
    for text in (args.moves or "").split():
        state = state.play(text)
    # compile (first use) or load (numba's cache) the solver's kernels on an empty board with a
    # one-node budget, so that the time reported is the solve's: it said 46 s for 4 nodes (issue 23)
    started = time.perf_counter()
    warm = ThreatSolver(game)
    if vct:
        warm.vct(game.initial(), nodes=1, threats=threats, method=method)
    else:
        warm.vcf(game.initial(), nodes=1, shortest=args.shortest)
    setup_seconds = time.perf_counter() - started
    if args.nodes >= LONG_SOLVE_NODES and not args.json:  # printed as the compiled search starts
        print(f"zeroplay: searching up to {args.nodes:,} nodes; a budget this large can take minutes "
              f"(Ctrl-C stops it)", file=sys.stderr, flush=True)
    solver = ThreatSolver(game)
    if vct:
        r = solver.vct(state, nodes=args.nodes, threats=threats, method=method)
    else:
        r = solver.vcf(state, nodes=args.nodes, shortest=args.shortest)
    side = "black" if r.attacker == 0 else "white"
    over = None  # "black wins" / "white wins" / "draw" when the moves end the game
    if state.is_terminal:
        over = "draw" if state.winner is None else ("black" if state.winner == 0 else "white") + " wins"
    # renju: the solvers leave unused a White four whose only defence is forbidden to Black
    # (docs/THREATS.md), so an exhausted White search proves nothing (helper-80: a 3-ply White VCF
    # through a double-three block was reported as "no VCF exists")
    renju_gap = args.rule == "renju" and r.attacker == 1
    none_exists = not r.found and r.complete and r.kind == "vcf" and over is None and not renju_gap
    tree_full = (not r.found and not r.complete and vct and method == "pns" and r.nodes < args.nodes
                 and not state.is_terminal)
    if args.json:
        print(json.dumps({
            "game": "gomoku", "size": args.size, "n_in_row": n_in_row, "rule": args.rule,
            "moves_played": len(state.moves), "to_move": side, "game_over": over, "kind": r.kind,
            "method": method if r.kind == "vct" else None,
            "found": r.found, "complete": r.complete, "none_exists": none_exists,
            "line": [game.format_move(m) for m in r.line],
            "line_xy": [[m % game.width, m // game.width] for m in r.line],
            "distance": r.distance, "nodes": r.nodes, "seconds": round(r.seconds, 6),
            "setup_seconds": round(setup_seconds, 3),
        }))
        return 0
    in_row = "" if n_in_row == 5 else f", {n_in_row} in a row"
    played = f"{len(state.moves)} move{'' if len(state.moves) == 1 else 's'} played"
    print(f"position: {played}, {side.capitalize()} to move ({args.rule}, "
          f"{args.size}x{args.size}{in_row})")
    if state.is_terminal:
        print(f"the game is over: {over}")
    elif r.found:
        print(f"{r.kind.upper()} found: {side} wins in {r.distance} pl{'y' if r.distance == 1 else 'ies'}")
        print("line: " + " ".join(f"{game.format_move(m)}({m % game.width},{m // game.width})" for m in r.line))
        if r.kind == "vct":
            print("(the main line: the defender's replies to each threat were all refuted; one is shown)")
    elif none_exists:
        print(f"none found: no {r.kind.upper()} exists")
    elif r.complete and renju_gap:
        print("none found, which is no proof under renju: a White four whose only block is forbidden to Black "
              "is not searched (docs/THREATS.md)")
    elif r.complete:  # a VCT: the threat moves searched are a restricted set
        print("none found within the threats allowed: the threat search is restricted, so this is no "
              "proof that none exists")
    elif tree_full:  # (helper-80: "within the budget of 1,000,000,000,000 nodes" after 4,153,791)
        print(f"none found before the proof-number search's tree was full (its most: {PNS_MAX_POOL:,} tree "
              "nodes): a larger --nodes does not search further")
    else:
        print(f"none found within the budget of {args.nodes:,} node{'' if args.nodes == 1 else 's'}")
    print(f"nodes: {r.nodes:,}")
    print(f"time: {r.seconds:.4f} s (before it, {setup_seconds:.1f} s to compile or load the solver)")
    return 0


def connect4_score_text(score: int) -> str:
    if score > 0:
        return f"the side to move wins with its stone number {22 - score}"
    if score < 0:
        return f"the side to move loses: the opponent wins with its stone number {22 + score}"
    return "draw"


def connect4_table_mib(table_mib: float | None) -> float:
    """``--table-mib`` checked: a finite size > 0 and at most half of the machine's memory (the
    table is allocated whole, up front)."""
    import math
    import os

    from zeroplay.solvers.connect4_solver import DEFAULT_TABLE_MIB

    if table_mib is None:
        return DEFAULT_TABLE_MIB
    if not math.isfinite(table_mib) or table_mib <= 0:
        raise ValueError(f"--table-mib must be a size in MiB > 0, got {table_mib:g}")
    try:
        memory_mib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / (1 << 20)
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows): the allocation decides
        memory_mib = math.inf
    if table_mib > memory_mib / 2:
        raise ValueError(f"--table-mib {table_mib:g} is more than half of this machine's memory "
                         f"({memory_mib / 2:,.0f} of {memory_mib:,.0f} MiB); the default is {DEFAULT_TABLE_MIB}")
    return table_mib


def connect4_long_solve_note(me, mask, stones: int) -> str | None:
    """What to tell the user before a solve that may be long, or None when it is likely quick.

    Only the opening positions are slow, and only those where the game still lasts long. Measured
    on Pons' hard opening set Test_L1_R3 (load 2, 64 MiB table): 1 to 4 stones often over 40 s
    (the empty board: many minutes), 5 to 9 stones 2 to 20 s; 10 or more stones well under a
    second in all his sets. A side to move that wins at once is answered at once (``112233``).
    """
    from zeroplay.solvers.connect4_solver import can_win_now

    if stones >= 10 or can_win_now(me, mask):
        return None
    if stones <= 4:
        return f"solving a position of {stones} stones exactly; with this few this can take many minutes"
    return f"solving a position of {stones} stones exactly; this can take from seconds to a minute"


def solve_connect4_command(args) -> int:
    """``zeroplay solve connect4``: solve ``args.moves`` (or one position per line of standard
    input), print the score (Pons' convention, side to move), best move, nodes and time, or JSON.

    Returns 0, or 1 when a line of standard input was refused (each named on stderr).

    Raises:
        ValueError: a malformed or illegal position given by ``--moves``, or ``--table-mib`` out of
            range or too large for free memory.
    """
    from zeroplay.solvers.connect4_solver import Connect4Solver

    table_mib = connect4_table_mib(args.table_mib)
    try:
        solver = Connect4Solver(table_mib)
    except MemoryError:
        raise ValueError(f"--table-mib {table_mib:g}: not enough free memory for the table") from None
    if args.moves is not None:
        from zeroplay.solvers.connect4_solver import parse_position

        note = connect4_long_solve_note(*parse_position(args.moves))  # a bad position: error first
        if note and not args.json:
            print(f"zeroplay: {note}", file=sys.stderr, flush=True)
        r = solver.solve(args.moves)
        if args.json:
            print(json.dumps({"game": "connect4", **r.as_dict()}))
        else:
            print(f"moves: {r.moves or '(empty board)'}")
            print(f"score: {r.score} ({connect4_score_text(r.score)})")
            print(f"best move: {r.best_move}")
            print(f"nodes: {r.nodes:,}")
            print(f"time: {r.seconds:.6f} s")
        return 0
    errors = 0
    if sys.stdin.isatty():
        print("zeroplay: reading positions from standard input, one per line (end with Ctrl-D)",
              file=sys.stderr, flush=True)
    for number, line in enumerate(sys.stdin, 1):
        if number == 1:  # a test-set file that Windows Notepad saved starts with a byte-order mark
            line = line.removeprefix("\ufeff")
        words = line.split()
        if not words:
            continue
        try:
            r = solver.solve(words[0], best_move=args.json)
        except ValueError as e:
            print(f"zeroplay: line {number}: {e}", file=sys.stderr, flush=True)
            errors += 1
            continue
        if args.json:
            print(json.dumps({"game": "connect4", **r.as_dict()}), flush=True)
        else:
            print(f"{r.moves} {r.score}", flush=True)
    return 1 if errors else 0
