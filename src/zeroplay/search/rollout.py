"""Random-rollout evaluator: plain MCTS for baselines (uniform priors, value of one random game)."""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.games import gomoku_kernels as gomoku
from zeroplay.games.layout import (
    GAME_GOMOKU,
    I_TERMINAL,
    I_TO_PLAY,
    I_WINNER,
    P_CELLS,
    P_GAME,
    P_HEIGHT,
    P_N_IN_ROW,
    P_RULE,
    P_WIDTH,
)
from zeroplay.search.evaluator import LeafBatch


@njit(cache=True)
def _seed(seed):
    np.random.seed(seed)


@njit(cache=True)
def _random_game(board, w, h, n, rule, empties, count, to_play, rng):
    """Finish a Gomoku game with uniformly random moves (lazy Fisher-Yates over ``empties``);
    returns the winner (0 or 1) or -1 for a draw. Stones and win checks only: a rollout needs no
    keys, stack or winning-move masks.

    Random numbers: xorshift64* (Vigna 2016) in ``rng[0]`` with Lemire's multiply-shift range
    reduction -- a few cycles per draw, where numpy's generator costs tens.
    """
    p = to_play
    x64 = rng[0]
    for k in range(count):
        x64 ^= x64 >> np.uint64(12)
        x64 ^= x64 << np.uint64(25)
        x64 ^= x64 >> np.uint64(27)
        r = (x64 * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)
        j = k + np.int64((r * np.uint64(count - k)) >> np.uint64(32))
        c = empties[j]
        empties[j] = empties[k]
        empties[k] = c
        board[c] = p + 1
        x = c % w
        y = c // w
        for d in range(4):
            if gomoku.line_wins_xy(board, w, h, n, rule, x, y, p + 1, d):
                rng[0] = x64
                return p
        p = 1 - p
    rng[0] = x64
    return -1


@njit(cache=True)
def rollout_values(params, zkeys, boards, infos, out):
    """Play one uniformly random game from each position; ``out[i]`` gets its result in
    {-1, 0, +1} from the point of view of the side to move in position i.

    Gomoku family only (moves drawn by a lazy Fisher-Yates shuffle of the empty cells).
    """
    if params[P_GAME] != GAME_GOMOKU:
        raise ValueError("rollouts support the gomoku family only")
    cells = params[P_CELLS]
    empties = np.empty(cells, dtype=np.int64)
    board = np.empty(cells, dtype=np.int8)
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(np.random.randint(1, 1 << 62))  # seeded by _seed; never 0
    for i in range(boards.shape[0]):
        board[:] = boards[i]
        info = infos[i]
        me = info[I_TO_PLAY]
        if info[I_TERMINAL] != 0:
            w = info[I_WINNER]
        else:
            count = gomoku.legal_moves(params, board, info, empties)
            w = _random_game(board, params[P_WIDTH], params[P_HEIGHT], params[P_N_IN_ROW], params[P_RULE],
                             empties, count, me, rng)
        out[i] = 0.0 if w < 0 else (1.0 if w == me else -1.0)


class RolloutEvaluator:
    """P uniform over legal moves, V = the mean result of ``rollouts`` random games, from the
    side to move. Not cached (its value is a random draw).

    For the Gomoku family the search runs it inside its compiled loop, one leaf at a time with no
    batch (``inline_rollouts``); ``evaluate`` is the same computation for batches."""

    features = None
    cacheable = False

    def __init__(self, rollouts: int = 1, seed: int | None = None):
        if rollouts < 1:
            raise ValueError("rollouts must be >= 1")
        self.rollouts = rollouts
        # the search runs these rollouts inside its compiled loop (gather.run_rollout_playouts)
        self.inline_rollouts = rollouts
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
