"""Go: rules (compiled), the Game API (``Go``, ``GoRules``) and the kernels of the fast path."""

from __future__ import annotations

from typing import NamedTuple

from zeroplay.games.go import kernels as _kernels
from zeroplay.games.go.game import COLUMNS, Go, GoRules

try:  # the open fast-path contract, once main has it
    from zeroplay.games.fast import FastKernels
except ImportError:  # pragma: no cover - until then, the same five fields
    class FastKernels(NamedTuple):
        apply: object
        undo: object
        legal_moves: object
        winning_moves: object
        num_winning_moves: object

KERNELS = FastKernels(
    apply=_kernels.apply,
    undo=_kernels.undo,
    legal_moves=_kernels.legal_moves,
    winning_moves=_kernels.winning_moves,
    num_winning_moves=_kernels.num_winning_moves,
)

__all__ = ["COLUMNS", "Go", "GoRules", "KERNELS"]
