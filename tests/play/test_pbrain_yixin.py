"""The Gomocup engine as analysis GUIs drive it (issue 23): searching soon after START, and the
Yixin/Gomocup extensions, each as a protocol transcript."""

from __future__ import annotations

import io
import time

import pytest

from play_helpers import Engine


def _engine(**options) -> tuple[Engine, io.StringIO]:
    log = io.StringIO()
    return Engine(log=log, **options), log


def test_the_first_moves_are_searched_while_the_model_still_loads(warm, monkeypatch):
    import zeroplay.play.engine as engine_module

    real = engine_module.make_engine

    def slow_model(game, model=None, *, use_shipped=True):
        if use_shipped or model is not None:
            time.sleep(4)  # torch's import on a loaded machine
        return real(game, model, use_shipped=use_shipped)

    monkeypatch.setattr(engine_module, "make_engine", slow_model)
    e, log = _engine(warm_up=True)
    t0 = time.monotonic()
    assert e.send("INFO timeout_turn 5000", "START 15") == ["OK"]
    assert e.engine._ready.wait(30) and not e.engine._model_ready.is_set()
    reply = e.send("BEGIN")
    assert len(reply) == 1 and reply[0] != ""
    text = log.getvalue()
    assert "quick heuristic move" not in text and "search-only engine plays until" in text and "playout" in text
    assert e.engine._model_ready.wait(60)
    e.send("TURN 8,8")
    assert "engine: model gomoku-15x15-freestyle" in log.getvalue()  # the model took over
    assert time.monotonic() - t0 < 90


def test_a_short_turn_while_the_model_loads_gets_the_heuristic_move(warm, monkeypatch):
    e, log = _engine()
    e.engine._ready.set()  # the search is compiled, the model not yet loaded
    e.send("INFO timeout_turn 1000", "START 15")
    assert len(e.send("BEGIN")) == 1
    assert "the model is still loading and the turn (0.70 s) is under 3 s" in log.getvalue()
