"""A Go engine that plays without a network: flat Monte-Carlo with UCB1 at the root.

Every legal move (pass included) is a bandit arm; a playout plays the arm, then random moves
that never fill the mover's own eyes to the end of the game (``games.go.playout.random_game``),
and scores it by the game's rules (area or territory, komi). Arms are chosen by UCB1
(Auer et al. 2002) with exploration constant ``c_ucb`` on the win rate; the move played is the
most visited. This is Brügmann's 1993 "Monte Carlo Go" with UCB in place of annealing, the
baseline the MCTS programs grew from -- it reads no tactics beyond what random games see.

It serves ``zeroplay gtp`` until Go runs on the compiled PUCT search (``zeroplay.search``); the
GTP ``name`` and stderr say which engine plays. Values: win rates in [0, 1] of the side to move.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from zeroplay.games.go.kernels import neighbors, play
from zeroplay.games.go.layout import I_SCORE2
from zeroplay.games.go.playout import is_own_eye, random_game
from zeroplay.games.layout import I_PLY, I_TO_PLAY, P_CELLS, P_WIDTH

ENGINE_NAME = "zeroplay flat Monte-Carlo (random playouts, no network, no tree)"


@njit(cache=True)
def _scratch(board, info, stack, aux):
    """Uninitialised arrays shaped as the position's (``board``, ``info``, ``stack``, ``aux``) for
    the playouts to run on, and the rules kernels' work space ``queue`` int32, ``mark`` uint8
    (cells,) with ``mark`` zeroed."""
    cells = board.shape[0]
    return (np.empty_like(board), np.empty_like(info), np.empty_like(stack), np.empty_like(aux),
            np.empty(cells, np.int32), np.zeros(cells, np.uint8))


@njit(cache=True, inline="always")
def _reset(board, info, stack, aux, w_board, w_info, w_stack, w_aux):
    """Copy the position into the scratch arrays (``aux``: only the rows of the plies played)."""
    rows = info[I_PLY] + 1
    w_board[:] = board
    w_info[:] = info
    w_stack[:] = stack
    w_aux[:rows] = aux[:rows]


@njit(cache=True)
def run_playouts(params, zkeys, board, info, stack, aux, arms, stats, count, c_ucb, seed):
    """``count`` more playouts from the position, UCB1 over ``arms`` (int64 actions).

    ``stats`` float64 (4, len(arms)) is updated in place: row 0 visits, row 1 wins of the side to
    move (a draw counts 1/2), rows 2 and 3 the sum and the sum of squares of the final score in
    points from the side to move's view, komi included. Returns the moves played in them."""
    visits = stats[0]
    wins = stats[1]
    cells = params[P_CELLS]
    mover = info[I_TO_PLAY]
    w_board, w_info, w_stack, w_aux, queue, mark = _scratch(board, info, stack, aux)
    removed = np.empty(cells, np.int32)
    n_arms = arms.shape[0]
    moves = 0
    for k in range(count):
        total = 0.0
        for i in range(n_arms):
            total += visits[i]
        best = 0
        best_value = -1.0
        log_total = np.log(total + 1.0)
        for i in range(n_arms):
            if visits[i] == 0:
                best = i
                break
            value = wins[i] / visits[i] + c_ucb * np.sqrt(log_total / visits[i])
            if value > best_value:
                best_value = value
                best = i
        _reset(board, info, stack, aux, w_board, w_info, w_stack, w_aux)
        play(params, zkeys, w_board, w_info, w_stack, w_aux, arms[best], queue, mark, removed)
        moves += 1 + random_game(params, zkeys, w_board, w_info, w_stack, w_aux, seed * 1_000_003 + k)
        score = w_info[I_SCORE2] if mover == 0 else -w_info[I_SCORE2]
        visits[best] += 1.0
        wins[best] += 1.0 if score > 0 else (0.5 if score == 0 else 0.0)
        stats[2, best] += score / 2.0
        stats[3, best] += (score / 2.0) ** 2
    return moves


