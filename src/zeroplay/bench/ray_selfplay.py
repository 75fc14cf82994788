"""Self-play games/hour on Ray actors next to local worker processes, same worker counts, one run.

For each worker count (``--workers 1,2``) the two backends of ``zeroplay train`` play the same
games: ``WorkerPool`` (local processes) and ``RaySelfPlay`` (actors on a local Ray instance bound
to 127.0.0.1; one instance for all Ray measurements, started first). Each backend is started,
sent the weights, warmed up with one game per worker (kernels loaded from numba's cache, the net
built), then timed on ``--games`` games per worker through the same ``set_weights`` / ``play``
calls the training loop makes. Measurements alternate local, Ray, local, Ray so that drifting load
on a shared machine hits both alike; ``--rounds`` repeats the whole sequence (medians reported).

Figures (per backend and worker count):
    games_per_hour     finished games per hour of the timed part
    moves_per_s        self-play moves per second of the timed part
    startup_s          start of the processes / actors until the warm-up games are back
    ray_overhead       per worker count: 1 - (Ray games/hour) / (local games/hour)

``traffic`` (what the Ray backend sends over the network; docs/DISTRIBUTED.md): the weights'
bytes (safetensors, put once per iteration, one copy per node) for ``tiny`` and ``b6c64`` on 8x8
and 15x15, and the mean bytes of one finished game (pickled ``FinishedGame``, as Ray ships it)
measured here and for a 15x15 game.
"""

from __future__ import annotations

import os
import statistics
import time
from typing import Any

from zeroplay.engine.options import at_least_1


def add_arguments(parser) -> None:
    parser.add_argument("--workers", default="1,2", help="worker counts, comma-separated (default 1,2)")
    parser.add_argument("--size", type=int, default=8, help="board size (default 8)")
    parser.add_argument("--n-in-row", type=int, default=5, help="line length that wins (default 5)")
    parser.add_argument("--net", default="tiny", help="network preset (default tiny; random weights)")
    parser.add_argument("--playouts", type=at_least_1, default=100, help="playouts per move, >= 1 (default 100)")
    parser.add_argument("--parallel-games", type=at_least_1, default=8,
                        help="games per worker at once, >= 1 (default 8)")
    parser.add_argument("--games", type=at_least_1, default=16, help="timed games per worker, >= 1 (default 16)")
    parser.add_argument("--rounds", type=at_least_1, default=1, help="repeats of the whole sequence, >= 1 (default 1)")
    parser.add_argument("--precision", choices=["auto", "fp32", "bf16"], default="auto",
                        help="self-play inference precision (default auto, as zeroplay train)")
    parser.add_argument("--no-traffic", action="store_true", help="skip the bytes measurements")


def run(args) -> dict:
    from zeroplay.train.workers import check_local_workers

    try:
        counts = [int(x) for x in str(args.workers).split(",") if x.strip()]
    except ValueError:
        raise ValueError(f"--workers takes whole numbers separated by commas, got {args.workers[:40]!r}") from None
    if not counts or min(counts) < 1:
        raise ValueError(f"--workers takes counts >= 1, got {args.workers[:40]!r}")
    check_local_workers("--workers", max(counts))
    return measure(counts, size=args.size, n_in_row=args.n_in_row, net=args.net, playouts=args.playouts,
                   parallel_games=args.parallel_games, games_per_worker=args.games, rounds=args.rounds,
                   precision=args.precision, traffic=not args.no_traffic)


def _one(backend: str, workers: int, game, arch: dict, weights: bytes, config, games: int) -> dict:
    from zeroplay.train.ray_backend import RaySelfPlay
    from zeroplay.train.workers import WorkerPool

    t0 = time.perf_counter()
    source: RaySelfPlay | WorkerPool
    if backend == "ray":
        source = RaySelfPlay(game, arch, "basic", config, workers)
    else:
        source = WorkerPool(game, arch, "basic", config, workers)
    try:
        source.set_weights(weights, 0, 11)
        source.play(workers, lambda g: None)  # warm-up: one game per worker
        startup = time.perf_counter() - t0
        finished: list = []
        t1 = time.perf_counter()
        source.play(games, finished.append)
        seconds = time.perf_counter() - t1
    finally:
        source.close()
    moves = sum(len(g.moves) for g in finished)
    out = {"backend": backend, "workers": workers, "games": len(finished), "moves": moves,
           "seconds": round(seconds, 2), "games_per_hour": round(len(finished) / seconds * 3600.0, 1),
           "moves_per_s": round(moves / seconds, 2), "startup_s": round(startup, 1)}
    if backend == "ray":
        assert isinstance(source, RaySelfPlay)
        out["game_bytes_mean"] = round(source.stats["game_bytes"] / max(1, source.stats["games"]))
    return out


