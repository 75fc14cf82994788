"""When an engine playing a person gives up: KataGo's resignation rule, for the front-ends.

A Go engine that plays on in a lost game fills its own eyes until its groups are captured: every
move loses, so the win-rate search has nothing to prefer. KataGo resigns instead once its win rate
has been under a threshold for several consecutive turns of its own (``resignThreshold``,
``resignConsecTurns`` in its GTP config; 3 turns by default), each after a real search. The
terminal and the web board use this rule in games whose ``Game.resigns`` is set (Go); ``zeroplay
gtp`` has GTP's own ``resign`` reply (``engine.go_search.PuctRollout.choose``).
"""

from __future__ import annotations

from dataclasses import dataclass

RESIGN_BELOW = 0.03
"""The win rate (the engine's expected score in [0, 1]) under which a move counts toward
resigning: 3 %, as ``zeroplay gtp`` resigns."""
RESIGN_TURNS = 3
"""Consecutive own moves under ``RESIGN_BELOW`` before the engine resigns (KataGo's default)."""
RESIGN_MIN_PLAYOUTS = 100
"""A search of fewer playouts (a move stopped early by Ctrl-C or a short time limit) neither
counts toward resigning nor breaks the run: too few to trust, either way."""


@dataclass
class Resigner:
    """Counts the engine's consecutive hopeless moves of one game.

    Args:
        below: win rate in [0, 1] (the engine's own perspective, ``SearchResult.win_rate``) under
            which a move is hopeless; 0 never resigns.
        turns: hopeless moves in a row (>= 1) after which ``observe`` says to resign.
        min_playouts: searches with fewer playouts are not counted (unless the result is proven).

    Raises:
        ValueError: ``below`` outside [0, 1] or ``turns`` < 1.
    """

    below: float = RESIGN_BELOW
    turns: int = RESIGN_TURNS
    min_playouts: int = RESIGN_MIN_PLAYOUTS
    hopeless: int = 0

    def __post_init__(self) -> None:
        if not 0.0 <= self.below <= 1.0:
            raise ValueError(f"the resignation win rate must be in [0, 1], got {self.below}")
        if self.turns < 1:
            raise ValueError(f"resignation needs at least 1 turn, got {self.turns}")

    def reset(self) -> None:
        """A new game, or moves taken back: the count starts again."""
        self.hopeless = 0

    def observe(self, result) -> bool:
        """Count the engine's search ``result`` (a ``SearchResult`` of the position it is to move
        in) and say whether it resigns instead of playing its move."""
        if self.below <= 0:
            return False
        proven_loss = result.proven == "loss"
        if result.playouts < self.min_playouts and not proven_loss:
            return False
        if proven_loss or result.win_rate < self.below:
            self.hopeless += 1
        else:
            self.hopeless = 0
        return self.hopeless >= self.turns


def resigns(win_rates, below: float = RESIGN_BELOW, turns: int = RESIGN_TURNS) -> bool:
    """The rule of ``Resigner`` over a line already searched: ``win_rates`` are the engine's win
    rates in [0, 1] (its own perspective) at its last positions on the line, oldest first, the
    search just made last; None where a position was never searched (it breaks the run). True
    when the last ``turns`` are all under ``below`` (0 never)."""
    last = list(win_rates)[-turns:]
    return below > 0 and len(last) == turns and all(w is not None and w < below for w in last)
