"""Othello's own fields of the fast-path layout (``zeroplay.games.layout`` has the shared ones).

``info``: ``I_PASSES`` = passes in a row just played (0 or 1 while the game goes on; the second
ends it), ``I_DISCS0 + p`` = player p's discs on the board (full board and winner in O(1)).

``aux`` is uint8 ``[max_plies + 1, 8]``: ``aux[k, d]`` = discs flipped in direction d by the move
played at ply k (0 for a pass), so that undo turns back exactly those discs. A count never
exceeds ``size - 2`` <= 8, so uint8 holds it; 8 bytes a ply (528 bytes on 6x6).

Actions: cells ``0 .. cells - 1`` place a disc, ``PASS = cells`` (``params[P_PASS]``) passes.
"""

from zeroplay.games.layout import I_GAME0, P_GAME0

P_PASS = P_GAME0  # the pass action = cells

I_PASSES = I_GAME0  # passes in a row just played (2 ends the game)
I_DISCS0 = I_GAME0 + 1  # player 0's discs on the board
I_DISCS1 = I_GAME0 + 2  # player 1's discs

NUM_DIRS = 8
"""Directions (dx, dy), x = column from the left, y = row from the top (``kernels.DIR_DX/DY``)."""
