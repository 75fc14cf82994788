"""SIGKILL in the middle of writing shards or checkpoints: what is on disk stays whole."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.train import ReplayBuffer

FEATURES = "basic"

SHARD_WRITER = """
import sys, numpy as np
from zeroplay.games import make
from zeroplay.train import ReplayBuffer, Samples
game = make("gomoku", size=6, n_in_row=4)
buf = ReplayBuffer(sys.argv[1], game, "basic")
rng = np.random.default_rng(0)
def fake_game(n):
    legal = np.ones((n, 36), bool)
    return Samples((rng.random((n, 3, 6, 6)) < 0.5).astype(np.float32), np.full((n, 36), 1 / 36, np.float32),
                   np.ones(n, np.float32), legal, np.arange(n, dtype=np.int32))
print("ready", flush=True)
while True:
    buf.add_games([fake_game(400) for _ in range(4)])
"""

CHECKPOINT_WRITER = """
import sys, torch
torch.set_num_threads(1)
from zeroplay.games import make
from zeroplay.nn import build_model, save_checkpoint
game = make("gomoku", size=6, n_in_row=4)
net = build_model("b2c32", game, "basic", seed=0)
print("ready", flush=True)
step = 0
while True:
    step += 1
    save_checkpoint(sys.argv[1], net, game=game, features="basic", step=step)
"""


def _run_and_kill(script, arg, seconds):
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(script), str(arg)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        time.sleep(seconds)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


def test_kill_during_shard_writes_leaves_whole_shards(tmp_path):
    _run_and_kill(SHARD_WRITER, tmp_path, 1.5)
    buf = ReplayBuffer(tmp_path, make("gomoku", size=6, n_in_row=4), FEATURES, window=10**7)
    assert buf.skipped == []
    n_shards = len(buf.shard_paths)
    assert n_shards >= 1
    # ids are contiguous from 0: no game lost between shards, none doubled
    assert buf.total_games == 4 * n_shards and buf.next_game_id == 4 * n_shards
    assert len(buf) == buf.total_samples == 1600 * n_shards
    np.testing.assert_array_equal(buf.window_game_ids(), np.arange(4 * n_shards))


@pytest.mark.slow
def test_kill_during_checkpoint_saves_leaves_a_loadable_checkpoint(tmp_path):
    from zeroplay.nn import load_checkpoint

    path = tmp_path / "net.safetensors"
    _run_and_kill(CHECKPOINT_WRITER, path, 2.0)
    ck = load_checkpoint(path, game=make("gomoku", size=6, n_in_row=4), features=FEATURES, arch="b2c32")
    assert ck.step >= 1
