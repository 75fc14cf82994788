"""Gomoku threat solver: VCF (victory by continuous fours), optional VCT, and its MCTS hook.

``ThreatSolver(game).vcf(state)`` searches a forced win by fours for the side to move and
returns a ``ThreatResult``: the winning line (attacker and defender moves alternating, ending
with the attacker's five) or "none found" within a node budget. The search itself is compiled
(``vcf_kernels``); its table is the alpha-beta table of ``zeroplay.tt.ab_table``.

``ThreatSolver.vct(state)`` (threes allowed, behind a flag in the CLI) searches wins whose
attacking moves are fours or *threats*: moves after which the attacker, were the defender to
pass, would win by VCF. See ``ThreatSolver.vct`` for the defender's replies and why they are a
sound superset.

MCTS: with ``SearchConfig(threat_solver=True)`` the search calls ``vcf_leaf`` on every newly
expanded node (small budget) and ``check_root`` on the root once per search (larger budget);
``vcf_node`` marks a node a proven win (a VCF for its side to move) or a proven loss (its only
move, a forced block, leaves the opponent a VCF) at distance = the line's length, and keeps the
line in ``ThreatArrays`` so that ``proof_tail`` can append it to the proof line that
``search.proof.verify_line`` replays before the result is reported. See docs/THREATS.md.

Coordinates and players follow shared/README.md: cells ``y * width + x``, player 0 = Black.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from zeroplay.games.gomoku.kernels import apply_move_tracked, undo_move_tracked
from zeroplay.games.layout import I_KEY, I_TERMINAL, I_TO_PLAY
from zeroplay.games.gomoku.layout import I_NWIN0
from zeroplay.search.pns_kernels import (
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
    K_THREAT_NODES,
    K_VCF_NODES,
    K_WIDE,
    K_ZONE,
    PASS,
    ROOT,
    new_pns_tree,
    pns_search,
)
from zeroplay.search.vcf_kernels import (
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
    VcfWork,
    first_win_cell,
    new_vcf_work,
    new_vct_work,
    vcf_search,
    vct_node,
)
from zeroplay.tt.ab_table import ABTable, ab_clear, new_ab_table

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
        self._vct_work = None
        self._pns = None
        self._pns_root = None

    def clear(self) -> None:
        """Empty the table."""
        ab_clear(self.table)

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
            rank_weight: int = 4, zone: bool = True) -> ThreatResult:
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

        Returns:
            ThreatResult (kind "vct"); ``line`` is the main line: for each threat, the reply
            with the longest line below it.
        """
        if method == "pns":
            return self._vct_pns(state, nodes=nodes, threats=PNS_THREATS if threats is None else threats,
                                 vcf_nodes=PNS_VCF_NODES if vcf_nodes is None else vcf_nodes,
                                 threat_nodes=PNS_THREAT_NODES if threat_nodes is None else threat_nodes,
                                 max_plies=max_plies, wide=wide, quiet=quiet, pool=pool, deepen=deepen,
                                 eager_nodes=eager_nodes, rank_weight=rank_weight, zone=zone)
        if method != "ab":
            raise ValueError(f"method must be 'pns' or 'ab', not {method!r}")
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
                 eager_nodes, rank_weight, pool, zone) -> ThreatResult:
        t0, a, done = self._vct_start(state)
        if done is not None:
            return done
        capacity = int(pool) if pool else int(min(max(2 * nodes, 1 << 14), PNS_MAX_POOL))
        if self._pns is None or self._pns.pn.shape[0] != capacity:
            self._pns = new_pns_tree(capacity, self.game.cells)
        tree = self._pns
        c = tree.counters
        pos = state.fast()
        spent = 0
        outcome = NOT_FOUND
        for k in range(min(1, threats), threats + 1) if deepen else (threats,):
            # iterative deepening on the threats: the cheap wins first, each level but the last
            # within 1 / PNS_LEVEL_SHARE of the budget (a level without a proof can spend any
            # budget: the free moves of one threat less are searched just as widely)
            c[:] = 0
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
            if outcome == FOUND or (outcome == ABORTED and (k == threats or spent >= nodes)):
                break
        c[K_NODES] = spent
        self._pns_root = state if outcome == FOUND else None
        line = tuple(self._pns_line(state)) if outcome == FOUND else ()
        return ThreatResult(outcome == FOUND, line, a, int(min(c[K_NODES], nodes)), time.perf_counter() - t0,
                            outcome != ABORTED, "vct")

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


