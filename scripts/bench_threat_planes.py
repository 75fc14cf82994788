#!/usr/bin/env python3
"""Cost of the Gomoku threat planes (``basic+threats``) next to the basic planes and a net's forward pass.

For 9x9 (net b4c32, 16-stone positions) and 15x15 (net b6c64, 30-stone positions): 64 random
positions, ``games.planes.planes_batch`` for ``basic`` and ``basic+threats`` alternated three
rounds, then the net's forward pass on the same batch (one torch thread). CPU time (process
time, so other processes' load does not count), microseconds per position.

    PYTHONPATH=src .venv/bin/python scripts/bench_threat_planes.py

Prints one JSON object.
"""

from __future__ import annotations

import json
import time

import numpy as np


def random_position(game, plies: int, seed: int):
    rng = np.random.default_rng(seed)
    state = game.initial()
    while state.ply < plies:
        after = state.play(int(rng.choice(state.legal_moves())))
        state = game.initial() if after.is_terminal else after
    return state


def main() -> None:
    import torch

    from zeroplay.games import make
    from zeroplay.games.planes import planes_batch
    from zeroplay.nn.models import build_model

    torch.set_num_threads(1)
    out = {}
    for size, net, plies in ((9, "b4c32", 16), (15, "b6c64", 30)):
        game = make("gomoku", width=size, height=size)
        states = [random_position(game, plies, seed) for seed in range(64)]
        boards = np.stack([s._pos.board for s in states])
        infos = np.stack([s._pos.info for s in states])
        rounds: dict[str, list[float]] = {"basic": [], "basic+threats": []}
        for features in rounds:
            planes_batch(game, boards, infos, features)  # compile
        for _ in range(3):
            for features, times in rounds.items():
                t0 = time.process_time()
                for _ in range(20):
                    planes_batch(game, boards, infos, features)
                times.append((time.process_time() - t0) / 20 / len(states) * 1e6)
        model = build_model(net, game, "basic+threats", seed=0).eval()
        x = torch.from_numpy(planes_batch(game, boards, infos, "basic+threats"))
        with torch.no_grad():
            model(x)
            t0 = time.process_time()
            for _ in range(5):
                model(x)
            forward = (time.process_time() - t0) / 5 / len(states) * 1e6
        out[f"{size}x{size}"] = {"net": net, "stones": plies,
                                 "planes_us": {k: [round(v, 1) for v in vs] for k, vs in rounds.items()},
                                 "forward_us": round(forward, 1)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
