"""``engine.resign``: KataGo's rule, the engine resigns after consecutive hopeless turns."""

from __future__ import annotations

from zeroplay.engine.resign import RESIGN_TURNS, resigns, trusted_win_rate
from zeroplay.search.result import SearchResult


def result(win_rate: float, playouts: int = 800, proven: str | None = None) -> SearchResult:
    return SearchResult(best_move=0, root_q=2 * win_rate - 1, pv=(0,), playouts=playouts, proven=proven)


def test_resigns_after_the_consecutive_hopeless_turns_only():
    assert RESIGN_TURNS == 3
    assert resigns([0.01, 0.02, 0.0])
    assert resigns([0.9, 0.01, 0.02, 0.0])  # the last three
    assert not resigns([0.01, 0.02])  # too few turns yet
    assert not resigns([0.01, 0.2, 0.01])  # one hopeful move in between
    assert not resigns([None, 0.01, 0.01])  # a position not searched breaks the run
    assert not resigns([0.01, 0.01, 0.01], below=0.0)  # 0: never
    assert resigns([0.04, 0.04], below=0.05, turns=2)


def test_short_searches_are_not_trusted_but_a_proven_loss_is():
    assert abs(trusted_win_rate(result(0.01)) - 0.01) < 1e-9
    assert trusted_win_rate(result(0.0, playouts=10)) is None  # Ctrl-C after 10 playouts
    assert trusted_win_rate(result(0.6, playouts=0, proven="loss")) == 0.0


def test_the_sgf_result_of_a_resignation_both_ways():
    from zeroplay.engine.resign import resignation_result, resigned_by

    assert resignation_result(0) == "W+R" and resignation_result(1) == "B+R"
    assert resigned_by("W+R") == 0 and resigned_by(" b+resign ") == 1
    assert resigned_by("W+R extra") is None and resigned_by("B+4.5") is None and resigned_by("") is None
