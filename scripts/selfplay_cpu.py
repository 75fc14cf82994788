"""CPU seconds per self-play move of the 15x15 run's recipe (Gumbel root search, m = 16, 64
playouts, the VCF threat solver, 16 games at once) with its iteration 83, for comparing code or
machine states: run it from a source tree's root (``src`` is put first on the path), e.g. the
current tree and a ``git worktree`` of an older commit, one after the other.

    .venv/bin/python scripts/selfplay_cpu.py [GAMES]          # default 16; seed 1: the same games
"""

from __future__ import annotations

import sys
import time

sys.path.insert(0, "src")

from zeroplay.games import make  # noqa: E402
from zeroplay.nn import load_checkpoint  # noqa: E402
from zeroplay.nn.evaluator import NetEvaluator  # noqa: E402
from zeroplay.train.selfplay import SelfPlayConfig, SelfPlayer  # noqa: E402

CHECKPOINT = "training/runs/gomoku-15x15-freestyle/checkpoints/iter-000083.safetensors"


def main(argv: list[str]) -> None:
    import torch

    torch.set_num_threads(1)
    games = int(argv[0]) if argv else 16
    game = make("gomoku", width=15, height=15, n_in_row=5, rule="freestyle")
    ck = load_checkpoint(CHECKPOINT, game=game)
    config = SelfPlayConfig(playouts=64, root_policy="gumbel", gumbel_m=16, threat_solver=True, parallel_games=16, seed=1)
    player = SelfPlayer(game, NetEvaluator(ck.model.eval(), ck.features), config)
    player.play(2)  # compiled code loaded
    cpu0, wall0 = time.process_time(), time.perf_counter()
    finished = player.play(games)
    cpu = time.process_time() - cpu0
    moves = sum(len(g.moves) for g in finished)
    print(f"{len(finished)} games, {moves} moves: {cpu:.1f} CPU-s, {time.perf_counter() - wall0:.1f} s wall, "
          f"{1000 * cpu / max(moves, 1):.1f} ms of CPU a move")


if __name__ == "__main__":
    main(sys.argv[1:])
