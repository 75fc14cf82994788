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


def start_serve(*args: str, seconds: float = 120.0, stdout_lines: list[str] | None = None) -> tuple[subprocess.Popen, str]:
    """``zeroplay serve --host 127.0.0.1 --port 0 ARGS`` in a subprocess, answering on its URL.

    Returns the process and its URL ``http://127.0.0.1:PORT`` once ``/api/health`` answers. Port 0:
    the server binds a port the OS chooses and prints it, so tests running in parallel (pytest -n)
    never race for a port picked in advance. The URL line is appended to ``stdout_lines`` when
    given. Raises RuntimeError (with the server's stderr) when it exits or stays silent for
    ``seconds``; the caller stops the process.
    """
    import re
    import select
    import time
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "zeroplay", "serve", "--host", "127.0.0.1", "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + seconds

    def failed(why: str) -> RuntimeError:
        proc.kill()
        return RuntimeError(f"zeroplay serve {why}: " + proc.communicate()[1].decode()[-2000:])

    line = b""
    while not line.endswith(b"\n"):  # byte by byte from the pipe: no buffer holds back the line
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
        byte = os.read(proc.stdout.fileno(), 1) if ready else b""
        if not byte:
            raise failed("printed no URL" if not ready else "exited")
        line += byte
    if stdout_lines is not None:
        stdout_lines.append(line.decode())
    found = re.search(rb"http://127\.0\.0\.1:(\d+)/", line)
    if found is None or found.group(1) == b"0":
        raise failed(f"printed no port: {line!r}")
    url = f"http://127.0.0.1:{int(found.group(1))}"
    while True:  # bound, but uvicorn listens a moment later
        try:
            with urllib.request.urlopen(url + "/api/health", timeout=2) as r:
                if r.status == 200:
                    return proc, url
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise failed("did not answer") from None
            time.sleep(0.2)
