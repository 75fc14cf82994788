"""Array layout of the compiled fast path, the part every game shares.

A position in the fast path is four numpy arrays, so that compiled loops never touch a Python
object::

    board  int8[cells]          0 empty, 1 a stone of player 0 (Black), 2 of player 1 (White);
                                games with more piece kinds define their own codes
    info   int64[INFO_SIZE]     scalar fields: I_* below (common), then the game's own
                                fields from I_GAME0 on (e.g. Gomoku's winning-move counts)
    stack  int32[max_plies + 1] stack[k] = the action played at ply k (for undo); -1 unknown
    aux    uint8[rows, cols]    the game's own incremental state, shape ``game.aux_shape``
                                (Gomoku: winning-move masks per player and cell)

``params`` int64[PARAMS_SIZE] holds a game's constants: P_* below (common), then the game's own
from P_GAME0 on. ``zkeys`` int64[rows, cells] holds its Zobrist keys (uint64 bits in int64), rows
defined by the game (row 2 is the last-move key row for every board game here, and rows 3, 4, ...
the keys of the moves before it for a game whose planes show them, Go: ``search.gather.node_key``).

Bytes per position: cells + 8 * INFO_SIZE + 4 * (max_plies + 1) + aux size; the search copies
one such position per descent (``search/gather.py``), so aux stays small.

Moves on this path are actions (``0 <= a < num_actions``). The node table keys a node by
(info[I_KEY], side to move, ply), so a game's key must tell apart positions whose legal moves
differ (Go folds its ko point in).
"""

# params fields shared by every game
P_FAMILY = 0  # index of the game's kernels in the compiled dispatch (games/fast.py)
P_WIDTH = 1
P_HEIGHT = 2
P_CELLS = 3
P_ACTIONS = 4
P_EMPTY_KEY = 5  # Zobrist key of the empty board (uint64 bits in an int64)
P_SIDE_KEY = 6  # XORed in when player 1 is to move
P_GAME0 = 7  # first field a game defines for itself
PARAMS_SIZE = 16

# info fields shared by every game
I_TO_PLAY = 0  # 0 or 1
I_PLY = 1  # moves played (set-up stones count as moves)
I_KEY = 2  # Zobrist key (uint64 bits stored in an int64), side to move included
I_WINNER = 3  # -1 none, 0 or 1
I_TERMINAL = 4  # 0 or 1; terminal with winner -1 is a draw
I_LAST = 5  # last move's cell, -1 when none (or a pass)
I_GAME0 = 6  # first field a game defines for itself
INFO_SIZE = 16

NO_MOVE = -1
