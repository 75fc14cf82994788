"""Finished 9x9 games of GNU Go against itself, with GNU Go's own count: the reference of
``tests/play/test_gtp_scoring.py`` (``tests/play/data/gnugo-9x9-scored.jsonl``).

    python scripts/gnugo_scored_games.py FIRST_SEED LAST_SEED [--seki-only] > games.jsonl
    python scripts/gnugo_scored_games.py --rescore games.jsonl   # GNU Go's count of each record again

Each game: ``gnugo --mode gtp --boardsize 9 --level 0 --chinese-rules --komi 7.5 --seed N``, four
opening moves drawn by ``random.Random(N)`` (GNU Go's own move where one is illegal), then
``genmove`` for each side in turn until two passes, a resignation or 160 moves. One JSON line per
game: ``seed``, ``moves`` (space-separated, Black first, alternating), GNU Go's ``final_score``
and its ``final_status_list dead`` and ``seki`` points (sorted). ``--seki-only`` keeps the games
with a seki.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
from contextlib import contextmanager

COLUMNS = "ABCDEFGHJ"


def _ask(proc: subprocess.Popen, command: str) -> str:
    """GNU Go's answer to one GTP command, without its ``=``; raises RuntimeError on ``?``."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(command + "\n")
    proc.stdin.flush()
    lines: list[str] = []
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"gnugo ended during {command!r}")
        if line == "\n":
            if lines:
                break
            continue
        lines.append(line.rstrip("\n"))
    text = "\n".join(lines)
    if not text.startswith("="):
        raise RuntimeError(f"{command!r}: {text}")
    return text[1:].strip()


@contextmanager
def _gnugo(gnugo: str, *options: str):
    """A GNU Go 9x9 GTP process (area scoring, komi 7.5) with ``options``; closed at the end."""
    proc = subprocess.Popen([gnugo, "--mode", "gtp", "--boardsize", "9", "--chinese-rules", "--komi", "7.5", *options],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        yield proc
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=30)


def _count(proc: subprocess.Popen) -> dict:
    """GNU Go's count of the game it holds."""
    return {"final_score": _ask(proc, "final_score"),
            "dead": sorted(_ask(proc, "final_status_list dead").split()),
            "seki": sorted(_ask(proc, "final_status_list seki").split())}


def play_game(gnugo: str, seed: int) -> dict:
    """One game of GNU Go against itself from four random opening moves; its record and count."""
    rng = random.Random(seed)
    moves: list[str] = []
    passes = 0
    with _gnugo(gnugo, "--level", "0", "--seed", str(seed)) as proc:
        for i in range(160):
            color = "black" if i % 2 == 0 else "white"
            move = None
            if i < 4:
                move = f"{rng.choice(COLUMNS)}{rng.randint(1, 9)}"
                try:
                    _ask(proc, f"play {color} {move}")
                except RuntimeError:
                    move = None
            if move is None:
                move = _ask(proc, f"genmove {color}").upper()
            if move == "RESIGN":
                break
            moves.append(move)
            passes = passes + 1 if move == "PASS" else 0
            if passes >= 2:
                break
        return {"seed": seed, "moves": " ".join(moves), **_count(proc)}


def rescore(gnugo: str, game: dict) -> dict:
    """``game`` with GNU Go's count of its moves, replayed."""
    with _gnugo(gnugo) as proc:
        for i, move in enumerate(game["moves"].split()):
            _ask(proc, f"play {'black' if i % 2 == 0 else 'white'} {move}")
        return {**game, **_count(proc)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("first", type=int, nargs="?")
    p.add_argument("last", type=int, nargs="?", help="the last seed, included")
    p.add_argument("--seki-only", action="store_true")
    p.add_argument("--rescore", metavar="FILE", help="replay each record of FILE and print GNU Go's count")
    args = p.parse_args(argv)
    gnugo = shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")
    if gnugo is None:
        print("gnugo not found: apt-get install gnugo", file=sys.stderr)
        return 1
    if args.rescore:
        with open(args.rescore, encoding="utf-8") as f:
            for line in f:
                print(json.dumps(rescore(gnugo, json.loads(line)), separators=(",", ":")), flush=True)
        return 0
    if args.first is None or args.last is None:
        p.error("give FIRST_SEED and LAST_SEED, or --rescore FILE")
    for seed in range(args.first, args.last + 1):
        game = play_game(gnugo, seed)
        if game["seki"] or not args.seki_only:
            print(json.dumps(game, separators=(",", ":")), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
