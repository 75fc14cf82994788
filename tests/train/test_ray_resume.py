"""``zeroplay train --backend ray`` killed with SIGKILL in the middle of self-play resumes from its
run directory like the local backend: every game id once, nothing doubled (issue 6). Slow: two
Ray instances start, one per command."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")
pytest.importorskip("ray", reason="ray is not installed: pip install 'zeroplay[ray]' to run the Ray backend tests")

from zeroplay.games import make  # noqa: E402
from zeroplay.train import ReplayBuffer, read_metrics  # noqa: E402
from zeroplay.train.shards import read_shard  # noqa: E402

# xdist_group: one worker runs every test that starts a Ray instance (pytest -n), one instance at a time
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

ARGS = ["--game", "gomoku", "--size", "6", "--n-in-row", "4", "--net", "tiny", "--playouts", "32",
        "--games-per-iteration", "24", "--parallel-games", "2", "--steps", "2", "--batch-size", "16",
        "--eval-games", "0", "--flush-games", "2", "--workers", "2", "--no-progress", "--threads", "1",
        "--precision", "fp32", "--backend", "ray", "--iterations", "2"]


def _command(run_dir):
    return [sys.executable, "-m", "zeroplay.cli", "train", "--run-dir", str(run_dir), *ARGS]


def test_driver_killed_mid_self_play_resumes(tmp_path):
    run_dir = tmp_path / "run"
    game = make("gomoku", size=6, n_in_row=4)
    proc = subprocess.Popen(_command(run_dir), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            if len(list((run_dir / "shards").glob("shard-*.npz"))) >= 2:
                break
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
        os.kill(proc.pid, signal.SIGKILL)  # the driver only: Ray's processes must notice alone
        proc.wait(30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)
    before = ReplayBuffer(run_dir / "shards", game, "basic")
    assert 0 < before.total_games < 24
    try:
        done = subprocess.run(_command(run_dir), capture_output=True, timeout=600)
    finally:  # Ray's agents of the killed driver end alone within minutes; end them now
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    summary = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert summary["iteration"] == 2 and summary["games_total"] == 48
    ids = []
    for path in sorted((run_dir / "shards").glob("shard-*.npz")):
        ids.extend(read_shard(path, game, "basic").game_ids.tolist())
    assert ids == list(range(48))
    # metrics: no game counted twice (a kill between a shard and its record may leave one out)
    ranges = sorted((r["first_id"], r["last_id"]) for r in read_metrics(run_dir / "metrics.jsonl", "selfplay"))
    assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])) and ranges[-1][1] == 47
