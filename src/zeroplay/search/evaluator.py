"""Evaluator interface: what the search sends to a network (or a stand-in) and what comes back.

An evaluator has one method, ``evaluate(batch) -> (priors, values)`` (after OpenSpiel's
``Evaluator``), and a ``features`` attribute naming the input planes it reads (``None`` when it
reads no planes, e.g. the uniform and rollout evaluators). The feature set matters to the
search: the recent moves its planes show (``"alphazero-gomoku"``: the last one; Go's ``"go"``: the
last three) are folded into node and cache keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

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


class InlineRule(NamedTuple):
    """An evaluation rule simple enough for the compiled search to apply itself, inside its loop
    (``search/inline.py``): no batch goes back to Python, so one compiled call runs many rounds.
    An evaluator that has one says so in its ``inline_rule`` attribute; the search then never
    calls its ``evaluate`` (wrap it in a plain class to force the batched path).

    Priors are uniform over the leaf's candidate moves, always.

    Attributes:
        share: float32 prior weight each candidate move gets before normalisation: 0.0 for
            1 / (number of candidates) in float32 (``UniformEvaluator.evaluate``), else this
            value (1.0: ``RolloutEvaluator``). The stored priors are bit for bit those of the
            batched path with the same weights.
        rollouts: 0: V = 0 (tree only); n > 0: V = the mean result of n random games from the
            leaf (``rollout.rollout_values``), the side to move's view.
        leaves_per_round: leaves per round (1: one leaf at a time, as a C++ MCTS does);
            0: the search's ``batch_size``, the same rounds as the batched path.
    """

    share: float = 0.0
    rollouts: int = 0
    leaves_per_round: int = 0


class UniformEvaluator:
    """P uniform over the legal moves, V = 0: search guided by the tree alone (baselines, tests).

    The search applies the same rule inside its compiled loop (``inline_rule``): the tree it
    builds is identical to the batched path's, without a Python round trip per batch."""

    features = None
    inline_rule = InlineRule(share=0.0, rollouts=0, leaves_per_round=0)

    def evaluate(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        counts = np.count_nonzero(batch.legal, axis=1)
        priors = batch.legal * (1.0 / np.maximum(counts, 1)).astype(np.float32)[:, None]
        return priors, np.zeros(len(batch), dtype=np.float32)
