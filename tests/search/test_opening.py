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
    assert {GAME.format_move(int(c)) for c in np.flatnonzero(prior)} == {
        f"{col}{row}" for col in "ghi" for row in (7, 8, 9)}  # the 3 x 3 centre only
    even = make("gomoku", width=16, height=16).opening_prior()
    assert np.count_nonzero(even) == 16  # the 4 x 4 centre of an even board
    assert make("connect4").opening_prior() is None  # a game without one: the priors stay the net's


def test_mixing_keeps_a_distribution_and_leaves_games_without_a_prior_alone():
    moves = np.array([0, 112, 113], np.int64)
    flat = np.full(3, 1 / 3)
    mixed = opening_priors(GAME, flat, moves, 0.5)
    assert abs(mixed.sum() - 1.0) < 1e-9 and mixed.argmax() == 1
    assert mixed[0] == 0.0  # a1 lies outside the centre: the opening prior bounds the first move
    far = np.array([0, 1, 2], np.int64)
    assert opening_priors(GAME, flat, far, 0.5) is flat  # no edge in the centre: left alone
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
