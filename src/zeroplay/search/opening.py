"""The game's opening prior mixed into the root's priors (``SearchConfig.opening_prior``).

Why: a net whose priors are flat on the empty board (the shipped 15x15 model: 0.5-0.7 % on
every cell) and whose values there are noise of +-0.05 opens wherever the noise points (k11);
the prior knowledge that the first stone belongs near the centre (``game.opening_prior()``)
weighs in only where the net has no opinion: early plies, at the root (docs/THREATS.md,
"The centre").
"""

from __future__ import annotations

import numpy as np


def opening_priors(game, priors, moves, weight: float):
    """The root's priors mixed with the game's opening prior C (``game.opening_prior()``):
    (1 - weight) P + weight C over the root's edges (C renormalised over ``moves``); ``priors``
    unchanged when the game offers none. float64 (k,) in, float64 (k,) out."""
    prior = game.opening_prior()
    if prior is None:
        return priors
    c = prior[np.asarray(moves, np.int64)].astype(np.float64)
    if c.sum() <= 0:
        return priors
    return (1.0 - weight) * priors + weight * c / c.sum()
