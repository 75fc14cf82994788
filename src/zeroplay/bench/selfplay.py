"""Self-play throughput: 8x8 five-in-row, tiny net, 400 playouts per move, all cores;
``--game go``: 9x9 Go (komi 7) with the shipped Go net's shape (b4c48-gpool-own, Go's planes).
``--net`` takes another shape (random weights), e.g. ``b4c32`` (the 8x8 model's) or, with ``--size
15``, ``b6c64`` (the 15x15 model's): the search's share of the time depends on how fast the net is.

Each worker process (one torch thread) plays ``--parallel-games`` games at once through the
lockstep batched search for ``--seconds`` after a warm-up, then measures its net alone on random
planes at the mean batch size its search sent, so both rates come from the same run.

Figures:
    moves_per_s           self-play moves per second, all workers together
    games_per_hour        finished games per hour, all workers together (None: no game ended in
                          the measured seconds, so there is no rate to give). The nets have random
                          weights: 9x9 Go games end in two passes after 8-28 moves, so this and
                          ``mean_game_moves`` describe the benchmark, not real games; the rates
                          per playout and per position are the figures to compare.
    net_positions_per_s   the net's own batched positions/s (all workers, same batch size)
    search_overhead       1 - (network-evaluated playouts per CPU-s) / (the net's positions per
                          CPU-s): the share of self-play time not spent in the network (search,
                          planes, Python). The net's rate is ``details.
                          search_overhead_cpu_interleaved``'s where there is one, else 3 s of
                          the net alone after the run (``search_overhead_cpu``).
    details.search_overhead_cpu_interleaved
                          against the net's rate on every 4th real batch evaluated again alone
                          during the run (``PROBE_EVERY``; the probes' time is left out of the
                          self-play's): both rates from the same seconds, so a shared machine's
                          drifting speed cancels. ``search_overhead_cpu`` compares with 3 s of the
                          net alone after the run, ``search_overhead_wall`` the same per
                          wall-second (the headline until 2026-12-05: it could be negative on a
                          shared machine, -0.12 next to an interleaved 0.14). With ``--design
                          shared`` there are no probes: the net's rate is the inference
                          process's 3 s alone, and the CPU seconds are the workers' and that
                          process's together.
    details.seconds       the self-play's measured wall seconds, the probes' time left out (so a
                          little less than ``--seconds``)
    details.warnings      what makes a figure coarse (few moves: every game moves in step; no
                          finished game); also printed on stderr. A run too short for the rates
                          (fewer than ``MIN_CALLS`` net calls in a worker) is an error instead.

``--design shared`` measures the other way to use the cores: workers that search and one
inference process that runs the net for all of them (requests over pipes, batched across
workers). ``--design per-worker`` (each worker its own net) is what ``zeroplay train`` uses.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import time
from dataclasses import replace

SIZE, N_IN_ROW = 8, 5
WARM_NET_SECONDS = 2.0
"""Seconds of self-play with the real net before the timed run (per-worker design)."""
PROBE_EVERY = 4
"""Every 4th batch of the self-play is evaluated a second time, alone, for the interleaved rate."""
MIN_CALLS = 2 * PROBE_EVERY
"""Fewest net calls a worker's measured seconds must hold for the rates to mean anything."""
FEW_MOVES = 5
"""Moves per game below which ``moves_per_s`` is flagged as coarse (every game moves in step)."""
SETTINGS = {
    "gomoku": ("8x8 five-in-row freestyle, tiny net (random weights), basic planes", "tiny", "basic"),
    "go": ("9x9 Go, komi 7, b4c48-gpool-own net (random weights; the shipped go-9x9's shape), go planes",
           "b4c48-gpool-own", "go"),
}
"""Per ``--game``: (what the JSON's ``board`` says, the net, its feature set)."""


def _game(name: str, size: int = SIZE):
    from zeroplay.games import make

    return make("go", size=9, komi=7) if name == "go" else make("gomoku", size=size, n_in_row=N_IN_ROW)


def _opts_game(opts: dict):
    """The game of a run's options (``size`` absent or None: the default 8x8)."""
    return _game(opts["game"], opts.get("size") or SIZE)


def _setting(opts: dict) -> tuple[str, str, str]:
    """(what the JSON's ``board`` says, the net, its feature set) of a run's options."""
    board, arch, features = SETTINGS[opts["game"]]
    size = opts.get("size") or SIZE
    net = opts.get("net") or arch
    if net != arch or size != SIZE:
        board = (f"9x9 Go, komi 7, {net} net (random weights), go planes" if opts["game"] == "go" else
                 f"{size}x{size} five-in-row freestyle, {net} net (random weights), basic planes")
    return board, net, features


