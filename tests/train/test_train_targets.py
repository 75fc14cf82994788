"""Training targets: the sign of z (issue 5's cases) for every symmetric copy of each game."""

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.train import game_samples, transform_samples, z_from_side_to_move

FEATURES = "alphazero-gomoku"
GOMOKU7 = make("gomoku", size=7, n_in_row=5)
# Black: top row 0..4 (wins with its 5th stone, move 9); White: row 2, only four stones.
BLACK_WINS_ON_9 = [0, 14, 1, 15, 2, 16, 3, 17, 4]
# White: row 3 cells 21..25 (wins with its 5th stone, move 10); Black scattered, no five.
WHITE_WINS_ON_10 = [0, 21, 2, 22, 4, 23, 42, 24, 44, 25]
# Tic-tac-toe, board full, no line:  X O X / X O O / O X X
DRAW_FULL_BOARD = [0, 1, 2, 4, 3, 5, 7, 6, 8]

CASES = [
    ("black wins on move 9", GOMOKU7, BLACK_WINS_ON_9, [1, -1] * 4 + [1]),
    ("white wins on move 10", GOMOKU7, WHITE_WINS_ON_10, [-1, 1] * 5),
    ("full-board draw", make("tictactoe"), DRAW_FULL_BOARD, [0] * 9),
]


def uniform_policies(game, moves):
    """The uniform policy over legal moves before each move (any valid target will do)."""
    state, out = game.initial(), []
    for m in moves:
        pi = np.zeros(game.num_actions, np.float32)
        legal = state.legal_moves()
        pi[legal] = 1.0 / len(legal)
        out.append(pi)
        state = state.play(m)
    return out


@pytest.mark.parametrize("label, game, moves, expected", CASES, ids=[c[0] for c in CASES])
def test_z_from_side_to_move_for_every_symmetric_copy(label, game, moves, expected):
    final = game.initial().play_many(moves)
    assert final.is_terminal and final.ply == len(moves)
    pis = uniform_policies(game, moves)
    base = game_samples(game, moves, pis, FEATURES)
    np.testing.assert_array_equal(base.z, np.array(expected, np.float32))
    assert len(game.symmetries) == 8
    for sym in game.symmetries:
        moved = [sym.action(m) for m in moves]
        copy = game_samples(game, moved, [sym.policy(p) for p in pis], FEATURES)
        np.testing.assert_array_equal(copy.z, base.z, err_msg=sym.name)
        # the copy played on the transformed board equals the original samples transformed
        aug = transform_samples(base, sym)
        np.testing.assert_array_equal(copy.planes, aug.planes, err_msg=sym.name)
        np.testing.assert_array_equal(copy.pi, aug.pi, err_msg=sym.name)
        np.testing.assert_array_equal(copy.legal, aug.legal, err_msg=sym.name)
        np.testing.assert_array_equal(aug.z, base.z)


def test_sample_fields_and_first_position():
    moves = BLACK_WINS_ON_9
    s = game_samples(GOMOKU7, moves, uniform_policies(GOMOKU7, moves), FEATURES)
    assert s.planes.shape == (9, 4, 7, 7) and s.planes.dtype == np.float32
    assert s.pi.shape == (9, 49) and s.legal.dtype == np.bool_
    np.testing.assert_array_equal(s.ply, np.arange(9))
    assert s.planes[0, :3].sum() == 0 and (s.planes[0, 3] == 1).all()  # empty board, Black to move
    # sample 1: White to move, Black's stone on cell 0 is the opponent's and the last move
    assert s.planes[1, 1, 0, 0] == 1 and s.planes[1, 2, 0, 0] == 1 and (s.planes[1, 3] == 0).all()


def test_positions_without_a_policy_target_are_skipped_but_z_keeps_its_sign():
    moves = WHITE_WINS_ON_10
    pis = uniform_policies(GOMOKU7, moves)
    pis[0] = pis[3] = None
    s = game_samples(GOMOKU7, moves, pis, FEATURES)
    np.testing.assert_array_equal(s.ply, [1, 2, 4, 5, 6, 7, 8, 9])
    np.testing.assert_array_equal(s.z, [1, -1, -1, 1, -1, 1, -1, 1])


def test_resigned_game_needs_its_winner():
    moves = BLACK_WINS_ON_9[:5]
    pis = uniform_policies(GOMOKU7, moves)
    with pytest.raises(ValueError, match="not over"):
        game_samples(GOMOKU7, moves, pis)
    s = game_samples(GOMOKU7, moves, pis, winner=1)  # Black resigned
    np.testing.assert_array_equal(s.z, [-1, 1, -1, 1, -1])
    np.testing.assert_array_equal(game_samples(GOMOKU7, moves, pis, winner=None).z, np.zeros(5))


def test_bad_policies_are_refused():
    moves = BLACK_WINS_ON_9
    pis = uniform_policies(GOMOKU7, moves)
    with pytest.raises(ValueError, match="9 moves but 8 policies"):
        game_samples(GOMOKU7, moves, pis[:8])
    bad = list(pis)
    bad[2] = pis[2].copy()
    bad[2][0] = 0.1  # cell 0 holds Black's first stone
    with pytest.raises(ValueError, match="illegal action"):
        game_samples(GOMOKU7, moves, bad)
    bad[2] = pis[2] * 2
    with pytest.raises(ValueError, match="sums to"):
        game_samples(GOMOKU7, moves, bad)


def test_z_helper():
    np.testing.assert_array_equal(z_from_side_to_move([0, 1, 0], 0), [1, -1, 1])
    np.testing.assert_array_equal(z_from_side_to_move([0, 1], None), [0, 0])
    with pytest.raises(ValueError):
        z_from_side_to_move([0], 2)
