"""The program of an engine's command line (the arena's ``gtp:COMMAND``, ``pbrain:COMMAND`` and
``usi:COMMAND`` players), found before the match starts.

A command's program is looked up as a shell would (a name on ``PATH``, or a path), then in
``/usr/games`` (where Debian puts ``gnugo``, which root's ``PATH`` lacks), then -- for zeroplay's
own console scripts (``zeroplay``, ``gtp-zeroplay``, ``pbrain-zeroplay``, ``usi-zeroplay``) --
as ``python -m zeroplay ...`` with this interpreter: the README's ``gtp:zeroplay gtp`` then runs
although ``.venv/bin`` is not on ``PATH`` (``make play`` does not activate the environment).
A program found nowhere is a ``ProgramNotFoundError`` (a ValueError: the CLI prints it as a
usage error) when the player is made, instead of a traceback from ``subprocess`` when the first
game starts.
"""

from __future__ import annotations

import collections
import os
import shlex
import shutil
import subprocess
import sys
import threading

USR_GAMES = "/usr/games"
"""Debian's folder for game programs (``gnugo``, ``gnushogi``); not on root's ``PATH``."""

ZEROPLAY_SCRIPTS = {"zeroplay": (), "gtp-zeroplay": ("gtp",), "pbrain-zeroplay": ("pbrain",),
                    "usi-zeroplay": ("usi",)}
"""zeroplay's console scripts (``[project.scripts]`` of pyproject.toml) -> the ``zeroplay``
subcommand each one is."""


class ProgramNotFoundError(ValueError):
    """An engine command whose program is neither on ``PATH``, nor a runnable file, nor in
    ``/usr/games``."""


def find_command(argv: list[str]) -> list[str]:
    """``argv`` with its program found (see the module docstring); unchanged when it is not
    found anywhere (``split_command`` says so) or names a path."""
    if not argv or os.sep in argv[0] or shutil.which(argv[0]) is not None:
        return argv
    alt = shutil.which(argv[0], path=USR_GAMES)
    if alt:
        return [alt] + argv[1:]
    if argv[0] in ZEROPLAY_SCRIPTS:
        return [sys.executable, "-m", "zeroplay", *ZEROPLAY_SCRIPTS[argv[0]], *argv[1:]]
    return argv


def split_command(command: str | list[str], kind: str) -> list[str]:
    """The argv of ``command`` (a string split as a shell would, or an argv list) with its
    program found (``find_command``).

    Raises:
        ValueError: an empty command or unbalanced quotes.
        ProgramNotFoundError: the program is not on ``PATH``, not a runnable file, not in
            ``/usr/games``; the message says ``kind`` (``gtp``, ``pbrain``, ``usi``) and what to give.
    """
    try:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
    except ValueError as e:  # "No closing quotation"
        raise ValueError(f"{kind}: cannot split the command {command!r}: {e}") from None
    if not argv:
        raise ValueError(f"{kind}: empty command")
    found = find_command(argv)
    program = found[0]
    if os.sep in program:
        if not (os.path.isfile(program) and os.access(program, os.X_OK)):
            raise ProgramNotFoundError(f"{kind}: {program} is not a runnable file")
    elif shutil.which(program) is None:
        raise ProgramNotFoundError(f"{kind}: program {program!r} not found on PATH (nor in {USR_GAMES}): "
                                   "give its full path, or install it")
    return found


class StderrTail:
    """The last lines an engine process wrote on stderr, for the error that says it exited (a
    mistyped ``usi:python -m ...`` said only "the engine exited before 'usiok'", its ``No module
    named zeroplay`` discarded; helper-76).

    A thread reads ``stream`` (the process's ``stderr=subprocess.PIPE``, text decoded with
    ``errors="replace"``: a strict one stops at the first bad byte and the pipe fills) to its end,
    so the engine never blocks on a full pipe; it keeps at most ``LINES`` lines of at most ``WIDTH``
    characters (a longer line is read in pieces, each piece a line).
    """

    LINES = 4
    WIDTH = 300

    def __init__(self, stream) -> None:
        self.lines: collections.deque[str] = collections.deque(maxlen=self.LINES)
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream) -> None:
        while True:
            try:
                piece = stream.readline(self.WIDTH)
            except (OSError, ValueError):  # closed under us (or bytes a strict stream cannot decode)
                return
            if not piece:
                return
            # control characters shown, not obeyed: an engine's escape sequences would drive the
            # terminal the error is printed on (helper-77)
            text = "".join(c if c.isprintable() else "?" for c in piece.strip())
            if text:
                self.lines.append(text)

    def said(self, proc: subprocess.Popen | None = None) -> str:
        """``"; its stderr ended: ..."`` (empty when it wrote nothing), after waiting up to 1 s
        for ``proc`` to exit and its stderr to be read."""
        if proc is not None:
            try:
                proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                pass
        self._thread.join(timeout=1.0)
        return f"; its stderr ended: {' | '.join(self.lines)}" if self.lines else ""
