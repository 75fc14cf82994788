"""Helpers for the GTP tests: an in-process GtpSession and one command's reply."""

from __future__ import annotations

import threading

from zeroplay.play.gtp import GtpSession


def gtp_session(playouts: int = 30, **options):
    """A GtpSession writing into a list; returns (session, out). Its ``interrupted`` event is set,
    so a command is always "waiting" and analyses end after their first round."""
    out: list[str] = []
    stop = threading.Event()
    stop.set()
    return GtpSession(out.append, interrupted=stop, playouts=playouts, **options), out


def ask(session, out, line: str) -> str:
    """The whole reply of ``session`` to one command line."""
    out.clear()
    session.handle(line)
    return "".join(out)
