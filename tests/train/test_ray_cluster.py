"""Ray backend on two nodes of one machine (``ray.cluster_utils.Cluster``, both on 127.0.0.1, one
CPU each), joined by address as ``--address HOST:PORT`` does: the actors are placed on both nodes
and the run completes (issue 6)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")
ray = pytest.importorskip("ray", reason="ray is not installed: pip install 'zeroplay[ray]' to run the Ray backend tests")

from ray.cluster_utils import Cluster  # noqa: E402

from zeroplay.train import ray_backend  # noqa: E402
from zeroplay.train.loop import TrainingRun, open_run  # noqa: E402

# one worker runs every test that starts a Ray instance (pytest -n --dist loadgroup), one at a time: two
# instances at once would contend for the machine's 2 CPUs and Ray's per-machine ports and files
pytestmark = pytest.mark.xdist_group("ray")


@pytest.fixture(scope="module")
def two_nodes():
    if ray.is_initialized():
        ray.shutdown()
    with ray_backend._loopback_only():  # every node and the driver on 127.0.0.1
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False,
                                                                "object_store_memory": 80 << 20})
        try:
            cluster.add_node(num_cpus=1, object_store_memory=80 << 20)
            cluster.wait_for_nodes()
        except BaseException:
            cluster.shutdown()
            raise
    try:
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
    nodes = two_nodes.list_all_nodes()
    assert len(nodes) == 2 and {n.node_ip_address for n in nodes} == {"127.0.0.1"}
    assert not ray.is_initialized()  # the run joins the cluster itself, by its address
    monkeypatch.setattr(ray_backend, "RaySelfPlay", Placed)
    run_dir = tmp_path / "run"
    config = open_run(run_dir, {"game": "tictactoe", "net": "tiny", "features": None, "game_options": None},
                      {"seed": 3, "selfplay": {"playouts": 8, "parallel_games": 2, "precision": "fp32"},
                       "loop": {"games_per_iteration": 4, "steps_per_iteration": 1, "batch_size": 8,
                                "eval_games": 0}})
    # workers 0: one actor per CPU of the cluster (2)
    run = TrainingRun(run_dir, config, workers=0, backend="ray", address=two_nodes.address, threads=1,
                      log=lambda msg: None)
    # the switch that keeps 127.0.0.1 as it is: without it Ray rewrites a loopback address to the
    # machine's own (right for `ray start` clusters, which listen on every interface)
    with ray_backend._loopback_only():
        summary = run.run(iterations=1)
    assert summary["iteration"] == 1 and summary["games_total"] == 4
    assert len(Placed.where) == 2 and all(w is not None for w in Placed.where)
    assert {w["node_id"] for w in Placed.where} == {n.node_id for n in nodes}
    assert {w["node_ip"] for w in Placed.where} == {"127.0.0.1"}
    assert not ray.is_initialized()  # the run disconnected at the end ...
    assert all(n.remaining_processes_alive() for n in nodes)  # ... and left the cluster running
