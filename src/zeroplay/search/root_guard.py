"""The VCT guard: the move a search chooses is checked against the opponent's VCT before it is played.

The node defence (``search/defence.py``) keeps a node's candidates to the moves that break a VCF
the opponent threatens; a VCT (a win by threes and fours) costs too much to look for at every
node, and the search's value head is what is left to see it. It sometimes does not: against
``heuristic:800`` the shipped 15x15 model lost only as White, and in one of those games the move
it chose with 661 of 800 visits let Black win by a VCT that the proof-number search finds in 0.06
s, while the fourth most visited move (23 visits) left Black none within 100,000 work units
(docs/THREATS.md, "The VCT guard").

So once the search has chosen (not a proven result), ``RootGuard.choose`` plays the chosen move,
then the others by visits (proven losses left out), at most ``SearchConfig.vct_guard_moves`` of
them, and searches a VCT for the opponent after each with the proof-number VCT of ``zeroplay
solve gomoku --vct --method pns`` (``vct_guard_nodes`` work units). The first move after which
none is found is played; a VCT found is replayed on real states (``proof.verify_line``) before it
counts. When every move tried loses, the search's choice stays (the position is lost; the most
visited move resists longest by the search's measure). A VCT not found within the budget proves
nothing, so the guard can only trade a move shown to lose for one not shown to.

With a time limit the search's playouts stop at ``1 - vct_guard_share`` of it (the guard keeping
at least ``vct_guard_min_seconds``, at most ``GUARD_MAX_SHARE`` of it) and the guard gets the
rest; each check stops at the limit (``ThreatSolver.vct``'s deadline: a timer thread sets the
compiled search's stop flag), and a check cut short there counts as one that found nothing. A
move reached with under ``MIN_CHECK_S`` left is played unchecked (those before it were shown to
lose, it was not). ``checked_in_part`` / ``unchecked`` say which, for the search's note. A
search ended by its caller's ``stop`` (pbrain's YXSTOP) gives the guard ``STOP_S`` at most.

A verified line is a fact about the position, whatever budget found it, so the guard keeps the
last ``KNOWN_LINES`` of them by the Zobrist key of the position after the move: a later search
(a turn cut short by YXSTOP, the next turn's reused tree, ``Searcher.vct_cleared``) rejects that
move at once, with no check, where its own budget might not find the line again. A kept line is
replayed before it is used, so a key collision costs a check, never a wrong rejection.
"""

from __future__ import annotations

import time

from zeroplay.search.proof import verify_line

MIN_CHECK_S = 0.005
"""A check is not started with less time than this left (seconds): the move is played unchecked."""

GUARD_MAX_SHARE = 0.5
"""The most of a search's seconds ``vct_guard_min_seconds`` may take from its playouts."""

STOP_S = 0.1
"""The guard's time after a search its caller stopped (seconds): the answer is wanted now."""


KNOWN_LINES = 4096
"""The most verified VCT lines a guard keeps across searches (oldest dropped first)."""


