"""Go's kernels for the compiled fast path (``zeroplay.games.api.FastKernels``)."""

from __future__ import annotations

from zeroplay.games.api import FastKernels
from zeroplay.games.go import kernels as _kernels
from zeroplay.games.go.playout import rollout

KERNELS = FastKernels(
    apply=_kernels.apply,
    undo=_kernels.undo,
    legal_moves=_kernels.legal_moves,
    winning_moves=_kernels.winning_moves,
    num_winning_moves=_kernels.num_winning_moves,
    rollout=rollout,
)
