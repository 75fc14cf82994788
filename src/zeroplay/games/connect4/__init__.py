"""Connect Four on the standard 7 x 6 board: rules (``game.py``), compiled kernels (``kernels.py``).

The exact solver lives with the other solvers (``zeroplay.solvers``)."""

from zeroplay.games.connect4.game import HEIGHT, N_IN_ROW, WIDTH, Connect4
from zeroplay.games.connect4.kernels import KERNELS

GAMES = {"connect4": Connect4}

__all__ = ["GAMES", "HEIGHT", "KERNELS", "N_IN_ROW", "WIDTH", "Connect4"]
