"""Gomoku threat solver on the puzzle file: VCF/VCT solve rates, false proofs, nodes, time; MCTS on/off.

Data: ``../shared/data/gomoku/puzzles.jsonl`` beside the checkout (fields in its README), or
``--data FILE``. Every position is set up under freestyle with its side to move, the solver's
table cleared (not timed), and:

* VCF with ``--nodes`` attacker nodes. A win counts for a target position (one with a non-empty
  ``freestyle_winning_four_moves``) when its first move is in that list, or when its whole line
  replays to a five (the list can miss deep wins). Every VCF claimed anywhere in the file is
  checked by ``check_vcf_line`` (fours, only blocks, five); an invalid one is a false proof.
* where no VCF was found, VCT (fours and threats, iterative deepening up to ``--threats``) with
  ``--vct-nodes`` (``--vct-nodes-others`` on positions without a known freestyle win, where it
  only looks for false claims); each VCT claimed is replayed to a five (its main line).
* where neither found a win, the proof-number VCT (``ThreatSolver.vct(method="pns")``, up to
  ``--pns-threats`` threats) with ``--pns-nodes`` (``--pns-nodes-others`` elsewhere); its main
  line is replayed to a five too. The proof trees themselves are verified against every
  defender reply in tests/search/test_vct_pns.py.

``pipeline``: per target position, the whole chain VCF -> VCT -> PNS until one proves the win:
solved / targets, mean nodes (all stages), mean and max CPU time (``time.process_time``), and
the unsolved positions with their shortest known win (plies).

``--mcts N``: the MCTS (``--evaluator``, ``--playouts``) with the threat solver off, on, and on
at new nodes only (root budget 0), on N target positions spread over the file; and the cost per
playout with the solver on, on positions whose side to move has no VCF (the search runs all its
playouts there), in playouts per CPU-second.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from pathlib import Path

from zeroplay.bench._puzzles import puzzle_rows
from zeroplay.engine.options import at_least_0, at_least_1

DEFAULT_DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "gomoku" / "puzzles.jsonl"


def add_arguments(parser) -> None:
    parser.add_argument("--data", default=str(DEFAULT_DATA), help=f"puzzle file (default {DEFAULT_DATA})")
    parser.add_argument("--nodes", type=at_least_1, default=200_000,
                        help="VCF node budget per position, >= 1 (default 200000)")
    parser.add_argument("--vct-nodes", type=at_least_0, default=1_000_000,
                        help="VCT node budget where no VCF is found; 0 skips VCT (default 1000000)")
    parser.add_argument("--threats", type=int, default=3,
                        help="VCT: most non-four threats per line, 1..255 (default 3)")
    parser.add_argument("--vct-nodes-others", type=at_least_0, default=200_000,
                        help="VCT node budget on the positions without a known freestyle win, where it only "
                        "checks for false claims; 0 skips them (default 200000)")
    parser.add_argument("--pns-nodes", type=at_least_0, default=0,
                        help="proof-number VCT budget where VCF and VCT found nothing; 0 skips it (default 0)")
    parser.add_argument("--pns-threats", type=int, default=4,
                        help="proof-number VCT: most threats, 1..255 (default 4)")
    parser.add_argument("--pns-nodes-others", type=at_least_0, default=0,
                        help="proof-number VCT budget on positions without a known freestyle win (default 0)")
    parser.add_argument("--limit", type=at_least_1, default=None, help="first N positions only, >= 1 (default all)")
    parser.add_argument("--mcts", type=at_least_0, default=0,
                        help="MCTS on/off on N target positions, half with a VCF (default 0: skip)")
    parser.add_argument("--playouts", type=at_least_1, default=800, help="MCTS playouts per search, >= 1 (default 800)")
    parser.add_argument("--evaluator", choices=["uniform", "rollout"], default="uniform",
                        help="MCTS evaluator: uniform priors and value 0, or one random rollout per leaf "
                        "(default uniform)")


def check_threats(flag: str, threats: int) -> None:
    """Refuse a threat count the solver's table cannot store (as ``solve gomoku --threats``).

    Raises:
        ValueError: one line naming ``flag``, its range and the value.
    """
    # (imported here: the parser is built for every command, and this loads the compiled solver)
    from zeroplay.solvers.commands import MAX_THREATS

    if not 1 <= threats <= MAX_THREATS:
        raise ValueError(f"{flag} must be in 1..{MAX_THREATS}, got {threats}")


def run(args) -> dict:
    """Figures for ``zeroplay bench vcf`` (see the module docstring).

    Raises:
        ValueError: ``--threats`` or ``--pns-threats`` out of range, or ``--data`` not a puzzle file.
    """
    check_threats("--threats", args.threats)
    check_threats("--pns-threats", getattr(args, "pns_threats", 4))
    all_rows = load(args.data)
    rows = all_rows[: args.limit] if args.limit else all_rows
    out = puzzles(rows, nodes=args.nodes, vct_nodes=args.vct_nodes, threats=args.threats,
                  vct_nodes_others=args.vct_nodes_others, pns_nodes=getattr(args, "pns_nodes", 0),
                  pns_threats=getattr(args, "pns_threats", 4), pns_nodes_others=getattr(args, "pns_nodes_others", 0))
    if args.mcts:
        out["mcts"] = mcts_on_off(all_rows, positions=args.mcts, playouts=args.playouts, evaluator=args.evaluator)
        out["mcts_cost"] = mcts_cost(all_rows, playouts=args.playouts, evaluator=args.evaluator)
    return out


ROW_FIELDS = ("id", "collection", "black", "white", "to_move")
"""Fields every puzzle row must have (shared/data/gomoku/README.md)."""


def load(path) -> list[dict]:
    """The puzzle rows.

    Raises:
        ValueError: ``--data`` is not a file (missing, a directory), does not read, holds no
            puzzle, or a line is not a JSON object with the ``ROW_FIELDS``; the message names
            the file (and the line).
    """
    p = Path(path)
    if not p.is_file():
        what = "is a directory" if p.is_dir() else "not found"
        raise ValueError(f"--data {p}: puzzle file {what} (the benchmark reads puzzles.jsonl of "
                         f"../shared/data/gomoku beside the checkout, see its README.md; pass --data FILE)")
    rows = list(puzzle_rows(p, ROW_FIELDS))
    if not rows:
        raise ValueError(f"--data {p}: no puzzles in the file")
    return rows


def position(game, row):
    """The row's position under ``game``'s rule, its side to move (``to_move``) to play."""
    return game.from_stones([y * 15 + x for x, y in row["black"]], [y * 15 + x for x, y in row["white"]],
                            to_play=0 if row["to_move"] == "black" else 1)


def listed(row) -> set[int]:
    """Cells of ``freestyle_winning_four_moves``."""
    return {y * 15 + x for x, y, _ in row.get("freestyle_winning_four_moves") or []}


def puzzles(rows, *, nodes: int, vct_nodes: int, threats: int, vct_nodes_others: int = 200_000,
            pns_nodes: int = 0, pns_threats: int = 4, pns_nodes_others: int = 0) -> dict:
    """Solve every row; see the module docstring for what counts."""
    from zeroplay.games import make
    from zeroplay.solvers.threat_solver import ThreatResult, ThreatSolver
    from zeroplay.solvers.vcf_check import check_vcf_line

    game = make("gomoku")
    solver = ThreatSolver(game, table_mib=16)
    solver.vcf(position(game, rows[0]), nodes=100)  # compile / warm up
    if vct_nodes:
        solver.vct(position(game, rows[0]), nodes=100, threats=1)
    if pns_nodes:
        solver.vct(position(game, rows[0]), nodes=100, threats=1, method="pns")
    pipe_nodes, pipe_cpu, unsolved = [], [], []
    pns_stats: Counter[str] = Counter()
    vcf_stats: Counter[str] = Counter()
    vct_stats: Counter[str] = Counter()
    false: Counter[str] = Counter()
    vcf_nodes, vcf_secs, vct_nodes_used, vct_secs = [], [], [], []
    by_coll: defaultdict[str, Counter[str]] = defaultdict(Counter)
    def pns_stage(s, row, targets, coll, work, cpu):
        """The proof-number VCT where VCF and VCT found nothing; the pipeline's figures."""
        budget = pns_nodes if targets else pns_nodes_others
        p = None
        if budget:
            solver.clear()
            c0 = time.process_time()
            p = solver.vct(s, nodes=budget, threats=pns_threats, method="pns")
            cpu += time.process_time() - c0
            work += p.nodes
            if p.found:
                false["pns_claims"] += 1
                try:
                    end = s.play_many(p.line)
                except ValueError:
                    end = s
                if not (end.is_terminal and end.winner == s.to_play):
                    false["pns_not_five"] += 1
                    p = None
        if not targets:
            return
        pipe_nodes.append(work)
        pipe_cpu.append(cpu)
        if p is not None and p.found:
            pns_stats["solved"] += 1
            pns_stats["first_move_in_list" if p.line[0] in targets else "first_move_outside_list_replayed"] += 1
            coll["solved"] += 1
        else:
            if p is not None:
                pns_stats["none_budget_spent" if not p.complete else "none_within_threats"] += 1
            unsolved.append([row["id"], min(pl for _, _, pl in row["freestyle_winning_four_moves"])])

    v: ThreatResult | None  # a row's VCT; None: its line does not end in five
    for row in rows:
        s = position(game, row)
        targets = listed(row)
        coll = by_coll[row["collection"]]
        coll["positions"] += 1
        coll["targets"] += bool(targets)
        solver.clear()
        c0 = time.process_time()
        r = solver.vcf(s, nodes=nodes)
        cpu = time.process_time() - c0
        work = r.nodes
        solved = False
        if r.found:
            false["vcf_claims"] += 1
            if check_vcf_line(s, r.line) is not None:
                false["vcf_invalid"] += 1
            else:
                solved = True
        if targets:
            vcf_nodes.append(r.nodes)
            vcf_secs.append(r.seconds)
            if solved:
                vcf_stats["solved"] += 1
                vcf_stats["first_move_in_list" if r.line[0] in targets else "first_move_outside_list_replayed"] += 1
                coll["vcf_solved"] += 1
            else:
                vcf_stats["none_complete" if r.complete else "none_budget_spent"] += 1
        budget = vct_nodes if targets else vct_nodes_others
        if solved or not budget:
            if solved and targets:
                coll["solved"] += 1
                pipe_nodes.append(work)
                pipe_cpu.append(cpu)
            elif targets:
                pns_stage(s, row, targets, coll, work, cpu)
            continue
        solver.clear()
        c0 = time.process_time()
        v = solver.vct(s, nodes=budget, threats=threats)
        cpu += time.process_time() - c0
        work += v.nodes
        if v.found:
            false["vct_claims"] += 1
            end = s
            try:
                end = s.play_many(v.line)
            except ValueError:
                pass
            if not (end.is_terminal and end.winner == s.to_play):
                false["vct_not_five"] += 1
                v = None
        if targets:
            vct_nodes_used.append(v.nodes if v else 0)
            vct_secs.append(v.seconds if v else 0.0)
            if v is not None and v.found:
                vct_stats["solved"] += 1
                vct_stats["first_move_in_list" if v.line[0] in targets else "first_move_outside_list_replayed"] += 1
                coll["solved"] += 1
                pipe_nodes.append(work)
                pipe_cpu.append(cpu)
                continue
            elif v is not None:
                vct_stats["none_budget_spent" if not v.complete else "none_within_threats"] += 1
        if v is None or not v.found:
            pns_stage(s, row, targets, coll, work, cpu)
    n_targets = len(vcf_nodes)
    total_solved = vcf_stats["solved"] + vct_stats["solved"]
    pipe_solved = total_solved + pns_stats["solved"]

    def pct(a, b):
        return round(100.0 * a / b, 2) if b else 0.0

    def mean(xs):
        return round(sum(xs) / len(xs), 1) if xs else 0.0

    return {
        "positions": len(rows),
        "targets": n_targets,
        "vcf": {
            "nodes_budget": nodes,
            "solved": vcf_stats["solved"],
            "solved_pct": pct(vcf_stats["solved"], n_targets),
            "first_move_in_list": vcf_stats["first_move_in_list"],
            "first_move_outside_list_replayed": vcf_stats["first_move_outside_list_replayed"],
            "none_complete_search": vcf_stats["none_complete"],
            "none_budget_spent": vcf_stats["none_budget_spent"],
            "mean_nodes": mean(vcf_nodes),
            "max_nodes": max(vcf_nodes, default=0),
            "mean_ms": round(1000 * sum(vcf_secs) / max(n_targets, 1), 3),
            "max_ms": round(1000 * max(vcf_secs, default=0.0), 2),
        },
        "vct_where_no_vcf": {
            "nodes_budget": vct_nodes,
            "nodes_budget_other_positions": vct_nodes_others,
            "threats": threats,
            "tried_on_targets": len(vct_nodes_used),
            "solved": vct_stats["solved"],
            "first_move_in_list": vct_stats["first_move_in_list"],
            "first_move_outside_list_replayed": vct_stats["first_move_outside_list_replayed"],
            "none_budget_spent": vct_stats["none_budget_spent"],
            "none_within_threats": vct_stats["none_within_threats"],
            "mean_nodes": mean(vct_nodes_used),
            "mean_ms": round(1000 * sum(vct_secs) / max(len(vct_secs), 1), 1),
        },
        "vcf_then_vct_solved": total_solved,
        "vcf_then_vct_solved_pct": pct(total_solved, n_targets),
        "pns_where_none_found": {
            "nodes_budget": pns_nodes,
            "nodes_budget_other_positions": pns_nodes_others,
            "threats": pns_threats,
            "solved": pns_stats["solved"],
            "first_move_in_list": pns_stats["first_move_in_list"],
            "first_move_outside_list_replayed": pns_stats["first_move_outside_list_replayed"],
            "none_budget_spent": pns_stats["none_budget_spent"],
            "none_within_threats": pns_stats["none_within_threats"],
        },
        "pipeline": {
            "stages": "vcf" + ("+vct" if vct_nodes else "") + ("+pns" if pns_nodes else ""),
            "solved": pipe_solved,
            "solved_pct": pct(pipe_solved, n_targets),
            "mean_nodes": mean(pipe_nodes),
            "mean_cpu_ms": round(1000 * sum(pipe_cpu) / max(len(pipe_cpu), 1), 2),
            "max_cpu_s": round(max(pipe_cpu, default=0.0), 2),
            "unsolved": unsolved,
        },
        "false_proofs": {
            "positions_checked": len(rows),
            "vcf_claims": false["vcf_claims"],
            "vcf_invalid": false["vcf_invalid"],
            "vct_claims": false["vct_claims"],
            "vct_not_ending_in_five": false["vct_not_five"],
            "pns_claims": false["pns_claims"],
            "pns_not_ending_in_five": false["pns_not_five"],
            "total_false": false["vcf_invalid"] + false["vct_not_five"] + false["pns_not_five"],
        },
        "by_collection": {k: dict(v) for k, v in by_coll.items()},
    }


