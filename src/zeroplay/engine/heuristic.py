"""A hand-made n-in-a-row evaluator for play without a trained model, in plain numpy.

No numba: the Gomocup engine uses these functions to answer while the compiled search is still
being compiled (about 20 s the first time in a new environment).

Every line segment of ``n`` cells (a *window*, horizontal, vertical or diagonal) that holds stones
of one colour only is a potential win for that colour; the more stones it holds, the more it is
worth. A cell's score is the sum over the windows through it of the attack weight of the side to
move's count plus the defence weight of the opponent's count (the "threat space" weights that
classic Gomoku programs use). Priors are proportional to score squared over the legal cells;
the value compares the two sides' window weights, from the point of view of the side to move.

Boards use the Game API's cells (``row * width + col``, row 0 at the top) and the board codes
0 empty, 1 Black (player 0), 2 White (player 1).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from zeroplay.games.layout import I_TO_PLAY

_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))  # (dx, dy): right, down, down-right, up-right


@lru_cache(maxsize=64)
def windows(width: int, height: int, n: int) -> np.ndarray:
    """The windows of ``n`` cells of a ``width`` x ``height`` board.

    Returns:
        cells: int64 (W, n), the cells of each window, windows grouped by direction.
    """
    out = []
    for dx, dy in _DIRECTIONS:
        for y in range(height):
            for x in range(width):
                ex, ey = x + dx * (n - 1), y + dy * (n - 1)
                if 0 <= ex < width and 0 <= ey < height:
                    out.append([(y + dy * k) * width + x + dx * k for k in range(n)])
    cells = np.array(out, dtype=np.int64).reshape(-1, n)
    cells.setflags(write=False)
    return cells


@lru_cache(maxsize=64)
def centrality(width: int, height: int) -> np.ndarray:
    """float64 (cells,): 1 at the centre falling to 0 at the corners (Euclidean distance).

    A tie-break: an empty board's central cells all lie in the same number of windows, and
    players expect the first stone in the middle (h8 on 15x15).
    """
    y, x = np.divmod(np.arange(width * height), width)
    d = np.hypot(x - (width - 1) / 2, y - (height - 1) / 2)
    out = 1.0 - d / max(d.max(), 1e-9)
    out.setflags(write=False)
    return out


def _weights(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Attack, defence and value weights by stone count 0..n (index n is never used)."""
    k = np.arange(n + 1, dtype=np.float64)
    attack = 6.0 ** k
    defence = 5.0 ** k
    value = np.where(k > 0, 4.0 ** k, 0.0)
    return attack, defence, value


def cell_scores(boards: np.ndarray, to_play: np.ndarray, width: int, height: int, n: int) -> np.ndarray:
    """Heuristic score of every cell for the side to move, float64 (B, cells); 0 on stones.

    Args:
        boards: int8 (B, cells), 0 empty, 1 Black, 2 White.
        to_play: int (B,), 0 or 1.
    """
    cells = windows(width, height, n)
    attack, defence, _ = _weights(n)
    me = (np.asarray(to_play)[:, None] + 1).astype(np.int8)
    win = boards[:, cells]  # (B, W, n)
    black = (win == 1).sum(axis=2)
    white = (win == 2).sum(axis=2)
    mine = np.where(me == 1, black, white)
    theirs = np.where(me == 1, white, black)
    per_window = np.where(theirs == 0, attack[mine], 0.0) + np.where(mine == 0, defence[theirs], 0.0)
    # scatter each window's weight onto its n cells: one bincount over (board, cell) pairs
    b, num_cells = boards.shape[0], width * height
    index = (np.arange(b)[:, None, None] * num_cells + cells[None, :, :]).reshape(-1)
    weight = np.repeat(per_window.reshape(-1), n)
    scores = np.bincount(index, weights=weight, minlength=b * num_cells).reshape(b, num_cells)
    scores[boards != 0] = 0.0
    return scores


def values(boards: np.ndarray, to_play: np.ndarray, width: int, height: int, n: int) -> np.ndarray:
    """Static value in (-1, 1) of each position, float32 (B,), from the side to move's view."""
    cells = windows(width, height, n)
    _, _, weight = _weights(n)
    me = (np.asarray(to_play)[:, None] + 1).astype(np.int8)
    win = boards[:, cells]
    black = (win == 1).sum(axis=2)
    white = (win == 2).sum(axis=2)
    mine = np.where(me == 1, black, white)
    theirs = np.where(me == 1, white, black)
    own = np.where(theirs == 0, weight[mine], 0.0).sum(axis=1)
    opp = np.where(mine == 0, weight[theirs], 0.0).sum(axis=1)
    # the side to move gets the tempo: its threats count 1.5 times
    diff = (1.5 * own - opp) / (50.0 * n + 0.25 * (own + opp))
    return np.tanh(diff).astype(np.float32)


class HeuristicEvaluator:
    """Window-count priors and values for the Gomoku family (``zeroplay.search`` Evaluator).

    Priors: score squared over the legal moves (plus a small floor), up to 50 % more for central
    cells (``centrality``; on an empty board the priors are centrality^16: the first stone goes in
    the middle), each row summing to 1.
    Values: ``values(...)``, side to move's view. Deterministic, so cacheable.
    """

    features = None

    def evaluate(self, batch) -> tuple[np.ndarray, np.ndarray]:
        g = batch.game
        n = int(getattr(g, "n_in_row", 5))
        to_play = batch.infos[:, I_TO_PLAY]
        legal = batch.legal
        scores = cell_scores(batch.boards, to_play, g.width, g.height, n)
        # up to +50 % for central cells: decides between near-equal cells (threat scores differ by
        # factors of 5-6 per stone, so tactics are untouched)
        central = centrality(g.width, g.height)
        raw = np.where(legal, (scores * scores + 1e-3) * (1.0 + 0.5 * central ** 2), 0.0)
        # an empty board: the opening stone goes in the middle, as players expect
        empty = ~(batch.boards != 0).any(axis=1)
        if empty.any():
            raw[empty] = np.where(legal[empty], central ** 16 + 1e-6, 0.0)
        total = raw.sum(axis=1, keepdims=True)
        priors = (raw / np.maximum(total, 1e-30)).astype(np.float32)
        return priors, values(batch.boards, to_play, g.width, g.height, n)