def check_vcf_line(state, line) -> str | None:
    """Replay ``line`` from ``state`` and check it is a VCF for ``state``'s side to move A.

    Checks, on real ``State``s (rules only): every move is legal; every A move but the last
    makes a four (A then has a winning cell) and blocks D's winning cell when D has one; every D
    move is A's only winning cell (or, after an open or double four, one of them, the next A
    move then being the five); D never has a five to play instead; the last move is A's five
    under the rule in force.

    Returns:
        None when the line is a VCF, else the reason it is not.
    """
    from zeroplay.games import IllegalMoveError

    a = state.to_play
    s = state
    line = [int(m) for m in line]
    if not line:
        return "empty line"
    if s.is_terminal:
        return "the game is over"
    open_four = False
    for i, m in enumerate(line):
        last = i == len(line) - 1
        if i % 2 == 0:
            threats = {int(c) for c in s.winning_moves(1 - a)}
            try:
                s = s.play(m)
            except IllegalMoveError as e:
                return f"ply {i}: illegal: {e}"
            if last:
                return None if s.is_terminal and s.winner == a else f"ply {i}: the last move is not a five"
            if s.is_terminal:
                return f"ply {i}: the game ended before the line did"
            if open_four:
                return f"ply {i}: an open or double four must be followed by the five"
            if threats and (len(threats) > 1 or m not in threats):
                return f"ply {i}: the defender had a five at {sorted(threats)} and it was not blocked"
            wins = s.num_winning_moves(a)
            if wins == 0:
                return f"ply {i}: not a four"
            if s.num_winning_moves(1 - a) > 0:
                return f"ply {i}: the defender can play a five"
        else:
            if last:
                return f"ply {i}: the line ends with a defender move"
            blocks = {int(c) for c in s.winning_moves(a)}
            if m not in blocks:
                return f"ply {i}: the defender's move is not the block of {sorted(blocks)}"
            open_four = len(blocks) >= 2
            try:
                s = s.play(m)
            except IllegalMoveError as e:
                return f"ply {i}: illegal: {e}"
            if s.is_terminal:
                return f"ply {i}: the defender's block ended the game"
    return "the line does not end"


# --- MCTS hook ------------------------------------------------------------------------------------

# ThreatArrays.cfg fields
T_ENABLED = 0  # 1: check newly expanded nodes
T_LEAF_NODES = 1  # VCF budget at a newly expanded node
T_MAX_PLIES = 2  # longest VCF line looked for
T_POOL_TOP = 3  # next free slot of the line pool
T_CALLS = 4  # VCF searches run (statistics)
T_PROOFS = 5  # wins found
T_NODES = 6  # VCF nodes searched in total
CFG_SIZE = 7

POOL_HEADER = 3
"""Pool words before a line's moves: key low 32 bits, key high 32 bits, length."""


class ThreatArrays(NamedTuple):
    """What the MCTS carries for its threat solver (compiled, passed inside the batch arrays).

    Attributes:
        cfg: int64 (CFG_SIZE,) switches, budgets and counters (the T_* fields).
        table: ABTable of the VCF searches, kept across the whole search and between searches.
        work: VcfWork scratch.
        node_line: int64 (node capacity,) pool offset of the VCF line that proved each node, -1
            when none. Valid only while the pool entry's key matches the node's position.
        pool: int32 (P,) ring of lines: [key low, key high, length, moves...] each; when full,
            writing wraps to 0 (a line overwritten is detected by its key and re-searched).
    """

    cfg: np.ndarray
    table: ABTable
    work: VcfWork
    node_line: np.ndarray
    pool: np.ndarray


