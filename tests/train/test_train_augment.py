"""Augmentation: planes (stones and last move) and policy move together under each transform."""

import numpy as np
import pytest

from zeroplay.games import make, names
from zeroplay.train import Samples, augment_samples, transform_samples

FEATURES = "alphazero-gomoku"


def random_states(game, count, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = game.initial()
        for _ in range(rng.integers(1, game.cells // 2)):
            if s.is_terminal:
                break
            legal = s.legal_moves()
            s = s.play(int(legal[rng.integers(len(legal))]))
        if not s.is_terminal:
            out.append(s)
    return out


def stub_net(planes):
    """A 'network' whose policy logits are the own-stone plane, one per cell."""
    return planes[..., 0, :, :].reshape(planes.shape[:-3] + (-1,))


@pytest.mark.parametrize("shape", [(6, 6), (7, 5)])
def test_planes_of_transformed_position_equal_transformed_planes(shape):
    game = make("gomoku", width=shape[0], height=shape[1], n_in_row=4)
    assert len(game.symmetries) == (8 if shape[0] == shape[1] else 4)
    for s in random_states(game, 10, seed=1):
        for sym in game.symmetries:
            moved = game.from_stones(
                [sym.cell(c) for c in s.stones(0)], [sym.cell(c) for c in s.stones(1)],
                to_play=s.to_play, last_move=sym.cell(s.last_move),
            )
            np.testing.assert_array_equal(sym.planes(s.planes(FEATURES)), moved.planes(FEATURES), err_msg=sym.name)
            # the last-move plane follows the stone that was played
            onehot = np.zeros(game.num_actions, np.float32)
            onehot[s.last_move] = 1
            assert sym.policy(onehot)[sym.action(s.last_move)] == 1


@pytest.mark.parametrize("game", [make("gomoku", size=6, n_in_row=4), make("gomoku", width=7, height=5, n_in_row=4)],
                         ids=["6x6", "7x5"])
def test_stub_net_is_equivariant(game):
    """T^-1(net(T(s))) == net(s) for every transform T."""
    for s in random_states(game, 5, seed=2):
        x = s.planes(FEATURES)
        for sym in game.symmetries:
            back = sym.inverse().policy(stub_net(sym.planes(x)))
            np.testing.assert_array_equal(back, stub_net(x), err_msg=sym.name)


def samples_with_policy_on_empty_cells(game, states):
    planes = np.stack([s.planes(FEATURES) for s in states])
    legal = np.zeros((len(states), game.num_actions), np.bool_)
    for i, s in enumerate(states):
        legal[i, s.legal_moves()] = True
    pi = legal / legal.sum(axis=1, keepdims=True)
    return Samples(planes, pi.astype(np.float32), np.ones(len(states), np.float32), legal,
                   np.arange(len(states), dtype=np.int32))


def test_random_augmentation_keeps_planes_and_policy_together():
    game = make("gomoku", size=6, n_in_row=4)
    batch = samples_with_policy_on_empty_cells(game, random_states(game, 64, seed=3))
    aug = augment_samples(batch, game, np.random.default_rng(0))
    empty = 1 - aug.planes[:, 0] - aug.planes[:, 1]
    np.testing.assert_array_equal(aug.legal, empty.reshape(64, -1) == 1)
    np.testing.assert_allclose(aug.pi, empty.reshape(64, -1) / empty.reshape(64, -1).sum(1, keepdims=True))
    # the last move is one of the opponent's stones, wherever the transform put it
    assert (aug.planes[:, 2] <= aug.planes[:, 1]).all() and (aug.planes[:, 2].sum(axis=(1, 2)) == 1).all()
    # each sample is some symmetry of its original (not a mix of two)
    for i in range(64):
        assert any(np.array_equal(aug.planes[i], sym.planes(batch.planes[i])) and
                   np.array_equal(aug.pi[i], sym.policy(batch.pi[i])) for sym in game.symmetries)
    assert not np.array_equal(aug.planes, batch.planes)  # some transform other than identity drawn


def test_stub_policy_targets_match_transformed_net_output():
    """pi = softmax-free stub output on the original; the augmented pi equals stub(T(planes))."""
    game = make("gomoku", size=6, n_in_row=4)
    states = random_states(game, 8, seed=4)
    planes = np.stack([s.planes(FEATURES) for s in states])
    own = stub_net(planes)
    batch = Samples(planes, own / own.sum(1, keepdims=True), np.zeros(8, np.float32),
                    np.ones((8, 36), np.bool_), np.zeros(8, np.int32))
    for sym in game.symmetries:
        t = transform_samples(batch, sym)
        np.testing.assert_array_equal(t.pi, stub_net(t.planes) / own.sum(1, keepdims=True))


@pytest.mark.skipif("connect4" not in names(), reason="Connect Four is not registered")
def test_connect_four_mirror_moves_columns_with_planes():
    game = make("connect4")
    assert len(game.symmetries) == 2
    s = game.initial().play_many([0, 0, 1])
    mirror = game.symmetries[1]
    moved = game.initial().play_many([mirror.action(a) for a in (0, 0, 1)])
    np.testing.assert_array_equal(mirror.planes(s.planes("basic")), moved.planes("basic"))
    pi = np.zeros(7, np.float32)
    pi[2] = 1
    assert mirror.policy(pi)[4] == 1
