"""Denormal (subnormal) floats on the CPU: flushed to zero, never computed with.

x86 CPUs compute with a denormal operand (|x| < 1.18e-38 in float32) through a microcode assist
that costs tens to hundreds of times a normal operation. Trained nets get them: the weights of
ReLU units that stopped firing decay under L2 towards zero and pass into the denormal range.
Measured 2026-12-06 (one thread): a 3x3 convolution of 32 channels with half its weights denormal
took 3.75 s for 20 batches of 256 9x9 positions against 0.065 s with them flushed (58x); the
threat-plane ablation's trainer went from 26 to 80 CPU-seconds an iteration as its conv weights
turned denormal; the shipped Go 9x9 net evaluates a batch of 64 in 14-15 ms flushed, 20-21 ms not
(the 8x8 net 5.3 against 5.9 ms, the 15x15 net the same, its denormals are outside its convs).

``torch.set_flush_denormal(True)`` sets the CPU's flush-to-zero and denormals-are-zero modes
(MXCSR FTZ/DAZ) for the calling thread, and a thread created afterwards inherits them
(pthread_create copies the floating-point environment): torch's pool threads started inside the
mode keep it. The mode is held only around our own torch work (``flushed_denormals``), then put
back: left on, it changed float semantics for everything else in the thread (hypothesis refuses to
draw floats in such a process, and a user's own numpy code would silently lose its denormals).
numpy has no such switch: a numpy net zeroes its denormal weights when it loads
(``zero_denormals``). A flushed value is below 1.2e-38: nothing a net's output can show.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np


@contextmanager
def flushed_denormals() -> Iterator[None]:
    """Within: torch's CPU arithmetic in this thread flushes denormals to zero (operands and
    results); on exit the thread's default mode (not flushed) is back. Costs about a microsecond:
    for a batch's forward pass or a training step, not for a single small tensor operation."""
    import torch

    torch.set_flush_denormal(True)
    try:
        yield
    finally:
        torch.set_flush_denormal(False)


def zero_denormals(arrays: dict[str, np.ndarray]) -> int:
    """Set the denormal entries of the floating-point arrays in ``arrays`` to 0, in place;
    returns how many there were. For numpy nets, whose arithmetic cannot flush them."""
    count = 0
    for a in arrays.values():
        if a.dtype.kind != "f" or not a.flags.c_contiguous:
            continue
        # by the bits (exponent 0, mantissa not): with DAZ on in this thread (torch's flush), a
        # comparison reads a denormal as 0 and would not see it
        info = np.finfo(a.dtype)
        bits = a.view(f"u{a.itemsize}")
        mantissa = (1 << info.nmant) - 1
        exponent = ((1 << info.nexp) - 1) << info.nmant
        small = ((bits & exponent) == 0) & ((bits & mantissa) != 0)
        n = int(small.sum())
        if n:
            bits[small] = 0
            count += n
    return count
