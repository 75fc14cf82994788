"""Worker processes: games come back from every worker; a killed worker loses only its games in
progress and the pool still delivers exactly the games asked for."""

from __future__ import annotations

import os
import signal

import pytest

torch = pytest.importorskip("torch")

from zeroplay.games import make  # noqa: E402
from zeroplay.nn import build_model  # noqa: E402
from zeroplay.nn.arch import arch_spec  # noqa: E402
from zeroplay.train.selfplay import SelfPlayConfig  # noqa: E402
from zeroplay.train.workers import LocalSelfPlay, WorkerPool, weights_bytes  # noqa: E402

FOUR = make("gomoku", size=6, n_in_row=4)
CONFIG = SelfPlayConfig(playouts=48, parallel_games=1, resign_threshold=None)


def _weights():
    return weights_bytes(build_model("tiny", FOUR, "basic", seed=0))


def test_local_self_play_has_the_pool_interface():
    local = LocalSelfPlay(FOUR, arch_spec("tiny", FOUR, "basic").to_dict(), "basic", CONFIG)
    local.set_weights(_weights(), version=3, seed=1)
    games = []
    local.play(2, games.append)
    assert len(games) == 2 and all(g.weights_version == 3 for g in games)


def test_a_killed_worker_is_replaced_and_no_game_is_missing_or_doubled():
    pool = WorkerPool(FOUR, arch_spec("tiny", FOUR, "basic").to_dict(), "basic", CONFIG, workers=2)
    try:
        pool.set_weights(_weights(), version=5, seed=7)
        games, killed = [], []

        def on_game(g):
            games.append(g)
            if not killed:
                victim = pool.pids()[0]
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)

        pool.play(8, on_game)
        assert len(games) == 8
        assert all(g.weights_version == 5 for g in games)
        assert pool.restarts >= 1 and killed[0] not in pool.pids()
        # the replacement got the weights: a second round works on both workers
        more = []
        pool.play(4, more.append)
        assert len(more) == 4
    finally:
        pool.close()
