"""PUCT Monte-Carlo graph search: batched, virtual loss, root noise, tree reuse, proofs.

``search(state, evaluator, playouts=800) -> SearchResult`` for one position;
``Searcher`` keeps its tree between moves; ``search_many`` runs one search per state in
lockstep and merges their leaves into one evaluator batch.
"""

from __future__ import annotations

from zeroplay.search.choice import varied_move
from zeroplay.search.config import SearchConfig
from zeroplay.search.evaluator import Evaluator, LeafBatch, UniformEvaluator
from zeroplay.search.inspect_tree import tree_dict
from zeroplay.search.limits import Limits
from zeroplay.search.python_puct import PythonPuct, PythonPuctConfig  # games without kernels (shogi)
from zeroplay.search.result import MoveStats, SearchResult, apply_temperature, sample_move
from zeroplay.search.rollout import RolloutEvaluator
from zeroplay.search.searcher import Searcher, evaluate_batches, lockstep_round


def search(state, evaluator=None, *, playouts: int | None = None, visits: int | None = None,
           seconds: float | None = None, config: SearchConfig | None = None) -> SearchResult:
    """Search one position with a fresh tree (default evaluator: uniform, default 800 playouts).

    Returns:
        SearchResult (``game_over`` when ``state`` is finished).
    """
    evaluator = evaluator or UniformEvaluator()
    if playouts is None and visits is None and seconds is None:
        playouts = 800
    return Searcher(state.game, evaluator, config).search(state, playouts=playouts, visits=visits, seconds=seconds)


def search_many(states, evaluator, *, playouts: int | None = None, visits: int | None = None,
                seconds: float | None = None, config: SearchConfig | None = None,
                searchers: list[Searcher] | None = None) -> list[SearchResult]:
    """One search per state, in lockstep: each round every unfinished search gathers a batch of
    leaves and all of them go to the evaluator in ONE call (self-play and arena throughput).

    Args:
        states: positions of one game.
        searchers: optional Searchers, one per state, reused across calls (tree reuse in
            self-play); created fresh when omitted. They are switched to ``evaluator``.

    Returns:
        One SearchResult per state, in order.
    """
    states = list(states)
    if searchers is None:
        searchers = [Searcher(s.game, evaluator, config) for s in states]
    if len(searchers) != len(states):
        raise ValueError(f"{len(states)} states but {len(searchers)} searchers")
    for s in searchers:
        s.set_evaluator(evaluator)  # new weights in self-play: never keep serving the old net
    limits = Limits(playouts=playouts, visits=visits, seconds=seconds)
    for s, st in zip(searchers, states):
        s.start(st, limits)
    active = [s for s in searchers if not s.done]
    while active:
        lockstep_round(active)
        active = [s for s in active if not s.done]
    return [s.result() for s in searchers]


__all__ = [
    "PythonPuct",
    "PythonPuctConfig",
    "Evaluator",
    "LeafBatch",
    "Limits",
    "MoveStats",
    "RolloutEvaluator",
    "SearchConfig",
    "SearchResult",
    "Searcher",
    "UniformEvaluator",
    "apply_temperature",
    "evaluate_batches",
    "lockstep_round",
    "sample_move",
    "search",
    "search_many",
    "tree_dict",
    "varied_move",
]
