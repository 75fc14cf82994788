"""Tree-only and random-rollout MCTS playouts/s on 15x15, next to OpenSpiel's C++ MCTSBot."""

from __future__ import annotations

import time
from typing import Any

from zeroplay.engine.options import at_least_1

MIDGAME = (
    "7,7 8,8 6,8 5,9 6,7 7,9 8,9 6,10 5,11 9,7 10,6 4,8 7,11 3,9 4,9 3,10 3,7 5,10 2,10 4,11 6,9 "
    "7,10 4,10 9,10 8,10 10,8 9,8 10,9 8,6 8,11"
)
"""The issue's 30-stone middle game (Gomocup x,y, Black first; Black to move)."""


def add_arguments(parser) -> None:
    parser.add_argument("--playouts", type=at_least_1, default=800, help="playouts per search, >= 1 (default 800)")
    parser.add_argument("--searches", type=at_least_1, default=30, help="searches per figure, >= 1 (default 30)")
    parser.add_argument("--batch-size", type=at_least_1, default=16, help="leaves per batch, >= 1 (default 16)")
    parser.add_argument("--no-openspiel", action="store_true", help="skip the OpenSpiel column")
    parser.add_argument("--root-policy", choices=["puct", "gumbel"], default="puct",
                        help="root search of the searches measured (default puct; gumbel: search/gumbel.py)")

    parser.add_argument("--defence", action="store_true",
                        help="also the cost of the defence (search/defence.py): the threat solver on, "
                        "defence off and on side by side on the middle game")


def run(args) -> dict:
    result = measure(playouts=args.playouts, searches=args.searches, batch_size=args.batch_size,
                     openspiel=not args.no_openspiel, root_policy=args.root_policy)
    if args.defence:
        result["defence"] = measure_defence(playouts=args.playouts, searches=args.searches,
                                            batch_size=args.batch_size)
    return result


def measure_defence(playouts: int = 800, searches: int = 30, batch_size: int = 16) -> dict:
    """Playouts per CPU-second of the tree-only search (UniformEvaluator) with the VCF threat
    solver on at new nodes (its root check off, so that a proven root does not end a search
    after one playout), the defence off and on, measured alternately in one run (3 rounds of
    ``searches // 3`` searches each) on the 6-stone opening ``h8 h9 i9 g7 j10 i8`` and the
    30-stone middle game, with the defence's counters."""
    from zeroplay.games import make
    from zeroplay.search import SearchConfig, Searcher, UniformEvaluator
    from zeroplay.search.defence import defence_stats

    game = make("gomoku", width=15, height=15)
    positions = {"opening": game.initial().play_many("h8 h9 i9 g7 j10 i8".split()),
                 "midgame": game.initial().play_many(MIDGAME.split())}
    capacity = 1 << max(8, (2 * playouts - 1).bit_length() + 1)
    base = SearchConfig(batch_size=batch_size, node_capacity=capacity, eval_cache_size=0,
                        edge_capacity=capacity * game.num_actions, threat_solver=True, threat_solver_root_nodes=0)
    out = {}
    for where, state in positions.items():
        searchers = {name: Searcher(game, UniformEvaluator(), base.replace(defence=on))
                     for name, on in (("off", False), ("on", True))}
        rates: dict[str, list[float]] = {name: [] for name in searchers}
        for _ in range(3):  # alternate, so that a busy spell of the machine hits both
            for name, searcher in searchers.items():
                rates[name].append(_rate(searcher, state, playouts, max(1, searches // 3)))
        off, on = (sum(rates[n]) / len(rates[n]) for n in ("off", "on"))
        out[where] = {"defence_off_playouts_per_s": round(off), "defence_on_playouts_per_s": round(on),
                      "us_per_playout_added": round(1e6 / on - 1e6 / off, 2),
                      "defence_counters": defence_stats(searchers["on"].batch.defence)}
    return out


def _rate(searcher, state, playouts: int, searches: int) -> float:
    """Playouts per CPU-second of this process over ``searches`` searches, the node table cleared
    before each (clearing timed too). CPU time, not wall time: the machines are shared, and a
    single-threaded search's CPU time is what "one core" means."""
    searcher.reset()
    searcher.search(state, playouts=playouts)  # compile / warm up
    total = 0
    t0 = time.process_time()
    for _ in range(searches):
        searcher.reset()
        total += searcher.search(state, playouts=playouts).playouts
    return total / (time.process_time() - t0)


def _openspiel_rate(playouts: int, searches: int) -> float | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("gomoku", {"size": 15, "connect": 5})
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 1), 2.0, playouts, 1000, False, 1, False)
    state = game.new_initial_state()
    bot.step(state)
    t0 = time.process_time()
    for _ in range(searches):
        bot.step(state)
    return playouts * searches / (time.process_time() - t0)


def measure(playouts: int = 800, searches: int = 30, batch_size: int = 16, openspiel: bool = True,
            root_policy: str = "puct") -> dict:
    """Figures of ``zeroplay bench mcts`` (one core, 15x15 freestyle).

    uniform: UniformEvaluator (tree only), default c_puct and FPU, ``batch_size`` leaves per
    batch, on the empty board and the 30-stone middle game. rollout: RolloutEvaluator (one random
    game per leaf) on the empty board, with OpenSpiel's C++ ``pyspiel.MCTSBot`` and its
    ``RandomRolloutEvaluator`` at the same playouts in the same run (skipped when open-spiel is
    not installed: ``pip install open-spiel``, the ``bench`` extra).
    """
    from zeroplay.games import make
    from zeroplay.search import RolloutEvaluator, SearchConfig, Searcher, UniformEvaluator

    game = make("gomoku", width=15, height=15)
    empty = game.initial()
    midgame = empty.play_many(MIDGAME.split())
    # the table is cleared before each search: sized for the search by the search's rule
    config = SearchConfig.for_playouts(playouts, game, batch_size=batch_size, eval_cache_size=0,
                                       root_policy=root_policy)
    capacity = config.node_capacity
    uniform = Searcher(game, UniformEvaluator(), config)
    result: dict[str, dict[str, Any]] = {
        "uniform": {
            "empty": {"playouts_per_s": round(_rate(uniform, empty, playouts, searches))},
            "midgame": {"playouts_per_s": round(_rate(uniform, midgame, playouts, searches))},
        }
    }
    rollout = Searcher(game, RolloutEvaluator(seed=1), config)
    ours = _rate(rollout, empty, playouts, max(3, searches // 3))
    theirs = _openspiel_rate(playouts, max(3, searches // 6)) if openspiel else None
    missing = openspiel and theirs is None
    result["rollout"] = {
        "playouts_per_s": round(ours),
        "openspiel_playouts_per_s": round(theirs) if theirs else None,
        "ratio_vs_openspiel": round(ours / theirs, 2) if theirs else None,
    }
    if missing:
        result["rollout"]["note"] = "open-spiel not installed: pip install open-spiel"
    result["settings"] = {"playouts": playouts, "searches": searches, "batch_size": batch_size,
                          "root_policy": root_policy,
                          "node_capacity": capacity, "board": "15x15 freestyle"}
    return result
