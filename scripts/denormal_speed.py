"""CPU cost of denormal floats, flushed or not, side by side in one run (docs/BENCHMARKS.md,
"Denormal floats"): a 3x3 convolution with half its weights denormal, and each shipped net's
batch of 64 positions, one torch thread, process CPU time.

    .venv/bin/python scripts/denormal_speed.py
"""

from __future__ import annotations

import time

import torch

from zeroplay.engine.factory import load_model
from zeroplay.games import make

TINY = torch.finfo(torch.float32).tiny


def cpu_seconds(fn, repeat: int) -> float:
    fn()
    t = time.process_time()
    for _ in range(repeat):
        fn()
    return time.process_time() - t


def main() -> None:
    torch.set_num_threads(1)
    x = torch.randn(256, 32, 9, 9)
    w = torch.randn(32, 32, 3, 3) * 0.1
    wd = w.clone()
    wd[:, :16] = 1e-40
    nets = []
    torch.set_flush_denormal(False)  # (with it on, a comparison reads a denormal as 0: count first)
    for name, game in (("go-9x9", make("go", size=9)), ("gomoku-8x8-5-freestyle", make("gomoku", size=8, n_in_row=5)),
                       ("gomoku-15x15-freestyle", make("gomoku", size=15))):
        model = load_model(f"src/zeroplay/models/{name}.safetensors", game).model.eval()
        denormal = sum(int(((p != 0) & (p.abs() < TINY)).sum()) for p in model.state_dict().values()
                       if p.is_floating_point())
        nets.append((name, game, model, denormal))
    for rnd in range(2):  # two rounds, alternating, on a shared machine
        for flush in (False, True):
            torch.set_flush_denormal(flush)
            conv = cpu_seconds(lambda: torch.nn.functional.conv2d(x, wd, padding=1), 20)
            plain = cpu_seconds(lambda: torch.nn.functional.conv2d(x, w, padding=1), 20)
            print(f"round {rnd} flush {flush}: conv 20 batches of 256, half the weights denormal {conv:.3f} s, "
                  f"none denormal {plain:.3f} s")
            for name, game, model, denormal in nets:
                planes = torch.randn(64, model.spec.in_channels, game.height, game.width).clamp(0, 1).round()
                with torch.no_grad():
                    s = cpu_seconds(lambda m=model, x=planes: m(x), 10)
                print(f"  {name}: {denormal} denormal weights, {1000 * s / 10:.1f} ms per batch of 64")
    torch.set_flush_denormal(False)


if __name__ == "__main__":
    main()
