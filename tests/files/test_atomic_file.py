"""``zeroplay.files.atomic``: the written file gets a new file's ordinary mode, not mkstemp's 0600."""

from __future__ import annotations

import os
import stat
import sys

import pytest

from zeroplay.files import atomic as atomic_file
from zeroplay.files.atomic import atomic_write_bytes, atomic_write_text

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="file modes (chmod, umask) are POSIX only")


@pytest.fixture
def umask():
    """Set the process umask for one test, restoring it afterwards."""
    saved = os.umask(0o022)
    os.umask(saved)
    yield os.umask
    os.umask(saved)


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o002, 0o077])
def test_written_file_gets_the_default_mode(tmp_path, umask, mask):
    umask(mask)
    path = atomic_write_bytes(tmp_path / "model.safetensors", b"weights")
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask
    assert path.read_bytes() == b"weights"
    # the same as a file opened the ordinary way
    plain = tmp_path / "plain"
    plain.write_bytes(b"")
    assert stat.S_IMODE(plain.stat().st_mode) == stat.S_IMODE(path.stat().st_mode)


def test_replacing_keeps_the_default_mode_and_leaves_no_temp_file(tmp_path, umask):
    umask(0o022)
    path = tmp_path / "config.json"
    atomic_write_text(path, "old")
    os.chmod(path, 0o600)
    atomic_write_text(path, "new")
    assert path.read_text() == "new" and stat.S_IMODE(path.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json"]


def test_umask_without_proc_is_read_and_restored(monkeypatch, umask):
    """Where /proc/self/status is missing, the umask is read by setting it back at once."""
    umask(0o027)
    real_open = open

    def no_proc(file, *args, **kwargs):
        if str(file) == "/proc/self/status":
            raise FileNotFoundError(file)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", no_proc)
    assert atomic_file._default_mode() == 0o640
    assert os.umask(0o027) == 0o027
