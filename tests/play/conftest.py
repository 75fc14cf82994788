"""Shared helpers for the play tests: compiled search once per session, subprocess engines."""

from __future__ import annotations

import pytest

@pytest.fixture(scope="session")
def warm():
    """Compile (or load from numba's on-disk cache) the rules and search kernels once.

    The first run in a new environment takes 20-70 s on two shared cores; subprocess engines
    started afterwards load the compiled code from the cache.
    """
    from zeroplay.engine.factory import warm_up

    return warm_up()
