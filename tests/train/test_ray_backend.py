"""Ray self-play backend (issue 6) on one local Ray instance bound to 127.0.0.1 with 2 CPUs,
shared by the tests of this module (Ray takes seconds to start): a tiny run with 2 actors, actors
killed during self-play, and the same run layout, sample format and metrics keys as the local
backend."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")
ray = pytest.importorskip("ray", reason="ray is not installed: pip install 'zeroplay[ray]' to run the Ray backend tests")

from zeroplay.train import ray_backend  # noqa: E402
from zeroplay.train.loop import TrainingRun, open_run  # noqa: E402
from zeroplay.train.metrics import read_metrics  # noqa: E402
from zeroplay.train.shards import read_shard  # noqa: E402

# one worker runs every test that starts a Ray instance (pytest -n --dist loadgroup), one at a time: two
# instances at once would contend for the machine's 2 CPUs and Ray's per-machine ports and files
pytestmark = pytest.mark.xdist_group("ray")

GAMES = 12  # per iteration: 6 per actor


def _open(run_dir, *, eval_games: int = 0, game: str = "tictactoe"):
    """A tiny run: tic-tac-toe, or 6x6 four in a row (longer games: a kill lands mid-game)."""
    options = {"size": 6, "n_in_row": 4} if game == "gomoku" else None
    structural = {"game": game, "net": "tiny", "features": None, "game_options": options}
    overrides = {"seed": 5,
                 "selfplay": {"playouts": 12 if game == "tictactoe" else 16, "precision": "fp32",
                              "parallel_games": 3 if game == "tictactoe" else 2},
                 "loop": {"games_per_iteration": GAMES, "steps_per_iteration": 2, "batch_size": 16,
                          "flush_games": 4, "eval_games": eval_games, "baseline": "uniform:8",
                          "eval_playouts": 8},
                 "train": {}}
    return open_run(run_dir, structural, overrides)


class Recording(ray_backend.RaySelfPlay):
    """RaySelfPlay that keeps every game it hands to the run, and can kill an actor right after
    its first game of a call (``kills``: per call, None or ``(slot, no_restart)``)."""

    last: "Recording | None" = None
    kills: list = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.accepted, self.calls, self.kills_done, self.where = [], 0, 0, None
        Recording.last = self

    def play(self, n_games, on_game):
        plan = Recording.kills[self.calls] if self.calls < len(Recording.kills) else None
        self.calls += 1
        if self.where is None:
            self.where = self.placement(timeout=120)

        def keep(game):
            nonlocal plan
            self.accepted.append(game)
            on_game(game)
            if plan is not None and self.last_slot == plan[0]:
                # the victim has just sent its first game of the call: it still owes 5, two of
                # them in progress (far longer than the kill takes to land)
                ray.kill(self.actors[plan[0]], no_restart=plan[1])
                self.kills_done += 1
                plan = None

        super().play(n_games, keep)


@pytest.fixture(scope="module")
def local_ray():
    if ray.is_initialized():
        ray.shutdown()
    assert ray_backend.connect(None, num_cpus=2)
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture
def recording(monkeypatch):
    monkeypatch.setattr(ray_backend, "RaySelfPlay", Recording)
    monkeypatch.setattr(Recording, "kills", [])
    Recording.last = None
    return Recording


def _ids(run_dir, game):
    ids = []
    for path in sorted((run_dir / "shards").glob("shard-*.npz")):
        ids.extend(read_shard(path, game, "basic").game_ids.tolist())
    return ids


def _check_buffer(run, games):
    """The buffer holds exactly the samples of ``games`` (the accepted ones), ids 0..n-1 once each."""
    ids = _ids(run.dir, run.game)
    assert ids == list(range(len(games)))
    expected = sum(len(g.samples(run.game, "basic")) for g in games)
    assert run.buffer.total_games == len(games)
    assert run.buffer.total_samples == expected
    selfplay = read_metrics(run.dir / "metrics.jsonl", "selfplay")
    assert sum(r["samples"] for r in selfplay) == expected
    assert sum(r["games"] for r in selfplay) == len(games)


@pytest.fixture(scope="module")
def ray_run(local_ray, tmp_path_factory):
    """A tiny run with 2 actors, 2 iterations (arena included), shared by two tests."""
    mp = pytest.MonkeyPatch()
    mp.setattr(ray_backend, "RaySelfPlay", Recording)
    mp.setattr(Recording, "kills", [])
    try:
        run_dir = tmp_path_factory.mktemp("ray") / "run"
        run = TrainingRun(run_dir, _open(run_dir, eval_games=2), workers=2, backend="ray", threads=1,
                          log=lambda msg: None)
        summary = run.run(iterations=2)
        return run, summary, Recording.last
    finally:
        mp.undo()


def test_the_local_instance_is_on_loopback_with_two_cpus(local_ray):
    nodes = [n for n in ray.nodes() if n["Alive"]]
    assert [n["NodeManagerAddress"] for n in nodes] == ["127.0.0.1"]
    assert ray.cluster_resources()["CPU"] == 2
    assert ray.get_runtime_context().gcs_address.startswith("127.0.0.1:")


def test_two_actors_two_iterations_buffer_holds_exactly_the_finished_games(ray_run):
    run, summary, source = ray_run
    assert summary["iteration"] == 2 and summary["games_total"] == 2 * GAMES
    assert len(source.accepted) == 2 * GAMES
    _check_buffer(run, source.accepted)
    # both actors played, each on its own process
    assert len({w["pid"] for w in source.where}) == 2
    # new weights went out once per iteration, and every game says which ones played it
    assert source.stats["weights_puts"] == 2
    assert [g.weights_version for g in source.accepted] == [0] * GAMES + [1] * GAMES
    versions = {(r["iteration"], r["weights_version"]) for r in read_metrics(run.dir / "metrics.jsonl", "selfplay")}
    assert versions == {(1, 0), (2, 1)}
    assert source.stats["stream_failures"] == 0 and source.stats["stale_games"] == 0


def test_killed_actors_lose_only_their_games_in_progress(local_ray, recording, tmp_path):
    # iteration 1: Ray restarts the killed actor (max_restarts); iteration 2: ray.kill without
    # restart, so the run replaces it
    recording.kills = [(0, False), (1, True)]
    run_dir = tmp_path / "run"
    run = TrainingRun(run_dir, _open(run_dir, game="gomoku"), workers=2, backend="ray", threads=1,
                      log=lambda msg: None)
    summary = run.run(iterations=2)
    source = recording.last
    assert summary["iteration"] == 2 and source.kills_done == 2
    assert source.stats["stream_failures"] >= 2
    assert source.stats["restarted"] >= 1 and source.stats["replaced"] >= 1
    assert len(source.accepted) == 2 * GAMES
    _check_buffer(run, source.accepted)
    assert len(set(_ids(run_dir, run.game))) == 2 * GAMES


def _shard_format(run_dir, game):
    path = sorted((run_dir / "shards").glob("shard-*.npz"))[0]
    with np.load(path) as z:
        arrays = {k: (z[k].dtype.str, z[k].shape[1:]) for k in z.files if k != "meta"}
        meta_keys = sorted(json.loads(str(z["meta"][()])))
    shard = read_shard(path, game, "basic")
    return arrays, meta_keys, sorted(vars(shard.samples))


def test_same_layout_sample_format_and_metrics_keys_as_the_local_backend(ray_run, tmp_path):
    ray_run_obj, _, _ = ray_run
    local_dir = tmp_path / "local"
    local = TrainingRun(local_dir, _open(local_dir, eval_games=2), workers=0, threads=1, log=lambda msg: None)
    local.run(iterations=2)
    ray_dir = ray_run_obj.dir
    game = local.game
    assert json.loads((ray_dir / "config.json").read_text()) == json.loads((local_dir / "config.json").read_text())
    for sub in ("checkpoints", "evals", "shards"):
        assert sorted(p.name for p in (ray_dir / sub).iterdir()) == sorted(p.name for p in (local_dir / sub).iterdir())
    assert _shard_format(ray_dir, game) == _shard_format(local_dir, game)

    def keys(run_dir):
        return {(r["kind"], tuple(sorted(r))) for r in read_metrics(run_dir / "metrics.jsonl")}

    assert keys(ray_dir) == keys(local_dir)
    assert {k for k, _ in keys(ray_dir)} == {"selfplay", "train", "arena"}


def test_bench_ray_selfplay_reports_both_backends(local_ray):
    from zeroplay.bench.ray_selfplay import measure
    from zeroplay.cli import build_parser

    args = build_parser().parse_args(["bench", "ray_selfplay", "--workers", "1", "--json"])
    assert args.what == "ray_selfplay" and args.workers == "1"
    out = measure([1], size=6, n_in_row=4, playouts=8, parallel_games=1, games_per_worker=1,
                  precision="fp32", traffic=False)
    assert {(r["backend"], r["workers"]) for r in out["results"]} == {("local", 1), ("ray", 1)}
    assert all(r["games_per_hour"] > 0 for r in out["results"]) and "1" in out["ray_overhead"]
    assert ray.is_initialized()  # the shared instance was not shut down by the bench
