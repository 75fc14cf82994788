"""One ``zeroplay train`` process per run directory: an advisory lock on ``RUN_DIR/lock``.

The lock is ``fcntl.flock(LOCK_EX | LOCK_NB)`` on an open file: the kernel drops it when the
process ends however it ends (``kill -9`` included), so a crashed run never blocks the next one.
The file holds the owner's process id, for the message a second process prints. Self-play
workers are started with ``spawn`` (a fresh interpreter that inherits no open files) and never
take the lock: they write nothing in the run directory.

On a clean release the file is removed while still locked; a process that opened the old file
just before may then hold a lock on a removed file, so ``acquire`` checks after locking that the
path still names the file it locked, and otherwise starts over.
"""

from __future__ import annotations

import os
from pathlib import Path

LOCK_FILE = "lock"


class RunLockedError(ValueError):
    """Another process holds the run directory's lock."""


class RunLock:
    """The exclusive lock of one run directory, for ``with`` or ``acquire`` / ``release``.

    Args:
        run_dir: the run directory; created (with its parents) when missing.
        flag: the option that named it, for messages (``zeroplay ablate`` locks its ``--out``).
        owner: the command that holds such a lock, for messages.
    """

    def __init__(self, run_dir: str | os.PathLike, flag: str = "--run-dir", owner: str = "zeroplay train"):
        self.run_dir = Path(run_dir)
        self.flag, self.owner = flag, owner
        self.path = self.run_dir / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> RunLock:
        """Take the lock.

        Raises:
            RunLockedError: another process holds it (the message names the run directory and
                the other process's id).
            ValueError: the run directory cannot be created (the message says why).
        """
        import fcntl

        make_run_dir(self.run_dir, self.flag)
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as e:
                raise ValueError(f"{self.flag} {self.run_dir}: cannot create its lock file: "
                                 f"{e.strerror or e}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                owner = _read_owner(fd)
                os.close(fd)
                raise RunLockedError(
                    f"{self.flag} {self.run_dir} is in use by another {self.owner} process"
                    f"{f' (pid {owner})' if owner else ''}; wait for it to finish or stop it, "
                    f"or use another {self.flag}") from None
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(self.path))
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)  # we locked a file that its owner removed on release: start over
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return self

    def release(self) -> None:
        """Drop the lock and remove the lock file (a no-op when not held)."""
        if self._fd is None:
            return
        try:
            self.path.unlink()
        except OSError:
            pass
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def make_run_dir(run_dir: str | os.PathLike, flag: str = "--run-dir") -> Path:
    """Create ``run_dir`` (and its parents) if missing.

    Raises:
        ValueError: it is a file, or it cannot be created (permissions, a read-only place, ...).
    """
    run_dir = Path(run_dir)
    check_run_dir_path(run_dir, flag)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"{flag} {run_dir}: cannot create the directory: {e.strerror or e}") from None
    return run_dir


def check_run_dir_path(run_dir: str | os.PathLike, flag: str = "--run-dir") -> None:
    """Refuse a ``run_dir`` that exists but is not a directory (nothing is created).

    Raises:
        ValueError: ``run_dir`` is empty, or it or one of its parents is a file.
    """
    if not str(run_dir).strip():
        # Path("") is the current directory: a run would spill into wherever the command was typed
        raise ValueError(f"{flag} is empty: name the run's directory")
    run_dir = Path(run_dir)
    for p in (run_dir, *run_dir.parents):
        if p.exists():
            if not p.is_dir():
                what = "is a file" if p == run_dir else f"is under the file {p}"
                raise ValueError(f"{flag} {run_dir} {what}, not a directory: choose another path")
            return


def _read_owner(fd: int) -> str:
    try:
        return os.pread(fd, 32, 0).decode(errors="replace").strip()
    except OSError:
        return ""
