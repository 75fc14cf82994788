"""The move an engine plays against a person: the most visited one, except early in the game, where
it varies among moves the search rates about as good.

A deterministic engine repeats itself: a player who once found a winning line against it wins
again by replaying it (a fresh player did, issue 20). KataGo's answer is a move temperature early
in the game (``chosenMoveTemperatureEarly`` 0.5, decaying over the opening, and visit pruning so a
barely searched move is never chosen). This follows it with a hard cut instead of the decay: over
the first ``VARIETY_PLIES`` plies of a game, the move is drawn with probability proportional to
N^(1/T), T = ``VARIETY_TEMPERATURE``, among the root moves that have at least ``VARIETY_MIN_SHARE``
of the best move's visits N and a mean value Q within ``VARIETY_MAX_Q_LOSS`` of its Q (root
mover's view); a proven result, or a single such move, is played as found. The game's first ply
is not varied: the opening move stays where the search puts it (the centre, issue 20), and a
replayed game still leaves the path at the engine's next moves. The VCT guard checked the
search's choice only, so a drawn move is checked too (``cleared``), and a move it showed to lose
is never drawn (a fresh player won a 6x6 game where the draw played the move the guard had
just rejected).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from zeroplay.search.result import SearchResult

VARIETY_PLIES = 6
"""Plies from the start of the game (both sides' moves) in which the engine varies its move."""
VARIETY_TEMPERATURE = 0.5
"""T of the N^(1/T) draw (KataGo's early-game chosen-move temperature)."""
VARIETY_MIN_SHARE = 0.5
"""A candidate has at least this share of the most visited move's visits N."""
VARIETY_MAX_Q_LOSS = 0.03
"""A candidate's Q (root mover's view, in [-1, 1]) is at most this much below the best move's."""


def varied_move(result: SearchResult, ply: int, rng: np.random.Generator | None,
                cleared: Callable[[int], bool] | None = None) -> int:
    """The move to play from ``result``, the search of a position ``ply`` plies into its game.

    Args:
        result: a finished search (not ``game_over``).
        ply: plies played before the searched position (``State.ply``); 0 or >= ``VARIETY_PLIES``
            gives ``result.best_move``.
        rng: the draw's generator; None: always ``result.best_move`` (a deterministic engine).
        cleared: ``move -> bool``, whether a drawn move other than ``best_move`` may be played
            (``Searcher.vct_cleared``: the VCT guard's check, which the search ran on its own
            choice only); False plays ``best_move``. Moves the guard showed to lose
            (``result.vct_lost``) are never drawn, and once it has traded the search's choice
            for another, that move is played.

    Returns:
        An action: ``result.best_move``, or another root move within the bounds above.

    Raises:
        ValueError: ``result`` has no move (the searched position was over).
    """
    if result.best_move is None:
        raise ValueError("the searched position is over: there is no move to choose")
    best = int(result.best_move)
    if rng is None or not 1 <= ply < VARIETY_PLIES or result.proven is not None or result.vct_lost:
        return best
    top = next((s for s in result.moves if int(s.move) == best), None)
    if top is None or top.visits <= 0:
        return best
    close = [s for s in result.moves
             if s.proven is None and s.visits >= VARIETY_MIN_SHARE * top.visits
             and s.q >= top.q - VARIETY_MAX_Q_LOSS]
    if len(close) < 2:
        return best
    weights = np.array([s.visits for s in close], np.float64) ** (1.0 / VARIETY_TEMPERATURE)
    move = int(close[int(rng.choice(len(close), p=weights / weights.sum()))].move)
    if move != best and cleared is not None and not cleared(move):
        return best
    return move
