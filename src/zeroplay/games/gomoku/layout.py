"""Gomoku's own fields of the fast-path layout (``zeroplay.games.layout`` has the shared ones).

``aux`` is ``wmask`` uint8[2, cells]: ``wmask[p, c]`` has bit d set when a stone of player p on
the empty cell c would complete a winning line in direction d (0: horizontal, 1: vertical,
2: diagonal down-right, 3: anti-diagonal down-left). Kept up to date incrementally by the tracked
apply/undo (only lines through the last move change); 0 on occupied cells. One-ply wins and
forced blocks cost O(1) to find.
"""

from zeroplay.games.layout import I_GAME0, P_GAME0

P_N_IN_ROW = P_GAME0  # line length that wins
P_RULE = P_GAME0 + 1  # RULE_* below

RULE_FREESTYLE = 0  # n or more in a row wins
RULE_STANDARD = 1  # exactly n in a row wins; an overline does not
RULE_RENJU = 2  # Black: exactly five, no overline / double-four / double-three (games/gomoku/renju.py);
# White: five or more

I_NWIN0 = I_GAME0  # empty cells where player 0 would win at once (count of wmask[0] != 0)
I_NWIN1 = I_GAME0 + 1  # same for player 1
