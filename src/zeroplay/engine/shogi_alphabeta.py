"""Bonanza-style alpha-beta engine for shogi, driven from Python over a cshogi board.

Search (after Bonanza and the chess programs it follows):

* iterative deepening negamax with principal-variation search (null windows after the first
  move), fail-soft;
* the alpha-beta table of ``zeroplay.tt.ab_table`` (a preferred and two always slots per bucket,
  generations advanced per search), keyed by our board-only Zobrist key with the **mover's hand
  in ``aux``** (``zeroplay.games.shogi.keys``), and optionally Bonanza's hand-dominance probe
  (``hand_dominance=True``; ``ab_probe_dominance``);
* quiescence on captures (MVV-LVA order, stand pat, delta pruning at 200 cp);
* move ordering: table move, captures by MVV-LVA, two killer moves per ply, history counts;
* mate in one (cshogi's ``mate_move_in_1ply``) at every node not in check, declaration wins
  (27-point rule), repetitions (cshogi's ``is_draw``: a draw scores 0, perpetual check loses);
* evaluation: ``zeroplay.games.shogi.evaluation`` (hand-set material + piece-square), kept up
  to date incrementally from the move number's fields, as the board key and the hands are.

Scores: centipawns from the side to move's view; a mate at root ply p scores
``WIN_VALUE - p`` (a loss the negative), as the table stores them. Limits: depth, nodes, time
(wall clock) and a ``threading.Event`` to stop; every limit is checked each 512 nodes and the
search returns the best move of the last finished iteration (or of the current one, once its
first move is searched).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import cshogi

from zeroplay.games.shogi.evaluation import HAND_INDEX_OF_TYPE, MATE_SCORE_LIMIT, PIECE_VALUE, evaluate_black, move_delta
from zeroplay.games.shogi.keys import BOARD_KEYS_I64, HAND_FIELD_BITS, HAND_FIELD_SHIFTS, SIDE_KEY, hand_aux, to_int64
from zeroplay.games.shogi.labels import label_lookup
from zeroplay.tt import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_UPPER,
    WIN_VALUE,
    ab_clear,
    ab_cutoff,
    ab_hashfull,
    ab_new_search,
    ab_probe,
    ab_probe_dominance,
    ab_store,
    new_ab_table,
)

MAX_SEARCH_PLY = 96
"""Deepest ply from the root (main search and quiescence together)."""
MATE_THRESHOLD = WIN_VALUE - 1024
_BOARD_KEYS = BOARD_KEYS_I64.tolist()
_SIDE = to_int64(SIDE_KEY)
_HAND_UNIT = [0] + [1 << int(HAND_FIELD_SHIFTS[HAND_INDEX_OF_TYPE[t]]) for t in range(1, 15)]
_HAND_UNIT[8] = 0  # a king is never captured into a hand
_VICTIM = [0] + [PIECE_VALUE[t] for t in range(1, 15)]
_CAPTURE_MASK = 0xF << 20
_LABELS = label_lookup()


class _Stop(Exception):
    """A limit was reached inside the tree; unwinds to the iteration loop."""


@dataclass
class AlphaBetaConfig:
    """Settings of the alpha-beta engine.

    Attributes:
        hash_mib: alpha-beta table size, MiB (USI ``USI_Hash``); default 64.
        hand_dominance: also cut with entries of the same board whose hand the mover's dominates
            (Bonanza's superiority rule); default off.
        quiescence_plies: most capture plies below the horizon; default 10.
        max_depth: deepest iteration; default 64.
    """

    hash_mib: float = 64
    hand_dominance: bool = False
    quiescence_plies: int = 10
    max_depth: int = 64


@dataclass
class AlphaBetaResult:
    """What a search found.

    Attributes:
        best_move: USI text of the move, ``"resign"`` when there is none (mated, or the game is
            over) and ``"win"`` when the mover declares (27-point rule).
        score: centipawns from the side to move's view (mate scores: ``WIN_VALUE - plies``).
        mate: plies to mate, positive when the mover mates, negative when it is mated; None else.
        pv: principal variation in USI text, best move first.
        depth: deepest finished iteration. nodes: nodes searched (main + quiescence).
        seconds: wall time. hashfull: table fill, permille (current generation).
    """

    best_move: str
    score: int = 0
    mate: int | None = None
    pv: list[str] = field(default_factory=list)
    depth: int = 0
    nodes: int = 0
    seconds: float = 0.0
    hashfull: int = 0


def mate_plies(score: int) -> int | None:
    """Plies to mate of a mate score (positive: the mover mates), None for other scores."""
    if score >= MATE_THRESHOLD:
        return WIN_VALUE - score
    if score <= -MATE_THRESHOLD:
        return -(WIN_VALUE + score)
    return None


class AlphaBetaEngine:
    """The searcher; keeps its table between searches (``new_game`` clears it)."""

    def __init__(self, config: AlphaBetaConfig | None = None):
        self.config = config or AlphaBetaConfig()
        self.table = new_ab_table(self.config.hash_mib)
        self.nodes = 0

    def resize(self, hash_mib: float) -> None:
        """A new, empty table of ``hash_mib`` MiB. Raises ValueError below one bucket."""
        self.table = new_ab_table(hash_mib)
        self.config.hash_mib = hash_mib

    def new_game(self) -> None:
        """Forget everything learnt (table, history)."""
        ab_clear(self.table)

    # --- public search ------------------------------------------------------------------------
    def search(self, state, *, depth: int | None = None, nodes: int | None = None, seconds: float | None = None,
               stop: threading.Event | None = None, on_iteration=None) -> AlphaBetaResult:
        """Search ``state`` (a ShogiState) to the first limit reached.

        Args:
            depth: deepest iteration (default ``config.max_depth``).
            nodes: node budget (soft: checked every 512 nodes).
            seconds: wall-time budget; an iteration is not started after half of it is spent.
            stop: set from another thread to stop at once (USI ``stop``).
            on_iteration: called with an ``AlphaBetaResult`` after each finished iteration.
        """
        started = time.perf_counter()
        if state.is_terminal:
            best = "win" if state.termination == "declaration" and state.winner == state.to_play else "resign"
            return AlphaBetaResult(best, score=WIN_VALUE if best == "win" else -WIN_VALUE)
        self._setup(state.cshogi_board(), nodes, seconds, stop, started)
        ab_new_search(self.table)
        max_depth = min(depth or self.config.max_depth, self.config.max_depth)
        # cshogi's mate_move_in_1ply assumes the mover is not in check: in check it named a drop
        # that left the king in check (R*1i in the test's position, an illegal move in play)
        mate = 0 if self.board.is_check() else self.board.mate_move_in_1ply()
        if mate:
            return self._result(cshogi.move_to_usi(mate), WIN_VALUE - 1, [cshogi.move_to_usi(mate)], 1, started)
        moves = list(self.board.legal_moves)
        result = self._result(cshogi.move_to_usi(moves[0]), 0, [cshogi.move_to_usi(moves[0])], 0, started)
        for iteration in range(1, max_depth + 1):
            try:
                score, move = self._root(iteration, moves)
            except _Stop:
                if self.root_best is not None:  # the current iteration's first move was searched
                    result = self._result(cshogi.move_to_usi(self.root_best), self.root_score,
                                          self._pv(self.root_best, iteration), iteration - 1, started)
                break
            result = self._result(cshogi.move_to_usi(move), score, self._pv(move, iteration), iteration, started)
            if on_iteration is not None:
                on_iteration(result)
            if abs(score) >= MATE_THRESHOLD or len(moves) == 1:
                break
            if self.deadline is not None and time.perf_counter() - started > 0.5 * (self.deadline - started):
                break
            if self.node_limit is not None and self.nodes >= self.node_limit // 2:
                break
        result.seconds = time.perf_counter() - started
        return result

    # --- set-up and results --------------------------------------------------------------------
    def _setup(self, board, nodes, seconds, stop, started):
        self.board = board
        self.nodes = 0
        self.node_limit = nodes
        self.deadline = None if seconds is None else started + seconds
        self.stop_event = stop
        pieces = board.pieces
        self.key = 0
        for square, code in enumerate(pieces):
            self.key ^= _BOARD_KEYS[square][code]
        if board.turn:
            self.key ^= _SIDE
        hands = board.pieces_in_hand
        self.aux = [hand_aux(hands[0]), hand_aux(hands[1])]
        self.eval_black = evaluate_black(pieces, hands)
        self.killers = [[0, 0] for _ in range(MAX_SEARCH_PLY + 2)]
        self.history = {}
        self.root_best = None
        self.root_score = 0

    def _result(self, move, score, pv, depth, started):
        return AlphaBetaResult(move, score, mate_plies(score), pv, depth, self.nodes,
                               time.perf_counter() - started, int(ab_hashfull(self.table)))

    def _check_limits(self):
        if self.stop_event is not None and self.stop_event.is_set():
            raise _Stop
        if self.node_limit is not None and self.nodes >= self.node_limit:
            raise _Stop
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            raise _Stop

    # --- make / unmake with incremental key, hands and evaluation -------------------------------
    def _make(self, move):
        board = self.board
        color = board.turn
        to = move & 0x7F
        origin = (move >> 7) & 0x7F
        offset = 16 * color
        if origin >= 81:
            piece_type = origin - 80
            self.key ^= _BOARD_KEYS[to][piece_type + offset] ^ _SIDE
            self.aux[color] -= _HAND_UNIT[piece_type]
        else:
            piece_type = (move >> 16) & 0xF
            code = piece_type + offset
            self.key ^= _BOARD_KEYS[origin][code] ^ _BOARD_KEYS[to][code + 8 if (move >> 14) & 1 else code] ^ _SIDE
            captured = (move >> 20) & 0xF
            if captured:
                self.key ^= _BOARD_KEYS[to][captured + 16 - offset]
                self.aux[color] += _HAND_UNIT[captured]
        self.eval_black += move_delta(move, color)
        board.push(move)

    def _evaluate(self):
        score = max(-MATE_SCORE_LIMIT, min(MATE_SCORE_LIMIT, self.eval_black))
        return -score if self.board.turn else score

    # --- search --------------------------------------------------------------------------------
    def _root(self, depth, moves):
        """One iteration at the root: (score, best move); the table move is tried first."""
        board = self.board
        key, aux = self.key, self.aux[board.turn]
        hit, label, _, _, _ = ab_probe(self.table, key, aux, 0)
        ordered = list(self._order(moves, label if hit else -1, 0))
        alpha, beta = -WIN_VALUE, WIN_VALUE
        best, best_move = -WIN_VALUE - 1, ordered[0]
        self.root_best = None
        for move in ordered:
            score = self._child(move, depth, alpha, beta, 0, best > -WIN_VALUE - 1)
            if score > best:
                best, best_move = score, move
                alpha = max(alpha, score)
                self.root_best, self.root_score = move, score
        ab_store(self.table, key, aux, 0, depth, BOUND_EXACT, best, self._label(best_move, board.turn))
        return best, best_move

    def _child(self, move, depth, alpha, beta, ply, null_window):
        """Score of ``move`` from the mover's view: searched to depth - 1, PVS after the first move."""
        saved = (self.key, self.aux[0], self.aux[1], self.eval_black)
        self._make(move)
        try:
            if null_window:
                score = -self._search(depth - 1, -alpha - 1, -alpha, ply + 1)
                if alpha < score < beta:
                    score = -self._search(depth - 1, -beta, -alpha, ply + 1)
            else:
                score = -self._search(depth - 1, -beta, -alpha, ply + 1)
        finally:
            self.board.pop()
            self.key, self.aux[0], self.aux[1], self.eval_black = saved
        return score

    def _search(self, depth, alpha, beta, ply):
        self.nodes += 1
        if not self.nodes & 511:
            self._check_limits()
        board = self.board
        repetition = board.is_draw(32)
        if repetition == cshogi.REPETITION_DRAW:
            return 0
        if repetition == cshogi.REPETITION_WIN:
            return WIN_VALUE - ply
        if repetition == cshogi.REPETITION_LOSE:
            return -(WIN_VALUE - ply)
        in_check = board.is_check()
        if not in_check:
            if board.mate_move_in_1ply():
                return WIN_VALUE - ply - 1
            if board.is_nyugyoku():
                return WIN_VALUE - ply
            if depth <= 0 or ply >= MAX_SEARCH_PLY:
                return self._quiesce(alpha, beta, ply, 0)
        elif ply >= MAX_SEARCH_PLY:
            return self._evaluate()
        depth = max(depth, 1)
        color = board.turn
        key, aux = self.key, self.aux[color]
        hit, label, value, entry_depth, bound = ab_probe(self.table, key, aux, ply)
        if hit:
            cut, value = ab_cutoff(entry_depth, bound, value, depth, alpha, beta)
            if cut:
                return value
        if self.config.hand_dominance:
            cut, value = ab_probe_dominance(self.table, key, aux, ply, depth, alpha, beta, HAND_FIELD_BITS)
            if cut:
                return value
        moves = list(board.legal_moves)
        if not moves:
            return -(WIN_VALUE - ply)
        alpha_in = alpha
        best, best_move = -WIN_VALUE - 1, 0
        for move in self._order(moves, label if hit else -1, ply):
            score = self._child(move, depth, alpha, beta, ply, best > -WIN_VALUE - 1)
            if score > best:
                best, best_move = score, move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        if not move & _CAPTURE_MASK:
                            killers = self.killers[ply]
                            if killers[0] != move:
                                killers[1], killers[0] = killers[0], move
                            hkey = move & 0x3FFF
                            self.history[hkey] = self.history.get(hkey, 0) + depth * depth
                        break
        bound = BOUND_LOWER if best >= beta else BOUND_EXACT if best > alpha_in else BOUND_UPPER
        ab_store(self.table, key, aux, ply, min(depth, 255), bound, best, self._label(best_move, color))
        return best

    def _quiesce(self, alpha, beta, ply, qply):
        """Captures below the horizon. In check there is no standing pat: every evasion is
        searched (a capture that checks was scored as if the king could ignore it); not in check,
        a mate in one for the mover (cshogi's ``mate_move_in_1ply``) scores as the mate."""
        self.nodes += 1
        if not self.nodes & 511:
            self._check_limits()
        board = self.board
        if board.is_check():
            return self._evasions(alpha, beta, ply, qply)
        if board.mate_move_in_1ply():
            return WIN_VALUE - ply - 1
        stand = self._evaluate()
        if stand >= beta or qply >= self.config.quiescence_plies or ply >= MAX_SEARCH_PLY:
            return stand
        alpha = max(alpha, stand)
        best = stand
        captures = [m for m in board.legal_moves if m & _CAPTURE_MASK]
        captures.sort(key=lambda m: _VICTIM[(m >> 16) & 0xF] - 16 * _VICTIM[(m >> 20) & 0xF])
        return self._quiesce_moves(captures, alpha, beta, best, ply, qply, stand=stand)

    def _evasions(self, alpha, beta, ply, qply):
        """Quiescence in check: mated, or the best evasion (captures first), each searched on in
        quiescence; past the quiescence limit the static score."""
        evasions = list(self.board.legal_moves)
        if not evasions:
            return -(WIN_VALUE - ply)
        if qply >= self.config.quiescence_plies or ply >= MAX_SEARCH_PLY:
            return self._evaluate()
        evasions.sort(key=lambda m: -_VICTIM[(m >> 20) & 0xF])
        return self._quiesce_moves(evasions, alpha, beta, -WIN_VALUE, ply, qply)

    def _quiesce_moves(self, moves, alpha, beta, best, ply, qply, stand=None):
        """Negamax over ``moves`` (in order) one ply down in quiescence, from the score ``best``
        (the stand-pat, or a mate's -WIN_VALUE in check); a beta cut-off ends the loop. With
        ``stand`` (captures only), delta pruning: a capture whose victim cannot lift the stand-pat
        to the current alpha, even with a 200 cp margin, is skipped."""
        for move in moves:
            if stand is not None and stand + _VICTIM[(move >> 20) & 0xF] + 200 < alpha:
                continue
            saved = (self.key, self.aux[0], self.aux[1], self.eval_black)
            self._make(move)
            try:
                score = -self._quiesce(-beta, -alpha, ply + 1, qply + 1)
            finally:
                self.board.pop()
                self.key, self.aux[0], self.aux[1], self.eval_black = saved
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    # --- ordering, labels, principal variation ------------------------------------------------
    def _order(self, moves, table_label, ply):
        """Moves best first, in stages: table move, captures (MVV-LVA), killers, then the quiet
        moves by history counts. A generator: a cutoff in an early stage skips sorting the later
        ones (sorting every node's moves took half the search's time)."""
        table_move = 0
        if table_label >= 0:
            labels = _LABELS[self.board.turn]
            for move in moves:
                if labels[move & 0x7FFF] == table_label:
                    table_move = move
                    yield move
                    break
        captures = [m for m in moves if m & _CAPTURE_MASK and m != table_move]
        if captures:
            captures.sort(key=lambda m: _VICTIM[(m >> 16) & 0xF] - 16 * _VICTIM[(m >> 20) & 0xF])
            yield from captures
        killers = [k for k in (self.killers[ply] if ply < len(self.killers) else ()) if k and k != table_move]
        for killer in killers:
            if killer in moves:
                yield killer
        quiet = [m for m in moves if not m & _CAPTURE_MASK and m != table_move and m not in killers]
        history = self.history
        if history:
            quiet.sort(key=lambda m: -history.get(m & 0x3FFF, 0))
        yield from quiet

    @staticmethod
    def _label(move, color):
        return _LABELS[color][move & 0x7FFF] if move else -1

    def _pv(self, first_move, depth):
        """The principal variation: ``first_move`` then the table's moves, as far as they go."""
        pv = [first_move]
        board = self.board
        saved = (self.key, self.aux[0], self.aux[1], self.eval_black)
        self._make(first_move)
        pushed = 1
        seen = {self.key}
        try:
            while len(pv) < max(depth, 1) + 8:
                hit, label, _, _, _ = ab_probe(self.table, self.key, self.aux[board.turn], 0)
                moves = list(board.legal_moves)
                if not hit or label < 0 or not moves:
                    break
                labels = _LABELS[board.turn]
                match = [m for m in moves if labels[m & 0x7FFF] == label]
                if not match:
                    break
                move = match[0]
                self._make(move)
                pushed += 1
                pv.append(move)
                if self.key in seen:
                    break
                seen.add(self.key)
        finally:
            for _ in range(pushed):
                board.pop()
            self.key, self.aux[0], self.aux[1], self.eval_black = saved
        return [cshogi.move_to_usi(m) for m in pv]