@dataclass
class MoveStats:
    """One root move: ``move`` action, ``visits`` playouts, ``winrate`` in [0, 1] for the side to
    move, ``lcb`` the lower end of its 95 % normal interval, ``score_mean`` / ``score_stdev`` the
    final score of its playouts in points (side to move's view, komi included), None where the
    engine does not estimate the score; ``prior`` the network's prior of the move in [0, 1] (None
    for an engine without priors: flat Monte-Carlo tries every legal move alike); ``pv`` the
    principal variation from the root, starting with ``move`` (actions; empty where the engine
    keeps no tree below the root); ``pv_visits`` / ``pv_edge_visits`` one count per ``pv`` move:
    N of the node it reaches and the visits of the edge it follows (``Searcher.line_visits``;
    empty with ``pv``)."""

    move: int
    visits: int
    winrate: float
    lcb: float
    score_mean: float | None
    score_stdev: float | None
    prior: float | None = None
    pv: tuple[int, ...] = ()
    pv_visits: tuple[int, ...] = ()
    pv_edge_visits: tuple[int, ...] = ()


class FlatMonteCarlo:
    """The engine. ``think(state, ...)`` runs playouts and returns the root moves by visits.

    Args:
        playouts: playouts per move when no time is given (default 2000).
        c_ucb: UCB1 exploration constant on win rates (sqrt(2) in Auer et al.; 0.7 here favours
            the leading moves, as Monte-Carlo Go programs tuned it).
        resign_below: resign when the best win rate is under this (0 = never).
        seed: of the playouts.
    """

    name = ENGINE_NAME

    def __init__(self, playouts: int = 2000, *, c_ucb: float = 0.7, resign_below: float = 0.03,
                 seed: int = 0):
        if playouts < 1:
            raise ValueError(f"playouts must be >= 1, got {playouts}")
        self.playouts = int(playouts)
        self.c_ucb = float(c_ucb)
        self.resign_below = float(resign_below)
        self.seed = int(seed)
        self._calls = 0

    def warm_up(self, playouts: int = 16) -> None:
        """Compile (or load from numba's disk cache) the rules and playout kernels by a tiny
        ``think`` on a 5x5 board (the kernels do not depend on the size); the seeds of later
        moves stay as without it."""
        from zeroplay.games import make

        calls = self._calls
        self.think(make("go", size=5).initial(), playouts=playouts)
        self._calls = calls

    def think(self, state, *, playouts: int | None = None, seconds: float | None = None,
              on_progress=None, progress_every_s: float = 0.5, stop=None) -> list[MoveStats]:
        """Root moves sorted by visits (most first). Stops at ``playouts`` (default
        ``self.playouts`` when no ``seconds``), after ``seconds``, or when ``stop`` (a
        ``threading.Event``) is set; ``on_progress(stats)`` every ``progress_every_s``.

        Raises:
            ValueError: a finished game (no legal move).
        """
        game = state.game
        arms = np.asarray(state.legal_moves(), dtype=np.int64)
        if arms.size == 0:
            raise ValueError("the game is over")
        # as in the playouts, never fill one of our own eyes (pass stays an arm)
        board_now = state._pos.board
        me = state.to_play + 1
        arms = np.array([a for a in arms if a == game.pass_action
                         or not is_own_eye(board_now, game.width, int(a), me)], dtype=np.int64)
        if playouts is None and seconds is None:
            playouts = self.playouts
        stats = np.zeros((4, arms.size))
        board, info, stack, aux = game._fast_arrays(state.fast())
        start = time.monotonic()
        last_report = start
        done = 0
        chunk = 64
        while True:
            if playouts is not None and done >= playouts:
                break
            if seconds is not None and time.monotonic() - start >= seconds:
                break
            if stop is not None and stop.is_set():
                break
            n = chunk if playouts is None else min(chunk, playouts - done)
            self._calls += 1
            run_playouts(game.params, game.zkeys, board, info, stack, aux, arms, stats, n, self.c_ucb,
                         self.seed * 7919 + self._calls)
            done += n
            if on_progress is not None and time.monotonic() - last_report >= progress_every_s:
                last_report = time.monotonic()
                on_progress(self._stats(arms, stats))
        return self._stats(arms, stats)

    @staticmethod
    def _stats(arms, stats) -> list[MoveStats]:
        out = []
        for a, n, w, s, s2 in zip(arms, *stats):
            if n == 0:
                continue
            q = w / n
            mean = s / n
            # spread of the win rate's Beta(w + 1, n - w + 1) posterior: wide after few playouts
            q_post = (w + 1) / (n + 2)
            spread = np.sqrt(q_post * (1 - q_post) / (n + 3))
            out.append(MoveStats(int(a), int(n), float(q), float(max(q - 1.96 * spread, 0.0)),
                                 float(mean), float(np.sqrt(max(s2 / n - mean * mean, 0.0)))))
        out.sort(key=lambda s: (-s.visits, -s.winrate))
        return out

    def choose(self, state, stats: list[MoveStats]) -> int | None:
        """The move to play (the most visited), None to resign (best win rate under
        ``resign_below`` after at least 100 playouts of it)."""
        best = stats[0]
        if self.resign_below > 0 and best.winrate < self.resign_below and best.visits >= 100:
            return None
        return best.move


