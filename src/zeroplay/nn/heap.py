"""Keep freed heap memory in the process, so that torch's per-batch tensors stop costing page faults.

glibc hands allocations above its mmap threshold (128 KB, raised on the fly up to 32 MB) to
``mmap`` and gives freed heap back to the kernel once the top of the heap holds 128 KB. A net's
activations are a few MB a batch (9x9 Go, b4c48, 128 positions: 2 MB a layer), so each batch took
fresh pages that the kernel zeroed on first touch and unmapped after: 9x9 Go self-play (`zeroplay
bench selfplay --game go`) spent 12 % of its CPU time in the kernel on about 69,000 page faults a
second. With the two thresholds set here it takes about 1,400 a second and 0 % in the kernel
(docs/BENCHMARKS.md, "Go: what was left between the search and the net").

The cost: up to ``TRIM_THRESHOLD`` bytes of freed memory stay with the process instead of going
back to the system. Set ``ZEROPLAY_KEEP_HEAP=0`` (or ``false``, ``no``, ``off``) to leave glibc's defaults alone. Elsewhere than
glibc (macOS, Windows, musl) this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
"""``mallopt`` parameters (glibc's malloc.h)."""

MMAP_THRESHOLD = 32 * 1024 * 1024
"""Bytes: allocations below this come from the heap, not from their own ``mmap`` (glibc's most)."""
TRIM_THRESHOLD = 128 * 1024 * 1024
"""Bytes of free memory at the heap's top that glibc keeps before giving any back."""

OFF_VALUES = frozenset({"0", "false", "no", "off"})
"""Values of ``ZEROPLAY_KEEP_HEAP`` (any case) that leave glibc's defaults alone."""

_done: bool | None = None


def keep_heap() -> bool:
    """Set glibc's mmap and trim thresholds for this process (once; later calls do nothing).

    Returns True when both were set; False where there is no glibc ``mallopt`` or
    ``ZEROPLAY_KEEP_HEAP=0``. Never raises.
    """
    global _done
    if _done is not None:
        return _done
    _done = False
    if os.environ.get("ZEROPLAY_KEEP_HEAP", "1").strip().lower() in OFF_VALUES:
        return False
    try:
        name = ctypes.util.find_library("c")
        if name is None:
            return False
        libc = ctypes.CDLL(name)
        if not hasattr(libc, "mallopt") or not hasattr(libc, "gnu_get_libc_version"):
            return False  # not glibc: its mallopt (musl's is a stub) has other parameters
        mallopt = libc.mallopt
        mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
        mallopt.restype = ctypes.c_int
        _done = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    except (OSError, AttributeError):
        _done = False
    return _done