# --- moves without a search (the Gomocup engine's answer while the search compiles) -------------
def run_length(board: np.ndarray, width: int, height: int, cell: int, stone: int, dx: int, dy: int) -> int:
    """Stones of code ``stone`` in the line through ``cell`` along (dx, dy), ``cell`` counted as one."""
    x0, y0 = cell % width, cell // width
    total = 1
    for sign in (1, -1):
        x, y = x0 + sign * dx, y0 + sign * dy
        while 0 <= x < width and 0 <= y < height and board[y * width + x] == stone:
            total += 1
            x += sign * dx
            y += sign * dy
    return total


def makes_win(board: np.ndarray, width: int, height: int, cell: int, stone: int, n: int, exact: bool) -> bool:
    """True if a stone of code ``stone`` on empty ``cell`` makes n in a row (exactly n if ``exact``)."""
    for dx, dy in _DIRECTIONS:
        length = run_length(board, width, height, cell, stone, dx, dy)
        if length == n or (length > n and not exact):
            return True
    return False


def winning_cells(board: np.ndarray, width: int, height: int, stone: int, n: int, exact: bool) -> list[int]:
    """Empty cells where a stone of code ``stone`` wins at once, ascending."""
    cells = windows(width, height, n)
    win = board[cells]
    hot = ((win == stone).sum(axis=1) == n - 1) & ((win == 0).sum(axis=1) == 1)
    candidates = sorted({int(c) for c in cells[hot][win[hot] == 0]})
    return [c for c in candidates if makes_win(board, width, height, c, stone, n, exact)]


def quick_move(board: np.ndarray, width: int, height: int, me: int, n: int = 5, exact: bool = False,
               opponent_exact: bool | None = None) -> int:
    """A move for stone code ``me`` (1 or 2) in a few milliseconds, without search.

    Wins at once if it can, else blocks the opponent's immediate win, else plays the cell with
    the best heuristic score (near-ties: the more central cell). ``exact``: only exactly ``n``
    in a row wins for ``me``; ``opponent_exact`` the same for the opponent (None: as ``exact``;
    renju differs by colour: Black's overline is no win, White's is).

    Raises:
        ValueError: the board is full.
    """
    board = np.asarray(board, dtype=np.int8).reshape(-1)
    if not (board == 0).any():
        raise ValueError("the board is full")
    own = winning_cells(board, width, height, me, n, exact)
    if own:
        return own[0]
    blocks = winning_cells(board, width, height, 3 - me, n, exact if opponent_exact is None else opponent_exact)
    if blocks:
        return blocks[0]
    scores = cell_scores(board[None, :], np.array([me - 1]), width, height, n)[0]
    scores = scores * (1.0 + 0.01 * centrality(width, height))
    scores[board != 0] = -1.0
    return int(np.argmax(scores))


class ColumnHeuristicEvaluator:
    """Window-count priors and values for Connect Four (``zeroplay.search`` Evaluator).

    Actions are columns; a column is scored by ``cell_scores`` (4-cell windows, attack
    and defence weights) at the cell its stone lands on, and the centre columns get up to 50 %
    more (they lie in the most windows; the first stone goes in the middle, as in perfect play).
    Priors: score squared over the open columns, each row summing to 1. Values:
    ``values`` with n = 4, side to move's view. Deterministic, so cacheable.
    """

    features = None

    def evaluate(self, batch) -> tuple[np.ndarray, np.ndarray]:
        g = batch.game
        width, height, n = g.width, g.height, int(getattr(g, "n_in_row", 4))
        to_play = batch.infos[:, I_TO_PLAY]
        boards = batch.boards
        scores = cell_scores(boards, to_play, width, height, n)  # (B, cells), row 0 at the top
        # a stone dropped in column c lands on the lowest empty row: (empties in c) - 1
        empties = (boards.reshape(len(boards), height, width) == 0).sum(axis=1)  # (B, width)
        row = np.maximum(empties - 1, 0)
        column_scores = np.take_along_axis(scores, row * width + np.arange(width), axis=1)
        x = np.arange(width)
        central = 1.0 - np.abs(x - (width - 1) / 2) / max((width - 1) / 2, 1)
        legal = batch.legal
        raw = np.where(legal, (column_scores ** 2 + 1e-3) * (1.0 + 0.5 * central ** 2), 0.0)
        priors = (raw / np.maximum(raw.sum(axis=1, keepdims=True), 1e-30)).astype(np.float32)
        return priors, values(boards, to_play, width, height, n)


def heuristic_evaluator(game):
    """The window-count evaluator ``game.heuristic`` names: ``HeuristicEvaluator`` for ``"cells"``
    (the n-in-a-row games: Gomoku, tic-tac-toe), ``ColumnHeuristicEvaluator`` for ``"columns"``
    (Connect Four), ``go_prior.GoPriorEvaluator`` for ``"go"`` (local-knowledge priors, rollout
    values), None for a game without one."""
    kinds = {"cells": HeuristicEvaluator, "columns": ColumnHeuristicEvaluator}
    name = getattr(game, "heuristic", None)
    if name == "go":
        from zeroplay.engine.go_prior import GoPriorEvaluator

        return GoPriorEvaluator()
    kind = kinds.get(name)
    return kind() if kind is not None else None
