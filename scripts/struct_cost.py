"""The search's compiled gather and finish with the tuples passed as numba StructRefs (what the
searcher does, ``search/structs.py``) or as NamedTuples (before), in microseconds of CPU per
playout: 40 searches of 400 playouts from the empty board, batches of 16, uniform priors through
the batched path (one evaluator call per round, as a network is called). Each mode is its own
process; run them alternately (docs/BENCHMARKS.md, "The search tuples as StructRefs"):

    for m in tuple struct tuple struct; do .venv/bin/python scripts/struct_cost.py $m gomoku 8; done
    for m in tuple struct tuple struct; do .venv/bin/python scripts/struct_cost.py $m go 9; done

The tuple mode compiles the kernels' tuple specialisations on its first run (minutes).
"""

from __future__ import annotations

import argparse
import time

from batched_uniform import Batched  # (scripts/ is on the path when run as a script)

import zeroplay.search.structs as structs
from zeroplay.games import make
from zeroplay.search import SearchConfig, Searcher


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["tuple", "struct"])
    ap.add_argument("game", choices=["gomoku", "go"])
    ap.add_argument("size", type=int, nargs="?", default=None)
    ap.add_argument("--searches", type=int, default=40)
    args = ap.parse_args()
    if args.mode == "tuple":  # the kernels get the NamedTuples themselves
        structs.StructCache.get = lambda self, value: value  # type: ignore[method-assign]
    if args.game == "go":
        game = make("go", size=args.size or 9, komi=7)
    else:
        size = args.size or 8
        game = make("gomoku", width=size, height=size, n_in_row=5)
    s = Searcher(game, Batched(), SearchConfig.for_playouts(400, game, batch_size=16, eval_cache_size=0))
    spent = {"gather": 0.0, "finish": 0.0}
    for name in ("gather", "finish"):
        kernel = getattr(s, "_" + name)

        def timed(*a, kernel=kernel, name=name):
            c = time.process_time()
            out = kernel(*a)
            spent[name] += time.process_time() - c
            return out
        setattr(s, "_" + name, timed)
    state = game.initial()
    s.search(state, playouts=400)  # compile or load
    spent.update(gather=0.0, finish=0.0)
    n, c0 = 0, time.process_time()
    for _ in range(args.searches):
        s.reset()
        n += s.search(state, playouts=400).playouts
    total = time.process_time() - c0
    print(f"{args.mode:6s} {args.game} {game.width}x{game.height}: us per playout: total {total / n * 1e6:.2f}, "
          f"gather {spent['gather'] / n * 1e6:.2f}, finish {spent['finish'] / n * 1e6:.2f}")


if __name__ == "__main__":
    main()
