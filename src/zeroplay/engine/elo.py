"""Elo difference with a 95 % interval from a match's wins, draws and losses (draws count 1/2).

Everything is from the first player's point of view: ``wins`` are games the first player (A, the
first player of ``zeroplay arena``, the new net in training) won, and the Elo difference is A's
rating minus B's. ``zeroplay arena`` output, the training log and arena metrics, and the tables of
docs/STRENGTH.md (``training/strength.py``) all take their numbers from ``elo_estimate``.

Point estimate: the score s = (W + D/2) / N, mapped through the logistic Elo curve
``elo(p) = -400 * log10(1/p - 1)``; a sweep (s = 1) is +inf, a whitewash (s = 0) -inf.

Interval: a score interval in the manner of Wilson's for a binomial proportion (E. B. Wilson,
"Probable inference, the law of succession, and statistical inference", JASA 22 (1927) 209-212),
extended to draws, with both ends mapped through ``elo(p)``. Each game scores x in {1, 1/2, 0}
with probabilities w, d, l; the mean is p = w + d/2 and the variance of x is p(1-p) - d/4. The
95 % interval is the set of p that a z-test of "the expected score is p" does not reject, with the
variance taken under that hypothesis, not at the observed score::

    N (s - p)^2 <= z^2 (p (1 - p) - d_p / 4),    z = 1.95996...

where d_p is the draw rate that best explains the observed W/D/L among the rates with mean p (the
maximum-likelihood estimate of the trinomial under the constraint w - l = 2p - 1; it solves the
quadratic ``N u^2 - B u - C = 0`` for u = 1 - d_p with B = W + L + (W - L)(2p - 1) and
C = D (2p - 1)^2 - (W - L)(2p - 1)). This is the score test (Rao's), and the interval is that of
T. Tango, "Equivalence test and confidence interval for the difference in proportions for the
paired-sample design", Statistics in Medicine 17 (1998) 891-908, for the difference w - l = 2p - 1
(a match is a set of pairs whose discordant outcomes are wins and losses, the draws concordant).
The set is an interval, found by bisection on each side of s.

What it gives:

- No draws: d_p = 0 and the interval is exactly Wilson's, the roots of
  (N + z^2) p^2 - (2 N s + z^2) p + N s^2 = 0.
- A sweep of N games: score in [N / (N + z^2), 1], Elo in [elo(N / (N + z^2)), +inf]:
  2-0 gives a lower bound of 0.342 (-113 Elo, so two wins do not show A is stronger),
  10-0 0.722 (+166), 100-0 0.963 (+566). A whitewash mirrors it.
- All N games drawn: the score 1/2 +- z^2 / (2 (N + z^2)), finite and narrowing with N:
  2 draws [-274, +274], 10 draws [-99, +99].
- Mirrored results mirror the interval: L/D/W gives [-high, -low] of W/D/L.

Why the draw rate is not simply the observed share D/N: with it the variance at p is
p(1-p) - D/(4N), and a match of draws only (D = N) gets a zero-width interval, "+0 [+0, +0]",
however few games were played, and draw-heavy small matches get intervals that are too narrow.
The constrained estimate d_p equals D/N at p = s and adapts to each tested p (all draws: d_p =
1 - |2p - 1|, since a mean away from 1/2 needs decisive games).
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
        elo_low, elo_high: the 95 % interval around ``elo`` (module docstring); ``elo_high`` is
            +inf only for a sweep, ``elo_low`` -inf only for a whitewash.
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
    """``+215``, ``-40``, ``+0`` (never ``-0``, whatever rounds to 0), ``+inf`` / ``-inf``."""
    if math.isinf(elo):
        return "+inf" if elo > 0 else "-inf"
    r = round(elo)
    return f"{r:+d}" if r != 0 else "+0"


def elo_from_score(score: float) -> float:
    """Elo difference for an expected score in [0, 1]: -400 * log10(1/score - 1) (0.0, not -0.0, at 1/2)."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score must be in [0, 1], got {score}")
    if score == 0.0:
        return -math.inf
    if score == 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: -0.0 becomes 0.0


def score_from_elo(elo: float) -> float:
    """Expected score of a player ``elo`` points stronger: 1 / (1 + 10^(-elo/400))."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def null_variance(wins: int, draws: int, losses: int, p: float) -> float:
    """Variance of one game's score under "the expected score is ``p``", the draw rate at its
    constrained maximum-likelihood value d_p (module docstring): p(1-p) - d_p/4 = (u - a^2)/4
    with a = 2p - 1 and u = 1 - d_p the decisive rate."""
    n = wins + draws + losses
    a = 2.0 * p - 1.0
    b = wins + losses + (wins - losses) * a
    c = draws * a * a - (wins - losses) * a
    u = (b + math.sqrt(max(0.0, b * b + 4.0 * n * c))) / (2.0 * n)
    u = min(1.0, max(abs(a), u))  # rounding: the decisive rate lies in [|a|, 1]
    return max(0.0, (u - a * a) / 4.0)


def _lower_score(wins: int, draws: int, losses: int, z: float) -> float:
    """Lower end of the score interval: the smallest p with N (s - p)^2 <= z^2 V(p), by bisection."""
    n = wins + draws + losses
    s = (wins + 0.5 * draws) / n
    if s == 0.0:
        return 0.0

    def inside(p: float) -> bool:
        return n * (s - p) ** 2 <= z * z * null_variance(wins, draws, losses, p)

    out, ins = 0.0, s  # V(0) = 0, so 0 is outside when s > 0; s itself is always inside
    while True:
        mid = 0.5 * (out + ins)
        if mid <= out or mid >= ins:
            return ins
        if inside(mid):
            ins = mid
        else:
            out = mid


def score_interval(wins: int, draws: int, losses: int, *, z: float = Z_95) -> tuple[float, float]:
    """The interval (low, high) for the expected score, 95 % for the default ``z`` (module docstring).

    The upper end is computed as 1 minus the lower end of the mirrored result, so mirrored results
    get exactly mirrored intervals.
    """
    _check(wins, draws, losses)
    return _lower_score(wins, draws, losses, z), 1.0 - _lower_score(losses, draws, wins, z)


def elo_estimate(wins: int, draws: int, losses: int, *, z: float = Z_95) -> EloEstimate:
    """Elo difference with its interval (95 % for the default ``z``) from W/D/L (module docstring).

    Raises:
        ValueError: negative counts or no games.
    """
    n = _check(wins, draws, losses)
    score = (wins + 0.5 * draws) / n
    # elo(s) = 400 log10(s / (1 - s)), written so that mirrored results give exactly opposite values
    mine, theirs = wins + 0.5 * draws, losses + 0.5 * draws
    elo = math.inf if theirs == 0 else -math.inf if mine == 0 else \
        400.0 * (math.log10(mine) - math.log10(theirs)) + 0.0
    low = _lower_score(wins, draws, losses, z)
    low_mirrored = _lower_score(losses, draws, wins, z)
    return EloEstimate(wins, draws, losses, score, elo, elo_from_score(low), -elo_from_score(low_mirrored) + 0.0)


def _check(wins: int, draws: int, losses: int) -> int:
    if min(wins, draws, losses) < 0:
        raise ValueError("wins, draws and losses must be >= 0")
    n = wins + draws + losses
    if n == 0:
        raise ValueError("no games played")
    return n
