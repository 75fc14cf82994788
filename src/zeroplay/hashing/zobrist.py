"""Zobrist keys: 64-bit random numbers per (cell, colour), the side to move and the last move.

Source: A. L. Zobrist, "A New Hashing Method with Application for Game Playing" (1970).

The numbers come from SplitMix64 (Steele, Lea & Flood 2014) started at the fixed, documented seed
``ZOBRIST_SEED`` = 0x7A65726F706C6179 (the ASCII bytes of "zeroplay"). SplitMix64 is pure integer
arithmetic, so the table is identical across runs, processes, machines and numpy versions.

The stream is laid out so that the table for a board of ``c`` cells is a prefix of the table for
any larger board:

* stream[0]            -> ``EMPTY_KEY``, the key of the empty board (non-zero, so no table can
  confuse "empty slot" with "empty board");
* stream[1]            -> ``SIDE_KEY``, XORed in when the second player (1, White) is to move;
* stream[2 + 3*c + 0]  -> stone of player 0 (Black) on cell ``c``;
* stream[2 + 3*c + 1]  -> stone of player 1 (White) on cell ``c``;
* stream[2 + 3*c + 2]  -> "the last move was cell ``c``" (folded in by searches whose network
  input shows the last move; see ``last_move_keys``).

Collisions: with b-bit keys the first collision among random positions is expected after about
sqrt(pi/2 * 2^b) positions -- about 5.4e9 for b = 64. That is far beyond one search tree, so
64 bits is fine for search; wherever a wrong match would cost a result (a proven win, a solved
score) the caller verifies on real game states instead of trusting the key.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

ZOBRIST_SEED = 0x7A65726F706C6179
"""Seed of the SplitMix64 stream ("zeroplay" in ASCII)."""

MAX_CELLS = 1024
"""Cells covered by the precomputed table (25x25 Gomoku needs 625, 19x19 Go 361)."""

_MASK = (1 << 64) - 1


def splitmix64_stream(seed: int, count: int) -> np.ndarray:
    """Return ``count`` SplitMix64 outputs started at ``seed``, as uint64 of shape (count,)."""
    out = np.empty(count, dtype=np.uint64)
    state = seed & _MASK
    for i in range(count):
        state = (state + 0x9E3779B97F4A7C15) & _MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        out[i] = z ^ (z >> 31)
    return out


@lru_cache(maxsize=1)
def _stream() -> np.ndarray:
    stream = splitmix64_stream(ZOBRIST_SEED, 2 + 3 * MAX_CELLS)
    stream.setflags(write=False)
    return stream


EMPTY_KEY: int = int(_stream()[0])
"""Key of the empty board with the first player to move (non-zero)."""

SIDE_KEY: int = int(_stream()[1])
"""XORed into the key when player 1 (the second player, White) is to move."""


def stone_keys(cells: int) -> np.ndarray:
    """Keys of stones: uint64 array of shape (2, cells); ``[player, cell]``, player 0 = Black.

    Raises:
        ValueError: if ``cells`` is not in 1..MAX_CELLS.
    """
    if not 1 <= cells <= MAX_CELLS:
        raise ValueError(f"cells must be in 1..{MAX_CELLS}, got {cells}")
    s = _stream()
    keys = np.empty((2, cells), dtype=np.uint64)
    keys[0] = s[2 : 2 + 3 * cells : 3]
    keys[1] = s[3 : 3 + 3 * cells : 3]
    keys.setflags(write=False)
    return keys


def last_move_keys(cells: int) -> np.ndarray:
    """Keys of "the last move was on cell c": uint64 array of shape (cells,).

    Searches whose network input includes a last-move plane XOR ``last_move_keys[last]`` into the
    position key so that node and cache keys cover everything the network sees.
    """
    if not 1 <= cells <= MAX_CELLS:
        raise ValueError(f"cells must be in 1..{MAX_CELLS}, got {cells}")
    keys = np.array(_stream()[4 : 4 + 3 * cells : 3], dtype=np.uint64)
    keys.setflags(write=False)
    return keys


def zobrist_key(black, white, to_play: int, cells: int) -> int:
    """Key of a position computed from scratch (the reference for the incremental update).

    Args:
        black: iterable of cell indices holding Black (player 0) stones.
        white: iterable of cell indices holding White (player 1) stones.
        to_play: 0 or 1, the side to move.
        cells: number of cells of the board.

    Returns:
        The 64-bit key as a Python int in [0, 2^64).
    """
    keys = stone_keys(cells)
    key = EMPTY_KEY
    for c in black:
        key ^= int(keys[0, int(c)])
    for c in white:
        key ^= int(keys[1, int(c)])
    if to_play == 1:
        key ^= SIDE_KEY
    return key
