"""VCF / VCT threat solver (solvers/threat_solver.py, search/threats.py): lines, rules, counter-fours, table, MCTS hook, puzzles.

Every line the solver returns is replayed on real ``State``s by ``check_vcf_line`` and, in
``_assert_vcf``, again by hand here: legal moves, each attacker move a four (blocking the
defender's five when there is one), each defender move the only block, the last move a five
under the rule in force. Completeness is checked against an exhaustive reference VCF written
on the State API (no table, no move ordering) on seeded random positions.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.search import SearchConfig, Searcher, UniformEvaluator
from zeroplay.search.threats import stored_line, threat_stats
from zeroplay.solvers.threat_solver import ThreatSolver, solve_vcf
from zeroplay.solvers.vcf_check import check_vcf_line

PUZZLES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "gomoku" / "puzzles.jsonl"


# --- helpers -------------------------------------------------------------------------------------
def _assert_vcf(state, line):
    """The checks of the issue, written out: replay, fours, only blocks, five at the end."""
    assert line and len(line) % 2 == 1
    a = state.to_play
    s = state
    for i, m in enumerate(line):
        assert not s.is_terminal
        assert s.board.ravel()[m] == 0, f"ply {i}: occupied"
        if i % 2 == 0:
            threats = {int(c) for c in s.winning_moves(1 - a)}
            s = s.play(m)
            if i == len(line) - 1:
                assert s.is_terminal and s.winner == a, "the last move is not a five"
            else:
                assert s.num_winning_moves(a) >= 1, f"ply {i}: not a four"
                assert not threats or threats == {m}, f"ply {i}: the defender's five was not blocked"
                assert s.num_winning_moves(1 - a) == 0
        else:
            blocks = {int(c) for c in s.winning_moves(a)}
            assert m in blocks, f"ply {i}: not a block"
            if len(blocks) >= 2:
                assert i == len(line) - 2, "after an open or double four the five follows"
            s = s.play(m)
    assert check_vcf_line(state, line) is None


def _ref_vcf(s, a, depth, counter_fours=True):
    """Exhaustive VCF on the State API: a line or None (``depth`` plies at most)."""
    if s.num_winning_moves(a) > 0:
        return [int(s.winning_moves(a)[0])]
    dw = [int(c) for c in s.winning_moves(1 - a)] if counter_fours else []
    if len(dw) >= 2 or depth < 3:
        return None
    for m in s.legal_moves():
        m = int(m)
        if dw and m != dw[0]:
            continue
        t = s.play(m)
        if t.is_terminal or t.num_winning_moves(a) == 0:
            continue
        if counter_fours and t.num_winning_moves(1 - a) > 0:
            continue
        w = [int(c) for c in t.winning_moves(a)]
        if len(w) >= 2:
            return [m, w[0], w[1]]
        u = t.play(w[0])
        if not counter_fours and u.is_terminal:
            continue
        r = _ref_vcf(u, a, depth - 2, counter_fours)
        if r is not None:
            return [m, w[0]] + r
    return None


def _random_positions(game, count, seed, stones=(8, 22)):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        n = int(rng.integers(*stones))
        cells = rng.choice(game.cells, size=2 * n + 1, replace=False)
        black, white = [int(c) for c in cells[: n + 1]], [int(c) for c in cells[n + 1 :]]
        if rng.random() < 0.5:
            black = black[:-1]  # equal counts: Black to move
        try:
            s = game.from_stones(black, white)
        except ValueError:
            continue
        if not s.is_terminal:
            out.append(s)
    return out


# --- lines on hand-made positions ----------------------------------------------------------------
def test_five_now_is_a_line_of_one():
    g = make("gomoku")
    s = g.from_stones(["d4", "e4", "f4", "g4"], ["a1", "a3", "o15", "o13"])
    r = solve_vcf(s)
    assert r.found and r.distance == 1 and s.play(r.line[0]).winner == 0


def test_double_four_wins_in_three():
    g = make("gomoku")
    # row 4 d-f (c4 White) and column g 5-7 (g8 White): g4 makes two fours
    s = g.from_stones(["d4", "e4", "f4", "g5", "g6", "g7"], ["c4", "g8", "a15", "c15", "a13", "o1"])
    r = solve_vcf(s)
    assert r.found and r.distance == 3 and r.line[0] == g.parse_move("g4")
    _assert_vcf(s, r.line)


def test_no_four_move_returns_none():
    g = make("gomoku")
    s = g.from_stones(["h8", "j10", "c3"], ["h9", "a1", "o15"])
    r = solve_vcf(s)
    assert not r.found and r.line == () and r.complete and r.nodes == 1


def test_fours_that_lead_nowhere_return_none():
    g = make("gomoku")
    # one lone four (d4-f4 + g4, h4 forced) and nothing after it
    s = g.from_stones(["d4", "e4", "f4", "k11"], ["c4", "a15", "o1", "o15"])
    r = solve_vcf(s)
    assert not r.found and r.complete and r.nodes > 1


def test_standard_rule_overline_is_not_a_five():
    # Black b3 c3 d3 . . g3 (a3, h3 White) and f4 f5 f6 (f7 White): f3 makes a column four and
    # a row b3..g3 of six through e3. Freestyle: e3 wins too, a double four. Standard: only f2.
    black, white = ["b3", "c3", "d3", "g3", "f4", "f5", "f6"], ["a3", "h3", "f7", "o15", "m15", "o13", "m13"]
    gf, gs = make("gomoku"), make("gomoku", rule="standard")
    sf, ss = gf.from_stones(black, white), gs.from_stones(black, white)
    r = solve_vcf(sf)
    assert r.found and [gf.format_move(m) for m in r.line] in (["f3", "e3", "f2"], ["f3", "f2", "e3"])
    _assert_vcf(sf, r.line)
    r = solve_vcf(ss)
    assert not r.found and r.complete
    assert _ref_vcf(ss, 0, 30) is None


def test_standard_rule_five_exactly_wins():
    # b3-e3 and g3: f3 makes six (no five under standard), a3 makes exactly five
    gs = make("gomoku", rule="standard")
    s = gs.from_stones(["b3", "c3", "d3", "e3", "g3"], ["o15", "m15", "o13", "k11", "m11"])
    r = solve_vcf(s)
    assert r.found and r.line == (gs.parse_move("a3"),)
    assert solve_vcf(make("gomoku").from_stones(["b3", "c3", "d3", "e3", "g3"],
                                                ["o15", "m15", "o13", "k11", "m11"])).line == (make("gomoku").parse_move("a3"),)


def test_counter_four_refutes_a_naive_vcf():
    """The defender's forced block makes a four of its own; the attacker's next four does not
    answer it, so the line a solver blind to counter-fours would report is no VCF."""
    g = make("gomoku")
    rng_positions = _random_positions(make("gomoku", width=9, height=9), 400, seed=11, stones=(10, 22))
    found = 0
    for s in rng_positions:
        a = s.to_play
        naive = _ref_vcf(s, a, 13, counter_fours=False)
        exact = _ref_vcf(s, a, 13)
        if naive is not None and exact is None:
            r = ThreatSolver(s.game).vcf(s, max_plies=13)
            assert not r.found and r.complete
            found += 1
    assert found >= 3, "too few counter-four cases in the sample"
    del g


def test_counter_four_is_answered_by_a_four():
    """Lines through a defender's counter-four: the attacker's next move is the block, and a four."""
    seen = 0
    for s in _random_positions(make("gomoku", width=9, height=9), 400, seed=5, stones=(10, 22)):
        r = ThreatSolver(s.game).vcf(s)
        if not r.found:
            continue
        _assert_vcf(s, r.line)
        t = s
        for i, m in enumerate(r.line[:-1]):
            t = t.play(m)
            if i % 2 == 1 and t.num_winning_moves(1 - s.to_play) > 0:
                seen += 1
    assert seen >= 1, "no line in the sample went through a counter-four"


@pytest.mark.parametrize("rule", ["freestyle", "standard"])
def test_agrees_with_exhaustive_reference(rule):
    g = make("gomoku", width=9, height=9, rule=rule)
    solver = ThreatSolver(g, table_mib=1)
    wins = 0
    for s in _random_positions(g, 150, seed=3 if rule == "freestyle" else 4, stones=(10, 24)):
        r = solver.vcf(s, max_plies=15)  # the table is shared across positions on purpose
        ref = _ref_vcf(s, s.to_play, 15)
        assert r.complete
        assert r.found == (ref is not None)
        if r.found:
            wins += 1
            assert len(r.line) <= 15
            _assert_vcf(s, r.line)
    assert wins >= 10


def test_shortest_finds_a_shortest_line():
    g = make("gomoku", width=9, height=9)
    for s in _random_positions(g, 120, seed=8, stones=(10, 22)):
        r = ThreatSolver(g).vcf(s, shortest=True)
        if not r.found:
            continue
        _assert_vcf(s, r.line)
        if len(r.line) > 1:
            assert _ref_vcf(s, s.to_play, len(r.line) - 2) is None


def test_budget_exhausted_is_not_complete_and_the_position_is_restored():
    g = make("gomoku", width=9, height=9)
    for s in _random_positions(g, 60, seed=9, stones=(14, 24)):
        before = s.fast()
        solver = ThreatSolver(g)
        r = solver.vcf(s, nodes=2)
        if r.nodes >= 2 and not r.found:
            assert not r.complete
        pos = s.fast()
        assert np.array_equal(pos.board, before.board) and np.array_equal(pos.aux, before.aux)


def test_solver_restores_the_working_position():
    from zeroplay.solvers.vcf_kernels import new_vcf_work, vcf_search
    from zeroplay.tt.ab_table import new_ab_table

    g = make("gomoku")
    s = g.from_stones(["d4", "e4", "f4", "g5", "g6", "g7"], ["c4", "g8", "a15", "c15", "a13", "o1"])
    pos = s.fast()
    copy = [x.copy() for x in (pos.board, pos.info, pos.aux)]
    out = vcf_search(g.params, g.zkeys, pos.board, pos.info, pos.stack, pos.aux, new_vcf_work(15, 15),
                     new_ab_table(1), 255, 10_000)
    assert out[0] == 1
    for a, b in zip(copy, (pos.board, pos.info, pos.aux)):
        assert np.array_equal(a, b)


# --- VCT -------------------------------------------------------------------------------------------
def test_vct_finds_a_double_three_that_vcf_cannot():
    g = make("gomoku")
    s = g.from_stones(["g8", "h8", "i9", "i10"], ["a1", "a3", "o15", "o13"])
    solver = ThreatSolver(g)
    assert not solver.vcf(s).found
    r = solver.vct(s, threats=1)
    assert r.found and r.kind == "vct" and r.line[0] == g.parse_move("i8")
    t = s.play_many(r.line)
    assert t.is_terminal and t.winner == 0


def test_vct_first_move_wins_against_every_reply():
    """Soundness of the defender's reply set: after the VCT's first move, every legal reply
    still loses (to a five, a VCF or a VCT with one threat less)."""
    g = make("gomoku")
    s = g.from_stones(["g8", "h8", "i9", "i10"], ["a1", "a3", "o15", "o13"])
    solver = ThreatSolver(g)
    first = s.play(solver.vct(s, threats=1).line[0])
    for reply in first.legal_moves():
        t = first.play(int(reply))
        assert solver.vct(t, threats=0).found, g.format_move(int(reply))


# --- MCTS hook ---------------------------------------------------------------------------------------
# black_vcf_003 of ../shared/data/gomoku/puzzles.jsonl (lfz084's renju puzzles, answers by Rapfi;
# see its README): Black to move wins by VCF, shortest 11 plies (Gomocup x, y).
PUZZLE_BLACK = [[11, 2], [8, 3], [10, 3], [9, 4], [8, 6], [9, 6], [12, 6], [7, 7], [10, 7], [11, 7]]
PUZZLE_WHITE = [[8, 2], [10, 4], [7, 5], [8, 5], [9, 5], [7, 6], [12, 7], [7, 8], [10, 8], [7, 9]]
PUZZLE_WINNING_FOURS = {(8, 7), (11, 6), (12, 1), (13, 0)}


def _puzzle_state(game):
    return game.from_stones([y * 15 + x for x, y in PUZZLE_BLACK], [y * 15 + x for x, y in PUZZLE_WHITE], to_play=0)


def test_mcts_with_threat_solver_proves_the_win_plain_search_misses():
    g = make("gomoku")
    s = _puzzle_state(g)
    vcf = solve_vcf(s)
    assert vcf.found and vcf.distance >= 7
    plain = Searcher(g, UniformEvaluator(), SearchConfig(seed=1)).search(s, playouts=400)
    assert plain.proven is None
    on = Searcher(g, UniformEvaluator(), SearchConfig(seed=1, threat_solver=True)).search(s, playouts=400)
    assert on.proven == "win" and on.notes == ()
    assert on.proven_distance == vcf.distance
    assert (on.best_move % 15, on.best_move // 15) in PUZZLE_WINNING_FOURS
    t = s.play(on.best_move)
    assert t.num_winning_moves(0) >= 1  # a four
    assert ThreatSolver(g).vcf(t.play(int(t.winning_moves(0)[0]))).found


def test_mcts_leaf_vcf_proves_a_loss_and_the_line_verifies():
    """Root budget 0: only the newly expanded nodes are checked. The defender's only move is the
    block; the node after it holds the attacker's VCF, so the root is a proven loss."""
    g = make("gomoku")
    s = _puzzle_state(g)
    line = solve_vcf(s).line
    q = s.play(line[0])  # White to move, must block
    cfg = SearchConfig(seed=1, threat_solver=True, threat_solver_root_nodes=0)
    searcher = Searcher(g, UniformEvaluator(), cfg)
    r = searcher.search(q, playouts=50)
    assert r.proven == "loss" and r.notes == ()
    assert r.proven_distance is not None and r.proven_distance <= len(line) - 1
    assert threat_stats(searcher.batch.threats)["proofs"] >= 1
    # the stored line replays from the block to Black's five
    n = searcher.node_at([line[1]])
    child = q.play(line[1])
    tail = stored_line(searcher.batch.threats, n, _i64(child.key))
    assert tail is not None
    _assert_vcf(child, tail)


