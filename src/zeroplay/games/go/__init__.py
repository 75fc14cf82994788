"""Go: rules (compiled, ``kernels.py``), the Game API (``game.py``: ``Go``, ``GoRules``), random
playouts and perft (``playout.py``), network planes (``planes.py``)."""

from zeroplay.games.go.contract import KERNELS
from zeroplay.games.go.game import COLUMNS, Go, GoRules

GAMES = {"go": Go}

__all__ = ["COLUMNS", "GAMES", "GoRules", "Go", "KERNELS"]
