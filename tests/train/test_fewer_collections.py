"""Self-play raises the GC's young-generation threshold while it plays, and puts it back."""

from __future__ import annotations

import gc

from zeroplay.train.selfplay import GC_YOUNG_THRESHOLD, fewer_collections


def test_the_threshold_is_raised_inside_and_restored_after_even_on_error():
    old = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with fewer_collections():
            assert gc.get_threshold() == (GC_YOUNG_THRESHOLD, 10, 10)
        assert gc.get_threshold() == (700, 10, 10)
        try:
            with fewer_collections():
                raise KeyError("x")
        except KeyError:
            pass
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*old)


def test_a_higher_threshold_or_a_disabled_collector_is_left_alone():
    old = gc.get_threshold()
    try:
        gc.set_threshold(GC_YOUNG_THRESHOLD * 2, 5, 5)
        with fewer_collections():
            assert gc.get_threshold() == (GC_YOUNG_THRESHOLD * 2, 5, 5)
        gc.set_threshold(0, 5, 5)
        with fewer_collections():
            assert gc.get_threshold()[0] == 0
    finally:
        gc.set_threshold(*old)
