"""The torch-free play-time net (``nn.numpy_net``) against torch's ``NetEvaluator``: positions per
second at the search's batch sizes, and what each costs a process in resident memory.

Speed: the shipped 15x15 model (b6c64), ``evaluate`` on batches of random-game positions, torch
at the play-time thread limit (``limit_inference_threads``) and numpy with its BLAS at the same
number of threads, the two timed in alternation (``--repeats`` rounds, best loop of each kept), so
that a change of machine load hits both. Memory: two fresh child processes each load the model and
evaluate one batch, one with numpy (no torch import), one with torch, and report their peak RSS
(``VmHWM``, MiB) after importing numpy, the inference library (torch, or safetensors' numpy API),
zeroplay's game and engine modules, and after loading the model and evaluating a batch of 16.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

_CHILD = r"""
import json, sys, time
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
out = {"python": hwm()}
import numpy as np
out["numpy"] = hwm()
t0 = time.perf_counter()
if sys.argv[1] == "torch":
    import torch
else:
    import safetensors.numpy
out["library"] = hwm()
from zeroplay.games import make
from zeroplay.engine.factory import find_model, load_model
game = make("gomoku", size=15, n_in_row=5, rule="freestyle")
path = find_model(game)
planes = np.zeros((16, 3, 15, 15), dtype=np.float32)
out["zeroplay"] = hwm()
net = load_model(path, game, inference=sys.argv[1])
if sys.argv[1] == "torch":
    with torch.inference_mode():
        net.model(torch.from_numpy(planes))
else:
    net.forward(planes)
out["model"] = hwm()
out["seconds"] = time.perf_counter() - t0
out["torch_imported"] = "torch" in sys.modules
print(json.dumps(out))
"""


def add_arguments(parser) -> None:
    parser.add_argument("--batches", default="1,8,16,32",
                        help="batch sizes, comma-separated (default 1,8,16,32: the search sends 16)")
    parser.add_argument("--calls", type=int, default=30, help="calls per timed loop, >= 1 (default 30)")
    parser.add_argument("--repeats", type=int, default=3, help="alternating rounds, best loop kept (default 3)")
    parser.add_argument("--no-rss", action="store_true", help="skip the two child processes' memory figures")


def run(args) -> dict:
    try:
        batches = [int(b) for b in str(args.batches).split(",")]
    except ValueError:
        raise ValueError(f"--batches must be comma-separated integers, got {args.batches!r}") from None
    if not batches or min(batches) < 1 or args.calls < 1 or args.repeats < 1:
        raise ValueError("--batches, --calls and --repeats must be >= 1")
    figures = measure_speed(batches, calls=args.calls, repeats=args.repeats)
    if not args.no_rss:
        figures["rss_mib"] = {kind: measure_rss(kind) for kind in ("numpy", "torch")}
    return figures


def measure_speed(batches: list[int], *, calls: int, repeats: int) -> dict:
    """Positions per second of both evaluators at each batch size, measured alternately."""
    from zeroplay.bench.inference import _batch
    from zeroplay.engine.factory import find_model, load_model
    from zeroplay.games import make
    from zeroplay.nn import NetEvaluator
    from zeroplay.nn.evaluator import limit_inference_threads
    from zeroplay.nn.numpy_net import NumpyNetEvaluator, load_numpy_net

    game = make("gomoku", size=15, n_in_row=5, rule="freestyle")
    path = find_model(game)
    if path is None:
        raise ValueError("the 15x15 model is not shipped in this installation")
    threads = limit_inference_threads()
    evaluators = {"torch": NetEvaluator(load_model(path, game).model, "basic", threads=threads),
                  "numpy": NumpyNetEvaluator(load_numpy_net(path, game=game), "basic", threads=threads)}
    rates: dict[str, dict[int, float]] = {name: {} for name in evaluators}
    for batch in batches:
        leaves = _batch(game, batch)
        best = {name: float("inf") for name in evaluators}
        for evaluator in evaluators.values():
            evaluator.evaluate(leaves)  # warm
        for _ in range(repeats):
            for name, evaluator in evaluators.items():
                t0 = time.perf_counter()
                for _ in range(calls):
                    evaluator.evaluate(leaves)
                best[name] = min(best[name], time.perf_counter() - t0)
        for name in evaluators:
            rates[name][batch] = round(batch * calls / best[name], 1)
    return {
        "positions_per_s": {name: {str(b): r for b, r in by.items()} for name, by in rates.items()},
        "ratio_numpy_vs_torch": {str(b): round(rates["numpy"][b] / rates["torch"][b], 3) for b in batches},
        "details": {"model": path.name, "calls": calls, "repeats": repeats, "threads": threads},
    }


def measure_rss(kind: str) -> dict:
    """Peak RSS (MiB) of a fresh process at each stage of loading the model with ``kind``."""
    out = subprocess.run([sys.executable, "-c", _CHILD, kind], capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise RuntimeError(f"the {kind} child failed: {out.stderr.strip()[-500:]}")
    raw = json.loads(out.stdout.strip().splitlines()[-1])
    figures = {k: round(v / 2**20, 1) for k, v in raw.items() if k in ("python", "numpy", "library", "zeroplay", "model")}
    return figures | {"load_seconds": round(raw["seconds"], 2), "torch_imported": raw["torch_imported"]}
