"""Othello 6x6 (any even size 4..10): the example of a game that plugs in by its folder alone.

The rules (``game.py``), the compiled kernels (``kernels.py``), the game's own fast-path fields
(``layout.py``). ``GAMES`` and ``KERNELS`` are what ``games/registry.py`` reads.
"""

from zeroplay.games.othello.game import DEFAULT_SIZE, MAX_SIZE, MIN_SIZE, Othello, start_discs
from zeroplay.games.othello.kernels import KERNELS

GAMES = {"othello": Othello}

__all__ = ["DEFAULT_SIZE", "GAMES", "KERNELS", "MAX_SIZE", "MIN_SIZE", "Othello", "start_discs"]
