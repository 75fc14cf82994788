"""Ray backend on two nodes of one machine (``ray.cluster_utils.Cluster``, both on 127.0.0.1, one
CPU each): the actors are placed on both nodes and the run completes (issue 6)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
ray = pytest.importorskip("ray", reason="ray is not installed: pip install 'zeroplay[ray]' to run the Ray backend tests")

from ray.cluster_utils import Cluster  # noqa: E402

from zeroplay.train import ray_backend  # noqa: E402
from zeroplay.train.loop import TrainingRun, open_run  # noqa: E402


@pytest.fixture(scope="module")
def two_nodes():
    if ray.is_initialized():
        ray.shutdown()
    with ray_backend._loopback_only():  # every node and the driver on 127.0.0.1
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False,
                                                                "object_store_memory": 80 << 20})
        try:
            cluster.add_node(num_cpus=1, object_store_memory=80 << 20)
            ray.init(address=cluster.address)
        except BaseException:
            cluster.shutdown()
            raise
    try:
        cluster.wait_for_nodes()
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


class Placed(ray_backend.RaySelfPlay):
    where: list = []

    def play(self, n_games, on_game):
        Placed.where = self.placement(timeout=120)
        super().play(n_games, on_game)


def test_actors_run_on_both_nodes_and_the_run_completes(two_nodes, tmp_path, monkeypatch):
    nodes = [n for n in ray.nodes() if n["Alive"]]
    assert len(nodes) == 2 and {n["NodeManagerAddress"] for n in nodes} == {"127.0.0.1"}
    monkeypatch.setattr(ray_backend, "RaySelfPlay", Placed)
    run_dir = tmp_path / "run"
    config = open_run(run_dir, {"game": "tictactoe", "net": "tiny", "features": None, "game_options": None},
                      {"seed": 3, "selfplay": {"playouts": 8, "parallel_games": 2, "precision": "fp32"},
                       "loop": {"games_per_iteration": 4, "steps_per_iteration": 1, "batch_size": 8,
                                "eval_games": 0}})
    # workers 0: one actor per CPU of the cluster (2); the address is the joined cluster's
    run = TrainingRun(run_dir, config, workers=0, backend="ray", address=two_nodes.address, threads=1,
                      log=lambda msg: None)
    summary = run.run(iterations=1)
    assert summary["iteration"] == 1 and summary["games_total"] == 4
    assert len(Placed.where) == 2 and all(w is not None for w in Placed.where)
    assert {w["node_id"] for w in Placed.where} == {n["NodeID"] for n in nodes}
    assert ray.is_initialized()  # a joined cluster is left running