def add_arguments(parser) -> None:
    parser.add_argument("--game", choices=sorted(SETTINGS), default="gomoku",
                        help="gomoku: 8x8 five in a row, tiny net (default); go: 9x9, the Go net's shape")
    parser.add_argument("--workers", type=int, default=None, help="processes, 1 to 4 a core (default: all cores)")
    parser.add_argument("--playouts", type=int, default=400, help="playouts per move (default 400)")
    parser.add_argument("--parallel-games", type=int, default=8, help="games per worker at once (default 8)")
    parser.add_argument("--search-batch", type=int, default=16, help="leaves per game per round (default 16)")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured seconds (default 60)")
    parser.add_argument("--design", choices=["per-worker", "shared"], default="per-worker",
                        help="a net per worker (default) or one shared inference process")
    parser.add_argument("--precision", choices=["auto", "fp32", "bf16"], default="auto",
                        help="inference precision of the net (default auto: bf16 where the CPU has it)")
    parser.add_argument("--net", default=None,
                        help="the net's shape, random weights: tiny, b6c64, b10c128, any bNcM[-gpool][-opp][-own] "
                             "(default: tiny for gomoku, b4c48-gpool-own for go)")
    parser.add_argument("--size", type=int, default=None,
                        help=f"gomoku's board size, 5..19 (default {SIZE}; five in a row); go: 9 only")


def run(args) -> dict:
    from zeroplay.train.workers import default_workers

    # checked here: a bad value inside a worker process left the parent waiting for ever
    for flag, value in (("--workers", args.workers), ("--playouts", args.playouts),
                        ("--parallel-games", args.parallel_games), ("--search-batch", args.search_batch)):
        if value is not None and value < 1:
            raise ValueError(f"{flag} must be >= 1, got {value}")
    from zeroplay.train.workers import check_local_workers

    check_local_workers("--workers", args.workers)
    from zeroplay.search.limits import MAX_PLAYOUTS

    if args.playouts > MAX_PLAYOUTS:
        raise ValueError(f"--playouts must be <= {MAX_PLAYOUTS:,}, got {args.playouts:,}")
    from zeroplay.train.selfplay import MAX_BATCH_SIZE, MAX_PARALLEL_GAMES

    for flag, value, most in (("--parallel-games", args.parallel_games, MAX_PARALLEL_GAMES),
                              ("--search-batch", args.search_batch, MAX_BATCH_SIZE)):
        if value > most:  # (memory: a tree and a batch of leaves per game)
            raise ValueError(f"{flag} must be <= {most}, got {value:,}")
    if not args.seconds > 0 or args.seconds == float("inf"):
        raise ValueError(f"--seconds must be a finite number > 0, got {args.seconds}")
    size = getattr(args, "size", None)
    if args.game == "go":
        if size not in (None, 9):
            raise ValueError(f"--size {size}: the benchmark's Go is 9x9 (give 9 or leave --size out)")
        size = SIZE  # (unused by go: _game makes 9x9)
    elif size is None:
        size = SIZE
    elif not 5 <= size <= 19:
        raise ValueError(f"--size must be 5..19, got {size}")
    net = getattr(args, "net", None)
    if net is not None:  # checked here, not in a worker (see above)
        from zeroplay.nn.arch import arch_spec

        _, _, features = SETTINGS[args.game]
        arch_spec(net, _game(args.game, size), features)
    result = measure(workers=args.workers or default_workers(), playouts=args.playouts,
                     parallel_games=args.parallel_games, search_batch=args.search_batch,
                     seconds=args.seconds, design=args.design, precision=args.precision, game=args.game,
                     net=net, size=size)
    for warning in result["details"]["warnings"]:
        print(f"note: {warning}", file=sys.stderr)
    return result


class BenchProcessDied(RuntimeError):
    """A worker or inference process of the benchmark ended without its result."""


