"""The proof-number VCT at the root of a search, within a share of its budget.

After the root's VCF check found nothing (``vcf.check_root``), ``RootVct.run`` searches a win by
fours and threats for the side to move with the proof-number VCT of ``zeroplay solve gomoku
--vct --method pns`` (``ThreatSolver.vct(method="pns")``, docs/THREATS.md). Budgets double from
``FIRST_NODES`` up to ``SearchConfig.vct_root_nodes`` (work units: PNS expansions plus the nodes
of the VCF searches they run); with a time limit, the next doubling is not started when it would
end past ``vct_root_share`` of the search's seconds (a doubling costs about twice the last), and
a doubling under way stops there (``ThreatSolver.vct``'s deadline).
The VCF table is kept between doublings and searches, so a doubling redoes little.

A win found is replayed on real states (``proof.verify_line``: legal moves ending in the
mover's five) before the search trusts it; the search then stops and plays the line's first
move (``Searcher.result``: proven "win" at distance = the line's length, the line as the PV).
Only the main line is replayed: the defender's other replies are refuted inside the PNS, whose
soundness the solver's tests check against every reply (tests/search/test_vct_pns.py).
"""

from __future__ import annotations

import time

from zeroplay.search.proof import verify_line

FIRST_NODES = 10_000
"""Budget of the first VCT try (work units); doubled up to ``SearchConfig.vct_root_nodes``."""


class RootVct:
    """One search's root VCT (``Searcher.root_vct``); the solver and its tables live across searches.

    Attributes:
        line: the verified winning line of the last run (A, D, ..., A's five; actions), or None.
        work: work units spent by the last run (all doublings together).
        seconds: wall time of the last run.
    """

    def __init__(self, game, config):
        self.game = game
        self.enabled = (bool(config.threat_solver) and config.vct_root_nodes > 0
                        and bool(getattr(game, "threat_space", False)))
        self.nodes = int(config.vct_root_nodes)
        self.share = float(config.vct_root_share)
        self.table_mib = float(config.threat_solver_table_mib)
        self._solver = None
        self.line: list[int] | None = None
        self.work = 0
        self.seconds = 0.0

    def solver(self):
        """The ``ThreatSolver`` of this search's VCTs (the VCT guard's too), made on first use."""
        if self._solver is None:
            from zeroplay.solvers.threat_solver import ThreatSolver

            self._solver = ThreatSolver(self.game, table_mib=self.table_mib)
        return self._solver

    def interrupt(self) -> None:
        """From another thread: stop the VCT running now and those started until ``resume``
        (``ThreatSolver.interrupt``); the VCT guard's too, which shares the solver."""
        if self._solver is not None:
            self._solver.interrupt()

    def resume(self) -> None:
        """Undo ``interrupt``."""
        if self._solver is not None:
            self._solver.resume()

    def run(self, state, *, seconds: float | None, started: float) -> list[int] | None:
        """Search a VCT for ``state``'s side to move; returns (and keeps in ``line``) the verified
        winning line, or None.

        Args:
            state: the root State (not over).
            seconds: the search's time limit (None: only the node budget bounds the VCT).
            started: ``time.perf_counter()`` when the search started.
        """
        self.line, self.work, self.seconds = None, 0, 0.0
        if not self.enabled or state.is_terminal:
            return None
        solver = self.solver()
        t_start = time.perf_counter()
        deadline = started + self.share * seconds if seconds else None
        budget = min(FIRST_NODES, self.nodes)
        pool = min(max(2 * self.nodes, 1 << 14), 1 << 22)  # one tree for every doubling
        while True:
            t0 = time.perf_counter()
            r = solver.vct(state, nodes=budget, method="pns", pool=pool, deadline=deadline)
            self.work += r.nodes
            if r.found:
                line = list(r.line)
                if verify_line(state, "win", len(line), line):
                    self.line = line
                break
            now = time.perf_counter()
            if r.complete or budget >= self.nodes or solver.interrupted or \
                    (deadline is not None and now + 2 * (now - t0) > deadline):
                break
            budget = min(2 * budget, self.nodes)
        self.seconds = time.perf_counter() - t_start
        return self.line