def new_threat_arrays(game, node_capacity: int, *, enabled: bool, leaf_nodes: int = 16,
                      table_mib: float = 2.0, pool_size: int = 1 << 18,
                      max_plies: int = MAX_PLIES) -> ThreatArrays:
    """Threat-solver arrays for a search of ``game``; tiny and switched off unless ``enabled``
    (same dtypes either way, so the compiled search is not specialised twice)."""
    on = bool(enabled) and bool(getattr(game, "threat_space", False))
    cfg = np.zeros(CFG_SIZE, np.int64)
    cfg[T_ENABLED] = int(on)
    cfg[T_LEAF_NODES] = int(leaf_nodes)
    cfg[T_MAX_PLIES] = int(min(max_plies, MAX_PLIES))
    if on:
        return ThreatArrays(cfg, new_ab_table(table_mib), new_vcf_work(game.width, game.height, game.n_in_row),
                            np.full(node_capacity, -1, np.int64), np.zeros(pool_size, np.int32))
    return threats_off()


@njit(cache=True)
def _store_line(threats, node, key, first, length):
    """Keep ``[first] + work.line[:length]`` (``first`` < 0: no first move) as ``node``'s line."""
    pool = threats.pool
    cfg = threats.cfg
    total = length + (1 if first >= 0 else 0)
    need = POOL_HEADER + total
    if need > pool.shape[0] or node >= threats.node_line.shape[0]:
        return False
    top = cfg[T_POOL_TOP]
    if top + need > pool.shape[0]:
        top = 0
    pool[top] = np.int32(key & 0xFFFFFFFF)
    pool[top + 1] = np.int32((key >> 32) & 0xFFFFFFFF)
    pool[top + 2] = np.int32(total)
    at = top + POOL_HEADER
    if first >= 0:
        pool[at] = np.int32(first)
        at += 1
    for i in range(length):
        pool[at + i] = np.int32(threats.work.line[i])
    threats.node_line[node] = top
    cfg[T_POOL_TOP] = top + need
    return True


@njit(cache=True)
def vcf_node(params, zkeys, board, info, stack, wmask, threats, node, budget):
    """VCF checks at ``node``; the line behind a result is kept for the node (``stored_line``).

    Returns:
        +L: the side to move wins by VCF in L plies (line: the VCF).
        -L: the side to move has no five and must block the opponent's only winning cell; after
            that block the opponent wins by VCF: lost in L plies (line: the block, then the VCF).
        0: nothing found (or the threat solver is off, or the game is over).
    The position is restored. Each of the two searches gets ``budget`` nodes.
    """
    if threats.cfg[T_ENABLED] == 0 or info[I_TERMINAL] != 0:
        return 0
    cfg = threats.cfg
    p = info[I_TO_PLAY]
    cfg[T_CALLS] += 1
    res, length, used = vcf_search(params, zkeys, board, info, stack, wmask, threats.work, threats.table,
                                   cfg[T_MAX_PLIES], budget)
    cfg[T_NODES] += used
    if res == FOUND:
        if not _store_line(threats, node, info[I_KEY], -1, length):
            return 0
        cfg[T_PROOFS] += 1
        return length
    if info[I_NWIN0 + p] != 0 or info[I_NWIN0 + 1 - p] != 1:
        return 0
    # a forced block: does the opponent win by VCF after it?
    key = info[I_KEY]
    block = first_win_cell(params, wmask, 1 - p)
    apply_move_tracked(params, zkeys, board, info, stack, wmask, block)
    res, length, used = vcf_search(params, zkeys, board, info, stack, wmask, threats.work, threats.table,
                                   cfg[T_MAX_PLIES], budget)
    undo_move_tracked(params, zkeys, board, info, stack, wmask)
    cfg[T_NODES] += used
    if res != FOUND or not _store_line(threats, node, key, block, length):
        return 0
    cfg[T_PROOFS] += 1
    return -(length + 1)


@njit(cache=True)
def vcf_leaf(params, zkeys, board, info, stack, wmask, threats, node):
    """``vcf_node`` with the leaf budget, when the solver is on (the gather hook)."""
    if threats.cfg[T_ENABLED] == 0:
        return 0
    return vcf_node(params, zkeys, board, info, stack, wmask, threats, node, threats.cfg[T_LEAF_NODES])


def stored_line(threats: ThreatArrays, node: int, key: int) -> list[int] | None:
    """The VCF line that proved ``node`` (a position of Zobrist key ``key``), None when there is
    none or it was overwritten."""
    if not 0 <= node < threats.node_line.shape[0]:
        return None
    at = int(threats.node_line[node])
    if at < 0:
        return None
    pool = threats.pool
    lo, hi, length = int(pool[at]) & 0xFFFFFFFF, int(pool[at + 1]) & 0xFFFFFFFF, int(pool[at + 2])
    k = (hi << 32) | lo
    if k >= 1 << 63:
        k -= 1 << 64
    if k != int(key) or length <= 0 or at + POOL_HEADER + length > pool.shape[0]:
        return None
    return [int(m) for m in pool[at + POOL_HEADER : at + POOL_HEADER + length]]


