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

A verified line is a fact about the position, whatever budget found it, and a check that ran its
whole budget without finding one gives the same answer again, so the guard keeps both in a
``GuardMemory`` by the Zobrist key of the position after the move (the last ``KNOWN_LINES`` of
each): a later check of that position costs nothing and needs no time. A search long enough to
afford it checks its leading moves while it runs (``precheck``, from ``Searcher.search``: one
tenth of its time at most), so that a search its caller stops (YXSTOP after seconds of analysis) does not
meet an unchecked second choice with ``STOP_S`` left. A kept line is replayed before it is used,
so a key collision costs a check, never a wrong rejection. Front-ends that rebuild their searcher
(pbrain on a new ``max_memory`` or rule) hand the memory on (``RootGuard.memory``).

A check that finds nothing proves nothing past its budget, so time is spent on a deeper one: a
move that passed is checked again with twice the budget the memory holds for it, up to
``DEEP_FACTOR`` times ``vct_guard_nodes``, when it looks to fit at the guard's measured seconds
per work unit (``unit_s``) in the time left of a timed search; an untimed search of at least
``UNTIMED_DEEP_PLAYOUTS`` playouts always checks deeper, by work alone, so that its choice stays
a function of the position (``Searcher._guard``; none after a stop). Long searches do the same
for their leading moves within their share of checks. A check that ended before its budget did
(no VCT within the solver's limits, or its tree full) is not repeated.
"""

from __future__ import annotations

import math
import time

from zeroplay.search.proof import verify_line

MIN_CHECK_S = 0.005
"""A check is not started with less time than this left (seconds): the move is played unchecked."""

GUARD_MAX_SHARE = 0.75
"""The most of a search's seconds ``vct_guard_min_seconds`` may take from its playouts. In a
search of under 0.3 s the playouts are the root's and a round or two, and the search's choice
is mostly the net's prior; game 79's losing d8 needs 10,400 work units, 0.05-0.2 s (at 0.5, a
0.14 s search checked it in 1 of 2 tries; pbrain's 300 ms turns played d8 in most fresh tries)."""

STOP_S = 0.2
"""The guard's time after a search its caller stopped (seconds): the answer is wanted now. A
losing line of 10,000 work units (game 79's d8) takes 0.05 s on an idle core and 0.1-0.2 s on
a loaded one; at 0.1 s a stop in a search's first second played d8 "checked in part"."""


KNOWN_LINES = 4096
"""The most positions a ``GuardMemory`` keeps of each kind (oldest dropped first)."""

PRECHECK_AFTER_S = 1.0
"""Seconds into a search before it checks its leading moves (``RootGuard.precheck``): a shorter
search leaves them to the guard at its end."""

PRECHECK_SHARE = 0.1
"""The most of a search's time so far its checks of leading moves may have taken."""

QUICK_SHARE = 0.25
"""A leading move's first check during a search: this share of the guard's work budget. The
losing lines of game 79 took 8,300-10,400 units of the 50,000; a whole check that finds
nothing, 0.3 s unloaded."""

PRECHECK_MOVES = 3
"""How many of the most visited moves ``precheck`` looks at."""

DEEP_FACTOR = 2
"""A move that passed its check is checked again with this many times the work budget when the
time allows (``RootGuard.deep_nodes``): game 79's g5, which the guard traded d8 for, loses to an
11-ply VCT that takes 70,500 units, past the default 50,000. The proof-number tree fills at
about half as many work units as it has nodes, so the pool is sized for the deeper budget."""

UNTIMED_DEEP_PLAYOUTS = 400
"""A search without a time limit (a playout budget) of at least this many playouts checks the
move it plays deeper, by work alone (no deadline), so that its choice does not depend on the
machine's speed and an arena's games with deterministic players replay. A 50,000-unit check runs
its whole budget after 28 % of the moves of the guard's head-to-head games (58 of 204 sampled);
the deeper check then costs 0.5-0.9 s, against 1-3 s for 800 playouts of the 15x15 model."""

UNIT_S = 1e-5
"""A first guess of one work unit's seconds (6.5-9.5 us on an idle core, 15x15), until the
guard's own checks have timed some (``RootGuard.unit_s``)."""


class GuardMemory:
    """What VCT guard checks found, across searches, by the Zobrist key of the position after the
    move (the opponent to move): ``lost`` holds the opponent's verified winning line there,
    ``clear`` the work budget of a check that ran it all and found none. At most ``KNOWN_LINES``
    positions each; a game's positions only (one memory per game)."""

    def __init__(self) -> None:
        self.lost: dict[int, list[int]] = {}
        self.clear: dict[int, int] = {}

    @staticmethod
    def _put(table: dict, key: int, value) -> None:
        table.pop(key, None)
        table[key] = value
        if len(table) > KNOWN_LINES:
            del table[next(iter(table))]

    def keep_lost(self, key: int, line: list[int]) -> None:
        self._put(self.lost, key, list(line))
        self.clear.pop(key, None)

    def keep_clear(self, key: int, nodes: int) -> None:
        self._put(self.clear, key, max(int(nodes), self.clear.get(key, 0)))


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
        memory: the ``GuardMemory`` its checks read and add to, across searches.
    """

    def __init__(self, game, config, solver):
        self.game = game
        self.enabled = (bool(config.threat_solver) and config.vct_guard_nodes > 0
                        and bool(getattr(game, "threat_space", False)))
        self.nodes = int(config.vct_guard_nodes)
        self.deep_nodes = DEEP_FACTOR * self.nodes
        # the root VCT's pool size: one PNS tree for both (a new one costs 20 ms and 16-28 MiB)
        self.pool = min(max(2 * max(self.deep_nodes, int(config.vct_root_nodes)), 1 << 14), 1 << 22)
        self.unit_s = UNIT_S
        self.max_moves = int(config.vct_guard_moves)
        self.share = float(config.vct_guard_share)
        self._solver = solver  # () -> the ThreatSolver (created on first use)
        self.lost: dict[int, list[int]] = {}
        self.checked = 0
        self.checked_in_part: int | None = None
        self.unchecked: int | None = None
        self.seconds = 0.0
        self.memory = GuardMemory()
        self._search_started = 0.0
        self._precheck_spent = 0.0
        self._quick_checked: set[int] = set()

    def choose(self, state, moves: list[int], deadline: float | None = None,
               deep_until: float | None = None) -> int | None:
        """The first of ``moves`` (actions of ``state``, the search's choice first) after which
        the opponent has no VCT found within the budget (``vct_guard_nodes`` work units, and
        ``deadline``, a ``time.perf_counter()`` value); None when every move tried loses.

        At most ``max_moves`` moves are tried; a move that ends the game is taken at once. With
        under ``MIN_CHECK_S`` to the deadline, the next move is returned unchecked. Until
        ``deep_until`` (a ``time.perf_counter()`` value; None: never; ``math.inf``: always, by
        work alone), a move that passed is checked again within ``deep_nodes`` when the time
        left looks enough for it (``unit_s``), and a line found then rejects it too."""
        self.lost, self.checked, self.checked_in_part, self.unchecked = {}, 0, None, None
        t0 = time.perf_counter()
        try:
            solver = self._solver()
            for move in moves[: self.max_moves]:
                move = int(move)
                after = state.play(move)
                known = self.known(after)
                if known == "clear":  # a whole check found nothing here before: the same again
                    deep = self._deepen(solver, after, deep_until)
                    if deep is None:
                        return move
                    self.lost[move] = deep
                    continue
                if isinstance(known, list):
                    self.lost[move] = known  # shown by an earlier check: none now, even with no time left
                    continue
                if solver.interrupted or (deadline is not None and time.perf_counter() + MIN_CHECK_S >= deadline):
                    self.unchecked = move  # not shown to lose, where those before it were
                    return move
                self.checked += 1
                if after.is_terminal:
                    return move
                found = self._check(solver, after, deadline)
                if found == "clear":
                    found = self._deepen(solver, after, deep_until) or found
                if isinstance(found, list):
                    self.lost[move] = found
                    continue
                if found == "cut":
                    self.checked_in_part = move
                return move
            return None
        finally:
            self.seconds = time.perf_counter() - t0

    def precheck(self, state, moves: list[int], deadline: float) -> None:
        """During a search (``Searcher.search``, when ``precheck_due``): one check of a leading
        move (``moves``, the most visited, at most ``PRECHECK_MOVES`` of them) that ``memory``
        does not settle, stopping at ``deadline`` (a ``time.perf_counter()`` value). Each gets a
        quick check first (``QUICK_SHARE`` of the budget: the guard's losing lines are mostly
        short, and a whole check that finds nothing costs 5-10 times as much), then, once they
        all had one, a whole check. What a check settles goes to ``memory`` for ``choose``;
        none of ``choose``'s attributes change."""
        t0 = time.perf_counter()
        if deadline - t0 < 4 * MIN_CHECK_S:
            return
        solver = self._solver()
        try:
            open_, passed = [], []
            for move in moves[:PRECHECK_MOVES]:
                after = state.play(int(move))
                known = None if after.is_terminal else self.known(after)
                if known is None and not after.is_terminal:
                    open_.append(after)
                elif known == "clear" and self.memory.clear.get(after.key, 0) < self.deep_nodes:
                    passed.append(after)
            quick = next((a for a in open_ if a.key not in self._quick_checked), None)
            if solver.interrupted:
                return
            if quick is not None:
                self._quick_checked.add(quick.key)
                self._check(solver, quick, deadline, nodes=max(1, int(self.nodes * QUICK_SHARE)))
            elif open_:
                self._check(solver, open_[0], deadline)
            elif passed:
                # the deeper check only where this search's share of checks can pay for it
                allowed = PRECHECK_SHARE * (t0 - self._search_started) - self._precheck_spent
                self._deepen(solver, passed[0], min(deadline, t0 + max(allowed, 0.0)))
        finally:
            self._precheck_spent += time.perf_counter() - t0

    def precheck_due(self) -> bool:
        """Whether the search may check a leading move now: ``PRECHECK_AFTER_S`` into it, and
        its checks so far under ``PRECHECK_SHARE`` of its time."""
        elapsed = time.perf_counter() - self._search_started
        return elapsed >= PRECHECK_AFTER_S and self._precheck_spent <= PRECHECK_SHARE * elapsed

    def start_search(self) -> None:
        """A search begins (``Searcher.start``): the clock of ``precheck_due``."""
        self._search_started = time.perf_counter()
        self._precheck_spent = 0.0
        self._quick_checked = set()

    def known(self, after) -> list[int] | str | None:
        """``memory``'s answer for the position ``after`` a move: the opponent's line (replayed
        on real states), "clear" (a whole check at this budget or more found none), or None."""
        line = self.memory.lost.get(after.key)
        if line and not after.is_terminal and verify_line(after, "win", len(line), line):
            return line
        if self.memory.clear.get(after.key, -1) >= self.nodes:
            return "clear"
        return None

    def _check(self, solver, after, deadline: float | None, nodes: int | None = None) -> list[int] | str:
        """One check of the position ``after`` a move within ``nodes`` work units (default the
        guard's budget, at most ``deep_nodes``): the opponent's verified line, "clear" (none
        within at least the guard's budget, or the search ended before its budget did), or
        "cut" (the deadline, an interrupt or a ``nodes`` under the guard's budget stopped it
        first). A line, and "clear" with the budget it held for, go to ``memory``."""
        budget = self.nodes if nodes is None else min(nodes, self.deep_nodes)
        t0 = time.perf_counter()
        r = solver.vct(after, nodes=budget, method="pns", pool=self.pool, deadline=deadline)
        if r.nodes >= 1000:
            self.unit_s = (time.perf_counter() - t0) / r.nodes
        line = list(r.line) if r.found else []
        if line and verify_line(after, "win", len(line), line):
            self.memory.keep_lost(after.key, line)
            return line
        stopped = solver.interrupted or (deadline is not None and time.perf_counter() >= deadline)
        if r.complete or (r.nodes < budget and not stopped):
            # not the budget ended it (no VCT within the limits, or the pool filled): a larger
            # budget would find nothing more
            self.memory.keep_clear(after.key, self.deep_nodes)
            return "clear"
        if r.nodes < budget or budget < self.nodes:
            return "cut"
        self.memory.keep_clear(after.key, budget)
        return "clear"

    def _deepen(self, solver, after, until: float | None) -> list[int] | None:
        """After ``after`` passed a check: checks again with twice the budget ``memory`` holds
        for it, up to ``deep_nodes``, while each looks to fit before ``until`` at ``unit_s``
        (None: no check; ``math.inf``: each check by work alone, whatever it takes). The
        opponent's verified line, or None."""
        while until is not None and not solver.interrupted:
            held = self.memory.clear.get(after.key, 0)
            budget = min(2 * max(held, self.nodes // 2), self.deep_nodes)
            if held >= self.deep_nodes or time.perf_counter() + budget * self.unit_s > until:
                return None
            found = self._check(solver, after, None if until == math.inf else until, nodes=budget)
            if isinstance(found, list):
                return found
            if found == "cut":
                return None
        return None

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
