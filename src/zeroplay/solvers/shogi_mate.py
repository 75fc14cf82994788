"""Shogi mate search (tsume) for USI ``go mate``: iterative deepening on checks.

The attacker (the side to move) plays only checking moves (cshogi's ``check_moves``, which
leave out the illegal pawn-drop mate), the defender every legal evasion; a defender with no
move is mated. Depth limits run 1, 3, 5, ... plies, so the first mate found is a shortest one
for the attacker. Results are memoised per position (cshogi's 64-bit key, hands included): the
deepest limit at which no mate was found, and the mating move with its length once proven. The
returned line is replayed on a fresh board and checked (every attacker move a check, the last
position without a legal move) before it is reported, so a key collision cannot report a false
mate.

This is the simple alternative the issue allows to df-pn (Nagai 2002); it proves the short
mates a game needs (up to about 9 plies within seconds in Python) and reports "unknown" at its
limits. cshogi's own df-pn (``cshogi.DfPn``) serves as the independent reference in the tests.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import cshogi

MATE = "mate"
NO_MATE = "nomate"
UNKNOWN = "unknown"


class _Stop(Exception):
    pass


@dataclass
class MateResult:
    """Outcome of a mate search.

    Attributes:
        status: ``"mate"`` (a forced mate, ``pv`` holds it), ``"nomate"`` (no mate within
            ``max_plies``, the search was exhaustive to that length) or ``"unknown"`` (stopped).
        pv: the mating line in USI notation, attacker's moves at even indices.
        nodes: positions visited. seconds: wall time.
    """

    status: str
    pv: list[str] = field(default_factory=list)
    nodes: int = 0
    seconds: float = 0.0


class MateSearch:
    """One mate search over a cshogi board (the board is restored when it returns)."""

    def __init__(self, board: cshogi.Board, *, max_plies: int = 31, nodes: int | None = None,
                 seconds: float | None = None, stop: threading.Event | None = None):
        self.board = board
        self.max_plies = max_plies
        self.node_limit = nodes
        self.deadline = None if seconds is None else time.perf_counter() + seconds
        self.stop = stop
        self.nodes = 0
        self.failed_at: dict[int, int] = {}  # key -> deepest limit with no mate (attacker to move)
        self.proven: dict[int, tuple[int, int]] = {}  # key -> (mate length in plies, move)

    def run(self) -> MateResult:
        started = time.perf_counter()
        try:
            for limit in range(1, self.max_plies + 1, 2):
                if self._attack(limit):
                    pv = self._line()
                    if _verify(self.board, pv):
                        return MateResult(MATE, [cshogi.move_to_usi(m) for m in pv], self.nodes, time.perf_counter() - started)
                    break  # a key collision: say nothing rather than something wrong
            else:
                return MateResult(NO_MATE, [], self.nodes, time.perf_counter() - started)
        except _Stop:
            pass
        return MateResult(UNKNOWN, [], self.nodes, time.perf_counter() - started)

    def _tick(self):
        self.nodes += 1
        if not self.nodes & 255:
            if self.stop is not None and self.stop.is_set():
                raise _Stop
            if self.node_limit is not None and self.nodes >= self.node_limit:
                raise _Stop
            if self.deadline is not None and time.perf_counter() >= self.deadline:
                raise _Stop

    def _attack(self, limit: int) -> bool:
        """Attacker to move: is there a mate within ``limit`` plies (odd)?"""
        self._tick()
        board = self.board
        key = board.zobrist_hash()
        proven = self.proven.get(key)
        if proven is not None and proven[0] <= limit:
            return True
        if self.failed_at.get(key, -1) >= limit:
            return False
        for move in board.check_moves:
            board.push(move)
            try:
                length = self._defend(limit - 1)
            finally:
                board.pop()
            if length is not None:
                self.proven[key] = (length + 1, move)
                return True
        self.failed_at[key] = limit
        return False

    def _defend(self, limit: int) -> int | None:
        """Defender to move: plies to the mate if every evasion is mated within ``limit``, else None."""
        self._tick()
        board = self.board
        evasions = list(board.legal_moves)
        if not evasions:
            return 0
        if limit <= 0:
            return None
        longest = 0
        for move in evasions:
            board.push(move)
            try:
                mated = self._attack(limit - 1)
                length = self.proven[board.zobrist_hash()][0] if mated else None
            finally:
                board.pop()
            if length is None:
                return None
            longest = max(longest, length + 1)
        return longest

    def _line(self) -> list[int]:
        """The proven line: attacker's recorded moves, the defender's longest resistance."""
        board = self.board
        line = []
        try:
            while len(line) <= self.max_plies:
                entry = self.proven.get(board.zobrist_hash())
                if entry is None:
                    break
                board.push(entry[1])
                line.append(entry[1])
                evasions = list(board.legal_moves)
                if not evasions:
                    break
                best, best_length = evasions[0], -1
                for move in evasions:
                    board.push(move)
                    child = self.proven.get(board.zobrist_hash())
                    board.pop()
                    if child is not None and child[0] > best_length:
                        best, best_length = move, child[0]
                board.push(best)
                line.append(best)
        finally:
            for _ in line:
                board.pop()
        return line


def _verify(board: cshogi.Board, line: list[int]) -> bool:
    """Replay ``line`` on a copy: each attacker move legal and a check, each defence legal, and
    the defender without a legal move at the end."""
    test = board.copy()
    for i, move in enumerate(line):
        if not test.is_legal(move):
            return False
        test.push(move)
        if i % 2 == 0 and not test.is_check():
            return False
    return len(line) % 2 == 1 and len(test.legal_moves) == 0


def solve_mate(board: cshogi.Board, *, max_plies: int = 31, nodes: int | None = None, seconds: float | None = None,
               stop: threading.Event | None = None) -> MateResult:
    """Search a mate for the side to move of ``board`` (cshogi Board, restored on return).

    Args:
        max_plies: longest mate looked for (odd; 31 by default).
        nodes, seconds: limits (checked every 256 nodes); ``stop``: set to stop from another thread.
    """
    if max_plies < 1:
        raise ValueError(f"max_plies must be >= 1, got {max_plies}")
    return MateSearch(board, max_plies=max_plies, nodes=nodes, seconds=seconds, stop=stop).run()
