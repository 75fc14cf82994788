"""numba's cache saver under two processes saving at once (files/numba_cache.py): before the lock,
both took data file 1, so one signature's index entry named the other's machine code."""

from __future__ import annotations

import threading
import time

import pytest

numba_caching = pytest.importorskip("numba.core.caching", reason="numba is not installed")


def _race(tmp_path):
    """Two savers of two keys of one function, each pausing between reading and rewriting the
    index (the window two compiling processes share); returns the cache file object."""
    cache = numba_caching.IndexDataCacheFile(str(tmp_path), "kernels.f-1.py311", ("stamp", 1))
    real_load = cache._load_index

    def slow_load():
        overloads = real_load()
        time.sleep(0.2)  # both savers have read the index before either rewrites it
        return overloads

    cache._load_index = slow_load
    threads = [threading.Thread(target=cache.save, args=(key, f"code for {key}")) for key in ("int64", "float64")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cache._load_index = real_load
    return cache


def test_two_savers_at_once_keep_each_signature_with_its_own_code(tmp_path):
    from zeroplay.files import numba_cache

    numba_cache.install()
    cache = _race(tmp_path)
    assert cache.load("int64") == "code for int64" and cache.load("float64") == "code for float64"
    assert len(set(cache._load_index().values())) == 2


def test_without_the_lock_the_race_cross_wires_the_cache(tmp_path):
    """The failure the lock prevents, shown on numba's own saver (so that the test above cannot
    pass for another reason): one key is lost or names the other's code."""
    original = getattr(numba_caching.IndexDataCacheFile.save, "__wrapped__", numba_caching.IndexDataCacheFile.save)
    patched = numba_caching.IndexDataCacheFile.save
    numba_caching.IndexDataCacheFile.save = original
    try:
        cache = _race(tmp_path)
    finally:
        numba_caching.IndexDataCacheFile.save = patched
    loaded = {key: cache.load(key) for key in ("int64", "float64")}
    assert loaded != {"int64": "code for int64", "float64": "code for float64"}
