"""Suite-wide: the ``alone`` mark, for tests that time themselves, under pytest-xdist.

Every test holds a shared lock on a file in the run's temporary directory (the one all xdist
workers of a run share); a test marked ``alone`` holds it exclusively, so it runs while no other
test of this run does (the other workers wait). A turnstile lock taken before the shared one lets
a waiting ``alone`` test in ahead of the tests that start after it. Without xdist nothing is
locked. Load from outside the run still counts, as it does in a serial run.
"""

from __future__ import annotations

import fcntl
import os

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "alone: runs while no other test of this pytest -n run runs (it times itself)")


@pytest.fixture(autouse=True)
def _alone_or_shared(request, tmp_path_factory):
    if "PYTEST_XDIST_WORKER" not in os.environ:  # one process: nothing runs beside the test
        yield
        return
    shared_dir = tmp_path_factory.getbasetemp().parent  # one per run, shared by its xdist workers
    exclusive = request.node.get_closest_marker("alone") is not None
    with open(shared_dir / "zeroplay-turnstile.lock", "a") as turnstile, open(shared_dir / "zeroplay-alone.lock", "a") as lock:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        finally:
            if not exclusive:
                fcntl.flock(turnstile, fcntl.LOCK_UN)
        try:
            if exclusive:
                fcntl.flock(turnstile, fcntl.LOCK_UN)
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