def threat_stats(threats: ThreatArrays) -> dict:
    """Counters of the MCTS hook: ``calls``, ``proofs``, ``nodes``."""
    cfg = threats.cfg
    return {"calls": int(cfg[T_CALLS]), "proofs": int(cfg[T_PROOFS]), "nodes": int(cfg[T_NODES])}


def _i64(k: int) -> int:
    k = int(k) & ((1 << 64) - 1)
    return k - (1 << 64) if k >= 1 << 63 else k


def check_root(searcher, budget: int) -> bool:
    """Before the search goes on: ``vcf_node`` at the (expanded) root with ``budget`` nodes; a
    result marks the root a proven win (or a loss: a forced block into the opponent's VCF) at
    distance = the line's length. Returns True when it did.

    Called once per search, after the root got its edges (so that a result still lists the
    root's moves); the edges keep their visits, the root's Q becomes exact (+1).
    """
    from zeroplay.search.tree import EXPANDED, LOSS, UNPROVEN, WIN

    threats, t, r = searcher.batch.threats, searcher.tree, searcher.root
    if threats.cfg[T_ENABLED] == 0 or r < 0 or t.node_state[r] != EXPANDED or t.node_proof[r] != UNPROVEN:
        return False
    pos, game = searcher._pos, searcher.game
    dist = vcf_node(game.params, game.zkeys, pos.board, pos.info, pos.stack, pos.aux, threats, r, int(budget))
    if dist == 0:
        return False
    t.node_proof[r] = WIN if dist > 0 else LOSS
    t.node_dist[r] = abs(dist)
    t.node_q[r] = 1.0 if dist > 0 else -1.0
    return True


def proof_tail(searcher, line: list[int]) -> list[int]:
    """The line behind the node that ``line`` (a proof line from the root) ends at, when
    ``vcf_node`` proved it; else []. Appended to the proof line, it makes the line end in a five."""
    from zeroplay.search.tree import EXPANDED, LOSS, WIN

    threats, t = searcher.batch.threats, searcher.tree
    if threats.cfg[T_ENABLED] == 0:
        return []
    n = searcher.node_at(line)
    if n < 0 or t.node_proof[n] not in (WIN, LOSS) or t.node_state[n] != EXPANDED:
        return []
    try:
        end = searcher.root_state.play_many(line)
    except ValueError:
        return []
    return stored_line(threats, n, _i64(end.key)) or []


def threats_off() -> ThreatArrays:
    """Switched-off threat-solver arrays (a search without the solver)."""
    cfg = np.zeros(CFG_SIZE, np.int64)
    return ThreatArrays(cfg, new_ab_table(0, num_buckets=1), new_vcf_work(5, 5), np.full(1, -1, np.int64),
                        np.zeros(POOL_HEADER + 1, np.int32))


