"""Helpers for the real-browser tests: Debian's Chromium driven by Playwright against a
``zeroplay serve`` started on 127.0.0.1 and a port the OS chose (``--port 0``)."""

from __future__ import annotations

import subprocess
from contextlib import contextmanager
from pathlib import Path

from play_helpers import start_serve

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"

# no network beyond the loopback server, no background services, no sandbox as root in CI
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--metrics-recording-only",
    "--no-pings",
    "--dns-prefetch-disable",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--proxy-server=direct://",
    "--proxy-bypass-list=*",
]


@contextmanager
def running_server(*args: str):
    """``zeroplay serve`` with ``args`` on a loopback port the OS chose, until the block ends; yields its URL."""
    proc, url = start_serve(*args, seconds=60)
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
