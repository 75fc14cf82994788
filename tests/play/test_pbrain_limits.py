"""The Gomocup engine's limits from ``INFO`` (a fresh user's findings): a huge ``max_memory``
(tables capped by the machine's memory and the largest table the search accepts, building them
counted in the turn), huge protocol times (clamped before any timer takes them), and the short
turns' search (``timeout_turn 0``: the playouts keep their 0.3 s beside the VCT guard's time)."""

from __future__ import annotations

import io
import math
import re
import threading
import time

import pytest
from play_helpers import Engine

from zeroplay.engine.factory import find_model
from zeroplay.games import make
from zeroplay.play import pbrain_limits

MIB = 2**20
HUGE = "99999999999999999999999"
needs_model = pytest.mark.skipif(find_model(make("gomoku", size=15)) is None,
                                 reason="the shipped 15x15 model is not in this checkout (src/zeroplay/models/)")


def _warm_engine(**options) -> tuple[Engine, io.StringIO]:
    log = io.StringIO()
    e = Engine(log=log, **options)
    e.engine._warm_up()  # compiled and the 15x15 model loaded: the turns below are the model's
    return e, log


# --- D1: max_memory ---------------------------------------------------------------------------
def test_search_memory_is_capped_by_the_machines_memory():
    # 100 GB on a 24 GB machine built 95,111 MiB of tables and answered 8 s into a 1 s turn
    rss = 300 * MIB
    for phys, cap in ((24 << 30, pbrain_limits.MAX_TABLE_BYTES), (2 << 30, int((2 << 30) * pbrain_limits.PHYSICAL_MEMORY_SHARE)),
                      (0, pbrain_limits.MAX_TABLE_BYTES)):  # 0: the machine's memory unknown
        assert pbrain_limits.table_cap(phys) == cap
        assert pbrain_limits.search_memory(100_000_000_000, rss=rss, physical=phys) == cap
        assert pbrain_limits.search_memory(10**25, rss=rss, physical=phys) == cap
    small = 1 << 30  # below the cap: what max_memory leaves, as before
    assert pbrain_limits.search_memory(small, rss=rss, physical=24 << 30) == small - rss - pbrain_limits.MEMORY_MARGIN_BYTES
    said = pbrain_limits.memory_capped(100_000_000_000, rss=rss, physical=24 << 30)
    assert said is not None and said.startswith("MESSAGE INFO max_memory 100000000000 (95367 MiB) is more")
    assert "capped at 2048 MiB" in said and "24576 MiB" in said
    assert pbrain_limits.memory_capped(small, rss=rss, physical=24 << 30) is None
    assert pbrain_limits.memory_capped(0, rss=rss, physical=24 << 30) is None
    # helper-75: 1e23 bytes read "(95367431640624992 MiB)", a float's rounding
    huge = pbrain_limits.memory_capped(10**23, rss=rss, physical=24 << 30)
    assert huge is not None and "(95367431640625000 MiB)" in huge


def test_table_budget_stays_within_the_largest_node_table():
    # 10 TB (or more) on a machine that has it asked for a node table of 2^34 slots: "capacity
    # must be a power of two in [2, 2^31]", and every later turn failed the same way
    from zeroplay.engine.factory import make_engine
    from zeroplay.search import SearchConfig

    game = make("gomoku", size=15)
    overrides = make_engine(game, use_shipped=False).config_overrides
    for budget in (10**13, 10**25):
        fitted = pbrain_limits.largest_tables(budget, game, overrides)
        assert 0 < fitted < budget
        config = SearchConfig.for_memory(fitted, game, **overrides)
        assert config.node_capacity <= pbrain_limits.MAX_NODE_CAPACITY
        # the cap is the largest such table, not far below it
        assert SearchConfig.for_memory(2 * fitted, game, **overrides).node_capacity > pbrain_limits.MAX_NODE_CAPACITY
    assert pbrain_limits.largest_tables(256 * MIB, game, overrides) == 256 * MIB


@needs_model
def test_a_huge_max_memory_is_capped_said_and_every_turn_searches(warm, monkeypatch):
    # the fresh user's 10 TB and 99999999999999999999999: a traceback, then quick heuristic
    # moves for the whole game (the searcher was rebuilt with the same tables each turn)
    monkeypatch.setattr(pbrain_limits, "physical_memory", lambda: 1 << 30, raising=False)
    e, log = _warm_engine(playouts=8)
    replies = e.send(f"INFO max_memory {HUGE}", "START 15", "INFO timeout_turn 5000", "BEGIN", "TURN 6,6", "TURN 9,9")
    said = [r for r in replies if r.startswith("MESSAGE INFO max_memory")]
    assert len(said) == 1 and "is more than" in said[0] and "256 MiB" in said[0], replies
    moves = [r for r in replies if re.fullmatch(r"\d+,\d+", r)]
    assert len(moves) == 3, replies
    text = log.getvalue()
    assert "search tables: 256 MiB" in text, text
    assert len(re.findall(r"playouts? in [\d.]+ s", text)) == 3, text  # searched, not quick moves
    assert "Traceback" not in text and "quick heuristic move" not in text, text


