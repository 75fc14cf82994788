#!/usr/bin/env python3
"""Load check of the web board: N concurrent games over HTTP on 127.0.0.1 for S seconds.

Starts ``zeroplay serve`` on 127.0.0.1 and a free port (loopback traffic only), then runs
``--games`` client threads. Each plays its own game: a random legal move near the stones
(POST /move), then the engine's reply (POST /engine), again and again, a new game after each
finished one. The move latency is the time of the engine request (the search at the chosen
strength plus HTTP), measured per move; the person's move request is timed separately. Every
non-2xx answer or transport failure counts as an error, except a 404 for a game the server
evicted to stay under ``--max-memory`` (counted as ``evicted_seen``; the client starts anew).

The server's resident memory (VmRSS from /proc) is sampled every 0.25 s: ``rss_mib`` gives it
after the warm-up move (``base``), its peak under load, and the bound the server states, base +
``--max-memory``; exceeding it is a failure.

    .venv/bin/python scripts/load_check.py [--games 20] [--seconds 60] [--playouts 200] [--size 15]
                                           [--max-memory MIB] [--new-game-every K]

Prints one JSON object; exits 1 when there was any error.
"""

from __future__ import annotations

import argparse
import http.client
import json
import platform
import random
import socket
import statistics
import subprocess
import sys
import threading
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Client:
    def __init__(self, port: int):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body)
        headers = {} if body is None else {"Content-Type": "application/json"}
        try:
            self.conn.request(method, path, body=data, headers=headers)
            r = self.conn.getresponse()
            payload = r.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()  # reconnects on the next request
            raise
        return r.status, json.loads(payload) if payload else {}


