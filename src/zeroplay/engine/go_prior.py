"""Go without a network: cheap compiled move priors and random-rollout values for the PUCT search.

The search-only Go engine used to search with uniform priors (``RolloutEvaluator``); at the
playouts of ``zeroplay play`` its first visits went to the legal moves in board order, so with
few playouts it opened on the edge (A9, B9, ...). ``GoPriorEvaluator`` gives each legal move a
prior from a few local facts, the kind of knowledge the early Monte-Carlo Go programs put in
their tree priors (Gelly and Silver 2007, "Combining online and offline knowledge in UCT";
Coulom 2007's Crazy Stone patterns): no filling of one's own eyes, no self-atari, captures and
escapes from atari first, the first and second lines avoided in the opening. A small random
jitter breaks ties, so equal moves are not tried in board order. Values are the results of
random games to the end (Go's eye-respecting ``rollout`` kernel: ``search.rollout``).

Weights (multiplied, then normalised over the legal actions; constants below): a plain point 1;
own eye ``EYE``; a capture ``CAPTURE``; saving an own chain in atari ``ESCAPE``; a self-atari
``SELF_ATARI`` (when it captures nothing); first line ``LINE1_OPENING`` / ``LINE1_LATER``, second
line ``LINE2_OPENING`` / ``LINE2_LATER`` (the opening: fewer stones than ``OPENING_FILL`` of the
points); pass ``PASS`` (so it wins the prior only once nothing but eye fills and self-ataris is
left). Measured in docs/STRENGTH.md ("Go 9x9 without a model").
"""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.games.go.kernels import neighbors
from zeroplay.games.go.layout import I_STONES0, I_STONES1
from zeroplay.games.go.playout import is_own_eye
from zeroplay.games.layout import I_TO_PLAY, P_CELLS, P_WIDTH
from zeroplay.search.rollout import _seed, rollout_values

EYE = 1e-3
CAPTURE = 8.0
ESCAPE = 4.0
SELF_ATARI = 0.1
LINE1_OPENING, LINE1_LATER = 0.05, 0.3
LINE2_OPENING, LINE2_LATER = 0.3, 0.8
OPENING_FILL = 0.25
PASS = 0.02
JITTER = 0.2
"""Each weight is multiplied by 1 + JITTER * u, u uniform in [0, 1): random tie-breaks."""


@njit(cache=True)
def _liberties(board, w, start, seen, stamp_value, queue, limit):
    """Distinct liberties of the chain through ``start``, counted up to ``limit`` (then stops).

    ``seen`` int32 (cells,) holds visit stamps: a cell is visited in this call when it equals
    ``stamp_value`` (no clearing between calls)."""
    cells = board.shape[0]
    color = board[start]
    queue[0] = start
    seen[start] = stamp_value
    size = 1
    head = 0
    libs = 0
    while head < size:
        c = queue[head]
        head += 1
        for nb in neighbors(c, w, cells):
            if nb < 0 or seen[nb] == stamp_value:
                continue
            v = board[nb]
            if v == 0:
                seen[nb] = stamp_value
                libs += 1
                if libs >= limit:
                    return libs
            elif v == color:
                seen[nb] = stamp_value
                queue[size] = nb
                size += 1
    return libs


@njit(cache=True)
def prior_weights(params, boards, infos, legal, out, seed):
    """Priors of the legal actions of each position (see the module docstring).

    Args:
        params: the game's int64 params (``games.go.layout``).
        boards: int8 (B, cells); infos: int64 (B, INFO_SIZE); legal: bool (B, cells + 1).
        out: float32 (B, cells + 1), written: >= 0, 0 on illegal actions, rows summing to 1.
        seed: the jitter's random seed.
    """
    np.random.seed(seed)
    cells = params[P_CELLS]
    w = params[P_WIDTH]
    h = cells // w
    queue = np.empty(cells, np.int32)
    seen = np.zeros(cells, np.int32)
    stamp_value = 0
    for b in range(boards.shape[0]):
        board = boards[b]
        me = infos[b, I_TO_PLAY] + 1
        opp = 3 - me
        opening = infos[b, I_STONES0] + infos[b, I_STONES1] < OPENING_FILL * cells
        total = 0.0
        for c in range(cells):
            if not legal[b, c]:
                out[b, c] = 0.0
                continue
            weight = 1.0
            if is_own_eye(board, w, c, me):
                weight = EYE
            else:
                captures = False
                escapes = False
                empty_nbs = 0
                for nb in neighbors(c, w, cells):
                    if nb < 0:
                        continue
                    v = board[nb]
                    if v == 0:
                        empty_nbs += 1
                    else:
                        stamp_value += 1
                        libs = _liberties(board, w, nb, seen, stamp_value, queue, 2)
                        if v == opp and libs == 1:
                            captures = True
                        elif v == me and libs == 1:
                            escapes = True
                # the chain the stone makes: its liberties after the move (no capture counted)
                board[c] = me
                stamp_value += 1
                new_libs = _liberties(board, w, c, seen, stamp_value, queue, 2)
                board[c] = 0
                if captures:
                    weight *= CAPTURE
                elif new_libs <= 1:
                    weight *= SELF_ATARI
                elif escapes:
                    weight *= ESCAPE
                x = c % w
                y = c // w
                line = min(min(x, y), min(w - 1 - x, h - 1 - y))
                if line == 0 and not captures:
                    weight *= LINE1_OPENING if opening else LINE1_LATER
                elif line == 1 and not captures:
                    weight *= LINE2_OPENING if opening else LINE2_LATER
            weight *= 1.0 + JITTER * np.random.random()
            out[b, c] = weight
            total += weight
        out[b, cells] = PASS if legal[b, cells] else 0.0
        total += out[b, cells]
        if total > 0:
            for a in range(cells + 1):
                out[b, a] /= total


class GoPriorEvaluator:
    """Go priors from local knowledge (``prior_weights``) and values from ``rollouts`` random games
    (mean result in {-1, 0, +1} from the side to move's view; the game's rollout kernel, komi and
    scoring included). A ``zeroplay.search`` Evaluator; not cacheable (random values and jitter).

    Args:
        rollouts: random games per leaf (>= 1).
        seed: the random seed of the jitter and the rollouts (None: fresh).
    """

    features = None
    cacheable = False
    description = ("search only (Go priors: no own-eye fills or self-atari, captures first, edge "
                   "avoided early; random-rollout values")
    """How ``zeroplay play`` names the engine (``factory.search_only_evaluator`` closes it)."""

    def __init__(self, rollouts: int = 1, seed: int | None = None):
        if rollouts < 1:
            raise ValueError("rollouts must be >= 1")
        self.rollouts = rollouts
        self._rng = np.random.default_rng(seed)
        _seed(int(self._rng.integers(1 << 31)))

    def evaluate(self, batch) -> tuple[np.ndarray, np.ndarray]:
        g = batch.game
        priors = np.zeros((len(batch), g.num_actions), np.float32)
        prior_weights(g.params, batch.boards, batch.infos, batch.legal, priors, int(self._rng.integers(1 << 31)))
        values = np.zeros(len(batch), np.float32)
        out = np.zeros(len(batch), np.float32)
        for _ in range(self.rollouts):
            rollout_values(g.params, g.zkeys, batch.boards, batch.infos, out)
            values += out
        return priors, values / self.rollouts
