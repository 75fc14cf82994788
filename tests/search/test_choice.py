"""``search.choice.varied_move``: the engine's early-game variety against a person (issue 20: a
fresh player won a game, and a deterministic engine loses it again to a replay)."""

from __future__ import annotations

import numpy as np
import pytest

from zeroplay.search.choice import VARIETY_PLIES, varied_move
from zeroplay.search.result import MoveStats, SearchResult


def _result(*moves, proven=None):
    """moves: (move, visits, q), most visited first."""
    stats = tuple(MoveStats(move=m, visits=n, q=q, prior=0.1, lcb=q - 0.1) for m, n, q in moves)
    return SearchResult(best_move=stats[0].move, moves=stats, proven=proven, root_visits=1 + sum(s.visits for s in stats))


def _draws(result, ply, n=400, seed=0):
    rng = np.random.default_rng(seed)
    return {varied_move(result, ply, rng) for _ in range(n)}


def test_close_moves_are_drawn_early_and_the_best_later():
    r = _result((10, 100, 0.20), (11, 90, 0.19), (12, 60, 0.18), (13, 40, 0.20), (14, 95, 0.10))
    # 13 has too few visits (< half the best's), 14 too low a Q (0.10 below 0.20)
    assert _draws(r, 2) == {10, 11, 12}
    assert _draws(r, VARIETY_PLIES) == {10}
    assert _draws(r, 0) == {10}  # the opening move stays where the search puts it
    assert varied_move(r, 2, None) == 10  # no generator: deterministic


def test_the_draw_favours_visits_and_repeats_with_a_seed():
    r = _result((10, 100, 0.0), (11, 50, 0.0))
    rng = np.random.default_rng(1)
    picks = [varied_move(r, 3, rng) for _ in range(2000)]
    share = picks.count(10) / len(picks)
    assert share == pytest.approx(0.8, abs=0.04)  # N^2: 10000 / (10000 + 2500)
    again = np.random.default_rng(1)
    assert [varied_move(r, 3, again) for _ in range(2000)] == picks


def test_proven_results_and_proven_moves_are_not_varied():
    win = _result((10, 100, 1.0), (11, 99, 0.99), proven="win")
    assert _draws(win, 2) == {10}
    r = SearchResult(best_move=10, moves=(MoveStats(10, 100, 0.3, 0.1, 0.2),
                                          MoveStats(11, 99, 0.3, 0.1, 0.2, proven="loss")))
    assert _draws(r, 2) == {10}


def test_a_finished_position_has_no_move():
    with pytest.raises(ValueError, match="over"):
        varied_move(SearchResult(game_over=True), 2, np.random.default_rng(0))


def test_the_vct_guards_trade_stands_and_its_lost_moves_are_never_drawn():
    # a fresh player (helper-61) won a 6x6 game where the draw played the very move the guard
    # had just rejected: "a6 loses to a VCT ...; e6 instead", then "zeroplay plays a6"
    r = _result((10, 100, 0.20), (11, 90, 0.19), (12, 80, 0.19))
    traded = SearchResult(best_move=12, moves=r.moves, vct_lost=(10,), root_visits=r.root_visits)
    assert _draws(traded, 2) == {12}
    kept = SearchResult(best_move=10, moves=r.moves, vct_lost=(10, 11, 12), root_visits=r.root_visits)
    assert _draws(kept, 2) == {10}  # every move checked lost: the search's choice


def test_a_drawn_move_the_guard_does_not_clear_gives_the_best():
    r = _result((10, 100, 0.20), (11, 95, 0.20), (12, 90, 0.20))
    asked: list[int] = []

    def cleared(move: int) -> bool:
        asked.append(move)
        return move != 11

    rng = np.random.default_rng(0)
    picks = {varied_move(r, 2, rng, cleared=cleared) for _ in range(300)}
    assert picks == {10, 12} and set(asked) == {11, 12}  # the best is the search's, checked there
