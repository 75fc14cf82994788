"""``--address auto`` with no Ray cluster to join: zeroplay's one-line message (how to start one,
or to leave --address out), not Ray's; a stale or dead address that ``auto`` stands for is probed
as a HOST:PORT is. No Ray instance is started: Ray's temp dir is an empty temporary directory."""

from __future__ import annotations

import socket

import pytest

ray = pytest.importorskip("ray", reason="ray is not installed: pip install 'zeroplay[ray]' to run the Ray backend tests")

from zeroplay.train import ray_backend  # noqa: E402


@pytest.fixture
def no_cluster(monkeypatch, tmp_path):
    """This machine as one with no Ray cluster: no RAY_ADDRESS, no ``ray start`` recorded in Ray's
    temp dir ($RAY_TMPDIR/ray), and no Ray head process found (a cluster that another process may
    run here meanwhile, e.g. another test, would rightly be found by ``auto``)."""
    services = pytest.importorskip("ray._private.services", reason="this Ray version has no ray._private.services (address lookup)")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path))
    monkeypatch.setattr(services, "find_gcs_addresses", lambda: frozenset())
    if ray_backend.auto_address() == "auto":
        pytest.skip("this Ray version has no address lookup that zeroplay can ask")
    return tmp_path


@pytest.fixture
def dead_port():
    with socket.socket() as s:  # a port nothing listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


def test_auto_without_a_cluster_says_how_to_start_one(no_cluster):
    assert ray_backend.auto_address() is None
    with pytest.raises(ConnectionError) as e:
        ray_backend.check_reachable("auto")
    message = str(e.value)
    assert message.startswith("--address auto: no running Ray cluster found")
    assert "ray start --head" in message and "leave --address out" in message
    assert "\n" not in message


def test_auto_is_what_ray_start_recorded_and_a_dead_one_is_refused(no_cluster, dead_port):
    (no_cluster / "ray").mkdir()
    (no_cluster / "ray" / "ray_current_cluster").write_text(f"127.0.0.1:{dead_port}\n")  # head gone
    assert ray_backend.auto_address() == f"127.0.0.1:{dead_port}"
    with pytest.raises(ConnectionError, match=f"^--address auto: no Ray cluster reachable at 127.0.0.1:{dead_port}"):
        ray_backend.check_reachable("auto")


def test_auto_is_ray_address_when_set(no_cluster, dead_port, monkeypatch):
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{dead_port}")
    with pytest.raises(ConnectionError, match=f"^--address auto: no Ray cluster reachable at 127.0.0.1:{dead_port}"):
        ray_backend.check_reachable("auto")


def test_train_with_address_auto_and_no_cluster_is_refused_in_one_line(no_cluster, tmp_path, capsys):
    pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")
    if ray.is_initialized():
        pytest.skip("this process is connected to Ray already: --address is not looked at")
    from zeroplay.cli import main

    run = tmp_path / "run"
    code = main(["train", "--run-dir", str(run), "--game", "tictactoe", "--net", "tiny", "--backend", "ray",
                 "--address", "auto", "--iterations", "1", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.strip().splitlines() == [
        "zeroplay train: error: --address auto: no running Ray cluster found (none started with `ray start` on this "
        "machine, RAY_ADDRESS not set); start one with `ray start --head`, or leave --address out for a local one"]
    assert not run.exists()  # refused before anything is written
