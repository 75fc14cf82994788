"""Shogi engines: alpha-beta nodes and MCTS playouts per CPU-second, the net's batched limit.

All figures are CPU time of this process (one thread: torch is limited to one), so that a
shared machine's other load does not count. Positions: the start position and a middle game
after ``MIDGAME`` (the USI moves below).

* ``alphabeta``: nodes (main search + quiescence) per CPU-second, searching each position to a
  node budget (``--ab-nodes``), table cleared first.
* ``mcts``: playouts per CPU-second of the Python-driven PUCT search with the shogi net (blocks x
  channels, untrained weights: speed does not depend on them), split into the evaluator's share
  (planes + legal masks + the net) and the Python search's (descents, ``state.play``, backups);
  and with the material stand-in evaluator (no net).
* ``net``: positions per CPU-second of the net alone on batches of ``--batch-size`` ready planes,
  the batched limit; MCTS playouts/s are given as a fraction of it.
"""

from __future__ import annotations

import time

from zeroplay.engine.options import at_least_1

MIDGAME = ("7g7f 3c3d 2g2f 8c8d 2f2e 8d8e 6i7h 4a3b 2e2d 2c2d 2h2d 8e8f 8g8f 8b8f 2d3d 2b8h+ 7i8h 8f8b "
           "3d3f P*2c 5i5h 5a4b")


def add_arguments(parser) -> None:
    parser.add_argument("--ab-nodes", type=at_least_1, default=60_000,
                        help="alpha-beta nodes per position, >= 1 (default 60,000)")
    parser.add_argument("--playouts", type=at_least_1, default=400, help="MCTS playouts per position, >= 1 (default 400)")
    parser.add_argument("--batch-size", type=at_least_1, default=8, help="MCTS leaves per net call, >= 1 (default 8)")
    parser.add_argument("--blocks", type=int, default=4, help="net residual blocks (default 4)")
    parser.add_argument("--channels", type=int, default=64, help="net channels (default 64)")


def run(args) -> dict:
    return measure(ab_nodes=args.ab_nodes, playouts=args.playouts, batch_size=args.batch_size,
                   blocks=args.blocks, channels=args.channels)


def _positions():
    from zeroplay.games import make

    g = make("shogi")
    return [g.initial(), g.from_usi("startpos moves " + MIDGAME)]


def measure(ab_nodes=60_000, playouts=400, batch_size=8, blocks=4, channels=64) -> dict:
    import numpy as np
    import torch

    from zeroplay.engine.shogi_alphabeta import AlphaBetaConfig, AlphaBetaEngine
    from zeroplay.engine.shogi_mcts import MaterialEvaluator
    from zeroplay.nn.shogi_net import ShogiNet, ShogiNetEvaluator
    from zeroplay.search.python_puct import PythonPuct, PythonPuctConfig

    torch.set_num_threads(1)
    positions = _positions()

    engine = AlphaBetaEngine(AlphaBetaConfig(hash_mib=64))
    engine.search(positions[0], depth=2)  # compile the table's kernels
    nodes, t0 = 0, time.process_time()
    for s in positions:
        engine.new_game()
        nodes += engine.search(s, nodes=ab_nodes).nodes
    ab_rate = nodes / (time.process_time() - t0)

    net = ShogiNet(blocks, channels).eval()
    config = PythonPuctConfig(batch_size=batch_size, capacity=1 << 14, edge_capacity=1 << 20)
    mcts = {}
    for name, evaluator in (("net", ShogiNetEvaluator(net)), ("material", MaterialEvaluator())):
        puct = PythonPuct(evaluator, config)
        puct.search(positions[0], playouts=batch_size * 2)  # warm up
        done, cpu, evaluation = 0, 0.0, 0.0
        for s in positions:
            t0, c0 = time.perf_counter(), time.process_time()
            done += puct.search(s, playouts=playouts).playouts
            wall = time.perf_counter() - t0
            spent = time.process_time() - c0
            cpu += spent
            evaluation += spent * min(1.0, puct.evaluation_seconds / max(wall, 1e-9))
        mcts[name] = {"playouts_per_cpu_s": round(done / cpu, 1),
                      "evaluator_share": round(evaluation / cpu, 3),
                      "python_ms_per_playout": round((cpu - evaluation) / done * 1000, 3)}

    planes = torch.from_numpy(np.stack([positions[i % 2].planes() for i in range(batch_size)]))
    with torch.inference_mode():
        net(planes)
        calls, t0 = 0, time.process_time()
        while time.process_time() - t0 < 2.0:
            net(planes)
            calls += 1
    net_rate = calls * batch_size / (time.process_time() - t0)
    return {
        "alphabeta": {"nodes_per_cpu_s": round(ab_rate), "nodes_per_position": ab_nodes},
        "mcts": dict(mcts, playouts=playouts, batch_size=batch_size, net_arch=f"b{blocks}c{channels}"),
        "net": {"positions_per_cpu_s": round(net_rate, 1), "batch_size": batch_size,
                "mcts_fraction_of_net_limit": round(mcts["net"]["playouts_per_cpu_s"] / net_rate, 3)},
    }
