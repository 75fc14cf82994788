"""Where a tree-only 15x15 playout's CPU time goes, in microseconds per playout (CPU time, 30
searches of 800 playouts, batches of 16, empty board and the 30-stone middle game):

- batched path (the evaluator wrapped so that the search calls it once per round, as it calls a
  network): the compiled gather (descents, leaves), the compiled finish (expansion, backup), the
  evaluator call (UniformEvaluator through the evaluation path), the rest of the Python loop;
- inline path (``UniformEvaluator`` itself: its rule runs inside the compiled loop,
  ``search/inline.py``), where the tree is the same: the compiled rounds and the Python rest.

Run from a tree's root: PYTHONPATH=src python scripts/playout_cost.py (docs/BENCHMARKS.md).
Trees without the inline path (before search/inline.py) report the batched path only."""
import time

from batched_uniform import Batched  # (scripts/ is on the path when run as a script)

import zeroplay.search.searcher as searcher_module
from zeroplay.bench.mcts import MIDGAME
from zeroplay.games import make
from zeroplay.search import SearchConfig, Searcher, UniformEvaluator

spent = {}


def timed(name, f):
    spent[name] = 0.0

    def call(*a, **k):
        t = time.process_time()
        r = f(*a, **k)
        spent[name] += time.process_time() - t
        return r
    return call


def measure(evaluator, state, phases):
    s = Searcher(game, evaluator, config)
    if "evaluate" in phases:
        s.evaluate_queued = timed("evaluate", s.evaluate_queued)
    s.search(state, playouts=800)  # compile / load
    for k in spent:
        spent[k] = 0.0
    t, n = time.process_time(), 0
    for _ in range(30):
        s.reset()
        n += s.search(state, playouts=800).playouts
    total = time.process_time() - t
    parts = {k: spent[k] for k in phases}
    return n / total, total / n * 1e6, {k: v / n * 1e6 for k, v in parts.items()}, (total - sum(parts.values())) / n * 1e6


searcher_module.gather = timed("gather", searcher_module.gather)
searcher_module.finish = timed("finish", searcher_module.finish)
inline = hasattr(searcher_module, "run_inline_rounds")
if inline:
    searcher_module.run_inline_rounds = timed("inline rounds", searcher_module.run_inline_rounds)
game = make("gomoku", width=15, height=15)
if hasattr(SearchConfig, "for_playouts"):
    config = SearchConfig.for_playouts(800, game, batch_size=16, eval_cache_size=0)
else:
    config = SearchConfig(batch_size=16, eval_cache_size=0, node_capacity=1 << 12, edge_capacity=(1 << 12) * 225)
paths = [("batched", Batched(), ("gather", "finish", "evaluate"))]
if inline:
    paths.append(("inline", UniformEvaluator(), ("inline rounds",)))
for where, state in (("empty", game.initial()), ("midgame", game.initial().play_many(MIDGAME.split()))):
    for path, evaluator, phases in paths:
        rate, total, parts, rest = measure(evaluator, state, phases)
        print(f"{where}, {path}: {rate:.0f} playouts per CPU-second; us per playout: total {total:.1f}, "
              + ", ".join(f"{k} {v:.1f}" for k, v in parts.items()) + f", python rest {rest:.1f}")