class RootGuard:
    """One searcher's VCT guard (``Searcher.root_guard``); it shares the root VCT's solver.

    Attributes:
        enabled: the config and the game allow it (``vct_guard_nodes`` > 0, ``threat_solver``,
            a game with ``threat_space``).
        lost: ``{move: the opponent's verified winning line after it}`` of the last ``choose``,
            in the order checked.
        checked: moves checked by the last ``choose`` (started checks).
        checked_in_part: the move returned, when its check was cut short by the deadline.
        unchecked: the move returned, when the deadline left no time to check it.
        seconds: wall time of the last ``choose``.
        known: ``{Zobrist key of the position after a move: the opponent's verified winning
            line there}``, across searches (at most ``KNOWN_LINES``).
    """

    def __init__(self, game, config, solver):
        self.game = game
        self.enabled = (bool(config.threat_solver) and config.vct_guard_nodes > 0
                        and bool(getattr(game, "threat_space", False)))
        self.nodes = int(config.vct_guard_nodes)
        # the root VCT's pool size: one PNS tree for both (a new one costs 20 ms and 16-28 MiB)
        self.pool = min(max(2 * max(self.nodes, int(config.vct_root_nodes)), 1 << 14), 1 << 22)
        self.max_moves = int(config.vct_guard_moves)
        self.share = float(config.vct_guard_share)
        self._solver = solver  # () -> the ThreatSolver (created on first use)
        self.lost: dict[int, list[int]] = {}
        self.checked = 0
        self.checked_in_part: int | None = None
        self.unchecked: int | None = None
        self.seconds = 0.0
        self.known: dict[int, list[int]] = {}

    def choose(self, state, moves: list[int], deadline: float | None = None) -> int | None:
        """The first of ``moves`` (actions of ``state``, the search's choice first) after which
        the opponent has no VCT found within the budget (``vct_guard_nodes`` work units, and
        ``deadline``, a ``time.perf_counter()`` value); None when every move tried loses.

        At most ``max_moves`` moves are tried; a move that ends the game is taken at once. With
        under ``MIN_CHECK_S`` to the deadline, the next move is returned unchecked."""
        self.lost, self.checked, self.checked_in_part, self.unchecked = {}, 0, None, None
        t0 = time.perf_counter()
        try:
            solver = self._solver()
            for move in moves[: self.max_moves]:
                move = int(move)
                after = state.play(move)
                line = self.known.get(after.key, [])
                if line and not after.is_terminal and verify_line(after, "win", len(line), line):
                    self.lost[move] = line  # shown by an earlier search: no check, even with no time left
                    continue
                if solver.interrupted or (deadline is not None and time.perf_counter() + MIN_CHECK_S >= deadline):
                    self.unchecked = move  # not shown to lose, where those before it were
                    return move
                self.checked += 1
                if after.is_terminal:
                    return move
                r = solver.vct(after, nodes=self.nodes, method="pns", pool=self.pool, deadline=deadline)
                line = list(r.line) if r.found else []
                if line and verify_line(after, "win", len(line), line):
                    self.lost[move] = line
                    self._keep(after.key, line)
                    continue
                if not r.complete and r.nodes < self.nodes and (
                        solver.interrupted or (deadline is not None and time.perf_counter() >= deadline)):
                    self.checked_in_part = move
                return move
            return None
        finally:
            self.seconds = time.perf_counter() - t0

    def _keep(self, key: int, line: list[int]) -> None:
        self.known.pop(key, None)
        self.known[key] = line
        if len(self.known) > KNOWN_LINES:
            del self.known[next(iter(self.known))]

    def note(self, chosen: int, played: int) -> str | None:
        """What the last ``choose`` did, for the search's notes (None: nothing to say): the moves
        shown to lose, the first one's line, and the move played (``chosen``, the search's own
        choice, stays when every move checked lost); or that the time (or an interrupt) cut the
        check of ``chosen`` short or left it unchecked."""
        fmt = self.game.format_move
        if not self.lost:
            if chosen == self.unchecked:
                return f"VCT guard: {fmt(chosen)} not checked: the time was up"
            if chosen == self.checked_in_part:
                return f"VCT guard: {fmt(chosen)} checked in part: the time was up"
            return None
        lost = [fmt(m) for m in self.lost]
        first = self.lost[next(iter(self.lost))]
        line = " ".join(fmt(m) for m in first[:9]) + (" ..." if len(first) > 9 else "")
        who = lost[0] if len(lost) == 1 else ", ".join(lost[:-1]) + " and " + lost[-1]
        verb = "loses" if len(lost) == 1 else "lose"
        shown = f"VCT guard: {who} {verb} to a forced win by threats (VCT: {line})"
        if played not in self.lost:
            why = (" (not checked: the time was up)" if played == self.unchecked
                   else " (checked in part: the time was up)" if played == self.checked_in_part else "")
            return f"{shown}; {fmt(played)} instead{why}"
        return f"{shown}; every move checked loses, {fmt(chosen)} stays"