@njit(cache=True)
def run_ownership(params, zkeys, board, info, stack, aux, count, seed, owner, seki):
    """Add to ``owner`` float64 (cells,) the final owner of each point (+1 Black, -1 White, 0
    neither: a stone's colour, or the one colour an empty region reaches) over ``count`` random
    games from the position that keep a seki (``random_game``'s ``keep_seki``); add to ``seki``
    float64 (cells,) 1 for each stone whose chain ends a game touching an empty region that
    reaches both colours. Such a region is a seki's shared liberties: the games fill every other
    point that is not an eye, since only a self-atari of 2 or more stones is refused."""
    cells = params[P_CELLS]
    w = params[P_WIDTH]
    w_board, w_info, w_stack, w_aux, queue, mark = _scratch(board, info, stack, aux)
    in_seki = np.zeros(cells, np.uint8)
    for k in range(count):
        _reset(board, info, stack, aux, w_board, w_info, w_stack, w_aux)
        random_game(params, zkeys, w_board, w_info, w_stack, w_aux, seed * 1_000_003 + k, True)
        mark[:] = 0
        in_seki[:] = 0
        for start in range(cells):
            v = w_board[start]
            if v != 0:
                owner[start] += 1.0 if v == 1 else -1.0
                continue
            if mark[start]:
                continue
            mark[start] = 1
            queue[0] = start
            size = 1
            head = 0
            reaches = 0
            while head < size:
                c = queue[head]
                head += 1
                for nb in neighbors(c, w, cells):
                    if nb >= 0:
                        if w_board[nb] == 0:
                            if mark[nb] == 0:
                                mark[nb] = 1
                                queue[size] = nb
                                size += 1
                        else:
                            reaches |= w_board[nb]
            if reaches == 1 or reaches == 2:
                for i in range(size):
                    owner[queue[i]] += 1.0 if reaches == 1 else -1.0
            elif reaches == 3:
                for i in range(size):
                    for nb in neighbors(queue[i], w, cells):
                        if nb >= 0 and w_board[nb] != 0:
                            in_seki[nb] = 1
        _spread_along_chains(w_board, w, in_seki, queue)
        for c in range(cells):
            seki[c] += in_seki[c]


@njit(cache=True)
def _spread_along_chains(board, w, flags, queue):
    """Set ``flags`` (uint8, cells) on every stone of each chain holding a flagged stone."""
    cells = board.shape[0]
    size = 0
    for c in range(cells):
        if flags[c]:
            queue[size] = c
            size += 1
    head = 0
    while head < size:
        c = queue[head]
        head += 1
        for nb in neighbors(c, w, cells):
            if nb >= 0 and board[nb] == board[c] and flags[nb] == 0:
                flags[nb] = 1
                queue[size] = nb
                size += 1


def ownership(state, playouts: int = 400, seed: int = 0) -> np.ndarray:
    """float64 (cells,) mean final owner of each point over ``playouts`` random games, in
    [-1, 1] from Black's view (+1 Black's). KataGo's ownership idea on random playouts: a stone
    whose point mostly ends the opponent's is dead. The playouts refuse self-atari of 2 or more
    stones, so a seki stands (its stones keep their colour, its shared liberties are 0). A game
    over by two passes is played on from its stones (the side to move as it stands): a random
    game from the ended position plays no move, so no stone could be found dead."""
    return ownership_and_seki(state, playouts, seed)[0]


def ownership_and_seki(state, playouts: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``ownership`` and, float64 (cells,) in [0, 1], the share of the random games that end
    with each stone in a seki (its chain touching shared liberties: ``run_ownership``)."""
    game = state.game
    if state.is_terminal:
        state = game.from_stones(state.stones(0), state.stones(1), to_play=state.to_play,
                                 prisoners=game.prisoners(state))
    owner = np.zeros(game.cells)
    seki = np.zeros(game.cells)
    board, info, stack, aux = game._fast_arrays(state.fast())
    run_ownership(game.params, game.zkeys, board, info, stack, aux, int(playouts), int(seed), owner, seki)
    return owner / playouts, seki / playouts
