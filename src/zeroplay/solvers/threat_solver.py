"""Gomoku threat solver: VCF (victory by continuous fours) and optional VCT for the side to move.

``ThreatSolver(game).vcf(state)`` searches a forced win by fours for the side to move and
returns a ``ThreatResult``: the winning line (attacker and defender moves alternating, ending
with the attacker's five) or "none found" within a node budget. The search itself is compiled
(``vcf_kernels``); its table is the alpha-beta table of ``zeroplay.tt.ab_table``.

``ThreatSolver.vct(state)`` (threes allowed, behind a flag in the CLI) searches wins whose
attacking moves are fours or *threats*: moves after which the attacker, were the defender to
pass, would win by VCF. See ``ThreatSolver.vct`` for the defender's replies and why they are a
sound superset. The proof-number variant runs in ``pns_kernels``.

A line is checked on real states by ``solvers.vcf_check.check_vcf_line``; the MCTS uses the
compiled kernels through its adapter ``zeroplay.search.threats``. See docs/THREATS.md.

Coordinates and players follow shared/README.md: cells ``y * width + x``, player 0 = Black.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from zeroplay.solvers.pns_kernels import (
    F_DOUBLE,
    F_FIVE,
    F_LINK,
    F_VCF,
    F_ZONE,
    K_BUDGET,
    K_EAGER_NODES,
    K_MAX_PLIES,
    K_MAX_THREATS,
    K_NODES,
    K_QUIET,
    K_RANK_WEIGHT,
    K_STOP,
    K_THREAT_NODES,
    K_VCF_NODES,
    K_WIDE,
    K_ZONE,
    PASS,
    ROOT,
    new_pns_tree,
    pns_search,
)
from zeroplay.solvers.vcf_kernels import (
    ABORTED,
    C_BUDGET,
    C_MAX_PLIES,
    C_NODES,
    C_QUIET,
    C_THREAT_NODES,
    C_VCF_NODES,
    C_WIDE,
    FOUND,
    MAX_PLIES,
    NOT_FOUND,
    new_vcf_work,
    new_vct_work,
    vcf_search,
    vct_node,
)
from zeroplay.tt.ab_table import ab_clear, new_ab_table

DEFAULT_NODES = 200_000
"""Default node budget (A nodes) of ``ThreatSolver.vcf`` and the ``solve`` command."""

PNS_THREATS = 4
"""Default non-four threats on a line of the proof-number VCT."""
PNS_VCF_NODES = 1_000
"""Default budget of the VCF tried at each OR node of the proof-number VCT."""
PNS_THREAT_NODES = 1_000
"""Default budget of the VCF that tests a threat (the defender passes) in the proof-number VCT."""
PNS_MAX_POOL = 1 << 22
"""Most tree nodes of the proof-number VCT (42 bytes each: 176 MB at most)."""
PNS_LEVEL_SHARE = 8
"""While deepening on the threats, each level but the last may spend 1 / this of the budget."""
PNS_LINE_VCF_NODES = 2_000_000
"""Budget of the VCF re-searched at a VCF leaf when the main line is written out."""


@dataclass(frozen=True)
class ThreatResult:
    """What a threat search returns.

    Attributes:
        found: a forced win was found for ``attacker`` (the side to move).
        line: actions A, D, A, D, ..., A's five (empty when not found). For a VCF every D move
            is forced; for a VCT it is the main line, one defence among those refuted.
        attacker: the side to move, 0 (Black) or 1 (White).
        nodes: attacker nodes searched.
        seconds: wall time.
        complete: False when the node budget ran out. For a VCF, ``found=False, complete=True``
            proves that no VCF of at most ``max_plies`` plies exists; a VCT's "not found" proves
            nothing (its inner searches have budgets of their own).
        kind: "vcf" or "vct".
    """

    found: bool
    line: tuple[int, ...]
    attacker: int
    nodes: int
    seconds: float
    complete: bool
    kind: str = "vcf"

    @property
    def distance(self) -> int | None:
        """Plies to the win (the line's length), None when not found."""
        return len(self.line) if self.found else None



def _raise_stop(counters) -> None:
    """A VCT deadline's timer: the running ``pns_search`` returns ABORTED at its next descent."""
    counters[K_STOP] = 1

class ThreatSolver:
    """VCF / VCT search on one Gomoku game (board size, n, rule fixed), with its own table.

    Args:
        game: a Gomoku Game (``zeroplay.games.make("gomoku", ...)``).
        table_mib: size of the alpha-beta table in MiB (kept between searches; ``clear()``
            empties it).

    Raises:
        ValueError: a game that is not of the Gomoku family.
    """

    def __init__(self, game, *, table_mib: float = 16.0):
        if not getattr(game, "threat_space", False):
            raise ValueError(f"the threat solver plays Gomoku, not {game!r}")
        self.game = game
        self.table = new_ab_table(table_mib)
        self.work = new_vcf_work(game.width, game.height, game.n_in_row)
        # made on first use: most solvers never run a VCT
        self._vct_work: Any = None  # VctWork
        self._pns: Any = None  # PnsTree
        self._pns_root: Any = None
        self.interrupted = False  # set by ``interrupt`` (another thread), cleared by ``resume``

    def clear(self) -> None:
        """Empty the table."""
        ab_clear(self.table)

    def interrupt(self) -> None:
        """Stop the proof-number VCT running now (from another thread: it returns not found,
        ``complete`` False, at its next descent), and every one started until ``resume``: e.g.
        pbrain's YXSTOP, which wants the move at once."""
        self.interrupted = True
        tree = self._pns
        if tree is not None:
            tree.counters[K_STOP] = 1

    def resume(self) -> None:
        """Undo ``interrupt``: the next proof-number VCT runs."""
        self.interrupted = False

    def vcf(self, state, *, nodes: int = DEFAULT_NODES, max_plies: int = MAX_PLIES,
            shortest: bool = False) -> ThreatResult:
        """Search a VCF for ``state``'s side to move.

        Args:
            state: a Gomoku State of this solver's game.
            nodes: budget of attacker nodes.
            max_plies: longest line searched (both sides' plies, the five included), <= 255.
            shortest: iterative deepening (max_plies 1, 3, 5, ...): the line found is a shortest
                VCF, at the cost of re-searching the shallower depths.

        Returns:
            ThreatResult (kind "vcf").
        """
        self._check(state)
        t0 = time.perf_counter()
        a = state.to_play
        if state.is_terminal:
            return ThreatResult(False, (), a, 0, time.perf_counter() - t0, True)
        pos = state.fast()
        depths = range(1, max_plies + 1, 2) if shortest else (max_plies,)
        total = 0
        outcome, length = NOT_FOUND, 0
        for depth in depths:
            outcome, length, used = vcf_search(self.game.params, self.game.zkeys, pos.board, pos.info, pos.stack,
                                               pos.aux, self.work, self.table, depth, nodes - total)
            total += int(used)
            if outcome != NOT_FOUND:
                break
        line = tuple(int(m) for m in self.work.line[:length]) if outcome == FOUND else ()
        return ThreatResult(outcome == FOUND, line, a, min(total, nodes), time.perf_counter() - t0,
                            outcome != ABORTED)

    def vct(self, state, *, nodes: int = DEFAULT_NODES, threats: int | None = None, vcf_nodes: int | None = None,
            threat_nodes: int | None = None, max_plies: int = MAX_PLIES, wide: bool = False,
            quiet: bool = True, deepen: bool = True, method: str = "ab",
            pool: int | None = None, eager_nodes: int = 200,
            rank_weight: int = 4, zone: bool = True, deadline: float | None = None) -> ThreatResult:
        """Search a win by fours and threats for ``state``'s side to move (VCT).

        ``method="ab"`` (the default): the depth-first search with iterative deepening on the
        threats (``vcf_kernels.vct_node``; defaults threats=2, vcf_nodes=2000, threat_nodes=500).
        ``method="pns"``: a proof-number search over threat sequences (``pns_kernels``;
        docs/THREATS.md; defaults ``threats=PNS_THREATS``, ``vcf_nodes=PNS_VCF_NODES``,
        ``threat_nodes=PNS_THREAT_NODES``), also deepening on the threats; ``pool`` is the
        tree's node capacity (default ``2 * nodes``, at most ``PNS_MAX_POOL``; the search stops
        when it is full), each deepening level but the last gets ``nodes // PNS_LEVEL_SHARE``,
        ``eager_nodes`` the VCF budget that settles each new defender reply at once (0: off),
        ``rank_weight`` how much a candidate's rank in the move order adds to its initial proof
        number, ``zone`` whether the defender's free moves are answered by the zone of the
        proof after its pass (replies outside it settled at once; docs/THREATS.md). After a PNS
        win, ``proof()`` returns the proof tree.

        A *threat* is a non-four move after which the attacker, were the defender to pass, would
        win by VCF (an open three, a broken three, a four-three setup, ...). The defender's
        replies to a threat are every cell of that VCF and every cell where the defender makes a
        four anywhere along it (``vcf_kernels.threat_defences``): a sound superset, since any
        other reply leaves that VCF winning. Every reply must lose to a VCT with one threat less;
        fours do not count (a run of fours is one move, as in the puzzles' "win in 3").

        Args:
            state: a Gomoku State of this solver's game.
            nodes: budget over the whole search (VCT nodes plus the nodes of the VCF searches).
            threats: non-four threats allowed on a line.
            vcf_nodes: budget of the VCF tried first at each VCT node.
            threat_nodes: budget of the VCF that tests whether a move is a threat.
            max_plies: longest VCF line looked for.
            deadline: a ``time.perf_counter()`` value (``method="pns"`` only; ``interrupt``
                stops it as well): the search stops
                there as if its budget were spent (not found, ``complete`` False); a timer
                thread sets the kernel's stop flag, which it reads at each descent (a descent's
                VCF searches are bounded by ``vcf_nodes`` / ``threat_nodes``: well under a
                millisecond late on 15x15). Already past: nothing is searched.

        Returns:
            ThreatResult (kind "vct"); ``line`` is the main line: for each threat, the reply
            with the longest line below it.

        Raises:
            ValueError: an unknown ``method``, or a ``deadline`` with ``method="ab"``.
        """
        if method == "pns":
            return self._vct_pns(state, nodes=nodes, threats=PNS_THREATS if threats is None else threats,
                                 vcf_nodes=PNS_VCF_NODES if vcf_nodes is None else vcf_nodes,
                                 threat_nodes=PNS_THREAT_NODES if threat_nodes is None else threat_nodes,
                                 max_plies=max_plies, wide=wide, quiet=quiet, pool=pool, deepen=deepen,
                                 eager_nodes=eager_nodes, rank_weight=rank_weight, zone=zone,
                                 deadline=deadline)
        if method != "ab":
            raise ValueError(f"method must be 'pns' or 'ab', not {method!r}")
        if deadline is not None:
            raise ValueError("a VCT deadline needs method='pns' (the depth-first VCT has no stop flag)")
        threats = 2 if threats is None else threats
        vcf_nodes = 2_000 if vcf_nodes is None else vcf_nodes
        threat_nodes = 500 if threat_nodes is None else threat_nodes
        t0, a, done = self._vct_start(state)
        if done is not None:
            return done
        vw = self._vct_work
        vw.counters[:] = 0
        vw.counters[C_BUDGET] = nodes
        vw.counters[C_VCF_NODES] = vcf_nodes
        vw.counters[C_THREAT_NODES] = threat_nodes
        vw.counters[C_MAX_PLIES] = min(max_plies, MAX_PLIES)
        vw.counters[C_WIDE] = int(wide)
        vw.counters[C_QUIET] = int(quiet)
        pos = state.fast()
        outcome = NOT_FOUND
        for k in range(1, threats + 1) if deepen and threats >= 1 else (threats,):
            # iterative deepening on the threats: the cheap wins first, the table keeps the rest
            outcome = vct_node(self.game.params, self.game.zkeys, pos.board, pos.info, pos.stack, pos.aux,
                               self.work, vw, self.table, 0, k)
            if outcome != NOT_FOUND:
                break
        line = tuple(int(m) for m in vw.lines[0, : vw.line_len[0]]) if outcome == FOUND else ()
        return ThreatResult(outcome == FOUND, line, a, int(min(vw.counters[C_NODES], nodes)),
                            time.perf_counter() - t0, outcome != ABORTED, "vct")

    def _vct_start(self, state) -> tuple[float, int, ThreatResult | None]:
        """``(t0, attacker, result)`` at the start of a VCT: the result (not found) only when
        ``state`` is over; the VCT work arrays are made on first use."""
        self._check(state)
        t0 = time.perf_counter()
        if state.is_terminal:
            return t0, state.to_play, ThreatResult(False, (), state.to_play, 0, time.perf_counter() - t0, True, "vct")
        if self._vct_work is None:
            self._vct_work = new_vct_work(self.game.width, self.game.height)
        return t0, state.to_play, None

    def _vct_pns(self, state, *, nodes, threats, vcf_nodes, threat_nodes, max_plies, wide, quiet, deepen,
                 eager_nodes, rank_weight, pool, zone, deadline) -> ThreatResult:
        t0, a, done = self._vct_start(state)
        if done is not None:
            return done
        if deadline is not None and deadline <= t0:
            return ThreatResult(False, (), a, 0, time.perf_counter() - t0, False, "vct")
        capacity = int(pool) if pool else int(min(max(2 * nodes, 1 << 14), PNS_MAX_POOL))
        if self._pns is None or self._pns.pn.shape[0] != capacity:
            self._pns = new_pns_tree(capacity, self.game.cells)
        tree = self._pns
        c = tree.counters
        c[K_STOP] = 0
        if self.interrupted:  # read after the reset: an interrupt from now on sets the flag again
            return ThreatResult(False, (), a, 0, time.perf_counter() - t0, False, "vct")
        timer = None
        if deadline is not None:
            timer = threading.Timer(max(deadline - time.perf_counter(), 0.0), _raise_stop, (c,))
            timer.daemon = True
            timer.start()
        try:
            outcome, spent = self._pns_levels(state, tree, nodes, threats, vcf_nodes, threat_nodes, max_plies,
                                              wide, quiet, deepen, eager_nodes, rank_weight, zone)
        finally:
            if timer is not None:
                timer.cancel()
        c[K_NODES] = spent
        self._pns_root = state if outcome == FOUND else None
        line = tuple(self._pns_line(state)) if outcome == FOUND else ()
        return ThreatResult(outcome == FOUND, line, a, int(min(c[K_NODES], nodes)), time.perf_counter() - t0,
                            outcome != ABORTED, "vct")

    def _pns_levels(self, state, tree, nodes, threats, vcf_nodes, threat_nodes, max_plies, wide, quiet, deepen,
                    eager_nodes, rank_weight, zone) -> tuple[int, int]:
        """The PNS's deepening levels: (outcome, work spent)."""
        c = tree.counters
        pos = state.fast()
        spent = 0
        outcome = NOT_FOUND
        for k in range(min(1, threats), threats + 1) if deepen else (threats,):
            # iterative deepening on the threats: the cheap wins first, each level but the last
            # within 1 / PNS_LEVEL_SHARE of the budget (a level without a proof can spend any
            # budget: the free moves of one threat less are searched just as widely)
            c[:K_STOP] = 0  # not the stop flag: a deadline's timer may have set it
            if c[K_STOP]:
                outcome = ABORTED
                break
            c[K_BUDGET] = nodes - spent if k == threats else min(nodes - spent, nodes // PNS_LEVEL_SHARE)
            c[K_VCF_NODES] = vcf_nodes
            c[K_THREAT_NODES] = threat_nodes
            c[K_MAX_THREATS] = k
            c[K_MAX_PLIES] = min(max_plies, MAX_PLIES)
            c[K_WIDE] = int(wide)
            c[K_QUIET] = int(quiet)
            c[K_EAGER_NODES] = eager_nodes
            c[K_RANK_WEIGHT] = rank_weight
            c[K_ZONE] = int(zone)  # bool, or 2 (a deliberately unsound zone, for the tests)
            outcome = pns_search(self.game.params, self.game.zkeys, pos.board, pos.info, pos.stack, pos.aux,
                                 self.work, self._vct_work, self.table, tree)
            spent += int(c[K_NODES])
            if outcome == FOUND or (outcome == ABORTED and (k == threats or spent >= nodes or c[K_STOP])):
                break
        return outcome, spent

    def _pns_line(self, state) -> list[int]:
        """The main line of the last PNS proof: A's proven move at each OR node, D's first reply
        at each AND node, down to a five, a VCF (searched again) or an open / double four."""
        t = self._pns
        line: list[int] = []
        s = state
        n, is_or = ROOT, True
        while True:
            while t.flags[n] & (F_LINK | F_ZONE):
                n = int(t.link[n])
            f = int(t.flags[n])
            if is_or and f & F_FIVE:
                return line + [int(s.winning_moves(s.to_play)[0])]
            if is_or and f & F_VCF:
                r = self.vcf(s, nodes=PNS_LINE_VCF_NODES)
                return line + list(r.line)
            if not is_or and f & F_DOUBLE:
                w = [int(c) for c in s.winning_moves(1 - s.to_play)]
                return line + w[:2]
            first, k = int(t.first[n]), int(t.count[n])
            kids = [i for i in range(first, first + k) if t.pn[i] == 0 and t.move[i] != PASS]
            if not kids:
                return line  # cannot happen on a proven tree; the caller's replay would fail
            n = kids[0]
            m = int(t.move[n])
            line.append(m)
            s = s.play(m)
            is_or = not is_or

    def proof(self):
        """The proof tree of the last successful ``vct`` (method "pns"), for independent checks.

        Returns:
            None when the last VCT found nothing, else a nested tuple from the root (A to
            move): at A's nodes ``("five",)``, ``("vcf",)`` (a VCF from there) or
            ``("move", m, and_node)``; at D's nodes ``("double",)`` (A has two winning cells)
            or ``("replies", {reply: or_node, ...})``: the replies the search refuted (every other
            D move is claimed to lose to the threat's VCF, or to the five when A has a four).
        """
        if getattr(self, "_pns_root", None) is None:
            return None
        t = self._pns

        def walk(n, is_or):
            while t.flags[n] & (F_LINK | F_ZONE):
                n = int(t.link[n])  # a zone child: the pass proof, played with the reply on the board
            f = int(t.flags[n])
            if is_or:
                if f & F_FIVE:
                    return ("five",)
                if f & F_VCF:
                    return ("vcf",)
                first, k = int(t.first[n]), int(t.count[n])
                c = next(i for i in range(first, first + k) if t.pn[i] == 0)
                return ("move", int(t.move[c]), walk(c, False))
            if f & F_DOUBLE:
                return ("double",)
            first, k = int(t.first[n]), int(t.count[n])
            return ("replies", {int(t.move[i]): walk(i, True) for i in range(first, first + k)
                                if t.move[i] != PASS})

        return walk(ROOT, True)

    def _check(self, state) -> None:
        if state.game != self.game:
            raise ValueError(f"this solver plays {self.game!r}, not {state.game!r}")


def solve_vcf(state, *, nodes: int = DEFAULT_NODES, max_plies: int = MAX_PLIES, shortest: bool = False,
              table_mib: float = 16.0) -> ThreatResult:
    """``ThreatSolver(state.game).vcf(state, ...)`` with a fresh table."""
    return ThreatSolver(state.game, table_mib=table_mib).vcf(state, nodes=nodes, max_plies=max_plies,
                                                              shortest=shortest)
