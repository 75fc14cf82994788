"""One compiled entry point per operation for every game, dispatched on ``params[P_GAME]``.

The search calls these from its own compiled loops, so it works for any game of the Game API
without Python in the per-playout path. A new game family adds its kernels and one branch per
function here.
"""

from __future__ import annotations

from numba import njit

from zeroplay.games import connect4_kernels as connect4
from zeroplay.games import gomoku_kernels as gomoku
from zeroplay.games.layout import GAME_CONNECT4, GAME_GOMOKU, I_NWIN0, I_TERMINAL, P_GAME


@njit(cache=True)
def apply(params, zkeys, board, info, stack, wmask, action):
    """Play a legal ``action`` in place, winning-move masks included."""
    if params[P_GAME] == GAME_GOMOKU:
        gomoku.apply_move_tracked(params, zkeys, board, info, stack, wmask, action)
    elif params[P_GAME] == GAME_CONNECT4:
        connect4.apply_move_tracked(params, zkeys, board, info, stack, wmask, action)
    else:
        raise ValueError("unknown game family")


@njit(cache=True)
def undo(params, zkeys, board, info, stack, wmask):
    """Take back the last action in place; returns it."""
    if params[P_GAME] == GAME_GOMOKU:
        return gomoku.undo_move_tracked(params, zkeys, board, info, stack, wmask)
    if params[P_GAME] == GAME_CONNECT4:
        return connect4.undo_move_tracked(params, zkeys, board, info, stack, wmask)
    raise ValueError("unknown game family")


@njit(cache=True)
def legal_moves(params, board, info, out):
    """Write the legal actions, ascending, into ``out`` (int64, >= num_actions); returns count."""
    if params[P_GAME] == GAME_GOMOKU:
        return gomoku.legal_moves(params, board, info, out)
    if params[P_GAME] == GAME_CONNECT4:
        return connect4.legal_moves(params, board, info, out)
    raise ValueError("unknown game family")


@njit(cache=True)
def winning_moves(params, board, info, wmask, player, out):
    """Write the actions that win at once for ``player`` into ``out``; returns count (0 if over)."""
    if params[P_GAME] == GAME_GOMOKU:
        return gomoku.winning_moves(params, info, wmask, player, out)
    if params[P_GAME] == GAME_CONNECT4:
        return connect4.winning_moves(params, board, info, wmask, player, out)
    raise ValueError("unknown game family")


@njit(cache=True)
def num_winning_moves(params, board, info, wmask, player):
    """How many actions win at once for ``player`` (0 if the game is over)."""
    if params[P_GAME] == GAME_GOMOKU or params[P_GAME] == GAME_CONNECT4:
        # Gomoku counts winning cells, Connect Four winning columns: both are actions
        if info[I_TERMINAL] != 0:
            return 0
        return info[I_NWIN0 + player]
    raise ValueError("unknown game family")
