"""Array layout of the compiled fast path shared by every game.

A position in the fast path is four numpy arrays, so that compiled loops never touch a Python
object:

* ``board``  int8[cells]: 0 empty, 1 a stone of player 0 (Black), 2 a stone of player 1 (White).
* ``info``   int64[INFO_SIZE]: the scalar fields indexed by the ``I_*`` constants below.
* ``wmask``  uint8[2, cells]: ``wmask[p, c]`` has bit d set when a stone of player p on the empty
  cell c would complete a winning line in direction d (0: horizontal, 1: vertical,
  2: diagonal down-right, 3: anti-diagonal down-left). Kept up to date incrementally by the
  "tracked" apply/undo; 0 on occupied cells.
* ``stack``  int32[cells + 1]: ``stack[k]`` is the move played at ply k (for undo); -1 where
  unknown (positions set up from stones).

``params`` int64[PARAMS_SIZE] holds the game's constants, indexed by the ``P_*`` constants, and
``zkeys`` int64[3, cells] its Zobrist keys (uint64 bits): row 0 Black stones, row 1 White stones,
row 2 last-move keys (see ``zeroplay.hashing``).

Moves on this path are actions (``0 <= a < num_actions``); for Gomoku an action is a cell.
"""

# params fields
P_GAME = 0  # game family id (GAME_* below)
P_WIDTH = 1
P_HEIGHT = 2
P_N_IN_ROW = 3
P_RULE = 4  # RULE_* below
P_CELLS = 5
P_ACTIONS = 6
P_EMPTY_KEY = 7  # Zobrist key of the empty board (uint64 bits in an int64)
P_SIDE_KEY = 8  # XORed in when player 1 is to move
PARAMS_SIZE = 9

GAME_GOMOKU = 0  # gomoku of any size and tic-tac-toe
GAME_CONNECT4 = 1

RULE_FREESTYLE = 0  # n or more in a row wins
RULE_STANDARD = 1  # exactly n in a row wins; an overline does not

# info fields
I_TO_PLAY = 0  # 0 or 1
I_PLY = 1  # stones on the board (moves played, counting set-up stones)
I_KEY = 2  # Zobrist key (uint64 bits stored in an int64), side to move included
I_WINNER = 3  # -1 none, 0 or 1
I_TERMINAL = 4  # 0 or 1; terminal with winner -1 is a draw
I_LAST = 5  # last move's cell, -1 when none
I_NWIN0 = 6  # empty cells where player 0 would win at once (count of wmask[0] != 0)
I_NWIN1 = 7  # same for player 1
INFO_SIZE = 8

NO_MOVE = -1
