"""``engine.resign``: KataGo's rule, the engine resigns after consecutive hopeless turns."""

from __future__ import annotations

import pytest

from zeroplay.engine.resign import RESIGN_TURNS, Resigner
from zeroplay.search.result import SearchResult


def result(win_rate: float, playouts: int = 800, proven: str | None = None) -> SearchResult:
    return SearchResult(best_move=0, root_q=2 * win_rate - 1, pv=(0,), playouts=playouts, proven=proven)


def test_resigns_after_the_consecutive_hopeless_turns_only():
    r = Resigner()
    assert [r.observe(result(0.01)) for _ in range(RESIGN_TURNS)] == [False] * (RESIGN_TURNS - 1) + [True]
    r.reset()
    # one hopeful move in between starts the count again
    assert not r.observe(result(0.01)) and not r.observe(result(0.01))
    assert not r.observe(result(0.2))
    assert not r.observe(result(0.01)) and not r.observe(result(0.01))
    assert r.observe(result(0.01))


def test_short_searches_do_not_count_but_a_proven_loss_does():
    r = Resigner(turns=2)
    assert not r.observe(result(0.0, playouts=10))
    assert not r.observe(result(0.0, playouts=10))  # too few playouts to trust, either way
    assert r.hopeless == 0
    assert not r.observe(result(0.6, playouts=0, proven="loss"))
    assert r.observe(result(0.6, playouts=0, proven="loss"))


def test_threshold_zero_never_resigns_and_bad_settings_are_refused():
    r = Resigner(below=0.0)
    assert not any(r.observe(result(0.0, proven="loss")) for _ in range(10))
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        Resigner(below=1.5)
    with pytest.raises(ValueError, match="at least 1 turn"):
        Resigner(turns=0)
