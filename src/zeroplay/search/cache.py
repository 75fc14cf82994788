"""Evaluation cache: network outputs by node key, so a position is evaluated once.

Direct-mapped (slot = key & (size - 1)), always-replace, full 64-bit key check. Keys are node
keys (the Zobrist key, with the last move folded in when the network sees it), so an entry holds
exactly what the network would answer for that input.
"""

from __future__ import annotations

import numpy as np


class EvalCache:
    """Cache of (priors float32 (A,), value float32) by node key (int64).

    Args:
        size: entries, a power of two.
        num_actions: length of a prior vector.
    """

    def __init__(self, size: int, num_actions: int):
        if size < 1 or size & (size - 1):
            raise ValueError(f"cache size must be a power of two, got {size}")
        self.mask = size - 1
        self.keys = np.zeros(size, np.int64)
        self.valid = np.zeros(size, np.bool_)
        self.values = np.zeros(size, np.float32)
        self.priors = np.zeros((size, num_actions), np.float32)
        self.hits = 0
        self.lookups = 0

    def lookup(self, keys: np.ndarray, priors_out: np.ndarray, values_out: np.ndarray) -> np.ndarray:
        """Fill the rows of hits; returns the bool (B,) hit mask."""
        slots = keys & self.mask
        hit = self.valid[slots] & (self.keys[slots] == keys)
        priors_out[hit] = self.priors[slots[hit]]
        values_out[hit] = self.values[slots[hit]]
        self.lookups += len(keys)
        self.hits += int(hit.sum())
        return hit

    def store(self, keys: np.ndarray, priors: np.ndarray, values: np.ndarray) -> None:
        slots = keys & self.mask
        self.keys[slots] = keys
        self.valid[slots] = True
        self.priors[slots] = priors
        self.values[slots] = values

    def clear(self) -> None:
        self.valid[:] = False
