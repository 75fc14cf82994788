"""``ThreatSolver.vct(method="pns", deadline=...)``: the proof-number VCT stops at a deadline (a
timer thread sets the compiled search's stop flag), so the VCT guard and the root VCT keep to a
turn's time (a fresh player's pbrain answers came 160 ms late at timeout_turn 500: helper-61)."""

from __future__ import annotations

import time

import pytest

from zeroplay.games import make
from zeroplay.solvers.threat_solver import ThreatSolver

GAME = make("gomoku", width=15, height=15)
# game 79 of training/strength/games/gomoku-15x15-iter83 at ply 32, White to move; after e10 Black
# has no VCT within 50,000 work units, so a search of it spends its whole budget (0.1-0.5 s)
GAME_79 = GAME.initial().play_many(
    "g8 f8 f9 h7 h9 f7 g9 i9 i7 g10 j8 h8 j10 h6 j9 j11 i5 f6 j6 j7 h4 k7 f5 e6 g6 g7 e5 e9 d10 e7 d7".split())


def test_a_deadline_stops_a_search_that_would_spend_its_whole_budget():
    solver = ThreatSolver(GAME)
    after = GAME_79.play(GAME.parse_move("e10"))
    full = solver.vct(after, nodes=50_000, method="pns")
    assert not full.found and full.nodes == 50_000
    started = time.perf_counter()
    cut = solver.vct(after, nodes=50_000, method="pns", deadline=started + 0.01)
    assert not cut.found and not cut.complete and cut.nodes < full.nodes
    assert time.perf_counter() - started < 0.01 + 0.25  # a thread's wake-up on a loaded machine
    # the stop flag does not outlive its search: the next one, without a deadline, finds a VCT
    # that takes it thousands of descents (a stale flag would end it at the first)
    lost = solver.vct(GAME_79.play(GAME.parse_move("d8")), nodes=50_000, method="pns")
    assert lost.found and lost.nodes > 1_000


def test_a_deadline_already_past_searches_nothing_and_a_far_one_changes_nothing():
    solver = ThreatSolver(GAME)
    after = GAME_79.play(GAME.parse_move("d8"))  # Black wins by a VCT here
    r = solver.vct(after, nodes=50_000, method="pns", deadline=time.perf_counter() - 1)
    assert not r.found and r.nodes == 0 and not r.complete
    # fresh solvers: the VCF table a solver keeps between searches changes their work
    free = ThreatSolver(GAME).vct(after, nodes=50_000, method="pns")
    timed = ThreatSolver(GAME).vct(after, nodes=50_000, method="pns", deadline=time.perf_counter() + 60)
    assert free.found and timed.found and timed.line == free.line and timed.nodes == free.nodes


def test_the_depth_first_vct_has_no_deadline():
    with pytest.raises(ValueError, match="pns"):
        ThreatSolver(GAME).vct(GAME_79, method="ab", deadline=time.perf_counter() + 1)
