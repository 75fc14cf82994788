"""``zeroplay gtp`` at start: the compiled search is loaded before the first command is read
(a cold first ``genmove`` compiled for minutes), notes go to stderr only, and the search's tables
are sized as the other front-ends size theirs (``SearchConfig.for_playouts`` / ``for_memory``)."""

from __future__ import annotations

import io
import sys

from zeroplay.engine.go_search import PuctRollout
from zeroplay.games import make
from zeroplay.play.gtp import GtpSession, serve
from zeroplay.play.terminal import MEMORY_BYTES
from zeroplay.search import SearchConfig


class _Lines(io.StringIO):
    """stdin that notes whether a line was read."""

    read_any = False

    def __iter__(self):
        for line in self.getvalue().splitlines(keepends=True):
            type(self).read_any = True
            yield line


class _SpyEngine:
    name = "spy"

    def __init__(self):
        self.warmed_before_reading = None

    def warm_up(self):
        self.warmed_before_reading = not _Lines.read_any


def test_serve_warms_the_engine_up_before_reading_the_first_command(monkeypatch):
    import zeroplay.engine.factory as factory

    monkeypatch.setattr(factory, "warm_up", lambda progress=None, **kw: 0.0)  # Gomoku's own part: not under test
    _Lines.read_any = False
    engine = _SpyEngine()
    replies: list[str] = []
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert serve(_Lines("name\nquit\n"), replies.append, engine=engine) == 0
    assert engine.warmed_before_reading is True
    assert "".join(replies) == "= zeroplay\n\n=\n\n"  # stdout: GTP replies only
    notes = err.getvalue()
    assert "zeroplay gtp: search loaded in " in notes and "engine spy" in notes


def test_a_failed_warm_up_is_a_note_not_the_end(monkeypatch):
    import zeroplay.engine.factory as factory

    def broken(progress=None, **kw):
        raise RuntimeError("no compiler")

    monkeypatch.setattr(factory, "warm_up", broken)
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    replies: list[str] = []
    assert serve(io.StringIO("name\nquit\n"), replies.append, engine=_SpyEngine()) == 0
    assert "warm-up failed" in err.getvalue() and "".join(replies) == "= zeroplay\n\n=\n\n"


def test_the_go_search_warms_up_on_a_tiny_board_without_touching_its_own_searcher(warm):
    engine = PuctRollout(50)
    engine.warm_up(playouts=8)
    assert engine._searcher is None


def test_the_search_tables_are_sized_for_the_playouts_as_elsewhere():
    game = make("go", size=9)
    searcher = PuctRollout(300, batch_size=8)._searcher_for(game)
    expected = SearchConfig.for_playouts(300, game, batch_size=8)
    assert (searcher.config.node_capacity, searcher.config.edge_capacity) == (expected.node_capacity,
                                                                              expected.edge_capacity)
    assert searcher.config.node_capacity < SearchConfig().node_capacity  # was the default tables
    # moves timed by --seconds: the terminal's memory budget, as zeroplay play --seconds
    assert GtpSession(lambda text: None, playouts=300, seconds=1.0).engine.memory_bytes == MEMORY_BYTES
    assert GtpSession(lambda text: None, playouts=300).engine.memory_bytes is None


def test_a_move_timed_by_time_settings_gets_tables_sized_to_the_memory_budget():
    """A GTP move timed by ``time_settings`` searched in tables sized for ``--playouts`` (300
    here), recycling nodes all move long; from the first timed move the tables are sized to the
    terminal's memory budget, as under ``--seconds``, and stay so."""
    engine = GtpSession(lambda text: None, playouts=300).engine
    game = make("go", size=7)
    engine.think(game.initial(), playouts=20)
    small = engine._searcher.config.node_capacity
    assert engine.memory_bytes is None and small == SearchConfig.for_playouts(300, game, batch_size=16).node_capacity
    engine.think(game.initial(), seconds=0.05)
    budget = SearchConfig.for_memory(MEMORY_BYTES, game, **dict(game.play_search_options), batch_size=16)
    assert engine.memory_bytes == MEMORY_BYTES and engine._searcher.config.node_capacity == budget.node_capacity > small
    engine.think(game.initial(), playouts=20)  # later playout-limited searches keep the big tables
    assert engine._searcher.config.node_capacity == budget.node_capacity
