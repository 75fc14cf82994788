"""The worst case of pbrain's memory budget: the search's tables wholly resident.

A turn's search rarely fills its tables (a 30 s turn of the model touches a few MiB of them), so
``pbrain_memory.py`` alone does not show that the whole process fits ``INFO max_memory`` when they
are full. Here one process plays as ``pbrain-zeroplay`` does (``PbrainEngine``, warm-up, the
model's 15x15 engine, INFO max_memory 367001600), searches a turn, then writes one byte of every
page of every table array (so all of them are resident, as after a long game), searches more
turns and reports VmRSS / VmHWM against max_memory. Run from the repository root:

    PYTHONPATH=src python scripts/pbrain_memory_full.py [--inference numpy|torch] [--turn-ms 5000] [--turns 8]
"""
import argparse
import io
import sys

import numpy as np

from zeroplay.play.pbrain_engine import PbrainEngine

MAX = 367001600
ap = argparse.ArgumentParser()
ap.add_argument("--inference", default="numpy")
ap.add_argument("--turn-ms", type=int, default=5000)
ap.add_argument("--turns", type=int, default=8, help="turns after the tables are made resident (at most 12)")
args = ap.parse_args()


def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    return 0


def mib(n):
    return f"{n / 2**20:.1f} MiB"


out, log = [], io.StringIO()
engine = PbrainEngine(out.append, log=log, inference=args.inference, playouts=10**8)
assert engine._model_ready.wait(900), log.getvalue()
print("torch imported:", "torch" in sys.modules, "; VmRSS after the warm-up:", mib(status("VmRSS")))
for line in ("START 15", f"INFO max_memory {MAX}", f"INFO timeout_turn {args.turn_ms}", "BEGIN"):
    engine.handle(line)
s = engine._searcher
th = s.batch.threats
arrays = list(s.tree) + list(s.table) + [th.node_line, th.pool, th.table.entries]
if s.cache is not None:
    arrays += [s.cache.keys, s.cache.valid, s.cache.values, s.cache.priors]
arrays = [a for a in arrays if isinstance(a, np.ndarray) and a.size > 1024]
total = sum(a.nbytes for a in arrays)
for a in arrays:  # one byte a page, rewritten with itself: every page resident, nothing changed
    flat = a.reshape(-1).view(np.uint8)
    flat[::4096] = flat[::4096].copy()
print("table arrays:", mib(total), "; VmRSS with them all resident:", mib(status("VmRSS")))
replies = ["TURN 8,7", "TURN 6,8", "TURN 2,2", "TURN 12,12", "TURN 2,12", "TURN 12,2", "TURN 0,7", "TURN 14,7",
           "TURN 7,0", "TURN 7,14", "TURN 0,0", "TURN 14,14"]
for line in replies[: args.turns]:
    x, y = (int(v) for v in line.split()[1].split(","))
    if engine.board[y * 15 + x] == 0:  # a cell the engine took itself is skipped
        engine.handle(line)
        print(f"{line}: VmRSS {mib(status('VmRSS'))}", flush=True)
print(log.getvalue().strip())
print("VmRSS:", mib(status("VmRSS")), "; VmHWM:", mib(status("VmHWM")), "; max_memory", mib(MAX),
      "; under it:", status("VmHWM") < MAX)
