"""Atomic file replacement: a reader sees the old file or the complete new one, never a mix.

Write to a temp file in the target's directory (same filesystem, so the rename is atomic), flush
and fsync it, ``os.replace`` it over the target, then fsync the directory so the rename itself
survives a power cut. A crash before the rename leaves only a ``.tmp`` file behind.

``mkstemp`` creates the temp file with mode 0600; before the rename it gets the mode an ordinary
``open(path, "w")`` would give (0666 minus the umask), so others on a shared machine can read
checkpoints and exported models as they could any other file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

TEMP_SUFFIX = ".tmp"


def atomic_write(path: str | os.PathLike, write: Callable[[BinaryIO], object]) -> Path:
    """Create or replace ``path`` with what ``write(fileobj)`` writes; returns the path.

    If ``write`` raises, the target is untouched and the temp file is removed. The file gets the
    default mode of a new file (``0o666 & ~umask``), not ``mkstemp``'s 0600.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=TEMP_SUFFIX, dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            if hasattr(os, "fchmod"):
                os.fchmod(f.fileno(), _default_mode())
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(e, OSError) and e.filename is None and e.errno is not None:
            # a failed write names no file (ENOSPC from f.write): name the one being saved
            raise OSError(e.errno, e.strerror or os.strerror(e.errno), os.fspath(path)) from e
        raise
    _fsync_dir(directory)
    return path


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """``atomic_write`` of a bytes object."""
    return atomic_write(path, lambda f: f.write(data))


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """``atomic_write`` of UTF-8 text."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def _default_mode() -> int:
    """``0o666 & ~umask``: the mode ``open(path, "w")`` gives a new file.

    The umask is read from ``/proc/self/status`` where there is one (Linux); elsewhere reading it
    means setting it, so it is set straight back (a moment in which another thread creating a
    file would get umask 022).
    """
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # e.g. Windows cannot open directories; the rename is still atomic
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
