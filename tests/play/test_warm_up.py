"""The set-up compile (``make venv`` runs ``warm_up(print, solvers=True)``): a line per stage."""

from __future__ import annotations


def test_warm_up_reports_each_stage_for_the_set_up_progress(warm):
    from zeroplay.engine.factory import warm_up

    lines: list[str] = []
    assert warm_up(lines.append, solvers=True) >= 0
    assert lines[0] == "compiling or loading 1/4: rules (compiled on the first run, loaded from the cache after) ..."
    assert len(lines) == 8 and lines[-1].startswith("compiling or loading 4/4: VCT solver (proof-number) done in ")


def test_the_terminal_warms_up_the_engine_it_will_play():
    """``zeroplay play --game othello``'s first move compiled Othello's search kernels silently
    (over 4 minutes on a loaded machine, printed as the move's search time): the warm-up, which
    says "Loading the search", must cover the engine that plays, not only Gomoku's kernels."""
    from zeroplay.play.terminal import warm_up_with_note

    class Spy:
        warmed = 0

        def warm_up(self):
            self.warmed += 1

    spy = Spy()
    warm_up_with_note(lambda line: None, spy)
    assert spy.warmed == 1


def test_engine_warm_up_searches_its_own_game_with_its_own_evaluator(warm):
    from zeroplay.engine.factory import make_engine
    from zeroplay.games import make

    engine = make_engine(make("connect4"))
    searchers = []
    made = engine.new_searcher

    def spy(**config):
        searchers.append(made(**config))
        return searchers[-1]

    engine.new_searcher = spy
    engine.warm_up(playouts=8)
    assert len(searchers) == 1
    searcher = searchers[0]
    assert searcher.game is engine.game and searcher.evaluator is engine.evaluator
    assert searcher.result().playouts >= 1


def test_a_slow_warm_up_prints_each_stage_not_one_line_then_silence(monkeypatch):
    """``zeroplay play`` on a fresh install printed "Loading the search (... about 20-60 s ...)"
    and then nothing for over 8 minutes on a busy 2-core machine: the stages must show."""
    import time

    import zeroplay.engine.factory as factory
    from zeroplay.play.terminal import warm_up_with_note

    def slow_warm_up(progress=None, *, solvers=False, more_stages=0):
        assert more_stages == 1  # the engine's stage, counted in the numbering
        progress("compiling or loading 1/3: rules (compiled on the first run, loaded from the cache after) ...")
        time.sleep(0.3)
        progress("compiling or loading 1/3: rules done in 0.3 s")
        return 0.3

    class Engine:
        def warm_up(self):
            time.sleep(0.1)

    monkeypatch.setattr(factory, "warm_up", slow_warm_up)
    printed: list[str] = []
    warm_up_with_note(printed.append, Engine(), grace_seconds=0.05)
    assert printed[0].startswith("Loading the search")
    assert printed[1:] == ["  compiling or loading 1/3: rules (compiled on the first run, loaded from the cache after) ...",
                           "  compiling or loading 1/3: rules done in 0.3 s",
                           "  compiling or loading 3/3: the kernels of this game and engine ...",
                           "  compiling or loading 3/3: the kernels of this game and engine done"]


def test_a_quick_warm_up_prints_nothing(monkeypatch):
    import zeroplay.engine.factory as factory
    from zeroplay.play.terminal import warm_up_with_note

    monkeypatch.setattr(factory, "warm_up", lambda progress=None, *, solvers=False, more_stages=0: progress("x") or 0.0)
    printed: list[str] = []
    warm_up_with_note(printed.append, None, grace_seconds=5.0)
    assert printed == []


def test_set_up_warm_up_searches_with_the_shipped_15x15_model(warm):
    """``make venv`` caches the kernels a network's priors specialise (189 s to compile on a
    loaded machine), so that pbrain's first model-backed search loads them instead."""
    import pytest

    from zeroplay.engine.factory import find_model, warm_up
    from zeroplay.games import make

    if find_model(make("gomoku", size=15)) is None:
        pytest.skip("the shipped 15x15 model is not in this checkout (src/zeroplay/models/)")
    lines: list[str] = []
    warm_up(lines.append, model=True)
    assert lines[-1].startswith("compiling or loading 3/3: search with the 15x15 model done in ")