def test_mcts_root_forced_block_into_vcf_is_a_proven_loss():
    """At the root: the side to move must block a four, and the block leaves the opponent a
    VCF: ``check_root`` proves the loss at once; the reported line is the block and the VCF."""
    g = make("gomoku")
    s = _puzzle_state(g)
    line = solve_vcf(s).line
    q = s.play(line[0])
    r = Searcher(g, UniformEvaluator(), SearchConfig(seed=1, threat_solver=True)).search(q, playouts=50)
    assert r.proven == "loss" and r.notes == () and r.playouts <= 1
    assert r.best_move == line[1]


def test_mcts_new_nodes_only_prove_the_root_win():
    """Root budget 0: the winning four's node (the opponent must block into a VCF) is proven
    lost when it is expanded, so the root becomes a proven win through the MCTS-solver."""
    g = make("gomoku")
    s = _puzzle_state(g)
    cfg = SearchConfig(seed=1, threat_solver=True, threat_solver_root_nodes=0)
    r = Searcher(g, UniformEvaluator(), cfg).search(s, playouts=800)
    assert r.proven == "win" and r.notes == ()
    assert (r.best_move % 15, r.best_move // 15) in PUZZLE_WINNING_FOURS


def test_mcts_corrupted_vcf_line_fails_verification():
    g = make("gomoku")
    s = _puzzle_state(g)
    line = solve_vcf(s).line
    q = s.play(line[0])
    cfg = SearchConfig(seed=1, threat_solver=True, threat_solver_root_nodes=0)
    searcher = Searcher(g, UniformEvaluator(), cfg)
    searcher.start(q, __import__("zeroplay.search.limits", fromlist=["Limits"]).Limits(playouts=50))
    while not searcher.done:
        if searcher.gather():
            searcher.finish(*searcher.evaluate_queued())
    n = searcher.node_at([line[1]])
    at = int(searcher.batch.threats.node_line[n])
    pool = searcher.batch.threats.pool
    length = int(pool[at + 2])
    pool[at + 3 + length - 1] = 0  # the five becomes a move in the corner (a15, empty)
    r = searcher.result()
    assert r.proven is None and any("failed verification" in note for note in r.notes)


def test_mcts_threat_solver_off_keeps_counters_at_zero():
    g = make("gomoku")
    searcher = Searcher(g, UniformEvaluator(), SearchConfig(seed=1))
    searcher.search(_puzzle_state(g), playouts=64)
    assert threat_stats(searcher.batch.threats) == {"calls": 0, "proofs": 0, "nodes": 0}


def _i64(k):
    return k - (1 << 64) if k >= 1 << 63 else k


# --- puzzles (../shared/data/gomoku) ------------------------------------------------------------------
def _puzzles():
    if not PUZZLES.exists():
        pytest.skip(f"puzzle data not found at {PUZZLES} (the ../shared folder beside the checkout)")
    return [json.loads(line) for line in PUZZLES.read_text().splitlines() if line.strip()]


def _puzzle_position(game, row):
    return game.from_stones([y * 15 + x for x, y in row["black"]], [y * 15 + x for x, y in row["white"]],
                            to_play=0 if row["to_move"] == "black" else 1)


def test_puzzle_slice_vcf_solves_known_wins_and_never_claims_a_false_one():
    """Every 10th position: each claimed win is a VCF; each intro/black VCF puzzle is solved with
    a first move from the engine-checked list (or a line that replays to a five)."""
    rows = _puzzles()[::10]
    g = make("gomoku")
    solver = ThreatSolver(g)
    must = solved = 0
    for row in rows:
        s = _puzzle_position(g, row)
        solver.clear()
        r = solver.vcf(s, nodes=200_000)
        if r.found:
            _assert_vcf(s, r.line)
        listed = {y * 15 + x for x, y, _ in row.get("freestyle_winning_four_moves") or []}
        if listed and row["collection"] in ("intro_1move_vcf", "intro_shioi_vcf", "black_vcf"):
            must += 1
            solved += r.found
            assert r.found, row["id"]
            assert r.line[0] in listed or s.play_many(r.line).winner == s.to_play
    assert must >= 50 and solved == must


# --- zeroplay solve gomoku ---------------------------------------------------------------------------
def test_cli_solve_gomoku_json_line_replays(capsys):
    from zeroplay.cli import main

    moves = "d4 a1 e4 a3 f4 o15 g5 o13 g6 o1 g7 c4 g8"  # White to move; Black's d4-f4 and g5-g7
    assert main(["solve", "gomoku", "--moves", moves, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["to_move"] == "white" and out["kind"] == "vcf" and not out["found"] and out["complete"]
    moves2 = "d4 c4 e4 g8 f4 a15 g5 c15 g6 a13 g7 o1"  # Black to move: g4 double four
    assert main(["solve", "gomoku", "--moves", moves2, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["found"] and out["line"][0] == "g4" and out["line_xy"][0] == [6, 11] and out["distance"] == 3
    g = make("gomoku")
    s = g.initial().play_many(moves2.split()).play_many(out["line"])
    assert s.winner == 0


def test_cli_solve_gomoku_text_standard_and_vct(capsys):
    from zeroplay.cli import main

    assert main(["solve", "gomoku", "--moves", "b3 o15 c3 m15 d3 o13 e3 k11 g3 m11", "--rule", "standard"]) == 0
    out = capsys.readouterr().out
    assert "VCF found: black wins in 1 ply" in out and "a3(0,12)" in out
    assert main(["solve", "gomoku", "--moves", "g8 a1 h8 a3 i9 o15 i10 o13"]) == 0
    assert "none found: no VCF exists" in capsys.readouterr().out
    assert main(["solve", "gomoku", "--moves", "g8 a1 h8 a3 i9 o15 i10 o13", "--vct", "--threats", "1"]) == 0
    out = capsys.readouterr().out
    assert "VCT found: black wins" in out and "line: i8(8,7)" in out


def test_cli_solve_gomoku_rejects_an_illegal_move(capsys):
    from zeroplay.cli import main

    assert main(["solve", "gomoku", "--moves", "h8 h8"]) == 2
    assert "occupied" in capsys.readouterr().err


def test_bench_vcf_slice_reports_no_false_proof():
    _puzzles()  # skips without the data
    from argparse import Namespace

    from zeroplay.bench import vcf as bench

    args = Namespace(data=str(PUZZLES), nodes=200_000, vct_nodes=20_000, threats=1, vct_nodes_others=0,
                     limit=0, mcts=0, playouts=0)
    rows = bench.load(args.data)
    out = bench.puzzles(rows[::50], nodes=args.nodes, vct_nodes=args.vct_nodes, threats=args.threats,
                        vct_nodes_others=0, pns_nodes=20_000, pns_threats=2)
    assert out["positions"] == len(rows[::50]) and out["targets"] >= 30
    assert out["false_proofs"]["vcf_invalid"] == 0 and out["false_proofs"]["vct_not_ending_in_five"] == 0
    assert out["false_proofs"]["total_false"] == 0
    pipe = out["pipeline"]
    assert pipe["solved"] + len(pipe["unsolved"]) == out["targets"] and pipe["solved"] >= out["vcf_then_vct_solved"]
    assert pipe["mean_cpu_ms"] > 0 and pipe["max_cpu_s"] >= 0
    for name in ("intro_1move_vcf", "intro_shioi_vcf", "black_vcf"):
        coll = out["by_collection"][name]
        assert coll["vcf_solved"] == coll["targets"]
