#!/usr/bin/env python3
"""Fuzz the Gomocup engine with >= 100,000 random and mutated protocol lines (issue 8).

In process (every line through ``PbrainEngine.handle``, replies checked against the protocol
grammar, a correct move checked after every chunk) and, with ``--subprocess-lines``, through a
real ``python -m zeroplay.play.pbrain`` process whose stdout must hold nothing but replies.

    .venv/bin/python scripts/fuzz_pbrain.py [--lines 100000] [--seed 1] [--subprocess-lines 20000]

Prints one JSON object; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000, help="in-process lines (default 100,000)")
    parser.add_argument("--chunk", type=int, default=500, help="lines between correctness checks (default 500)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--playouts", type=int, default=8, help="engine playouts per move (default 8)")
    parser.add_argument("--subprocess-lines", type=int, default=20_000,
                        help="lines through a real engine process (default 20,000; 0 skips)")
    args = parser.parse_args()

    from zeroplay.engine.factory import warm_up
    from zeroplay.play.fuzz import REPLY, random_lines, reset_and_check
    from zeroplay.play.pbrain_engine import PbrainEngine

    warm_up()
    rng = random.Random(args.seed)
    failures: list[str] = []
    replies: list[str] = []
    engine = PbrainEngine(replies.append, playouts=args.playouts, warm_up=False)
    t0 = time.perf_counter()
    done = checks = reply_count = slowest = 0
    while done < args.lines:
        n = min(args.chunk, args.lines - done)
        for line in random_lines(rng, n):
            start = time.perf_counter()
            engine.handle(line)
            slowest = max(slowest, time.perf_counter() - start)
            if engine.finished:
                failures.append(f"engine finished on {line!r}")
                break
        bad = [r for r in replies if not REPLY.match(r)]
        if bad:
            failures.append(f"non-protocol replies: {bad[:3]!r}")
        reply_count += len(replies)
        done += n
        problem = reset_and_check(engine, replies, rng)
        checks += 1
        if problem:
            failures.append(problem)
        replies.clear()
        if failures:
            break
    in_process_s = time.perf_counter() - t0

    sub = {}
    if args.subprocess_lines and not failures:
        lines = list(random_lines(rng, args.subprocess_lines))
        tail = ["DONE\n", "INFO rule 1\n", "INFO timeout_turn 0\n", "START 15\n", "BOARD\n",
                "3,5,1\n", "4,5,1\n", "5,5,1\n", "6,5,1\n", "8,5,1\n",
                "0,14,2\n", "2,14,2\n", "4,14,2\n", "6,14,2\n", "8,14,2\n", "DONE\n", "END\n"]
        t1 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "zeroplay.play.pbrain", "--playouts", str(args.playouts)],
                              input="".join(lines + tail).encode("utf-8", errors="surrogatepass"),
                              capture_output=True, timeout=1800)
        out = proc.stdout.decode("ascii", errors="replace").splitlines()
        bad = [line for line in out if not REPLY.match(line)]
        if proc.returncode != 0:
            failures.append(f"subprocess exit status {proc.returncode}")
        if bad:
            failures.append(f"subprocess stdout held non-protocol lines: {bad[:3]!r}")
        if not out or out[-1] != "2,5":
            failures.append(f"subprocess's last answer {out[-1:]!r}, expected ['2,5']")
        sub = {"lines": len(lines), "replies": len(out), "seconds": round(time.perf_counter() - t1, 1)}

    result = {
        "lines": done,
        "replies": reply_count,
        "correct_move_checks": checks,
        "seconds": round(in_process_s, 1),
        "slowest_line_s": round(slowest, 3),
        "subprocess": sub,
        "failures": failures,
    }
    print(json.dumps(result, indent=2))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
