"""An independent reference of the Gomoku rules for the tests (numpy, no compiled code).

Coordinates (x, y): x = column from the left, y = row from the top; cell = y * width + x. Boards
are 2-D int arrays (height, width): 0 empty, 1 Black (player 0), 2 White (player 1).

The reference works on the 2-D board by shifting whole masks (never by flat-index steps), so it
cannot share a wrap-around mistake with the kernels it checks.
"""

from __future__ import annotations

import numpy as np

DIRECTIONS = ((1, 0), (0, 1), (1, 1), (-1, 1))
"""(dx, dy) of the four line directions: horizontal, vertical, diagonal, anti-diagonal."""


def cell(x: int, y: int, width: int) -> int:
    """Flat cell of (x, y)."""
    return y * width + x


def cells(coords, width: int) -> list[int]:
    """Flat cells of a list of (x, y)."""
    return [cell(x, y, width) for x, y in coords]


def line_totals(board: np.ndarray, stone: int) -> np.ndarray:
    """int (4, h, w): length of the line of ``stone`` through each cell in each direction.

    Every cell is counted as if it held ``stone`` itself (so on an empty cell: the line that a
    stone played there would make; on a stone of that colour: its own maximal line).
    """
    h, w = board.shape
    margin = max(h, w)
    mine = np.zeros((h + 2 * margin, w + 2 * margin), dtype=bool)
    mine[margin : margin + h, margin : margin + w] = board == stone
    out = np.ones((4, h, w), dtype=np.int64)
    for d, (dx, dy) in enumerate(DIRECTIONS):
        for sign in (1, -1):
            alive = np.ones((h, w), dtype=bool)
            for k in range(1, margin):
                sx, sy = sign * dx * k, sign * dy * k
                alive &= mine[margin + sy : margin + sy + h, margin + sx : margin + sx + w]
                if not alive.any():
                    break
                out[d] += alive
    return out


def _wins(total: np.ndarray, n: int, rule: str) -> np.ndarray:
    return total == n if rule == "standard" else total >= n


def winning_cells(board: np.ndarray, player: int, n: int, rule: str) -> np.ndarray:
    """Sorted flat cells where a stone of ``player`` would win at once (no terminal check)."""
    totals = line_totals(board, player + 1)
    wins = _wins(totals, n, rule).any(axis=0) & (board == 0)
    return np.flatnonzero(wins.ravel())


def holds_win(board: np.ndarray, player: int, n: int, rule: str) -> bool:
    """True if ``player``'s stones already form a winning line (exactly n under ``standard``)."""
    totals = line_totals(board, player + 1)
    return bool((_wins(totals, n, rule).any(axis=0) & (board == player + 1)).any())


def wins_with(board: np.ndarray, x: int, y: int, player: int, n: int, rule: str) -> bool:
    """True if a stone of ``player`` on (x, y) makes a winning line through (x, y)."""
    totals = line_totals(board, player + 1)
    return bool(_wins(totals[:, y, x], n, rule).any())
