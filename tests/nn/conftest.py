"""Shared fixtures for the network tests: small boards, one torch thread (CI shares 2 cores)."""

import numpy as np
import pytest
import torch

from zeroplay.games import make
from zeroplay.search.evaluator import LeafBatch

torch.set_num_threads(1)


@pytest.fixture
def game6():
    """6x6 four-in-a-row: big enough for tiny's heads, small enough to be fast."""
    return make("gomoku", size=6, n_in_row=4)


@pytest.fixture
def leaf_batch():
    """``leaf_batch(game, states) -> LeafBatch`` as the search would send it."""
    return _leaf_batch


def _leaf_batch(game, states) -> LeafBatch:
    fast = [s.fast() for s in states]
    legal = np.zeros((len(states), game.num_actions), dtype=np.bool_)
    for i, s in enumerate(states):
        legal[i, s.legal_moves()] = True
    return LeafBatch(game, np.stack([f.board for f in fast]), np.stack([f.info for f in fast]), legal)
