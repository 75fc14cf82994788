"""Worker processes: games come back from every worker; a killed worker loses only its games in
progress and the pool still delivers exactly the games asked for."""

from __future__ import annotations

import os
import signal

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")

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


DRIVER = """
import sys, time
from zeroplay.games import make
from zeroplay.nn import build_model
from zeroplay.nn.arch import arch_spec
from zeroplay.train.selfplay import SelfPlayConfig
from zeroplay.train.workers import WorkerPool, weights_bytes
game = make("gomoku", size=6, n_in_row=4)
pool = WorkerPool(game, arch_spec("tiny", game, "basic").to_dict(), "basic",
                  SelfPlayConfig(playouts=20000, parallel_games=1, resign_threshold=None), workers=2)
pool.set_weights(weights_bytes(build_model("tiny", game, "basic", seed=0)), version=1, seed=1)
print(" ".join(map(str, pool.pids())), flush=True)
pool.play(100000, lambda g: None)  # far more than it will live to see
"""


@pytest.mark.slow  # two spawned torch processes: 40 s on a loaded 2-core machine
def test_workers_end_with_a_trainer_killed_by_sigkill():
    # 20,000 playouts a move: a game outlasts the test, so a worker that only noticed its dead
    # trainer at its next send (the behaviour before) would still be alive at the deadline
    import subprocess
    import sys
    import time

    driver = subprocess.Popen([sys.executable, "-c", DRIVER], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(p) for p in driver.stdout.readline().split()]
        assert len(pids) == 2
        time.sleep(1.0)  # the workers are playing
        driver.kill()
        driver.wait()
        deadline = time.monotonic() + 15
        alive = pids
        while alive and time.monotonic() < deadline:
            time.sleep(0.2)
            alive = [p for p in pids if _alive(p)]
        assert not alive, f"self-play workers {alive} outlived their trainer"
    finally:
        driver.kill()
        driver.wait()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return "zombie" not in f.read().lower()
    except FileNotFoundError:
        return False
