"""The centre: the play engine opens within one cell of h8 on an empty 15x15 board, through the
game's opening prior in the root priors (search/opening.py), not a hard-coded move."""

from __future__ import annotations

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.search import SearchConfig
from zeroplay.search.opening import opening_priors

GAME = make("gomoku", width=15, height=15)


def test_the_gomoku_opening_prior_peaks_at_the_centre_and_sums_to_one():
    prior = GAME.opening_prior()
    assert prior.dtype == np.float32 and prior.shape == (225,)
    assert abs(float(prior.sum()) - 1.0) < 1e-5 and int(prior.argmax()) == GAME.parse_move("h8")
    assert make("connect4").opening_prior() is None  # a game without one: the priors stay the net's


def test_mixing_keeps_a_distribution_and_leaves_games_without_a_prior_alone():
    moves = np.array([0, 112, 113], np.int64)
    flat = np.full(3, 1 / 3)
    mixed = opening_priors(GAME, flat, moves, 0.5)
    assert abs(mixed.sum() - 1.0) < 1e-9 and mixed.argmax() == 1
    c4 = make("connect4")
    assert opening_priors(c4, flat, np.arange(3), 0.5) is flat
    with pytest.raises(ValueError):
        SearchConfig(opening_prior=1.5)


def test_the_play_engine_opens_within_one_cell_of_h8():
    from zeroplay.engine.factory import make_engine

    engine = make_engine(GAME)
    searcher = engine.new_searcher(node_capacity=1 << 13, edge_capacity=1 << 22)
    move = int(searcher.search(GAME.initial(), playouts=800).best_move)
    row, col = divmod(move, 15)
    assert max(abs(row - 7), abs(col - 7)) <= 1, GAME.format_move(move)