def player(port: int, args, stop: float, out: dict, lock: threading.Lock, seed: int) -> None:
    rng = random.Random(seed)
    client = Client(port)
    engine_ms, move_ms, errors, games, moves, evicted, replies = [], [], [], 0, 0, 0, 0
    gid = None
    while time.monotonic() < stop:
        try:
            if gid is None:
                status, g = client.call("POST", "/api/games", {"size": args.size, "playouts": args.playouts})
                if status != 201:
                    errors.append(f"new game: {status} {g}")
                    break
                gid, games = g["id"], games + 1
            board, w = g["board"], g["width"]
            stones = [c for c, v in enumerate(board) if v]
            near = [c for c in range(len(board)) if board[c] == 0 and any(
                abs(c % w - s % w) <= 1 and abs(c // w - s // w) <= 1 for s in stones)]
            empty = [c for c, v in enumerate(board) if v == 0]
            cell = rng.choice(near or empty)
            t0 = time.perf_counter()
            status, g = client.call("POST", f"/api/games/{gid}/move", {"move": cell})
            move_ms.append(1000 * (time.perf_counter() - t0))
            if status == 404:
                evicted, gid = evicted + 1, None
                continue
            if status != 200:
                errors.append(f"move: {status} {g}")
                gid = None
                continue
            moves += 1
            if g["over"]:
                gid = None
                continue
            t0 = time.perf_counter()
            status, r = client.call("POST", f"/api/games/{gid}/engine")
            engine_ms.append(1000 * (time.perf_counter() - t0))
            if status == 404:
                evicted, gid = evicted + 1, None
                continue
            if status != 200:
                errors.append(f"engine: {status} {r}")
                gid = None
                continue
            g = r["game"]
            replies += 1
            if g["over"] or (args.new_game_every and replies % args.new_game_every == 0):
                gid = None
        except Exception as e:  # counted, reported, and the next game starts
            errors.append(f"{type(e).__name__}: {e}")
            gid = None
    with lock:
        out["engine_ms"] += engine_ms
        out["move_ms"] += move_ms
        out["errors"] += errors
        out["games"] += games
        out["moves"] += moves
        out["evicted_seen"] += evicted


def rss_mib(pid: int) -> float:
    """Resident memory of process ``pid`` in MiB (VmRSS of /proc/PID/status)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def sample_rss(pid: int, stop: float, out: list[float]) -> None:
    while time.monotonic() < stop + 1:
        out.append(rss_mib(pid))
        time.sleep(0.25)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="concurrent games (default 20)")
    parser.add_argument("--seconds", type=float, default=60.0, help="duration, at most 60 (default 60)")
    parser.add_argument("--playouts", type=int, default=200, help="engine playouts per move (default 200)")
    parser.add_argument("--size", type=int, default=15, help="board size (default 15)")
    parser.add_argument("--max-memory", type=int, default=None, metavar="MIB",
                        help="the server's --max-memory (default: the server's, 1024)")
    parser.add_argument("--new-game-every", type=int, default=0, metavar="K",
                        help="a client starts a new game after K engine replies (default 0: at the game's end)")
    args = parser.parse_args()
    args.seconds = min(args.seconds, 60.0)

    from zeroplay.engine.factory import warm_up

    warm_up()  # compile once here; the server loads the compiled code from numba's cache
    port = free_port()
    from zeroplay.play.webgame import DEFAULT_MAX_MEMORY

    max_memory_mib = DEFAULT_MAX_MEMORY >> 20 if args.max_memory is None else args.max_memory
    server = subprocess.Popen([sys.executable, "-m", "zeroplay", "serve", "--host", "127.0.0.1", "--port", str(port),
                               "--max-memory", str(max_memory_mib)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    rss: list[float] = []
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if Client(port).call("GET", "/api/health")[0] == 200:
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    print("server did not start", server.stderr.read().decode()[-2000:], file=sys.stderr)
                    return 1
                time.sleep(0.2)
        # one warm-up move so the first measured moves do not pay for loading the compiled code
        c = Client(port)
        _, g = c.call("POST", "/api/games", {"size": args.size, "playouts": args.playouts})
        c.call("POST", f"/api/games/{g['id']}/move", {"move": "h8" if args.size >= 8 else "c3"})
        c.call("POST", f"/api/games/{g['id']}/engine")

        base_rss = rss_mib(server.pid)
        out = {"engine_ms": [], "move_ms": [], "errors": [], "games": 0, "moves": 0, "evicted_seen": 0}
        lock = threading.Lock()
        stop = time.monotonic() + args.seconds
        sampler = threading.Thread(target=sample_rss, args=(server.pid, stop, rss), daemon=True)
        sampler.start()
        threads = [threading.Thread(target=player, args=(port, args, stop, out, lock, i)) for i in range(args.games)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - t0
        sampler.join()
        health = Client(port).call("GET", "/api/health")[1]
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()

    e, m = out["engine_ms"], out["move_ms"]
    result = {
        "command": " ".join(["scripts/load_check.py"] + sys.argv[1:]),
        "concurrent_games": args.games,
        "seconds": round(elapsed, 1),
        "playouts_per_engine_move": args.playouts,
        "board": f"{args.size}x{args.size}",
        "games_started": out["games"],
        "engine_moves": len(e),
        "engine_moves_per_s": round(len(e) / elapsed, 1),
        "engine_move_latency_ms": {"median": round(statistics.median(e), 1) if e else None,
                                   "p99": round(pct(e, 99), 1), "max": round(max(e), 1) if e else None},
        "person_move_latency_ms": {"median": round(statistics.median(m), 1) if m else None,
                                   "p99": round(pct(m, 99), 1)},
        "evicted_seen": out["evicted_seen"],
        "server_games_kept": health.get("games"),
        "server_evicted": health.get("evicted"),
        "rss_mib": {"base": round(base_rss, 1), "peak": round(max(rss, default=base_rss), 1),
                    "bound": round(base_rss + max_memory_mib, 1), "max_memory": max_memory_mib},
        "errors": len(out["errors"]),
        "error_samples": out["errors"][:5],
        "machine": f"{platform.machine()}, {len(__import__('os').sched_getaffinity(0))} cores, Python {platform.python_version()}",
    }
    print(json.dumps(result, indent=2))
    return 1 if out["errors"] or max(rss, default=0) > base_rss + max_memory_mib else 0


if __name__ == "__main__":
    sys.exit(main())
