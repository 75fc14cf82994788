"""Resumable USI shogi matches run by cshogi's match runner (``cshogi.cli.main``), and their summary.

    PYTHONPATH=src python scripts/shogi_usi_match.py play DIR --games 10 \\
        --engine1 "zeroplay usi" --options1 Engine:AlphaBeta,USI_Hash:32 --name1 alphabeta \\
        --engine2 "python -m zeroplay.engine.gnushogi_usi --depth 1" --name2 gnushogi-depth1 \\
        --byoyomi 1000 1000
    PYTHONPATH=src python scripts/shogi_usi_match.py summary DIR [--json]

``play`` runs the games two at a time (one with each colour, engine 1 Black first), each pair a
fresh ``cshogi.cli.main`` call writing one CSA record per game into DIR/csa, until DIR/csa holds
``--games`` records: a stopped match resumes (an odd count left by a kill is completed by one
game with engine 1 White). Clocks: cshogi's accounting. It sends ``byoyomi`` to the engines but
does not refill it: a move's wall time comes off the engine's main time (``--time``, default 0),
and a main time below -1 s is a time loss (``%TIME_UP``); with main time 0 every move must take
under 1 s.

``play`` writes its arguments to DIR/match.json (the command, for the record). ``summary`` reads
every record in DIR/csa: W / D / L of engine 1 (``--name1``, matched to the names in the records),
split by colour, how each game ended (``%TORYO``, ``%SENNICHITE``, ``%JISHOGI`` (the move limit),
``%KACHI``, ``%TIME_UP``, ``%ILLEGAL_MOVE``, ``ILLEGAL_ACTION``), each engine's longest move in
whole seconds (the records' ``T`` lines) and the moves whose score comment is missing (cshogi
writes ``'** SCORE ...`` only for a move whose last ``info`` line parses as ``score cp|mate .. pv
..``), and the Elo difference with its 95 % interval (``zeroplay.engine.elo.elo_estimate``).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
from pathlib import Path

ENDINGS = ("%TORYO", "%SENNICHITE", "%JISHOGI", "%KACHI", "%TIME_UP", "%ILLEGAL_MOVE", "ILLEGAL_ACTION",
           "%+ILLEGAL_ACTION", "%-ILLEGAL_ACTION")


def _options(text: str) -> dict:
    out = {}
    for kv in filter(None, text.split(",")):
        key, sep, value = kv.partition(":")
        if not sep:
            raise SystemExit(f"options: expected NAME:VALUE, got {kv!r}")
        out[key] = value
    return out


def _wrapper(folder: str, name: str, command: str) -> str:
    """A shell script that runs ``command`` with this interpreter and PYTHONPATH (cshogi runs a path)."""
    argv = shlex.split(command)
    if argv[0] == "python":
        argv[0] = sys.executable
    elif argv[0] == "zeroplay":
        argv = [sys.executable, "-m", "zeroplay", *argv[1:]]
    path = Path(folder) / name
    env = shlex.quote("PYTHONPATH=" + os.pathsep.join(p for p in sys.path if p))
    path.write_text(f"#!/bin/sh\nexec env {env} nice -n 10 {' '.join(shlex.quote(a) for a in argv)}\n")
    path.chmod(0o755)
    return str(path)


def play(a) -> None:
    from cshogi import cli

    csa = Path(a.dir) / "csa"
    csa.mkdir(parents=True, exist_ok=True)
    (Path(a.dir) / "match.json").write_text(json.dumps({k: v for k, v in vars(a).items() if k != "dir"}, indent=1))
    with tempfile.TemporaryDirectory() as tmp:
        e1, e2 = _wrapper(tmp, "engine1.sh", a.engine1), _wrapper(tmp, "engine2.sh", a.engine2)
        o1, o2 = _options(a.options1), _options(a.options2)
        while (done := len(list(csa.glob("*.csa")))) < a.games:
            if done % 2:  # a killed pair: the missing game has engine 1 as White
                cli.main(e2, e1, o2, o1, names=[a.name2, a.name1], games=1, byoyomi=a.byoyomi[::-1], time=a.time[::-1],
                         draw=a.draw, csa=str(csa), print_summary=False)
            else:
                cli.main(e1, e2, o1, o2, names=[a.name1, a.name2], games=min(2, a.games - done), byoyomi=a.byoyomi,
                         time=a.time, draw=a.draw, csa=str(csa), print_summary=False)
            print(json.dumps(summary(a.dir)), flush=True)


def _parse(text: str) -> dict:
    names, moves, ending = {}, [], None
    last_side = None
    for line in text.splitlines():
        if line.startswith(("N+", "N-")):
            names[line[1]] = line[2:]
        elif line[:1] in "+-" and len(line) == 7:
            moves.append({"side": line[0], "time": None, "score": False})
            last_side = line[0]
        elif line.startswith("T") and moves:
            moves[-1]["time"] = int(line[1:])
        elif line.startswith("'**") and moves:
            moves[-1]["score"] = True
        elif line.strip() in ENDINGS:
            ending = line.strip()
    # the side to move when the game ended: the side after the last move
    to_move = "+" if last_side in (None, "-") else "-"
    if ending in ("%TORYO", "%TIME_UP", "%ILLEGAL_MOVE", "ILLEGAL_ACTION"):
        winner = "-" if to_move == "+" else "+"  # the side to move resigned, ran out or moved illegally
    elif ending == "%KACHI":
        winner = to_move
    elif ending in ("%+ILLEGAL_ACTION", "%-ILLEGAL_ACTION"):
        winner = "-" if ending[1] == "+" else "+"
    else:
        winner = None
    return {"names": names, "moves": moves, "ending": ending, "winner": winner}


def summary(folder) -> dict:
    from zeroplay.engine.elo import elo_estimate

    records = [_parse(p.read_text()) for p in sorted((Path(folder) / "csa").glob("*.csa"))]
    if not records:
        return {"games": 0}
    stored = Path(folder) / "match.json"
    first = json.loads(stored.read_text())["name1"] if stored.exists() else records[0]["names"]["+"]
    w = d = lost = 0
    by_colour = {"black": [0, 0, 0], "white": [0, 0, 0]}
    endings: dict = {}
    longest: dict = {}
    unscored: dict = {}
    plies = []
    for r in records:
        side1 = "+" if r["names"]["+"] == first else "-"
        colour = by_colour["black" if side1 == "+" else "white"]
        if r["winner"] is None:
            d += 1
            colour[1] += 1
        elif r["winner"] == side1:
            w += 1
            colour[0] += 1
        else:
            lost += 1
            colour[2] += 1
        endings[r["ending"]] = endings.get(r["ending"], 0) + 1
        plies.append(len(r["moves"]))
        for m in r["moves"]:
            name = r["names"][m["side"]]
            longest[name] = max(longest.get(name, 0), m["time"] or 0)
            unscored[name] = unscored.get(name, 0) + (not m["score"])
    e = elo_estimate(w, d, lost)

    def finite(x):
        return x if abs(x) != float("inf") else None  # JSON has no infinity: null, sign as the score's
    return {"engine1": first, "games": len(records), "wins": w, "draws": d, "losses": lost,
            "engine1_black": by_colour["black"], "engine1_white": by_colour["white"], "endings": endings,
            "longest_move_s": longest, "moves_without_score": unscored, "mean_plies": sum(plies) / len(plies),
            "score": e.score, "elo": finite(e.elo), "elo_low": finite(e.elo_low), "elo_high": finite(e.elo_high)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    pl = sub.add_parser("play")
    pl.add_argument("dir")
    pl.add_argument("--games", type=int, default=10)
    for i in (1, 2):
        pl.add_argument(f"--engine{i}", required=True, help="command line (python / zeroplay: this interpreter)")
        pl.add_argument(f"--options{i}", default="", help="NAME:VALUE,NAME:VALUE (USI setoption)")
        pl.add_argument(f"--name{i}", required=True)
    pl.add_argument("--byoyomi", type=int, nargs=2, default=[1000, 1000], metavar=("MS1", "MS2"))
    pl.add_argument("--time", type=int, nargs=2, default=[0, 0], metavar=("MS1", "MS2"),
                    help="main time of each engine per game in ms (default 0 0: every move must take under 1 s)")
    pl.add_argument("--draw", type=int, default=256, help="plies before cshogi calls the game a draw (default 256)")
    su = sub.add_parser("summary")
    su.add_argument("dir")
    a = p.parse_args(argv)
    if a.command == "play":
        if not 1 <= a.games <= 10_000:
            raise SystemExit("--games must be 1..10000")
        play(a)
    else:
        print(json.dumps(summary(a.dir), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
