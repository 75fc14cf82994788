"""Evaluator interface: what the search sends to a network (or a stand-in) and what comes back.

An evaluator has one method, ``evaluate(batch) -> (priors, values)`` (after OpenSpiel's
``Evaluator``), and a ``features`` attribute naming the input planes it reads (``None`` when it
reads no planes, e.g. the uniform and rollout evaluators). The feature set matters to the
search: with ``"alphazero-gomoku"`` (a last-move plane) the last move is folded into node and
cache keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from zeroplay.games import Game
from zeroplay.games.planes import planes_batch


@dataclass
class LeafBatch:
    """Positions to evaluate, as arrays of the compiled fast path.

    Attributes:
        game: the Game all positions belong to.
        boards: int8 (B, cells) boards (0 empty, 1 Black, 2 White).
        infos: int64 (B, INFO_SIZE) info rows (side to move, ply, key, last move, ...).
        legal: bool (B, num_actions) legal-move masks.
    """

    game: Game
    boards: np.ndarray
    infos: np.ndarray
    legal: np.ndarray
    _planes: dict = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return self.boards.shape[0]

    def planes(self, features: str) -> np.ndarray:
        """float32 (B, C, H, W) network input, side to move's view (see ``State.planes``)."""
        if features not in self._planes:
            self._planes[features] = planes_batch(self.game, self.boards, self.infos, features)
        return self._planes[features]


class Evaluator(Protocol):
    """What the search calls once per batch of leaves.

    ``evaluate(batch)`` returns ``priors`` float32 (B, num_actions), >= 0, zero on illegal
    actions, each row summing to 1 over the legal ones; and ``values`` float32 (B,) in [-1, 1]
    from the point of view of the side to move in each position.
    """

    features: str | None

    def evaluate(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]: ...


class UniformEvaluator:
    """P uniform over the legal moves, V = 0: search guided by the tree alone (baselines, tests)."""

    features = None

    def evaluate(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        counts = np.count_nonzero(batch.legal, axis=1)
        priors = batch.legal * (1.0 / np.maximum(counts, 1)).astype(np.float32)[:, None]
        return priors, np.zeros(len(batch), dtype=np.float32)
