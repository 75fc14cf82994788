"""Root visits per second of an analysis-style search: the shipped 9x9 Go engine searching one
position in report slices (one ``think`` per report, as ``kata-analyze INTERVAL`` does).

    PYTHONPATH=TREE/src python scripts/analysis_slices.py [SECONDS] [REPORT_EVERY_S]

Run it for two source trees alternately (machine load then hits both alike)."""

from __future__ import annotations

import sys
import threading
import time

from zeroplay.engine.go_search import PuctRollout
from zeroplay.games import make
from zeroplay.play.terminal import MEMORY_BYTES


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 8.0
    every = float(sys.argv[2]) if len(sys.argv) > 2 else 0.05
    engine = PuctRollout(2000, timed_memory_bytes=MEMORY_BYTES, shipped_default=True)
    state = make("go", size=9, komi=7.5).initial().play("E5").play("C3")
    engine.think(state, playouts=50)  # compile or load the kernels first
    stop = threading.Event()
    threading.Timer(seconds, stop.set).start()
    started = time.perf_counter()
    engine.think(state, playouts=100_000_000, progress_every_s=every, on_progress=lambda stats: None, stop=stop)
    elapsed = time.perf_counter() - started
    print(f"{engine.last.root_visits / elapsed:.0f} root visits/s over {elapsed:.1f} s, a report every {every} s")


if __name__ == "__main__":
    main()
