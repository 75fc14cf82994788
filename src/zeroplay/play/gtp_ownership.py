"""What ``kata-analyze`` adds from a Go network's auxiliary heads, following the search as it goes:
the ownership map (``ownership true``), its spread (``ownershipStdev true``), each move's map
(``movesOwnership true``) and each move's score fields.

KataGo reports the ownership averaged over its search tree, each node's network ownership weighted
by its visits, so the map moves with the search. ``SearchOwnership`` does that to depth one: the
root's own map (weight 1) and, for each of the ``MAX_CHILDREN`` most visited root moves, the map of
the position after it (weight: the move's visits N), each from the network's ownership head; a
child's map is computed once per analysis, on the report where the move first shows. Without a
network head (the Go priors engine, a net without ``-own``) the map is the root's alone, the mean
over random games, computed once, and there is neither a spread nor a map per move. A child where
the game ends (the second pass) has the board's own area count instead of the net's estimate.

``ChildScores`` gives each listed move KataGo's ``scoreLead`` / ``scoreMean`` from the network's
score head (``PuctRollout.scores``: the predicted final margin in points, komi included) at the end
of the move's principal variation, the line the search expects (at most ``MAX_PV_PLIES`` plies):
the mean of its last two positions' margins, both from the analysed side to move's view; where the
line ends the game, the game's count. KataGo averages the score over the move's subtree, weighted
by visits; the PV is that subtree's most visited line, so a move the search refutes (a pass
answered by a capture) shows the score after the refutation, as its win rate does. Two positions,
one with each side to move, because the score head leans towards the side to move by a few points
on the 9x9 net: a single leaf's score flipped with the line's parity (helper-58, 2026-12-06). A
move the search visited once has only its own position. Each line is evaluated once per analysis,
the new lines of a report in one batch."""

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
        self._children: dict[int, np.ndarray] = {}

    def at(self, stats) -> np.ndarray:
        """The map for the root statistics ``stats`` (``MoveStats`` with ``move`` and ``visits``)."""
        maps, weights = self._maps(stats)
        if len(maps) == 1:
            return self.root
        return np.clip(np.average(maps, axis=0, weights=weights), -1.0, 1.0)

    def stdev(self, stats) -> np.ndarray | None:
        """KataGo's ``ownershipStdev``: float (cells,) in [0, 1], the visit-weighted standard
        deviation of the maps that ``at`` averages (how much the search's lines disagree on each
        point's owner); None without a network head (one map: no spread to report)."""
        if self.net is None:
            return None
        maps, weights = self._maps(stats)
        mean = np.average(maps, axis=0, weights=weights)
        return np.sqrt(np.average((maps - mean) ** 2, axis=0, weights=weights))

    def move_map(self, move: int) -> np.ndarray | None:
        """KataGo's ``movesOwnership`` for root move ``move``: the map of the position after it,
        from the root's side to move's view; None without a network head."""
        return None if self.net is None else self._child(int(move))

    def _maps(self, stats) -> tuple[np.ndarray, np.ndarray]:
        """The root's map (weight 1) and those of the ``MAX_CHILDREN`` most visited moves (weight
        N), stacked: float (k, cells) and float (k,)."""
        maps, weights = [self.root], [1.0]
        if self.net is not None:
            for s in sorted((s for s in stats if s.visits > 0), key=lambda s: -s.visits)[:MAX_CHILDREN]:
                maps.append(self._child(int(s.move)))
                weights.append(float(s.visits))
        return np.stack(maps), np.asarray(weights)

    def _child(self, move: int) -> np.ndarray:
        if move not in self._children:
            assert self.net is not None  # (asked only with a net)
            after = self.state.play(move)
            if after.is_terminal:  # (two passes) the board's own area count, not an estimate
                black = np.asarray(after.game.final_ownership(after), np.float64)
                self._children[move] = black if self.state.to_play == 0 else -black
            else:  # the child's map is its mover's view: the opponent of the root's side to move
                self._children[move] = -np.asarray(self.net(after), np.float64)
        return self._children[move]


class ChildScores:
    """Score fields for the root moves of ``state``.

    Args:
        state: the analysed position.
        net: ``net(positions)`` -> for a list of positions, each one's predicted final margin in
            points from its own side to move's view (``PuctRollout.scores``), None for a position
            (or all) where the net has no score head; called once per report, on the positions of
            the lines not seen before.
    """

    def __init__(self, state, net: Callable):
        self.state = state
        self.net = net
        self._lead: dict[tuple[int, ...], float | None] = {}

    def apply(self, stats) -> list:
        """``stats`` (``go_montecarlo.MoveStats``) with ``score_mean`` set to each visited move's
        lead for the side to move (points; ``score_stdev`` None: the net has no spread head): the
        mean over the last two positions of the move's ``pv`` (the move alone where the engine
        gives no PV), or the game's count where the line ends it."""
        lines = {self._pv(s) for s in stats if s.visits > 0}
        missing = [pv for pv in lines if pv not in self._lead]
        if len(self._lead) + len(missing) > MAX_LINES:
            self._lead.clear()
            missing = list(lines)
        self._score(missing)
        out = []
        for s in stats:
            lead = self._lead.get(self._pv(s)) if s.visits > 0 else None
            out.append(s if lead is None else replace(s, score_mean=lead, score_stdev=None))
        return out

    @staticmethod
    def _pv(s) -> tuple[int, ...]:
        pv = tuple(int(m) for m in s.pv[:MAX_PV_PLIES])
        return pv if pv and pv[0] == int(s.move) else (int(s.move),)

    def _score(self, lines: list[tuple[int, ...]]) -> None:
        me = self.state.to_play
        ends: dict[tuple[int, ...], list] = {}
        for pv in lines:
            position = self.state
            last: list = []  # the line's last two positions
            for move in pv:  # the line stops where the game does (a PV never passes the end)
                if position.is_terminal:
                    break
                position = position.play(move)
                last = [*last[-1:], position]
            if position.is_terminal:  # the game's own count (Black's margin), not an estimate
                black = float(position.game.score(position))
                self._lead[pv] = black if me == 0 else -black
            else:
                ends[pv] = last
        positions = [p for last in ends.values() for p in last]
        margins = iter(self.net(positions) if positions else [])
        for pv, last in ends.items():
            # each ply (a pass included) hands the move over; the net gives its mover's view
            leads = [(m, p) for p, m in zip(last, margins)]
            ok = [float(m) if p.to_play == me else -float(m) for m, p in leads if m is not None]
            self._lead[pv] = sum(ok) / len(ok) if len(ok) == len(last) else None
