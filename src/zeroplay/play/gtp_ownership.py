"""What ``kata-analyze`` adds from a Go network's auxiliary heads, following the search as it goes:
the ownership map (``ownership true``) and each move's score fields.

KataGo reports the ownership averaged over its search tree, each node's network ownership weighted
by its visits, so the map moves with the search. ``SearchOwnership`` does that to depth one: the
root's own map (weight 1) and, for each of the ``MAX_CHILDREN`` most visited root moves, the map of
the position after it (weight: the move's visits N), each from the network's ownership head; a
child's map is computed once per analysis, on the report where the move first shows. Without a
network head (the Go priors engine, a net without ``-own``) the map is the root's alone, the mean
over random games, computed once.

``ChildScores`` gives each listed move KataGo's ``scoreLead`` / ``scoreMean`` from the network's
score head: the predicted final margin, in points from the side to move's view (komi included;
``PuctRollout.score``), of the last position of the move's principal variation, the line the
search expects (at most ``MAX_PV_PLIES`` plies); where that line ends the game, the game's count.
KataGo averages the score over the move's subtree, weighted by visits; the PV's leaf is that
subtree's most visited line, so a move the search refutes (a pass answered by a capture) shows the
score after the refutation, as its win rate does. Each line is evaluated once per analysis."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

MAX_CHILDREN = 10
"""Root moves (the most visited) whose positions enter the average."""

MAX_PV_PLIES = 16
"""Plies of a move's principal variation that ``ChildScores`` follows (a bound on the replay)."""

MAX_LINES = 4096
"""Lines whose score ``ChildScores`` keeps; past it the cache starts over (a long analysis sees
new PVs at every report)."""


class SearchOwnership:
    """Ownership of ``state`` from the side to move's view (+1: it owns the point at the end),
    float (cells,) in [-1, 1], in the board's cell order (row-major from the top-left).

    Args:
        state: the analysed position.
        root: its map (the network's, or random games' where ``net`` is None).
        net: ``net(position)`` -> that position's network map from its own side to move's view,
            or None; None: the map stays ``root``.
    """

    def __init__(self, state, root: np.ndarray, net: Callable | None = None):
        self.state = state
        self.root = np.asarray(root, np.float64)
        self.net = net
        self._children: dict[int, np.ndarray | None] = {}

    def at(self, stats) -> np.ndarray:
        """The map for the root statistics ``stats`` (``MoveStats`` with ``move`` and ``visits``)."""
        if self.net is None:
            return self.root
        total = self.root.copy()
        weight = 1.0
        for s in sorted((s for s in stats if s.visits > 0), key=lambda s: -s.visits)[:MAX_CHILDREN]:
            child = self._child(int(s.move))
            if child is not None:
                total += s.visits * child
                weight += s.visits
        return np.clip(total / weight, -1.0, 1.0)

    def _child(self, move: int) -> np.ndarray | None:
        if move not in self._children:
            assert self.net is not None  # (at() asks only with a net)
            after = self.state.play(move)
            own = None if after.is_terminal else self.net(after)
            # the child's map is its mover's view: the opponent of the root's side to move
            self._children[move] = None if own is None else -np.asarray(own, np.float64)
        return self._children[move]


class ChildScores:
    """Score fields for the root moves of ``state``.

    Args:
        state: the analysed position.
        net: ``net(position)`` -> that position's predicted final margin in points from its own
            side to move's view (``PuctRollout.score``), or None where the net has no score head.
    """

    def __init__(self, state, net: Callable):
        self.state = state
        self.net = net
        self._lead: dict[tuple[int, ...], float | None] = {}

    def apply(self, stats) -> list:
        """``stats`` (``go_montecarlo.MoveStats``) with ``score_mean`` set to each visited move's
        lead for the side to move (points; ``score_stdev`` None: the net has no spread head): the
        lead at the end of the move's ``pv`` (the move alone where the engine gives no PV)."""
        out = []
        for s in stats:
            lead = self._line(self._pv(s)) if s.visits > 0 else None
            out.append(s if lead is None else replace(s, score_mean=lead, score_stdev=None))
        return out

    @staticmethod
    def _pv(s) -> tuple[int, ...]:
        pv = tuple(int(m) for m in s.pv[:MAX_PV_PLIES])
        return pv if pv and pv[0] == int(s.move) else (int(s.move),)

    def _line(self, pv: tuple[int, ...]) -> float | None:
        if pv not in self._lead:
            if len(self._lead) >= MAX_LINES:
                self._lead.clear()
            position = self.state
            for move in pv:  # the line stops where the game does (a PV never passes the end)
                if position.is_terminal:
                    break
                position = position.play(move)
            # each ply (a pass included) hands the move over: an odd line ends with the opponent to move
            sign = 1.0 if position.to_play == self.state.to_play else -1.0
            if position.is_terminal:  # the game's own count (Black's margin), not an estimate
                black = float(position.game.score(position))
                self._lead[pv] = black if self.state.to_play == 0 else -black
            else:
                margin = self.net(position)
                self._lead[pv] = None if margin is None else sign * float(margin)
        return self._lead[pv]
