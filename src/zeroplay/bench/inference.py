"""Play-time network evaluation: positions per second of the shipped 15x15 model, by where its
torch thread limit was set.

``zeroplay play``, ``serve`` and ``pbrain-zeroplay`` limit torch to half the cores
(``limit_inference_threads``). torch keeps that setting per thread, and pbrain builds its engine
in a warm-up thread while it searches in the main one, so the limit used to be lost there. Three
ways, side by side in one run, each best of ``--repeats`` timed loops of ``NetEvaluator.evaluate``
on batches of ``--batch`` positions from random games: ``unlimited`` (no limit, torch's
default), ``limit_lost`` (the limit set in another thread, the evaluator built without it: the old
pbrain), ``limit_held`` (``NetEvaluator(threads=n)`` built in another thread: it re-applies the
limit in the evaluating thread, the fix). ``check_ns`` is what the re-apply check costs a call.
"""

from __future__ import annotations

import time


def add_arguments(parser) -> None:
    parser.add_argument("--batch", type=int, default=16, help="positions per call, >= 1 (default 16, the search's)")
    parser.add_argument("--calls", type=int, default=50, help="calls per timed loop, >= 1 (default 50)")
    parser.add_argument("--repeats", type=int, default=3, help="timed loops per way, the best kept (default 3)")


def run(args) -> dict:
    for flag, value in (("--batch", args.batch), ("--calls", args.calls), ("--repeats", args.repeats)):
        if value < 1:
            raise ValueError(f"{flag} must be >= 1, got {value}")
    return measure(batch=args.batch, calls=args.calls, repeats=args.repeats)


def _batch(game, n: int, seed: int = 0):
    """``n`` positions of random games (0..29 plies), as the search would send them."""
    import numpy as np

    from zeroplay.search.evaluator import LeafBatch

    rng = np.random.default_rng(seed)
    states = []
    for _ in range(n):
        s = game.initial()
        for _ in range(int(rng.integers(0, 30))):
            s = s.play(int(rng.choice(s.legal_moves())))
            if s.is_terminal:
                break
        states.append(s)
    fast = [s.fast() for s in states]
    legal = np.zeros((n, game.num_actions), dtype=np.bool_)
    for i, s in enumerate(states):
        legal[i, s.legal_moves()] = True
    return LeafBatch(game, np.stack([f.board for f in fast]), np.stack([f.info for f in fast]), legal)


def measure(batch: int = 16, calls: int = 50, repeats: int = 3) -> dict:
    import threading

    import torch

    from zeroplay.engine.factory import find_model, load_model
    from zeroplay.games import make
    from zeroplay.nn import NetEvaluator
    from zeroplay.nn.evaluator import limit_inference_threads

    game = make("gomoku", size=15, n_in_row=5, rule="freestyle")
    path = find_model(game)
    if path is None:
        raise ValueError("the 15x15 model is not shipped in this installation")
    model = load_model(path, game).model
    leaves = _batch(game, batch)
    default = torch.get_num_threads()

    def built_in_thread(limit: bool, held: bool) -> NetEvaluator:
        out = {}

        def build():
            n = limit_inference_threads() if limit else None
            out["e"] = NetEvaluator(model, "basic", threads=n if held else None)

        t = threading.Thread(target=build)
        t.start()
        t.join()
        return out["e"]

    def rate(evaluator) -> float:
        torch.set_num_threads(default)  # the searching thread as the process starts it
        evaluator.evaluate(leaves)  # warm
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(calls):
                evaluator.evaluate(leaves)
            best = min(best, time.perf_counter() - t0)
        return batch * calls / best

    try:
        ways = {"unlimited": built_in_thread(False, False), "limit_lost": built_in_thread(True, False),
                "limit_held": built_in_thread(True, True)}
        rates = {name: round(rate(e), 1) for name, e in ways.items()}
        held_threads = torch.get_num_threads()
        t0 = time.perf_counter_ns()
        for _ in range(100_000):
            torch.get_num_threads()
        check_ns = (time.perf_counter_ns() - t0) / 100_000
    finally:
        torch.set_num_threads(default)
    return {
        "positions_per_s": rates,
        "ratio_held_vs_lost": round(rates["limit_held"] / rates["limit_lost"], 3),
        "check_ns": round(check_ns, 1),
        "per_call_ms_held": round(1000 * batch / rates["limit_held"], 3),
        "details": {"model": path.name, "batch": batch, "calls": calls, "repeats": repeats,
                    "torch_default_threads": default, "limit_threads": held_threads},
    }