# --- worker side ---------------------------------------------------------------------------------
class _TimedEvaluator:
    """Wraps an evaluator; counts positions and the seconds spent inside ``evaluate``.

    With ``probe_every`` = k > 0, every k-th batch is evaluated once more, alone and timed (its CPU
    and wall seconds kept apart, ``probe_*``): the net's own rate on the self-play's real batches,
    measured over the same seconds as the self-play, so that a machine whose speed drifts (a shared
    one) moves both rates alike."""

    def __init__(self, inner, probe_every: int = 0):
        self.inner, self.features = inner, inner.features
        self.positions, self.calls, self.seconds = 0, 0, 0.0
        self.probe_every = probe_every
        self.probe_positions, self.probe_cpu, self.probe_wall = 0, 0.0, 0.0

    def evaluate(self, batch):
        t = time.perf_counter()
        out = self.inner.evaluate(batch)
        self.seconds += time.perf_counter() - t
        self.positions += len(batch)
        self.calls += 1
        if self.probe_every and self.calls % self.probe_every == 0:
            planes = batch.planes(self.features)  # (kept by the batch: not encoded again)
            t, c = time.perf_counter(), time.process_time()
            self.inner.evaluate_planes(planes, batch.legal)
            self.probe_cpu += time.process_time() - c
            self.probe_wall += time.perf_counter() - t
            self.probe_positions += len(batch)
        return out


class _RemoteNet:
    """Evaluator of a worker in the shared design: sends planes to the inference process."""

    def __init__(self, conn, features: str):
        self.conn, self.features = conn, features

    def evaluate(self, batch):
        self.conn.send((batch.planes(self.features), batch.legal))
        return self.conn.recv()


def _net(precision: str, seed: int, opts: dict):
    import torch

    from zeroplay.nn import NetEvaluator, build_model
    from zeroplay.train.workers import inference_model

    _, arch, features = _setting(opts)
    game = _opts_game(opts)
    model = build_model(arch, game, features, seed=seed)
    torch.set_num_threads(1)
    return game, NetEvaluator(inference_model(model, precision), features)


def _net_rate(evaluator, batch: int, opts: dict, seconds: float = 3.0) -> tuple[float, float]:
    """(positions per wall second, positions per CPU second) of the net alone on random 0/1
    planes (the setting's shape) at ``batch`` positions per call (one thread: CPU seconds = time
    on a core)."""
    import numpy as np

    game = _opts_game(opts)
    shape = game.initial().planes(_setting(opts)[2]).shape
    rng = np.random.default_rng(0)
    planes = (rng.random((batch, *shape)) < 0.3).astype(np.float32)
    legal = np.ones((batch, game.num_actions), bool)
    evaluator.evaluate_planes(planes, legal)
    n, t0, c0 = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - t0 < seconds:
        evaluator.evaluate_planes(planes, legal)
        n += batch
    return n / (time.perf_counter() - t0), n / max(time.process_time() - c0, 1e-9)


def _selfplay_worker(conn, remote, opts: dict) -> None:
    try:
        _selfplay_work(conn, remote, opts)
    except KeyboardInterrupt:  # Ctrl-C reaches the workers too: the parent says "interrupted" once
        pass


def _selfplay_work(conn, remote, opts: dict) -> None:
    import torch

    torch.set_num_threads(1)
    from zeroplay.search import UniformEvaluator
    from zeroplay.train.selfplay import SelfPlayConfig, SelfPlayer

    game = _opts_game(opts)
    if remote is None:
        _, net = _net(opts["precision"], opts["seed"], opts)
    else:
        net = _RemoteNet(remote, _setting(opts)[2])
    cfg = SelfPlayConfig(playouts=opts["playouts"], parallel_games=opts["parallel_games"],
                         batch_size=opts["search_batch"], seed=opts["seed"], resign_threshold=None)
    # compile before timing; wrapped, so that the warm-up takes the network's batched path (gather,
    # evaluator, finish), not the uniform rule's compiled one (search/inline.py)
    SelfPlayer(game, _TimedEvaluator(UniformEvaluator()), replace(cfg, playouts=8)).play(1)
    # and warm the net itself at the batch sizes the run sends (its first calls at a new size are
    # slow): a cold net inside the timed seconds made a 5 s run's figures contradict each other
    if remote is None:  # (the shared design's server would count the warm-up's positions)
        warm_until = time.perf_counter() + WARM_NET_SECONDS
        SelfPlayer(game, net, cfg).play(1 << 30, stop=lambda: time.perf_counter() >= warm_until)
    timed = _TimedEvaluator(net, probe_every=PROBE_EVERY if remote is None else 0)
    player = SelfPlayer(game, timed, cfg)
    games: list = []
    conn.send(("ready",))
    start = conn.recv()  # common start time of all workers
    deadline = start + opts["seconds"]
    while time.time() < start:
        time.sleep(0.01)
    t0, c0 = time.perf_counter(), time.process_time()
    player.play(1 << 30, on_game=games.append, stop=lambda: time.time() >= deadline)
    # the probes' extra net calls are not self-play time
    wall = time.perf_counter() - t0 - timed.probe_wall
    cpu = time.process_time() - c0 - timed.probe_cpu
    out: dict = {"moves": player.moves, "games": len(games), "playouts": player.playouts, "seconds": wall,
           "cpu_seconds": cpu, "positions": timed.positions, "calls": timed.calls, "net_seconds": timed.seconds,
           "mean_batch": timed.positions / max(timed.calls, 1),
           "game_moves": sum(len(g.moves) for g in games)}
    if remote is None:
        out["net_positions_per_s"], out["net_positions_per_cpu_s"] = _net_rate(
            net, max(1, round(out["mean_batch"])), opts)
        out["probe_positions_per_cpu_s"] = timed.probe_positions / timed.probe_cpu if timed.probe_cpu > 0 else None
    else:
        remote.send(None)
    conn.send(("result", out))


