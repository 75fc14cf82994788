"""Helpers for the real-browser tests: Debian's Chromium driven by Playwright against a
``zeroplay serve`` started on 127.0.0.1 and a port the OS chose (``--port 0``)."""

from __future__ import annotations

import os
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest
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


@contextmanager
def chromium_page(server):
    """A Chromium page on the board, loaded; fails the test on a page error or a 5xx answer (of
    this page, or of pages opened later with ``page.context.browser.new_page()`` and handed to
    ``watch``: ``page.watch(other)``)."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium); "
                    ".ci/run does it in CI")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (pip) is not installed")
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 1000})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("response", lambda r: r.status >= 500 and errors.append(f"{r.status} {r.url}"))
            page.watch = lambda other: other.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server + "/")
            page.wait_for_selector("rect.cell", timeout=30_000)
            yield page
        finally:
            browser.close()
    assert not errors, errors
