"""pytest plugin: the CPU seconds of each test, for finding the slow tests on a shared machine.

``--durations`` reports wall time, which on a loaded machine (other developers' jobs, a training
run) is several times the test's own cost and varies from run to run. CPU time -- this process's
threads plus the children it has waited for (``getrusage``) -- is what the test costs on idle
cores, whatever the load; children still running when a test ends are not counted.

Use: ``PYTHONPATH=src:scripts python -m pytest tests/play -p cpu_durations --cpu-durations 20``
prints the 20 costliest tests (CPU s, wall s, id) at the end; ``CPU_DURATIONS_OUT=FILE`` also
appends one tab-separated line per test (CPU s, wall s, id) as each ends, so an interrupted run
keeps what it measured.
"""

from __future__ import annotations

import os
import resource
import time

import pytest

_rows: list[tuple[float, float, str]] = []


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def pytest_addoption(parser):
    parser.addoption("--cpu-durations", type=int, default=20, metavar="N",
                     help="print the N tests with the most CPU seconds (default 20; 0: none)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    cpu, wall = _cpu_seconds(), time.perf_counter()
    yield
    row = (_cpu_seconds() - cpu, time.perf_counter() - wall, item.nodeid)
    _rows.append(row)
    out = os.environ.get("CPU_DURATIONS_OUT")
    if out:
        with open(out, "a") as f:
            f.write(f"{row[0]:.3f}\t{row[1]:.3f}\t{row[2]}\n")


def pytest_terminal_summary(terminalreporter, config):
    n = config.getoption("--cpu-durations")
    if not n or not _rows:
        return
    terminalreporter.write_sep("=", f"{min(n, len(_rows))} costliest tests by CPU seconds")
    for cpu, wall, nodeid in sorted(_rows, reverse=True)[:n]:
        terminalreporter.write_line(f"{cpu:8.2f} cpu s {wall:8.2f} wall s  {nodeid}")
    terminalreporter.write_line(f"total: {sum(r[0] for r in _rows):.1f} cpu s, {sum(r[1] for r in _rows):.1f} wall s "
                                f"over {len(_rows)} tests")
