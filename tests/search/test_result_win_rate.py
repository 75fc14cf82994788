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


def test_after_the_vct_guards_trade_the_played_moves_value_is_shown():
    # the root's Q is mostly the rejected move's (661 of 800 visits in game 79), which loses
    from zeroplay.search.result import MoveStats

    moves = (MoveStats(52, 661, 0.30, 0.5, 0.2), MoveStats(67, 23, -0.20, 0.1, -0.5))
    traded = SearchResult(best_move=67, root_q=0.28, moves=moves, vct_lost=(52,))
    assert abs(traded.win_rate - 0.40) < 1e-12
    kept = SearchResult(best_move=52, root_q=0.28, moves=moves, vct_lost=(52, 67))  # every move checked loses
    assert abs(kept.win_rate - 0.64) < 1e-12
    # an unvisited move traded in: the moves not shown to lose stand in (the root's Q is the loser's)
    unvisited = SearchResult(best_move=70, root_q=0.28, moves=moves, vct_lost=(52,))
    assert abs(unvisited.win_rate - 0.40) < 1e-12
    nothing_else = SearchResult(best_move=70, root_q=0.28, moves=moves, vct_lost=(52, 67))
    assert abs(nothing_else.win_rate - 0.64) < 1e-12
