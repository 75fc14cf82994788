"""Gomoku: n in a row on any board 5..25 (free-style or exactly-n), and tic-tac-toe.

One folder: the rules (``game.py``), the compiled kernels (``kernels.py``), the game's own
fast-path fields (``layout.py``). ``GAMES`` and ``KERNELS`` are what ``games/registry.py`` reads.
"""

from zeroplay.games.gomoku.game import (
    MAX_SIZE,
    MIN_N_IN_ROW,
    MIN_SIZE,
    RULES,
    USUAL_N_IN_ROW,
    Gomoku,
    TicTacToe,
    default_n_in_row,
)
from zeroplay.games.gomoku.kernels import KERNELS

GAMES = {"gomoku": Gomoku, "tictactoe": TicTacToe}

__all__ = ["GAMES", "KERNELS", "MAX_SIZE", "MIN_N_IN_ROW", "MIN_SIZE", "RULES", "USUAL_N_IN_ROW", "Gomoku", "TicTacToe",
           "default_n_in_row"]
