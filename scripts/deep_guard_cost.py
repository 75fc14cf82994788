"""What the VCT guard's deeper check costs and changes in untimed searches, side by side in one
process: 800-playout searches of the shipped 15x15 model (the play engine's threat search) with
the deeper check on (``UNTIMED_DEEP_PLAYOUTS`` as shipped) and off, alternating, each from a fresh
tree, evaluation cache, threat-solver table and guard memory, on positions of the guard's head-to-head record (every ``STEP``-th
position of player A, the guard's side, from ply 6 on). Prints per position both moves, both
times and the guard's seconds, and the totals (docs/THREATS.md, "The VCT guard").

    .venv/bin/python scripts/deep_guard_cost.py [POSITIONS [STEP]]      # default 20 7
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import zeroplay.search.searcher as searcher_module
from zeroplay.engine.factory import make_engine
from zeroplay.games import make
from zeroplay.search.root_guard import UNTIMED_DEEP_PLAYOUTS, GuardMemory

RECORD = Path(__file__).resolve().parents[1] / "training/strength/games/vct-guard/guard-vs-noguard-800-balanced-1.jsonl"


def positions(game, count: int, step: int) -> list:
    out, k = [], 0
    for raw in RECORD.read_text().splitlines()[1:]:
        r = json.loads(raw)
        a = 0 if r["a_is_black"] else 1
        state = game.initial()
        for ply, move in enumerate(r["moves"]):
            if state.to_play == a and ply >= 6:
                k += 1
                if k % step == 0:
                    out.append(state)
                    if len(out) == count:
                        return out
            state = state.play(move)
    return out


def main(argv: list[str]) -> None:
    count = int(argv[0]) if argv else 20
    step = int(argv[1]) if len(argv) > 1 else 7
    game = make("gomoku", width=15, height=15)
    searcher = make_engine(game).new_searcher(memory_bytes=200 << 20)
    searcher.search(game.initial(), playouts=64)  # compiled code and the model loaded
    totals = {"on": [0.0, 0.0], "off": [0.0, 0.0]}
    changed = 0
    for i, state in enumerate(positions(game, count, step)):
        moves = {}
        for mode in (("on", "off") if i % 2 == 0 else ("off", "on")):
            searcher_module.UNTIMED_DEEP_PLAYOUTS = UNTIMED_DEEP_PLAYOUTS if mode == "on" else 10**12
            searcher.reset()
            searcher.root_guard.memory = GuardMemory()
            if searcher.cache is not None:  # each search as if the position were new
                searcher.cache.clear()
            searcher.root_vct.solver().clear()
            searcher.root_guard.seconds, searcher.root_guard.lost = 0.0, {}  # a proven root runs no guard
            t0 = time.perf_counter()
            r = searcher.search(state, playouts=800)
            seconds = time.perf_counter() - t0
            totals[mode][0] += seconds
            totals[mode][1] += searcher.root_guard.seconds
            moves[mode] = (game.format_move(r.best_move), seconds, searcher.root_guard.seconds,
                           [game.format_move(m) for m in searcher.root_guard.lost])
        changed += moves["on"][0] != moves["off"][0]
        print(i, " | ".join(f"{m}: {v[0]} {v[1]:.2f} s, guard {v[2]:.2f} s, lost {v[3]}" for m, v in moves.items()),
              flush=True)
    searcher_module.UNTIMED_DEEP_PLAYOUTS = UNTIMED_DEEP_PLAYOUTS
    print(f"on: {totals['on'][0]:.1f} s (guard {totals['on'][1]:.1f}); off: {totals['off'][0]:.1f} s "
          f"(guard {totals['off'][1]:.1f}); ratio {totals['on'][0] / totals['off'][0]:.3f}; "
          f"moves changed {changed}")


if __name__ == "__main__":
    main(sys.argv[1:])
