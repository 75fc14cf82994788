"""Random-rollout evaluator: plain MCTS for baselines (uniform priors, value of one random game)."""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.games import gomoku_kernels as gomoku
from zeroplay.games.layout import GAME_GOMOKU, I_TERMINAL, I_TO_PLAY, I_WINNER, P_CELLS, P_GAME
from zeroplay.search.evaluator import LeafBatch


@njit(cache=True)
def _seed(seed):
    np.random.seed(seed)


@njit(cache=True)
def rollout_values(params, zkeys, boards, infos, out):
    """Play one uniformly random game from each position; ``out[i]`` gets its result in
    {-1, 0, +1} from the point of view of the side to move in position i.

    Gomoku family: moves drawn by a lazy Fisher-Yates shuffle of the empty cells.
    """
    cells = params[P_CELLS]
    stack = np.full(cells + 1, -1, dtype=np.int32)
    empties = np.empty(cells, dtype=np.int64)
    for i in range(boards.shape[0]):
        board = boards[i].copy()
        info = infos[i].copy()
        me = info[I_TO_PLAY]
        if params[P_GAME] == GAME_GOMOKU:
            n = gomoku.legal_moves(params, board, info, empties)
            for k in range(n):
                j = np.random.randint(k, n)
                t = empties[k]
                empties[k] = empties[j]
                empties[j] = t
                gomoku.apply_move(params, zkeys, board, info, stack, empties[k])
                if info[I_TERMINAL] != 0:
                    break
        else:
            raise ValueError("rollouts support the gomoku family only")
        w = info[I_WINNER]
        out[i] = 0.0 if w < 0 else (1.0 if w == me else -1.0)


class RolloutEvaluator:
    """P uniform over legal moves, V = the result of ``rollouts`` random games (mean), from the
    side to move. Not cached (its value is a random draw)."""

    features = None
    cacheable = False

    def __init__(self, rollouts: int = 1, seed: int | None = None):
        if rollouts < 1:
            raise ValueError("rollouts must be >= 1")
        self.rollouts = rollouts
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