def _server(conns, opts: dict, result_conn) -> None:
    """The shared design's inference process: one net call per round over all waiting workers."""
    try:
        _serve(conns, opts, result_conn)
    except KeyboardInterrupt:  # (see _selfplay_worker)
        pass


def _serve(conns, opts: dict, result_conn) -> None:
    from multiprocessing.connection import wait

    import numpy as np

    _, net = _net(opts["precision"], opts["seed"], opts)
    c0 = time.process_time()
    live = list(conns)
    positions = calls = 0
    busy = 0.0
    while live:
        ready: list = wait(live)  # (live's connections: wait's stub adds socket | int)
        reqs = []
        for c in ready:
            msg = c.recv()
            if msg is None:
                live.remove(c)
            else:
                reqs.append((c, msg))
        if not reqs:
            continue
        planes = np.concatenate([m[0] for _, m in reqs])
        legal = np.concatenate([m[1] for _, m in reqs])
        t = time.perf_counter()
        p, v = net.evaluate_planes(planes, legal)
        busy += time.perf_counter() - t
        positions += len(planes)
        calls += 1
        at = 0
        for c, m in reqs:
            k = len(m[0])
            c.send((p[at:at + k], v[at:at + k]))
            at += k
    mean = positions / max(calls, 1)
    cpu = time.process_time() - c0
    rate, rate_cpu = _net_rate(net, max(1, round(mean)), opts)
    result_conn.send({"positions": positions, "calls": calls, "net_seconds": busy, "mean_batch": mean,
                      "net_positions_per_s": rate, "net_positions_per_cpu_s": rate_cpu,
                      "cpu_seconds": cpu})