def _spread(rows, count: int) -> list:
    """``count`` of ``rows`` evenly spaced over them (all when there are no more; none for 0)."""
    if count >= len(rows):
        return list(rows)
    if count <= 0:
        return []
    step = len(rows) / count
    return [rows[int(i * step)] for i in range(count)]


def _split(positions: int, with_vcf: int, without: int) -> tuple[int, int]:
    """How many of ``positions`` to take from the targets with a VCF and from those without:
    half each, the odd one to the VCF group, and a group's shortfall given to the other."""
    take_with = min(with_vcf, (positions + 1) // 2)
    take_without = min(without, positions - take_with)
    return min(with_vcf, positions - take_without), take_without


def _evaluator(name: str):
    from zeroplay.search import RolloutEvaluator, UniformEvaluator

    return RolloutEvaluator(1, seed=0) if name == "rollout" else UniformEvaluator()


def mcts_on_off(rows, *, positions: int, playouts: int, evaluator: str = "uniform") -> list[dict]:
    """Per target position: the plain MCTS, the MCTS with the threat solver, and with it at new
    nodes only (root budget 0); each with the same playouts and the uniform evaluator. Half the
    positions have a VCF for the side to move, half need threes (no VCF); an odd one, or what
    one group lacks, comes from the other. A search "finds the win" when it proves it (verified)
    or its move is in the list of winning fours."""
    from zeroplay.games import make
    from zeroplay.search import SearchConfig, Searcher
    from zeroplay.search.threats import threat_stats
    from zeroplay.solvers.threat_solver import ThreatSolver

    if positions < 0 or playouts < 1:
        raise ValueError(f"--mcts must be >= 0 and --playouts >= 1, got {positions} and {playouts}")
    game = make("gomoku")
    solver = ThreatSolver(game)

    def has_vcf(row):
        solver.clear()
        return solver.vcf(position(game, row), nodes=200_000).found

    targets = [r for r in rows if listed(r)]
    found = [has_vcf(r) for r in targets]
    with_vcf = [r for r, f in zip(targets, found) if f]
    without = [r for r, f in zip(targets, found) if not f]
    take_with, take_without = _split(positions, len(with_vcf), len(without))
    with_vcf, without = _spread(with_vcf, take_with), _spread(without, take_without)
    table = []
    configs = {
        "off": SearchConfig(seed=0),
        "on": SearchConfig(seed=0, threat_solver=True),
        "leaves_only": SearchConfig(seed=0, threat_solver=True, threat_solver_root_nodes=0),
    }
    for group, picked in (("vcf", with_vcf), ("no_vcf", without)):
        for row in picked:
            s = position(game, row)
            wins = listed(row)
            entry = {"id": row["id"], "group": group, "to_move": row["to_move"],
                     "shortest_plies": min(p for _, _, p in row["freestyle_winning_four_moves"])}
            for name, cfg in configs.items():
                searcher = Searcher(game, _evaluator(evaluator), cfg)
                t0 = time.process_time()
                res = searcher.search(s, playouts=playouts)
                cpu = time.process_time() - t0
                assert res.best_move is not None  # the positions are not over: the search has a move
                stats = threat_stats(searcher.batch.threats)
                entry[name] = {
                    "move": game.format_move(res.best_move),
                    "move_in_list": res.best_move in wins,
                    "proven": res.proven,
                    "distance": res.proven_distance,
                    "playouts": res.playouts,
                    "cpu_s": round(cpu, 3),
                    "vcf_calls": stats["calls"],
                    "vcf_proofs": stats["proofs"],
                }
            table.append(entry)
    return table


def mcts_cost(rows, *, playouts: int, positions: int = 8, leaf_budgets=(16, 64, 256),
              evaluator: str = "uniform") -> dict:
    """Playouts per CPU-second, threat solver off vs on, on positions whose side to move has no
    VCF (so no search stops early at a proven root), and under ``quiet`` on the empty board and
    a 6-stone opening (no fours); the node table is reset before each search."""
    from zeroplay.games import make
    from zeroplay.solvers.threat_solver import ThreatSolver

    game = make("gomoku")
    solver = ThreatSolver(game)
    states = []
    for row in rows:
        s = position(game, row)
        solver.clear()
        if not solver.vcf(s, nodes=200_000).found:
            states.append(s)
        if len(states) >= positions:
            break
    out = {"positions": len(states), "playouts_per_search": playouts, "evaluator": evaluator}
    if states:  # (a --data file whose every position has a VCF has none to time)
        out.update(_cost_figures(game, states, playouts, leaf_budgets, evaluator))
    # quiet positions: no four anywhere, one window scan per new node
    quiet = [game.initial(), game.initial().play_many(QUIET_OPENING.split())]
    out["quiet"] = _cost_figures(game, quiet, playouts, leaf_budgets[:1], evaluator)
    return out


QUIET_OPENING = "h8 h9 i9 g7 j10 i8"
"""A 6-stone opening without fours (the quiet-position cost figure, with the empty board)."""


def _cost_figures(game, states, playouts, leaf_budgets, evaluator) -> dict:
    from zeroplay.search import SearchConfig, Searcher
    from zeroplay.search.threats import threat_stats

    out = {}
    base = None
    for name, cfg in [("off", SearchConfig(seed=0))] + [
            (f"on_leaf_{b}", SearchConfig(seed=0, threat_solver=True, threat_solver_nodes=b)) for b in leaf_budgets]:
        searcher = Searcher(game, _evaluator(evaluator), cfg)
        searcher.search(states[0], playouts=64)  # compile / warm up
        total = 0
        t0 = time.process_time()
        before = threat_stats(searcher.batch.threats)
        for s in states:
            searcher.reset()
            total += searcher.search(s, playouts=playouts).playouts
        cpu = time.process_time() - t0
        after = threat_stats(searcher.batch.threats)
        rate = total / cpu
        calls = after["calls"] - before["calls"]
        fig = {"playouts_per_cpu_s": round(rate), "us_per_playout": round(1e6 / rate, 2),
               "vcf_calls_per_playout": round(calls / max(total, 1), 3),
               "vcf_nodes_per_call": round((after["nodes"] - before["nodes"]) / max(calls, 1), 2),
               "vcf_proofs": after["proofs"] - before["proofs"]}
        if base is None:
            base = fig["us_per_playout"]
        else:
            fig["extra_us_per_playout"] = round(fig["us_per_playout"] - base, 2)
        out[name] = fig
    return out
