"""When an engine playing a person gives up: KataGo's resignation rule, for the front-ends.

A Go engine that plays on in a lost game fills its own eyes until its groups are captured: every
move loses, so the win-rate search has nothing to prefer. KataGo resigns instead once its win rate
has been under a threshold for several consecutive turns of its own (``resignThreshold``,
``resignConsecTurns`` in its GTP config; 3 turns by default), each after a real search. The
terminal and the web board use this rule in games whose ``Game.resigns`` is set (Go), over the
engine's win rates at its positions of the line played (so a move taken back takes its search's
count with it, and replaying it counts again); ``zeroplay gtp`` has GTP's own ``resign`` reply
(``engine.go_search.PuctRollout.choose``).
"""

from __future__ import annotations

RESIGN_BELOW = 0.03
"""The win rate (the engine's expected score in [0, 1]) under which a move counts toward
resigning: 3 %, as ``zeroplay gtp`` resigns."""
RESIGN_TURNS = 3
"""Consecutive own moves under ``RESIGN_BELOW`` before the engine resigns (KataGo's default)."""
RESIGN_MIN_PLAYOUTS = 100
"""A search of fewer playouts (a move stopped early by Ctrl-C or a short time limit) is too few
to trust: it breaks a run of hopeless moves (``trusted_win_rate`` gives None)."""


def trusted_win_rate(result, min_playouts: int = RESIGN_MIN_PLAYOUTS) -> float | None:
    """The engine's win rate in [0, 1] of a search ``result`` (a ``SearchResult``, the mover's
    perspective) when it can count toward resigning: 0 for a proven loss, else
    ``result.win_rate`` after at least ``min_playouts`` playouts; None for a shorter search."""
    if result.proven == "loss":
        return 0.0
    if result.playouts < min_playouts:
        return None
    return float(result.win_rate)


def resigns(win_rates, below: float = RESIGN_BELOW, turns: int = RESIGN_TURNS) -> bool:
    """Whether the engine resigns: ``win_rates`` are its win rates in [0, 1] (its own
    perspective) at its last positions of the line played, oldest first, the search just made
    last; None where a position was not searched or too briefly (``trusted_win_rate``): it breaks
    the run. True when the last ``turns`` are all under ``below`` (0: never)."""
    last = list(win_rates)[-turns:]
    return below > 0 and len(last) == turns and all(w is not None and w < below for w in last)


def resignation_result(resigned: int) -> str:
    """SGF's ``RE`` of a game the player ``resigned`` (0 Black, 1 White) gave up: ``"W+R"`` /
    ``"B+R"``, the other side's win."""
    return "BW"[1 - resigned] + "+R"


def resigned_by(result: str) -> int | None:
    """The player who resigned (0 Black, 1 White) by an SGF ``RE`` (``W+R``, ``B+Resign``, any
    case), else None."""
    text = result.strip().upper()
    if text in ("W+R", "W+RESIGN", "B+R", "B+RESIGN"):
        return 0 if text.startswith("W") else 1
    return None
