"""The process's resident memory, for budgets given for the whole process (the Gomocup manager's
``INFO max_memory``, the benchmarks' memory figures). Imports nothing from zeroplay, so that a
front-end can read it while another thread is still importing the search."""

from __future__ import annotations

import os


def current_rss() -> int:
    """Resident memory of this process in bytes (Linux ``/proc/self/statm``; else the peak RSS,
    from ``getrusage``)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
