"""Random-rollout evaluator: plain MCTS for baselines (uniform priors, value of one random game)."""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.games import fast
from zeroplay.games.layout import I_TO_PLAY
from zeroplay.search.evaluator import InlineRule, LeafBatch


@njit(cache=True)
def _seed(seed):
    np.random.seed(seed)


@njit(cache=True)
def rollout_values(params, zkeys, boards, infos, out):
    """Play one uniformly random game from each position (the game's ``rollout`` kernel);
    ``out[i]`` gets its result in {-1, 0, +1} from the point of view of the side to move in
    position i."""
    board = np.empty(boards.shape[1], dtype=np.int8)
    info = np.empty(infos.shape[1], dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(np.random.randint(1, 1 << 62))  # seeded by _seed; never 0
    for i in range(boards.shape[0]):
        board[:] = boards[i]
        info[:] = infos[i]
        me = info[I_TO_PLAY]
        w = fast.rollout(params, board, info, rng)
        out[i] = 0.0 if w < 0 else (1.0 if w == me else -1.0)


class RolloutEvaluator:
    """P uniform over legal moves, V = the mean result of ``rollouts`` random games, from the
    side to move. Not cached (its value is a random draw).

    The compiled search runs it inside its loop, one leaf at a time with no
    batch (``inline_rule``); ``evaluate`` is the same computation for batches."""

    features = None
    cacheable = False

    def __init__(self, rollouts: int = 1, seed: int | None = None):
        if rollouts < 1:
            raise ValueError("rollouts must be >= 1")
        self.rollouts = rollouts
        # the search runs these rollouts inside its compiled loop (search/inline.py)
        self.inline_rule = InlineRule(share=1.0, rollouts=rollouts, leaves_per_round=1)
        _seed(np.random.default_rng(seed).integers(1 << 31) if seed is None else seed)

    def evaluate(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        legal = batch.legal.astype(np.float32)
        priors = legal / np.maximum(legal.sum(axis=1, keepdims=True), 1.0)
        values = np.zeros(len(batch), np.float32)
        out = np.zeros(len(batch), np.float32)
        for _ in range(self.rollouts):
            rollout_values(batch.game.params, batch.game.zkeys, batch.boards, batch.infos, out)
            values += out
        return priors, values / self.rollouts
