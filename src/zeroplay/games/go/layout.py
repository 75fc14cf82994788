"""Array layout of Go's compiled path (the open fast-path contract of the game kernels).

One position is four arrays:

* ``board`` int8 (cells,): 0 empty, 1 Black (player 0), 2 White (player 1); cell = row * width +
  col, row 0 at the top.
* ``info`` int64 (INFO_SIZE,): the ``I_*`` fields below. Common fields 0..5 as for every game;
  Go's own from 6 up (6 and 7: the two actions before the last, so that the network planes of
  ``planes.py`` can be made from ``board`` and ``info`` alone, as the search batches leaves).
* ``stack`` int32 (max_plies + 1,): the action played at each ply (pass = cells), -1 unknown.
* ``aux`` uint8 (max_plies + 1, cells + 4): the position history for superko and undo. Row k is
  the board after k actions (row 0: the start or set-up position) in bytes 0..cells-1, then the
  Black stone count (2 bytes, little end first) and the White stone count (2 bytes). Rows above
  ``info[I_PLY]`` are stale. Cost: (3 * cells + 1) * (cells + 4) bytes, 26.5 KB on 9x9.

Constants: ``params`` int64 (PARAMS_SIZE,) with the ``P_*`` fields; ``zkeys`` int64
(ZKEY_ROWS, cells): rows ``Z_BLACK``/``Z_WHITE`` stone keys (uint64 bits), ``Z_RECENT`` + k the
keys of the move k plies before the last (k < GO_RECENT_MOVES; node keys only), ``Z_BAN`` the
key folded in per banned point (simple-ko point or superko-banned point), ``Z_MISC`` column 0
the key of "one pass just played".

Key: ``info[I_KEY]`` = empty-board key ^ stone keys ^ side key (White to move) ^ one-pass key ^
the ``Z_BAN`` key of every point the side to move may not play because of ko. So the node table,
which keys nodes by (key, side to move, ply), never merges positions whose legal moves differ. The
recent moves are not in it (a transposition is the same position for the rules and a rollout);
a search whose net reads the ``go`` planes folds them into its node keys (``Z_RECENT`` rows).
"""

# the common fields (I_TO_PLAY, P_CELLS, ...) have one owner: import them from games.layout
from zeroplay.games.layout import I_GAME0, P_GAME0

# params: Go's own fields, from P_GAME0 on
P_KO = P_GAME0  # KO_* below
P_SUICIDE = P_GAME0 + 1  # SUICIDE_* below
P_SCORING = P_GAME0 + 2  # SCORING_* below
P_KOMI2 = P_GAME0 + 3  # komi times 2 (komi is a multiple of 0.5)
P_MAX_PLIES = P_GAME0 + 4  # actions after which the game ends and is scored (repetition cap)
P_PASS = P_GAME0 + 5  # the pass action (= cells)

KO_SIMPLE = 0  # only the immediate recapture of a single stone is banned
KO_POSITIONAL = 1  # no move may repeat an earlier board
KO_SITUATIONAL = 2  # no move may repeat an earlier board with the same side to move

SUICIDE_OFF = 0  # no suicide
SUICIDE_MULTI = 1  # a move that leaves its own group of two or more stones without liberties
# is legal and removes that group; a single-stone suicide is never legal

SCORING_AREA = 0  # Tromp-Taylor: stones + empty regions reaching only one colour
SCORING_TERRITORY = 1  # empty regions reaching only one colour + prisoners

# info: Go's own fields
I_PREV1 = I_GAME0  # the action before the last (a cell, pass = cells), -1 none or unknown
I_PREV2 = I_GAME0 + 1  # the action before that, -1 none or unknown
I_KO = I_GAME0 + 2  # the immediate single-stone recapture point, -1 none: banned under every ko rule
# (under superko it is one of the bans; the others come from the history in aux)
I_PASSES = I_GAME0 + 3  # consecutive passes just played
I_CAPS0 = I_GAME0 + 4  # prisoners Black holds (White stones removed, by capture or White's suicide)
I_CAPS1 = I_GAME0 + 5  # prisoners White holds
I_BAN_XOR = I_GAME0 + 6  # XOR of the Z_BAN keys folded into I_KEY
I_SCORE2 = I_GAME0 + 7  # when terminal: 2 * (Black's score - White's score), komi included
I_STONES0 = I_GAME0 + 8  # Black stones on the board
I_STONES1 = I_GAME0 + 9  # White stones on the board

GO_RECENT_MOVES = 3
"""Recent moves the ``go`` planes mark (planes 4-6: the last move and the two before it), and so
the moves a search with those planes folds into its node keys (``search.gather.node_key``)."""

# zkeys rows
Z_BLACK = 0
Z_WHITE = 1
Z_RECENT = 2  # rows 2, 3, 4: "the move k plies before the last was on cell c" (k = 0, 1, 2), for
# node keys (games/layout.py: row 2 + k for every board game), never in I_KEY
Z_BAN = Z_RECENT + GO_RECENT_MOVES
Z_MISC = Z_BAN + 1
ZKEY_ROWS = Z_MISC + 1
