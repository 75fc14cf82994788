"""Shared stand-ins for the search tests (no tests here): fake evaluators keyed on positions,
board helpers and a brute-force tic-tac-toe solver.

Conventions (shared/README.md): a cell is ``row * width + col``; ``cell(x, y)`` takes Gomocup
(x, y) = (column, row from the top). Values are from the side to move at the evaluated position.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from zeroplay.games import make


def cell(x: int, y: int, width: int = 15) -> int:
    """Flat cell of Gomocup (x, y): column x, row y from the top."""
    return y * width + x


def position_key(board, to_play: int) -> tuple:
    """Identity of a position for the fakes: the stones and the side to move (no history)."""
    return (tuple(int(v) for v in np.asarray(board).ravel()), int(to_play))


def state_key(state) -> tuple:
    return position_key(state.board, state.to_play)


class FakeEvaluator:
    """Fixed priors and values keyed on the position; uniform priors and ``default_value``
    elsewhere. Records every position it is asked about (``calls``: one list per call).

    Args:
        entries: {state_key: (priors or None, value)}; priors a dict {action: weight}
            (renormalised over the legal moves by the search), None for uniform; value from the
            side to move at that position.
        features: the feature set the search believes this evaluator reads.
    """

    def __init__(self, entries=None, default_value: float = 0.0, features=None):
        self.entries = dict(entries or {})
        self.default_value = default_value
        self.features = features
        self.calls: list[list[tuple]] = []

    @property
    def evaluated(self) -> list[tuple]:
        """Every position sent to the evaluator, in order."""
        return [k for call in self.calls for k in call]

    def evaluate(self, batch):
        b = len(batch)
        priors = np.zeros((b, batch.game.num_actions), np.float32)
        values = np.full(b, self.default_value, np.float32)
        keys = []
        for i in range(b):
            legal = np.asarray(batch.legal[i], bool)
            assert legal.any(), "a leaf without legal moves was sent to the evaluator"
            key = position_key(batch.boards[i], batch.infos[i][0])
            keys.append(key)
            priors[i] = legal / legal.sum()
            if key in self.entries:
                p, v = self.entries[key]
                if p is not None:
                    priors[i] = 0.0
                    for a, w in p.items():
                        priors[i, a] = w
                values[i] = v
        self.calls.append(keys)
        return priors, values


class CountingEvaluator:
    """Wraps an evaluator and counts its calls and the positions per call."""

    def __init__(self, inner):
        self.inner = inner
        self.features = getattr(inner, "features", None)
        self.cacheable = getattr(inner, "cacheable", True)
        self.batch_sizes: list[int] = []

    def evaluate(self, batch):
        self.batch_sizes.append(len(batch))
        return self.inner.evaluate(batch)


# --- tic-tac-toe ground truth --------------------------------------------------------------
TTT_LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def ttt_winner(board: tuple) -> int | None:
    """0 or 1 when that player has three in a row on ``board`` (cells 0 empty, 1, 2), else None."""
    for a, b, c in TTT_LINES:
        if board[a] and board[a] == board[b] == board[c]:
            return board[a] - 1
    return None


@lru_cache(maxsize=None)
def ttt_value(board: tuple, to_play: int) -> int:
    """Minimax value (+1 win, 0 draw, -1 loss) for ``to_play``, written independently of the engine."""
    if ttt_winner(board) is not None:
        return -1  # the previous mover completed a line
    empty = [i for i in range(9) if board[i] == 0]
    if not empty:
        return 0
    best = -2
    for m in empty:
        child = board[:m] + (to_play + 1,) + board[m + 1 :]
        best = max(best, -ttt_value(child, 1 - to_play))
    return best


def ttt_optimal_moves(board: tuple, to_play: int) -> set[int]:
    """The moves that keep the minimax value of a non-terminal position."""
    v = ttt_value(board, to_play)
    out = set()
    for m in range(9):
        if board[m] == 0:
            child = board[:m] + (to_play + 1,) + board[m + 1 :]
            if -ttt_value(child, 1 - to_play) == v:
                out.add(m)
    return out


def ttt_reachable_states():
    """Every reachable non-terminal tic-tac-toe State (by move sequences from the start), one per
    position."""
    game = make("tictactoe")
    seen, out = set(), []
    stack = [game.initial()]
    while stack:
        s = stack.pop()
        k = state_key(s)
        if k in seen or s.is_terminal:
            continue
        seen.add(k)
        out.append(s)
        for m in s.legal_moves():
            stack.append(s.play(int(m)))
    return out
