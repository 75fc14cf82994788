"""Shogi on cshogi: rules (``game``), keys (``keys``), dlshogi move labels and input planes
(``labels``, ``features``), KIF/CSA records (``records``) and the alpha-beta engine's
evaluation (``evaluation``)."""

from zeroplay.games.shogi.game import START_SFEN, Shogi, ShogiState
from zeroplay.games.shogi.labels import NUM_LABELS, move_label, move_labels

GAMES = {"shogi": Shogi}
KERNELS = None
"""No compiled kernels: the rules live in cshogi (searches drive ``ShogiState`` from Python)."""

__all__ = ["GAMES", "KERNELS", "NUM_LABELS", "START_SFEN", "Shogi", "ShogiState", "move_label", "move_labels"]
