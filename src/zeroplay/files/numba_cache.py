"""numba's on-disk cache made safe for processes that compile the same kernel at the same time.

numba (0.68) saves a new specialisation by reading the function's index (``*.nbi``: signature ->
data file), picking the first unused data-file number, rewriting the index and writing the data
(``*.N.nbc``), with no lock. Two processes compiling two specialisations of one kernel at once
(self-play workers, ``--parallel`` matches, xdist test workers on a fresh cache) can both pick
number 1: the index ends with one signature pointing at the file the other process wrote last, so
a later process loads machine code compiled for different argument types. Measured on 2026-12-05:
after two ``zeroplay arena`` matches had started together on a fresh cache, the ``rollout:N``
player returned an occupied cell (``move 5: cell f8 is occupied``) in every later process until
the cache was deleted; with a fresh cache the same match played normally.

``install()`` wraps ``IndexDataCacheFile.save`` in an exclusive ``fcntl.flock`` on
``INDEX.lock`` beside the index, so that reading the index, choosing a number, rewriting the index
and writing the data are one step for every saver. Loading needs no lock: a saver never reuses a
number another signature holds, and numba writes each file atomically (temporary file, rename).
"""

from __future__ import annotations

import os

_installed = False


def install() -> None:
    """Patch numba's cache saver once per process (a no-op without numba, or when repeated)."""
    global _installed
    if _installed:
        return
    try:
        import fcntl

        from numba.core import caching
    except ImportError:  # no numba (a pure-Python use of the games) or no fcntl (not POSIX)
        return
    original = caching.IndexDataCacheFile.save

    def save(self, key, data):
        try:
            fd = os.open(self._index_path + ".lock", os.O_CREAT | os.O_RDWR, 0o644)
        except OSError:  # a read-only cache folder: numba's own handling, unchanged
            return original(self, key, data)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            return original(self, key, data)
        finally:
            os.close(fd)  # releases the lock

    save.__wrapped__ = original  # type: ignore[attr-defined]
    caching.IndexDataCacheFile.save = save  # type: ignore[method-assign]  # numba has no hook for a saver
    _installed = True
