"""The game's opening prior mixed into the root's priors (``SearchConfig.opening_prior``).

Why: a net whose priors are flat on the empty board (the shipped 15x15 model: 0.5-0.7 % on
every cell) and whose values there are noise of +-0.05 opens wherever the noise points (k11 at
800 playouts; h6 at the Gomocup engine's 3,000, where the values outweigh a mixed prior); the
prior knowledge that the first stone belongs near the centre (``game.opening_prior()``) weighs
in only where the net has no opinion: early plies, at the root (docs/THREATS.md, "The centre").
"""

from __future__ import annotations

import numpy as np


def opening_priors(game, priors, moves, weight: float):
    """The root's priors mixed with the game's opening prior C (``game.opening_prior()``):
    (1 - weight) P + weight C over the root's edges (C renormalised over ``moves``), then 0 on
    the edges where C is 0 and renormalised: the opening prior also bounds where the search may
    go (such an edge gets no PUCT exploration term, and its first-play urgency, the parent's Q
    minus a reduction, stays below the visited centre moves). ``priors`` unchanged when the game
    offers none, or when C is 0 on every edge. float64 (k,) in, float64 (k,) out, summing to 1."""
    prior = game.opening_prior()
    if prior is None:
        return priors
    c = prior[np.asarray(moves, np.int64)].astype(np.float64)
    if c.sum() <= 0:
        return priors
    mixed = np.where(c > 0, (1.0 - weight) * priors + weight * c / c.sum(), 0.0)
    return mixed / mixed.sum()