@needs_model
def test_a_failed_table_allocation_falls_back_to_smaller_tables(warm, monkeypatch):
    from zeroplay.engine import factory

    new_searcher = factory.Engine.new_searcher

    def refusing(self, **kwargs):  # an allocation the machine refuses (overcommit, limits)
        if (kwargs.get("memory_bytes") or 0) > pbrain_limits.DEFAULT_MEMORY_BYTES:
            raise MemoryError
        return new_searcher(self, **kwargs)

    monkeypatch.setattr(factory.Engine, "new_searcher", refusing)
    e, log = _warm_engine(playouts=8)
    replies = e.send("INFO max_memory 4000000000", "START 15", "INFO timeout_turn 5000", "BEGIN", "TURN 6,6")
    assert len([r for r in replies if re.fullmatch(r"\d+,\d+", r)]) == 2, replies
    assert len(re.findall(r"playouts? in [\d.]+ s", log.getvalue())) == 2, log.getvalue()


@needs_model
def test_building_the_tables_counts_against_the_turn(warm, monkeypatch):
    # 20 GB of tables took about a second to build, after which the search took the whole plan
    from zeroplay.engine import factory
    from zeroplay.search.searcher import Searcher

    build_s = 0.6
    new_searcher = factory.Engine.new_searcher

    def slow(self, **kwargs):
        time.sleep(build_s)
        return new_searcher(self, **kwargs)

    asked: list[float] = []
    search = Searcher.search

    def recorded(self, state, *args, **kwargs):
        asked.append(kwargs.get("seconds"))
        return search(self, state, *args, **kwargs)

    e, _ = _warm_engine(playouts=8)  # (its own searches unrecorded)
    monkeypatch.setattr(factory.Engine, "new_searcher", slow)
    monkeypatch.setattr(Searcher, "search", recorded)
    e.send("START 15", "INFO timeout_turn 2000")
    plan = e.engine.move_seconds()
    e.send("BEGIN")
    assert len(asked) == 1 and asked[0] is not None
    assert asked[0] <= plan - build_s + 0.05, (asked, plan)


# --- D2: huge protocol times ------------------------------------------------------------------
def test_huge_protocol_times_are_clamped():
    e = Engine(search=False)
    e.send(f"INFO timeout_turn {HUGE}", f"INFO timeout_match {HUGE}")
    assert e.engine.timeout_turn_ms == e.engine.timeout_match_ms == pbrain_limits.MAX_PROTOCOL_MS
    seconds = e.engine.move_seconds()
    assert seconds is not None and math.isfinite(seconds) and seconds * 4 < threading.TIMEOUT_MAX
    e.send(f"INFO time_left {HUGE}")
    assert e.engine.time_left_ms == pbrain_limits.MAX_PROTOCOL_MS
    e.send("INFO timeout_turn 1000")
    assert e.engine.move_seconds() == pytest.approx(0.7)  # ordinary values are untouched


@needs_model
def test_a_huge_turn_time_starts_no_timer_that_overflows(warm, monkeypatch):
    # "Exception in thread Thread-N ... OverflowError: timestamp out of range for platform
    # time_t", from the threat search's threading.Timer, about once a second
    failures: list[BaseException] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: failures.append(args.exc_value))
    e, log = _warm_engine(playouts=24)
    replies = e.send("START 15", f"INFO timeout_turn {HUGE}", "BEGIN", "TURN 6,6")
    assert len([r for r in replies if re.fullmatch(r"\d+,\d+", r)]) == 2, replies
    deadline = time.monotonic() + 2.0  # a timer thread that failed did so at once
    while any(isinstance(t, threading.Timer) and t.is_alive() for t in threading.enumerate()) \
            and time.monotonic() < deadline:
        time.sleep(0.01)
    assert failures == [], failures
    assert "stopped by playouts" in log.getvalue(), log.getvalue()


# --- D4: short turns --------------------------------------------------------------------------
@needs_model
def test_timeout_turn_0_gives_the_playouts_their_seconds_beside_the_guards(warm):
    # every move of timeout_turn 0 was 1 playout in 0.03 s: the VCT guard kept 0.2 s of the
    # 0.3 s, and one round of the net did not fit in the 0.1 s left
    from zeroplay.play.pbrain_turn import FAST_SECONDS

    e, log = _warm_engine()
    e.send("START 15", "INFO timeout_turn 0", "BEGIN")
    searcher = e.engine._searcher
    assert searcher is not None and searcher.root_guard.enabled
    assert searcher._limits.seconds >= FAST_SECONDS - 0.05  # the playouts' own limit (the guard's after it)
    assert searcher._limits.playouts <= 48
    assert "playout" in log.getvalue() and "quick heuristic move" not in log.getvalue()


@needs_model
def test_the_numpy_net_is_searched_in_rounds_that_fit_a_short_turn(warm):
    # 16-leaf rounds of the numpy net took 0.1-0.2 s on a loaded machine, as long as a 500-700 ms
    # turn's playouts had beside the guard: 1-17 playouts a turn
    from zeroplay.play.pbrain_turn import NUMPY_BATCH_SIZE

    e, _ = _warm_engine(playouts=8)
    e.send("START 15", "INFO timeout_turn 700", "BEGIN")
    assert e.engine._searcher.config.batch_size == NUMPY_BATCH_SIZE < 16
