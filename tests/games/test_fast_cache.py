"""The compiled dispatch's cache stamp: numba checks only a function's own file, so an edit of a
kernel in another module must drop zeroplay's numba cache (games/fast.py)."""

from __future__ import annotations

import os

from zeroplay.games.fast import kernel_sources_stamp


def test_stamp_follows_compiled_sources_only(tmp_path):
    kernel = tmp_path / "kernels.py"
    kernel.write_text("from numba import njit\n@njit(cache=True)\ndef f(x):\n    return x\n")
    plain = tmp_path / "notes.py"
    plain.write_text("X = 1\n")
    before = kernel_sources_stamp(tmp_path)
    assert kernel_sources_stamp(tmp_path) == before
    st = plain.stat()
    os.utime(plain, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    plain.write_text("X = 2\n")
    assert kernel_sources_stamp(tmp_path) == before          # not compiled: the cache stays
    st = kernel.stat()
    kernel.write_text(kernel.read_text().replace("return x", "return x + 1"))
    os.utime(kernel, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert kernel_sources_stamp(tmp_path) != before          # a kernel edit drops the cache

