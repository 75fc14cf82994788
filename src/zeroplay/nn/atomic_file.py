"""Atomic file replacement: a reader sees the old file or the complete new one, never a mix.

Write to a temp file in the target's directory (same filesystem, so the rename is atomic), flush
and fsync it, ``os.replace`` it over the target, then fsync the directory so the rename itself
survives a power cut. A crash before the rename leaves only a ``.tmp`` file behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable

TEMP_SUFFIX = ".tmp"


def atomic_write(path: str | os.PathLike, write: Callable[[BinaryIO], None]) -> Path:
    """Create or replace ``path`` with what ``write(fileobj)`` writes; returns the path.

    If ``write`` raises, the target is untouched and the temp file is removed.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=TEMP_SUFFIX, dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(directory)
    return path


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """``atomic_write`` of a bytes object."""
    return atomic_write(path, lambda f: f.write(data))


def atomic_write_text(path: str | os.PathLike, text: str) -> Path:
    """``atomic_write`` of UTF-8 text."""
    return atomic_write_bytes(path, text.encode("utf-8"))


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
