"""Where a tree-only 15x15 playout's CPU time goes: the compiled gather (descents, leaves), the
compiled finish (expansion, backup), the evaluator call (UniformEvaluator through the evaluation
path) and the rest of the Python batch loop, in microseconds per playout (CPU time, 30 searches
of 800 playouts, batches of 16). Run from a tree's root: PYTHONPATH=src python scripts/playout_cost.py
(docs/BENCHMARKS.md). Works on trees before the sizing rule too (fixed tables then)."""
import time

import zeroplay.search.searcher as searcher_module
from zeroplay.bench.mcts import MIDGAME
from zeroplay.games import make
from zeroplay.search import SearchConfig, Searcher, UniformEvaluator

spent = {"gather": 0.0, "finish": 0.0, "evaluate": 0.0}


def timed(name, f):
    def call(*a, **k):
        t = time.process_time()
        r = f(*a, **k)
        spent[name] += time.process_time() - t
        return r
    return call


searcher_module.gather = timed("gather", searcher_module.gather)
searcher_module.finish = timed("finish", searcher_module.finish)
game = make("gomoku", width=15, height=15)
if hasattr(SearchConfig, "for_playouts"):
    config = SearchConfig.for_playouts(800, game, batch_size=16, eval_cache_size=0)
else:
    config = SearchConfig(batch_size=16, eval_cache_size=0, node_capacity=1 << 12, edge_capacity=(1 << 12) * 225)
for where, state in (("empty", game.initial()), ("midgame", game.initial().play_many(MIDGAME.split()))):
    s = Searcher(game, UniformEvaluator(), config)
    s.evaluate_queued = timed("evaluate", s.evaluate_queued)
    s.search(state, playouts=800)  # compile / load
    for k in spent:
        spent[k] = 0.0
    t, n = time.process_time(), 0
    for _ in range(30):
        s.reset()
        n += s.search(state, playouts=800).playouts
    total = time.process_time() - t
    print(f"{where}: {n / total:.0f} playouts per CPU-second; us per playout: total {total / n * 1e6:.1f}, "
          + ", ".join(f"{k} {v / n * 1e6:.1f}" for k, v in spent.items())
          + f", python rest {(total - sum(spent.values())) / n * 1e6:.1f}")
