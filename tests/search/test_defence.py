"""Defence (search/defence.py): a threatened node keeps only the moves that break the VCF.

Checked against an independent reference: every move the defence drops must really lose to a
VCF of the opponent (``ThreatSolver.vcf`` after that move, a complete search), and the kept
moves are legal. Positions: an open three, and a slice of the shared puzzles (intro_1move_vcf_001
of ``shared/data/gomoku/puzzles.jsonl``, Black's VCF, with White to move).
"""

from __future__ import annotations

import pytest

from zeroplay.games import make
from zeroplay.search import SearchConfig, Searcher
from zeroplay.search.defence import defence_stats
from zeroplay.engine.heuristic import HeuristicEvaluator
from zeroplay.solvers.threat_solver import ThreatSolver

GAME = make("gomoku", width=15, height=15)

# intro_1move_vcf_001 (Gomocup x, y): Black wins by VCF in 5 plies from here (a four-three)
PUZZLE_BLACK = [(7, 7), (2, 8), (6, 8), (3, 9), (5, 9)]
PUZZLE_WHITE = [(8, 6), (3, 7), (4, 8), (5, 8), (4, 9)]


def _root_moves(state, defence: bool) -> tuple[set[int], Searcher]:
    searcher = Searcher(GAME, HeuristicEvaluator(), SearchConfig(threat_solver=True, defence=defence,
                                                                 node_capacity=1 << 10, edge_capacity=1 << 16))
    searcher.search(state, playouts=1)
    return {e["move"] for e in searcher.stats_at(())["edges"]}, searcher


def _check_dropped_moves_lose(state, kept):
    solver = ThreatSolver(GAME)
    legal = {int(m) for m in state.legal_moves()}
    assert kept and kept <= legal and len(kept) < len(legal)
    for m in sorted(legal - kept):
        r = solver.vcf(state.play(m), nodes=1_000_000)
        assert r.found, f"{GAME.format_move(m)} was dropped but holds against every VCF"


def test_an_open_three_leaves_the_two_blocks_next_to_it():
    s = GAME.initial().play_many("h8 a1 i8 a2 j8".split())  # White to move against h8 i8 j8
    kept, searcher = _root_moves(s, True)
    assert {GAME.format_move(m) for m in kept} == {"g8", "k8"}  # f8 / l8 leave g8 or k8 an open four
    _check_dropped_moves_lose(s, kept)
    stats = defence_stats(searcher.batch.defence)
    assert stats["threats"] >= 1 and stats["narrowed"] >= 1


def test_a_four_three_threat_keeps_only_moves_that_hold():
    s = GAME.from_stones([y * 15 + x for x, y in PUZZLE_BLACK], [y * 15 + x for x, y in PUZZLE_WHITE], to_play=1)
    black_to_move = GAME.from_stones([y * 15 + x for x, y in PUZZLE_BLACK], [y * 15 + x for x, y in PUZZLE_WHITE])
    assert ThreatSolver(GAME).vcf(black_to_move).found  # the threat White must meet
    kept, _ = _root_moves(s, True)
    _check_dropped_moves_lose(s, kept)
    assert 10 * 15 + 4 in kept  # Black's winning four (4, 10): White may take the cell first


def test_without_a_threat_or_switched_off_every_legal_move_stays():
    quiet = GAME.initial().play_many("h8 i9".split())
    assert len(_root_moves(quiet, True)[0]) == len(quiet.legal_moves())
    threatened = GAME.initial().play_many("h8 a1 i8 a2 j8".split())
    assert len(_root_moves(threatened, False)[0]) == len(threatened.legal_moves())


def test_defence_needs_the_threat_solver_and_a_sane_budget():
    with pytest.raises(ValueError):
        SearchConfig(defence_nodes=0)
    searcher = Searcher(GAME, HeuristicEvaluator(), SearchConfig(threat_solver=False, defence=True,
                                                                 node_capacity=1 << 10, edge_capacity=1 << 16))
    s = GAME.initial().play_many("h8 a1 i8 a2 j8".split())
    searcher.search(s, playouts=1)
    assert len(searcher.stats_at(())["edges"]) == len(s.legal_moves())  # off without the solver's table
