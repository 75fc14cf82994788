"""Network input planes for Go, from the side to move's view (after AlphaGo Zero's stones and
KataGo's liberty, ko and rule features; Wu 2019, "Accelerating Self-Play Learning in Go").

``GO_PLANES`` channels of float32 (C, height, width); the rule and komi inputs are constant
planes (the nets here take planes only). Every plane is 0/1, as replay shards store planes as
bytes: the komi's size is not an input, a net is trained for its run's komi (the game options
its checkpoint records), and the plane tells who gets it. Made from a position's ``board`` and ``info`` alone (the
search batches leaves as those two arrays), so ``State.planes("go")`` and the batched planes the
search sends to the net are the same function.

==  ==========================================================================================
 0  on the board (all ones: lets convolutions see the edge through zero padding)
 1  the side to move's stones
 2  the opponent's stones
 3  the immediate single-stone recapture point the side to move may not play (ko); under
    superko the rarer longer-cycle bans are not shown (the search masks every illegal move)
 4  the last move (one-hot; all zero after a pass or when unknown)
 5  the move before it (all zero for a pass or unknown)
 6  the move before that
 7  stones of chains with exactly 1 liberty (either colour)
 8  ... exactly 2 liberties
 9  ... exactly 3 liberties
10  1 when the side to move receives the komi (White for komi > 0, Black for komi < 0)
11  1 under a superko rule (positional or situational)
12  1 under situational superko
13  1 when multi-stone suicide is legal
14  1 under territory scoring
15  1 when the last action was a pass
==  ==========================================================================================
"""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.games.go.kernels import KO_SIMPLE, neighbors
from zeroplay.games.go.layout import (
    GO_RECENT_MOVES,
    I_KO,
    I_PASSES,
    I_PREV1,
    KO_SITUATIONAL,
    P_KO,
    P_KOMI2,
    P_SCORING,
    P_SUICIDE,
    SCORING_TERRITORY,
    SUICIDE_MULTI,
)
from zeroplay.games.layout import I_LAST, I_TO_PLAY, P_CELLS, P_WIDTH

GO_PLANES = 16
"""Channels of ``encode``."""


@njit(cache=True)
def encode(params, board, info, out):
    """Write one position's planes into ``out`` float32 (GO_PLANES, height, width) from
    ``board`` int8 (cells,) and ``info`` int64 (INFO_SIZE,) (``games.go.layout``)."""
    cells = params[P_CELLS]
    w = params[P_WIDTH]
    me = info[I_TO_PLAY] + 1
    out[:] = 0.0
    out[0] = 1.0
    for c in range(cells):
        if board[c] == me:
            out[1, c // w, c % w] = 1.0
        elif board[c] != 0:
            out[2, c // w, c % w] = 1.0
    queue = np.empty(cells, np.int32)
    mark = np.zeros(cells, np.uint8)
    ko = info[I_KO]
    if ko >= 0:
        out[3, ko // w, ko % w] = 1.0
    for k in range(GO_RECENT_MOVES):  # the search keys nodes by the same moves (node_key)
        a = info[I_LAST] if k == 0 else info[I_PREV1 + k - 1]
        if 0 <= a < cells:  # a pass (= cells) or an unknown move (-1) leaves the plane empty
            out[4 + k, a // w, a % w] = 1.0
    # exact liberties of each chain: one flood per chain, liberties marked in ``mark``, then cleared
    seen = np.zeros(cells, np.uint8)
    liberty_list = np.empty(cells, np.int32)
    for start in range(cells):
        if board[start] == 0 or seen[start]:
            continue
        color = board[start]
        seen[start] = 1
        queue[0] = start
        size = 1
        head = 0
        n_libs = 0
        while head < size:
            c = queue[head]
            head += 1
            for nb in neighbors(c, w, cells):
                if nb < 0:
                    continue
                if board[nb] == 0:
                    if mark[nb] == 0:
                        mark[nb] = 1
                        liberty_list[n_libs] = nb
                        n_libs += 1
                elif board[nb] == color and seen[nb] == 0:
                    seen[nb] = 1
                    queue[size] = nb
                    size += 1
        for i in range(n_libs):
            mark[liberty_list[i]] = 0
        if n_libs <= 3:
            for i in range(size):
                c = queue[i]
                out[6 + n_libs, c // w, c % w] = 1.0
    komi2 = params[P_KOMI2]
    out[10] = 1.0 if (komi2 > 0 and me == 2) or (komi2 < 0 and me == 1) else 0.0
    out[11] = 1.0 if params[P_KO] != KO_SIMPLE else 0.0
    out[12] = 1.0 if params[P_KO] == KO_SITUATIONAL else 0.0
    out[13] = 1.0 if params[P_SUICIDE] == SUICIDE_MULTI else 0.0
    out[14] = 1.0 if params[P_SCORING] == SCORING_TERRITORY else 0.0
    out[15] = 1.0 if info[I_PASSES] > 0 else 0.0


@njit(cache=True)
def encode_batch(params, boards, infos, out):
    """Planes of a batch: boards int8 (B, cells), infos int64 (B, INFO_SIZE) -> out float32
    (B, GO_PLANES, height, width)."""
    for b in range(boards.shape[0]):
        encode(params, boards[b], infos[b], out[b])
