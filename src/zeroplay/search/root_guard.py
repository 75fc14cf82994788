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

With a time limit the search's playouts stop at ``1 - vct_guard_share`` of it and the guard gets
the rest; a check is not started when the longest one so far would end past the limit, and the
move it would have checked is played (those before it were shown to lose, it was not). A check
is bounded by its work budget, not by time: the first one can end past the limit by its own
length (0.03-0.2 s at the 50,000 of play on 15x15).
"""

from __future__ import annotations

import time

from zeroplay.search.proof import verify_line


class RootGuard:
    """One searcher's VCT guard (``Searcher.root_guard``); it shares the root VCT's solver.

    Attributes:
        enabled: the config and the game allow it (``vct_guard_nodes`` > 0, ``threat_solver``,
            a game with ``threat_space``).
        lost: ``{move: the opponent's verified winning line after it}`` of the last ``choose``.
        checked: moves checked by the last ``choose``.
        seconds: wall time of the last ``choose``.
    """

    def __init__(self, game, config, solver):
        self.game = game
        self.enabled = (bool(config.threat_solver) and config.vct_guard_nodes > 0
                        and bool(getattr(game, "threat_space", False)))
        self.nodes = int(config.vct_guard_nodes)
        self.max_moves = int(config.vct_guard_moves)
        self.share = float(config.vct_guard_share)
        self._solver = solver  # () -> the ThreatSolver (created on first use)
        self.lost: dict[int, list[int]] = {}
        self.checked = 0
        self.seconds = 0.0

    def choose(self, state, moves: list[int], deadline: float | None = None) -> int | None:
        """The first of ``moves`` (actions of ``state``, the search's choice first) after which
        the opponent has no VCT found within the budget; at the deadline (a
        ``time.perf_counter()`` value), the first move not checked (none before it was cleared,
        and it is not shown to lose); None when every move tried loses.

        At most ``max_moves`` moves are tried; a move that ends the game is taken at once."""
        self.lost, self.checked = {}, 0
        t0 = time.perf_counter()
        pool = min(max(2 * self.nodes, 1 << 14), 1 << 22)
        longest = 0.0  # the longest check so far: the next one is not started unless it fits
        try:
            for move in moves[: self.max_moves]:
                if deadline is not None and time.perf_counter() + longest >= deadline:
                    return int(move)  # not shown to lose, where those before it were
                after = state.play(int(move))
                self.checked += 1
                if after.is_terminal:
                    return int(move)
                started = time.perf_counter()
                r = self._solver().vct(after, nodes=self.nodes, method="pns", pool=pool)
                longest = max(longest, time.perf_counter() - started)
                line = list(r.line) if r.found else []
                if line and verify_line(after, "win", len(line), line):
                    self.lost[int(move)] = line
                    continue
                return int(move)
            return None
        finally:
            self.seconds = time.perf_counter() - t0
