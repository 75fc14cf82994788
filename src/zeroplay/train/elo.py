"""Elo difference with a 95 % interval from a match's wins, draws and losses (draws count 1/2).

The score s = (W + D/2) / N is the mean of per-game scores x in {1, 1/2, 0}; its standard error
is the sample standard deviation of x over sqrt(N). The interval s +- 1.96 * se is mapped through
the logistic Elo curve ``elo(s) = -400 * log10(1/s - 1)`` (the usual normal approximation of
match reports). A score of 0 or 1 gives -inf / +inf. When every game had the same result the
sample variance is 0 and would give a zero-width interval (2 draws: "[-0, +0]"); the variance is
floored at 1 / (4 N), that of a single decisive game among N, so small matches get wide intervals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z_95 = 1.959963984540054
"""Two-sided 95 % quantile of the normal distribution."""


@dataclass(frozen=True)
class EloEstimate:
    """A match result and the Elo difference it implies, from the first player's point of view.

    Attributes:
        wins, draws, losses: games won / drawn / lost by the first player.
        score: (wins + draws / 2) / games, in [0, 1].
        elo: Elo difference (first minus second); +-inf at a score of 1 or 0.
        elo_low, elo_high: 95 % interval around ``elo``.
    """

    wins: int
    draws: int
    losses: int
    score: float
    elo: float
    elo_low: float
    elo_high: float

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def __str__(self) -> str:
        return (f"+{self.wins} ={self.draws} -{self.losses}  score {self.score:.3f}  "
                f"Elo {format_elo(self.elo)} [{format_elo(self.elo_low)}, {format_elo(self.elo_high)}]")


def format_elo(elo: float) -> str:
    """``+215``, ``-40``, ``+0`` (never ``-0``), ``+inf`` / ``-inf``."""
    if math.isinf(elo):
        return "+inf" if elo > 0 else "-inf"
    r = round(elo)
    return f"{r:+d}" if r != 0 else "+0"


def elo_from_score(score: float) -> float:
    """Elo difference for an expected score in [0, 1]: -400 * log10(1/score - 1)."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score must be in [0, 1], got {score}")
    if score == 0.0:
        return -math.inf
    if score == 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger: 1 / (1 + 10^(-elo/400))."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_estimate(wins: int, draws: int, losses: int, *, z: float = Z_95) -> EloEstimate:
    """Elo difference with its interval (95 % for the default ``z``) from W/D/L.

    Raises:
        ValueError: negative counts or no games.
    """
    if min(wins, draws, losses) < 0:
        raise ValueError("wins, draws and losses must be >= 0")
    n = wins + draws + losses
    if n == 0:
        raise ValueError("no games played")
    score = (wins + 0.5 * draws) / n
    variance = (wins * (1.0 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / n
    variance = max(variance, 1.0 / (4.0 * n))
    margin = z * math.sqrt(variance / n)
    low, high = max(0.0, score - margin), min(1.0, score + margin)
    return EloEstimate(wins, draws, losses, score, elo_from_score(score),
                       elo_from_score(low), elo_from_score(high))
