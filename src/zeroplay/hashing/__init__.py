"""Zobrist hashing: fixed-seed 64-bit keys, updated incrementally by XOR."""

from zeroplay.hashing.zobrist import (
    EMPTY_KEY,
    MAX_CELLS,
    SIDE_KEY,
    ZOBRIST_SEED,
    last_move_keys,
    splitmix64_stream,
    stone_keys,
    zobrist_key,
)

__all__ = [
    "EMPTY_KEY",
    "MAX_CELLS",
    "SIDE_KEY",
    "ZOBRIST_SEED",
    "last_move_keys",
    "splitmix64_stream",
    "stone_keys",
    "zobrist_key",
]