def _traffic(measured: list[dict]) -> dict:
    import pickle

    from zeroplay.games import make
    from zeroplay.nn import build_model
    from zeroplay.search import UniformEvaluator
    from zeroplay.train.selfplay import SelfPlayConfig, SelfPlayer
    from zeroplay.train.workers import weights_bytes

    out: dict[str, Any] = {"weights_bytes": {}}
    for size in (8, 15):
        g = make("gomoku", size=size)
        for net in ("tiny", "b6c64"):
            out["weights_bytes"][f"{net} {size}x{size}"] = len(weights_bytes(build_model(net, g, "basic", seed=0)))
    ray_runs = [m for m in measured if "game_bytes_mean" in m]
    if ray_runs:
        out["game_bytes_mean_bench_board"] = round(statistics.mean(m["game_bytes_mean"] for m in ray_runs))
    # a 15x15 self-play game (uniform priors, few playouts: its length and bytes, not its quality)
    g15 = make("gomoku", size=15)
    games = SelfPlayer(g15, UniformEvaluator(), SelfPlayConfig(playouts=32, parallel_games=4, seed=3,
                                                               resign_threshold=None)).play(4)
    out["game_bytes_mean_15x15"] = round(statistics.mean(len(pickle.dumps(x, protocol=5)) for x in games))
    out["game_moves_mean_15x15"] = round(statistics.mean(len(x.moves) for x in games), 1)
    return out


def measure(worker_counts=(1, 2), *, size: int = 8, n_in_row: int = 5, net: str = "tiny", playouts: int = 100,
            parallel_games: int = 8, games_per_worker: int = 16, rounds: int = 1, precision: str = "auto",
            traffic: bool = True) -> dict:
    """Run the benchmark; see the module docstring for the figures."""
    import ray

    from zeroplay.games import make
    from zeroplay.nn import build_model
    from zeroplay.nn.arch import arch_spec
    from zeroplay.train.ray_backend import connect
    from zeroplay.train.selfplay import SelfPlayConfig
    from zeroplay.train.workers import weights_bytes

    game = make("gomoku", size=size, n_in_row=n_in_row)
    arch = arch_spec(net, game, "basic").to_dict()
    weights = weights_bytes(build_model(net, game, "basic", seed=0))
    config = SelfPlayConfig(playouts=playouts, parallel_games=parallel_games, precision=precision, seed=1)
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    owned = connect(None, num_cpus=max(worker_counts))
    ray_start = time.perf_counter() - t0
    measured = []
    try:
        for _ in range(rounds):
            for workers in worker_counts:
                for backend in ("local", "ray"):
                    measured.append(_one(backend, workers, game, arch, weights, config, games_per_worker * workers))
    finally:
        if owned:
            ray.shutdown()
    load_after = os.getloadavg()
    results, overhead = [], {}
    for workers in worker_counts:
        row = {}
        for backend in ("local", "ray"):
            ms = [m for m in measured if m["backend"] == backend and m["workers"] == workers]
            row[backend] = {"workers": workers, "backend": backend,
                            "games_per_hour": round(statistics.median(m["games_per_hour"] for m in ms), 1),
                            "moves_per_s": round(statistics.median(m["moves_per_s"] for m in ms), 2),
                            "startup_s": round(statistics.median(m["startup_s"] for m in ms), 1),
                            "games": sum(m["games"] for m in ms)}
            results.append(row[backend])
        overhead[str(workers)] = round(1.0 - row["ray"]["games_per_hour"] / row["local"]["games_per_hour"], 3)
    out = {"results": results, "ray_overhead": overhead, "ray_instance_start_s": round(ray_start, 1),
           "runs": measured,
           "settings": {"board": f"{size}x{size} {n_in_row}-in-row freestyle", "net": f"{net} (random weights)",
                        "playouts": playouts, "parallel_games_per_worker": parallel_games,
                        "timed_games_per_worker": games_per_worker, "rounds": rounds, "precision": precision},
           "machine": {"cpus": os.cpu_count(), "loadavg_before": [round(x, 2) for x in load_before],
                       "loadavg_after": [round(x, 2) for x in load_after], "ray": ray.__version__}}
    if traffic:
        out["traffic"] = _traffic(measured)
    return out