# --- driver ----------------------------------------------------------------------------------------
def measure(workers: int = 2, playouts: int = 400, parallel_games: int = 8, search_batch: int = 16,
            seconds: float = 60.0, design: str = "per-worker", precision: str = "auto", seed: int = 1,
            game: str = "gomoku", net: str | None = None, size: int = SIZE) -> dict:
    """Run the benchmark; see the module docstring for the figures. ``net``: the net's shape
    (None: the game's default, ``SETTINGS``); ``size``: gomoku's board size."""
    from zeroplay.train.workers import native_bf16

    if precision == "auto":
        precision = "bf16" if native_bf16() else "fp32"
    ctx = mp.get_context("spawn")
    opts = {"playouts": playouts, "parallel_games": parallel_games, "search_batch": search_batch,
            "seconds": seconds, "precision": precision, "seed": seed, "game": game,
            "net": net, "size": size}
    procs, conns, server, server_result = [], [], None, None
    remotes = []
    if design == "shared":
        pairs = [ctx.Pipe() for _ in range(workers)]
        remotes = [a for a, _ in pairs]
        server_result, child = ctx.Pipe()
        server = ctx.Process(target=_server, args=([b for _, b in pairs], opts, child), daemon=True)
        server.start()
        child.close()  # only the server holds it now: its death reads as EOF here, not a hang
    for i in range(workers):
        parent, child = ctx.Pipe()
        p = ctx.Process(target=_selfplay_worker, daemon=True,
                        args=(child, remotes[i] if remotes else None, {**opts, "seed": seed + i}))
        p.start()
        child.close()  # only the worker holds it now: its death reads as EOF here, not a hang
        procs.append(p)
        conns.append(parent)
    try:
        for c in conns:
            assert c.recv()[0] == "ready"
        start = time.time() + 0.5
        for c in conns:
            c.send(start)
        results = [c.recv()[1] for c in conns]
        shared = server_result.recv() if server_result is not None else None
    except (EOFError, BrokenPipeError):
        raise BenchProcessDied("a benchmark process died (its error is above)") from None
    finally:
        for p in procs + ([server] if server else []):
            p.join(30)
            if p.is_alive():
                p.kill()
    fewest = min(r["calls"] for r in results)
    if fewest < MIN_CALLS:
        raise ValueError(f"--seconds {seconds:g} is too short: a worker made {fewest} net call(s) in it (at least "
                         f"{MIN_CALLS} are needed for the rates); give more seconds")
    wall = max(r["seconds"] for r in results)
    moves = sum(r["moves"] for r in results)
    games = sum(r["games"] for r in results)
    positions = sum(r["positions"] for r in results)
    cpu = sum(r["cpu_seconds"] for r in results)
    if shared is None:
        net_rate = sum(r["net_positions_per_s"] for r in results)
        net_rate_cpu = sum(r["net_positions_per_cpu_s"] for r in results) / len(results)
        mean_batch = sum(r["mean_batch"] for r in results) / len(results)
    else:
        cpu += shared["cpu_seconds"]  # the inference process's CPU time counts too
        net_rate = shared["net_positions_per_s"]
        net_rate_cpu = shared["net_positions_per_cpu_s"]
        mean_batch = shared["mean_batch"]
    probes = [r.get("probe_positions_per_cpu_s") for r in results]
    probe = sum(probes) / len(probes) if probes and all(probes) else None
    evaluated_per_s = positions / wall
    overhead_cpu = round(1.0 - (positions / cpu) / net_rate_cpu, 4)
    overhead_interleaved = round(1.0 - (positions / cpu) / probe, 4) if probe else None
    out = {
        "moves_per_s": round(moves / wall, 2),
        "games_per_hour": round(games / wall * 3600.0, 1) if games else None,
        "net_positions_per_s": round(net_rate, 1),
        "search_overhead": overhead_interleaved if overhead_interleaved is not None else overhead_cpu,
        "details": {
            "design": design, "precision": precision, "workers": workers, "playouts": playouts,
            "parallel_games_per_worker": parallel_games, "search_batch": search_batch,
            "seconds": round(wall, 1), "moves": moves, "games": games,
            "playouts_per_s": round(sum(r["playouts"] for r in results) / wall, 1),
            "net_evaluated_playouts_per_s": round(evaluated_per_s, 1),
            "net_share_of_playouts": round(positions / max(1, sum(r["playouts"] for r in results)), 3),
            "mean_net_batch": round(mean_batch, 1),
            "time_in_net_calls": round(sum(r["net_seconds"] for r in results) / sum(r["seconds"] for r in results), 3),
            "cpu_share_of_wall": round(cpu / sum(r["seconds"] for r in results), 3),
            # per CPU-second figures: what a core gives when it is not shared with other work
            "moves_per_cpu_s": round(moves / cpu, 3),
            "net_evaluated_playouts_per_cpu_s": round(positions / cpu, 1),
            "net_positions_per_cpu_s": round(net_rate_cpu, 1),
            "search_overhead_cpu": overhead_cpu,
            "search_overhead_wall": round(1.0 - evaluated_per_s / net_rate, 4),
            # the net alone on every PROBE_EVERY-th real batch, over the same seconds (per-worker only)
            "net_positions_per_cpu_s_interleaved": round(probe, 1) if probe else None,
            "search_overhead_cpu_interleaved": overhead_interleaved,
            "mean_game_moves": round(sum(r["game_moves"] for r in results) / games, 1) if games else None,
            "board": _setting(opts)[0],
            "warnings": [],
        },
    }
    if moves < FEW_MOVES * parallel_games * workers:
        out["details"]["warnings"].append(
            f"only {moves} moves in {wall:.1f} s: the games move in step ({parallel_games} a worker, "
            f"{playouts} playouts each), so moves_per_s is coarse; playouts_per_s is not; give more --seconds")
    if not games:
        out["details"]["warnings"].append("no game ended in the measured seconds: games_per_hour and "
                                          "mean_game_moves are None")
    return out
