"""Helpers for the play tests: pbrain engines in a subprocess or in process."""

from __future__ import annotations

import os
import subprocess
import sys

PBRAIN = [sys.executable, "-m", "zeroplay.play.pbrain"]


def run_pbrain(text: str | bytes, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess:
    """Feed ``text`` to a pbrain subprocess's stdin; returns the finished process (bytes)."""
    data = text.encode() if isinstance(text, str) else text
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.run(PBRAIN + list(args), input=data, capture_output=True, timeout=timeout, env=env)


class Engine:
    """An in-process PbrainEngine with its replies in a list."""

    def __init__(self, **options):
        from zeroplay.play.pbrain_engine import PbrainEngine

        self.replies: list[str] = []
        options.setdefault("warm_up", False)
        self.engine = PbrainEngine(self.replies.append, **options)

    def send(self, *lines: str) -> list[str]:
        """Handle ``lines``; returns the replies they produced."""
        start = len(self.replies)
        for line in lines:
            self.engine.handle(line + "\n")
        return self.replies[start:]
