"""The proof-number VCT at the root (search/root_vct.py): a win by threes ends the search and
plays its line, replayed move by move on real states; without one the search goes on."""

from __future__ import annotations

import pytest

from zeroplay.games import make
from zeroplay.search import SearchConfig, Searcher
from zeroplay.engine.heuristic import HeuristicEvaluator
from zeroplay.solvers.threat_solver import ThreatSolver

GAME = make("gomoku", width=15, height=15)


def _searcher(vct_nodes: int) -> Searcher:
    return Searcher(GAME, HeuristicEvaluator(), SearchConfig(threat_solver=True, vct_root_nodes=vct_nodes,
                                                             node_capacity=1 << 12, edge_capacity=1 << 18))


def test_a_double_three_is_proven_at_the_root_and_its_line_is_played():
    s = GAME.from_stones(["g8", "h8", "i9", "i10"], ["a1", "a3", "o15", "o13"])  # Black: no four, a VCT
    assert not ThreatSolver(GAME).vcf(s).found and ThreatSolver(GAME).vct(s, method="pns").found
    searcher = _searcher(100_000)
    r = searcher.search(s, playouts=800)
    assert r.proven == "win" and r.stopped_by == "proven" and r.playouts < 800
    line = list(r.pv)
    assert r.best_move == line[0] and r.proven_distance == len(line)
    end = s.play_many(line)
    assert end.is_terminal and end.winner == 0


def test_without_a_vct_the_search_runs_its_playouts():
    s = GAME.initial().play_many("h8 i9".split())
    searcher = _searcher(20_000)
    r = searcher.search(s, playouts=64)
    assert r.proven is None and r.playouts >= 64 and searcher.root_vct.line is None
    assert 0 < searcher.root_vct.work <= 20_000 * 2


def test_switched_off_by_default_and_budget_checked():
    assert SearchConfig().vct_root_nodes == 0
    s = GAME.from_stones(["g8", "h8", "i9", "i10"], ["a1", "a3", "o15", "o13"])
    searcher = _searcher(0)
    searcher.search(s, playouts=1)
    assert searcher.root_vct.line is None and searcher.root_vct.work == 0
    with pytest.raises(ValueError):
        SearchConfig(vct_root_nodes=-1)
    with pytest.raises(ValueError):
        SearchConfig(vct_root_share=0.0)