# --- `zeroplay solve gomoku` ----------------------------------------------------------------------
def solve_command(args) -> int:
    """``zeroplay solve gomoku``: set up the position from ``args.moves``, search, print.

    Args (argparse namespace): moves (text, moves separated by spaces, ``h8`` or ``x,y``),
    size, n_in_row (None: 5; the command line passes 4 on 6x6, as ``zeroplay play``), rule,
    vct, method ("ab", "pns" or None), threats (None: the method's default), nodes, shortest,
    json. A method or a threat count implies vct.

    JSON: ``seconds``: the solve's wall time; ``setup_seconds``: compiling (first use) or loading
    the solver's kernels before it, not counted in ``seconds``; ``found``; ``complete``: the search ran to its end within the node budget;
    ``none_exists``: true only when nothing was found and that proves that no win of the kind
    exists (a complete VCF search); a VCT search that finds nothing proves nothing (its threat
    moves are restricted), so it is false for VCT.

    Raises:
        ValueError: an illegal or malformed move (IllegalMoveError is a ValueError), an option
            out of range, or options that do not combine (``--shortest`` with VCT).
    """
    import json

    from zeroplay.games import make

    method = getattr(args, "method", None)
    threats = getattr(args, "threats", None)
    vct = bool(args.vct or method is not None or threats is not None)
    method = method or "ab"
    if args.nodes < 1:
        raise ValueError(f"--nodes must be >= 1, got {args.nodes}")
    if threats is not None and threats < 1:
        raise ValueError(f"--threats must be >= 1, got {threats} (without threats the search is a VCF: "
                         f"leave out --vct, --method and --threats)")
    if vct and args.shortest:
        raise ValueError("--shortest is for the VCF only; it does not combine with --vct, --method or --threats")
    n_in_row = getattr(args, "n_in_row", None)
    if n_in_row is None:
        n_in_row = 5  # (the command line resolves its own default before: cli._cmd_solve_gomoku)
    try:
        game = make("gomoku", width=args.size, height=args.size, n_in_row=n_in_row, rule=args.rule)
    except ValueError as e:  # the game's words are its parameters; say the option the user typed
        text = str(e)
        for name, flag in (("width", "--size"), ("height", "--size"), ("n_in_row", "--n-in-row")):
            if text.startswith(name + " "):
                text = flag + text[len(name):]
        raise ValueError(text) from None
    state = game.initial()
    for text in (args.moves or "").split():
        state = state.play(text)
    # compile (first use) or load (numba's cache) the solver's kernels on an empty board with a
    # one-node budget, so that the time reported is the solve's: it said 46 s for 4 nodes (issue 23)
    started = time.perf_counter()
    warm = ThreatSolver(game)
    if vct:
        warm.vct(game.initial(), nodes=1, threats=threats, method=method)
    else:
        warm.vcf(game.initial(), nodes=1, shortest=args.shortest)
    setup_seconds = time.perf_counter() - started
    solver = ThreatSolver(game)
    if vct:
        r = solver.vct(state, nodes=args.nodes, threats=threats, method=method)
    else:
        r = solver.vcf(state, nodes=args.nodes, shortest=args.shortest)
    side = "black" if r.attacker == 0 else "white"
    over = None  # "black wins" / "white wins" / "draw" when the moves end the game
    if state.is_terminal:
        over = "draw" if state.winner is None else ("black" if state.winner == 0 else "white") + " wins"
    none_exists = not r.found and r.complete and r.kind == "vcf" and over is None
    if args.json:
        print(json.dumps({
            "game": "gomoku", "size": args.size, "n_in_row": n_in_row, "rule": args.rule,
            "moves_played": len(state.moves), "to_move": side, "game_over": over, "kind": r.kind,
            "method": method if r.kind == "vct" else None,
            "found": r.found, "complete": r.complete, "none_exists": none_exists,
            "line": [game.format_move(m) for m in r.line],
            "line_xy": [[m % game.width, m // game.width] for m in r.line],
            "distance": r.distance, "nodes": r.nodes, "seconds": round(r.seconds, 6),
            "setup_seconds": round(setup_seconds, 3),
        }))
        return 0
    in_row = "" if n_in_row == 5 else f", {n_in_row} in a row"
    played = f"{len(state.moves)} move{'' if len(state.moves) == 1 else 's'} played"
    print(f"position: {played}, {side.capitalize()} to move ({args.rule}, "
          f"{args.size}x{args.size}{in_row})")
    if state.is_terminal:
        print(f"the game is over: {over}")
    elif r.found:
        print(f"{r.kind.upper()} found: {side} wins in {r.distance} pl{'y' if r.distance == 1 else 'ies'}")
        print("line: " + " ".join(f"{game.format_move(m)}({m % game.width},{m // game.width})" for m in r.line))
        if r.kind == "vct":
            print("(the main line: the defender's replies to each threat were all refuted; one is shown)")
    elif none_exists:
        print(f"none found: no {r.kind.upper()} exists")
    elif r.complete:  # a VCT: the threat moves searched are a restricted set
        print("none found within the threats allowed: the threat search is restricted, so this is no "
              "proof that none exists")
    else:
        print(f"none found within the budget of {args.nodes:,} node{'' if args.nodes == 1 else 's'}")
    print(f"nodes: {r.nodes:,}")
    print(f"time: {r.seconds:.4f} s (before it, {setup_seconds:.1f} s to compile or load the solver)")
    return 0
