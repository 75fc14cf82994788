"""The Gomocup engine's start-up and memory (issues 20 and 23): by default its net runs in numpy,
so torch is never imported; its warm-up searches with the model before the first turn; the
search's tables get what ``INFO max_memory`` leaves after the process's own memory."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from zeroplay.engine.factory import find_model
from zeroplay.games import make
from zeroplay.play.pbrain_limits import MEMORY_MARGIN_BYTES, MIN_MEMORY_BYTES, memory_shortfall, search_memory

_SESSION = r"""
import io, json, sys, time
from zeroplay.play.pbrain_engine import PbrainEngine
out, log = [], io.StringIO()
engine = PbrainEngine(out.append, log=log, playouts=64, **json.loads(sys.argv[1]))
started = time.perf_counter()
assert engine._model_ready.wait(600), log.getvalue()
ready_s = time.perf_counter() - started
(loaded,) = engine._engines.values()
warm_calls = loaded.evaluator.calls  # the warm-up's own search with the model
for line in json.loads(sys.argv[2]) if len(sys.argv) > 2 else ("START 15", "INFO timeout_turn 2000", "BEGIN"):
    engine.handle(line)
print(json.dumps({"torch": "torch" in sys.modules, "warm_calls": warm_calls, "ready_s": ready_s,
                  "engine": loaded.name, "evaluator": type(loaded.evaluator).__name__,
                  "replies": out, "log": log.getvalue()}))
"""


def _session(lines=None, **options) -> dict:
    proc = subprocess.run([sys.executable, "-c", _SESSION, json.dumps(options), *([json.dumps(lines)] if lines else [])],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(find_model(make("gomoku", size=15)) is None,
                    reason="the shipped 15x15 model is not in this checkout (src/zeroplay/models/)")
def test_default_engine_never_imports_torch_and_warms_up_with_the_model(warm):
    got = _session()
    assert not got["torch"], got["log"]
    assert got["evaluator"] == "NumpyNetEvaluator" and "gomoku-15x15-freestyle" in got["engine"]
    assert got["warm_calls"] > 0  # the model searched during the warm-up, before any turn
    move = [r for r in got["replies"] if not r.startswith("MESSAGE")]
    assert move[0] == "OK" and move[1].count(",") == 1
    assert "engine: model gomoku-15x15-freestyle" in got["log"]  # the first turn is model-backed
    assert "search-only engine plays" not in got["log"] and "quick heuristic move" not in got["log"]


def test_search_memory_leaves_the_process_its_resident_memory():
    mib = 2**20
    assert search_memory(350 * mib, rss=150 * mib) == 350 * mib - 150 * mib - MEMORY_MARGIN_BYTES
    assert search_memory(350 * mib, rss=340 * mib) == MIN_MEMORY_BYTES
    assert search_memory(0, rss=10**12) > MIN_MEMORY_BYTES  # no limit sent: the default budget


def test_a_max_memory_the_process_cannot_keep_to_is_said():
    # INFO max_memory 20000000 got the 4 MiB tables while the process held 228 MiB, and nothing
    # told the manager
    mib = 2**20
    assert memory_shortfall(0, rss=10**12) is None and memory_shortfall(350 * mib, rss=150 * mib) is None
    said = memory_shortfall(20_000_000, rss=200 * mib)
    assert said.startswith("MESSAGE INFO max_memory 20000000 (19 MiB) is below") and "200 MiB" in said


@pytest.mark.skipif(find_model(make("gomoku", size=15)) is None,
                    reason="the shipped 15x15 model is not in this checkout (src/zeroplay/models/)")
def test_the_engine_tells_the_manager_its_max_memory_is_too_small(warm):
    got = _session(["START 15", "INFO max_memory 20000000", "INFO timeout_turn 500", "BEGIN"])
    messages = [r for r in got["replies"] if r.startswith("MESSAGE INFO max_memory 20000000")]
    assert len(messages) == 1, got["replies"]
    move = [r for r in got["replies"] if not r.startswith("MESSAGE")]
    assert move[0] == "OK" and move[1].count(",") == 1  # it plays all the same
    # said at INFO time, before the first move (a quick first move had it come one reply late)
    assert got["replies"].index(messages[0]) < got["replies"].index(move[1])


def test_max_memory_is_told_at_info_time_once_per_value():
    from zeroplay.files.resident import current_rss
    from zeroplay.play.pbrain_engine import PbrainEngine

    out: list[str] = []
    engine = PbrainEngine(out.append, warm_up=False)
    enough = current_rss() + 2**30  # (a pytest worker may hold gigabytes by now)
    for line in ("INFO max_memory 1000", "INFO max_memory 1000", "INFO max_memory 0", f"INFO max_memory {enough}"):
        engine.handle(line)
    said = [r for r in out if r.startswith("MESSAGE INFO max_memory")]
    assert len(said) == 1 and said[0].startswith("MESSAGE INFO max_memory 1000 (0 MiB) is below")


def test_make_engine_runs_the_net_as_asked():
    from zeroplay.engine.factory import load_model, make_engine
    from zeroplay.nn.numpy_net import NumpyNetEvaluator

    game = make("gomoku", size=8, n_in_row=5)
    engine = make_engine(game, "gomoku-8x8-5-freestyle", inference="numpy")
    assert isinstance(engine.evaluator, NumpyNetEvaluator) and "gomoku-8x8-5-freestyle" in engine.name
    with pytest.raises(ValueError, match="unknown inference backend 'onnx'"):
        load_model(engine.model_path, game, inference="onnx")


def test_a_negative_max_memory_is_taken_as_no_limit_and_said():
    from zeroplay.play.pbrain_engine import PbrainEngine

    out: list[str] = []
    engine = PbrainEngine(out.append, warm_up=False)
    engine.handle("INFO max_memory -5")
    assert engine.max_memory == 0
    assert out == ["MESSAGE INFO max_memory -5 is negative: taken as 0, no limit"]
