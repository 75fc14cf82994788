"""``shows_last_move`` (the feature sets whose planes mark the last move, so the search keys nodes
by it) checked against the encoder itself: same stones, another last move."""

from __future__ import annotations

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.games.planes import recent_moves_shown, shows_last_move

GAME = make("gomoku", size=7, n_in_row=4)


@pytest.mark.parametrize("features", GAME.feature_sets)
def test_shows_last_move_iff_the_planes_change_with_it(features):
    a = GAME.from_stones(["d4", "e4"], ["a7"], last_move="e4")
    b = GAME.from_stones(["d4", "e4"], ["a7", "b7"], last_move="b7")
    c = GAME.from_stones(["d4", "e4"], ["a7", "b7"], last_move="a7")
    assert not np.array_equal(a.planes(features), b.planes(features))  # the stones differ: a live check
    differs = not np.array_equal(b.planes(features), c.planes(features))
    assert shows_last_move(features) == differs


def test_threat_suffix_and_missing_features():
    assert shows_last_move("alphazero-gomoku+threats")
    assert not shows_last_move("basic+threats")
    assert not shows_last_move(None)
    assert not shows_last_move("shogi")


def test_recent_moves_shown_counts_the_planes_moves():
    assert recent_moves_shown("alphazero-gomoku") == recent_moves_shown("alphazero-gomoku+threats") == 1
    assert recent_moves_shown("go") == 3  # Go's planes 4-6 (tests/search/test_go_node_key.py)
    assert recent_moves_shown("basic") == recent_moves_shown(None) == recent_moves_shown("shogi") == 0
