"""SearchResult.win_rate: a proven result reads as certain (a fresh user saw "win rate 82% for
zeroplay, proven win in 17 plies" in the terminal)."""

from zeroplay.search.result import SearchResult


def test_unproven_win_rate_is_the_mean_value():
    assert abs(SearchResult(root_q=0.64).win_rate - 0.82) < 1e-12
    assert SearchResult(root_q=-1.0).win_rate == 0.0


def test_proven_results_are_certain_whatever_root_q_says():
    assert SearchResult(root_q=0.64, proven="win", proven_distance=17).win_rate == 1.0
    assert SearchResult(root_q=0.3, proven="loss", proven_distance=12).win_rate == 0.0
    assert SearchResult(root_q=0.9, proven="draw", proven_distance=4).win_rate == 0.5
