"""Connect Four's own fields of the fast-path layout (the shared ones: ``zeroplay.games.layout``).

``aux`` is ``wmask`` uint8[2, cells] with Gomoku's meaning per cell, also for cells not yet
playable; ``info[I_NWIN0 + p]`` counts player p's winning *columns*.
"""

from zeroplay.games.layout import I_GAME0, P_GAME0

P_N_IN_ROW = P_GAME0  # four

I_NWIN0 = I_GAME0  # columns whose landing cell completes four for player 0
I_NWIN1 = I_GAME0 + 1  # same for player 1
