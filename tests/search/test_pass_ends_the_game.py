"""A game that two passes end (Go, Othello) is won by the count, which can favour the side to move
at its end: the search's terminal value must say so (a new user's finding: the shipped Go model
passed right after its opponent's pass while behind, and lost the count, because a finished game
was scored as lost for its side to move, Gomoku's rule)."""

from __future__ import annotations

from zeroplay.games import make
from zeroplay.search import RolloutEvaluator, SearchConfig, Searcher


def _search(state, playouts=200):
    searcher = Searcher(state.game, RolloutEvaluator(), SearchConfig.for_playouts(playouts, state.game))
    searcher.search(state, playouts=playouts)
    return searcher.result()


def _go_after_blacks_pass():
    """5x5, komi 0.5: Black's wall on C and the point A1 against White's wall on D: B+4.5 if
    counted now (tests/games/go/test_go_rules.py). Black has just passed; White to move."""
    game = make("go", size=5, komi=0.5)
    black = ["C1", "C2", "C3", "C4", "C5", "A1"]
    white = ["D1", "D2", "D3", "D4", "D5"]
    return game, game.from_stones(black, white, to_play=0).play("pass")


def test_passing_second_while_behind_is_a_proven_loss():
    game, s = _go_after_blacks_pass()
    assert s.to_play == 1
    after = s.play("pass")
    assert after.is_terminal and after.winner == 0  # White's pass ends it and Black wins the count
    result = _search(s)
    pass_move = game.parse_move("pass")
    stats = {m.move: m for m in result.moves}
    assert stats[pass_move].proven == "loss"
    assert result.proven != "win" and result.best_move != pass_move


def test_passing_second_while_ahead_is_a_proven_win():
    game = make("go", size=5, komi=0.5)
    black = ["C1", "C2", "C3", "C4", "C5", "A1"]
    white = ["D1", "D2", "D3", "D4", "D5"]
    s = game.from_stones(black, white, to_play=1).play("pass")  # White passed; Black, ahead, to move
    result = _search(s)
    assert result.proven == "win" and result.best_move == game.parse_move("pass")
