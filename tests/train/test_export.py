"""``zeroplay export``: a run's checkpoint as a model file, without optimizer state, with provenance."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")

from zeroplay.cli import main  # noqa: E402
from zeroplay.nn import load_checkpoint, read_checkpoint_meta  # noqa: E402

TINY = ["--game", "tictactoe", "--net", "tiny", "--playouts", "8", "--games-per-iteration", "2",
        "--parallel-games", "2", "--steps", "1", "--batch-size", "8", "--eval-games", "2", "--eval-playouts", "4",
        "--baseline", "none", "--flush-games", "2", "--workers", "0", "--no-progress", "--threads", "1"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    run = tmp_path_factory.mktemp("export") / "run"
    assert main(["train", "--run-dir", str(run), *TINY, "--iterations", "2"]) == 0
    return run


def test_export_writes_weights_and_provenance(run_dir, tmp_path, capsys):
    out = tmp_path / "model.safetensors"
    assert main(["export", str(run_dir), "--out", str(out), "--iteration", "latest", "--status", "final"]) == 0
    captured = capsys.readouterr()
    shipped = json.loads(captured.out)
    assert "zeroplay play --game tictactoe --model" in captured.err
    meta = read_checkpoint_meta(out)
    assert meta["optimizer"] is None and meta["extra"]["shipped"] == shipped
    assert shipped["iteration"] == 2 and shipped["status"] == "final" and shipped["selfplay_games"] == 4
    assert shipped["cpu_hours_run_so_far"] is None and shipped["cpu_hours"] is None  # no cputime.tsv
    assert shipped["train_config"]["game"] == "tictactoe" and shipped["train_config"]["net"] == "tiny"
    src = run_dir / "checkpoints" / "iter-000002.safetensors"
    assert out.stat().st_size < src.stat().st_size  # the optimizer tensors are left out
    a, b = load_checkpoint(out), load_checkpoint(src)
    for k, v in a.model.state_dict().items():
        assert (v == b.model.state_dict()[k]).all()


def test_export_best_follows_the_evaluations(run_dir, tmp_path, capsys):
    best = json.loads(sorted((run_dir / "evals").glob("iter-*.json"))[-1].read_text())["best_after"]
    out = tmp_path / "best.safetensors"
    assert main(["export", str(run_dir), "--out", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["iteration"] == best


@pytest.mark.parametrize("extra, needle", [
    (["--iteration", "7"], "no checkpoint of iteration 7"),
    (["--iteration", "newest"], "--iteration must be best, latest or a number"),
])
def test_export_refuses_a_missing_iteration(run_dir, tmp_path, capsys, extra, needle):
    out = tmp_path / "x.safetensors"
    assert main(["export", str(run_dir), "--out", str(out), *extra]) == 2
    assert needle in capsys.readouterr().err and not out.exists()


def test_export_refuses_what_is_not_a_run(tmp_path, capsys):
    assert main(["export", str(tmp_path), "--out", str(tmp_path / "x.safetensors")]) == 2
    assert "is not a readable training run directory" in capsys.readouterr().err


def test_export_of_a_damaged_checkpoint_is_one_line(run_dir, tmp_path, capsys):
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    (copy / "checkpoints" / "iter-000002.safetensors").write_bytes(b"\0" * 64)
    assert main(["export", str(copy), "--out", str(tmp_path / "x.safetensors"), "--iteration", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("zeroplay export: error: ")


def test_export_refuses_a_bad_out_and_leaves_files_as_they_were(run_dir, tmp_path, capsys):
    (tmp_path / "afile").write_text("mine")
    cases = [(tmp_path, "is a directory"), (tmp_path / "model.txt", "must name a .safetensors file"),
             (tmp_path / "missing" / "m.safetensors", "no directory"),
             (tmp_path / "afile" / "m.safetensors", "afile is a file, not a directory")]
    for out, needle in cases:
        assert main(["export", str(run_dir), "--out", str(out)]) == 2
        assert needle in capsys.readouterr().err
    assert not (tmp_path / "missing").exists() and not (tmp_path / "model.txt").exists()


def test_export_says_when_it_replaces_a_file(run_dir, tmp_path, capsys):
    out = tmp_path / "m.safetensors"
    assert main(["export", str(run_dir), "--out", str(out)]) == 0
    assert "replaced" not in capsys.readouterr().err
    assert main(["export", str(run_dir), "--out", str(out), "--iteration", "1"]) == 0
    assert "replaced the file that was there" in capsys.readouterr().err
    assert read_checkpoint_meta(out)["extra"]["shipped"]["iteration"] == 1


def test_a_failed_write_is_one_line_and_keeps_the_old_file(run_dir, tmp_path, capsys, monkeypatch):
    import zeroplay.nn.checkpoint as checkpoint

    out = tmp_path / "m.safetensors"
    assert main(["export", str(run_dir), "--out", str(out)]) == 0
    before = out.read_bytes()
    capsys.readouterr()

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(checkpoint, "atomic_write_bytes", full_disk)
    assert main(["export", str(run_dir), "--out", str(out), "--iteration", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"zeroplay export: error: cannot write {out}: No space left on device"]
    assert out.read_bytes() == before


def test_cpu_hours_up_to_a_checkpoint_leave_out_later_training(tmp_path):
    from zeroplay.train.export import cpu_hours

    # an export of an older iteration used to carry the run's total: 8x8 iteration 9 said 5.167
    (tmp_path / "cputime.tsv").write_text(
        "start\twall_s\tuser_s\tsys_s\tcpu_s\trc\n"
        "2026-11-30T10:00:00Z\t3600\t3000\t600\t3600\t0\n"
        "2026-11-30T12:00:00Z\t1800\t\t\t1800\tkilled\n")
    (tmp_path / "cputime.live").write_text("2026-11-30T14:00:00Z 3600 7200\n")  # a chunk not booked yet
    assert cpu_hours(tmp_path) == 3.5
    assert cpu_hours(tmp_path, until="2026-11-30T11:30:00+00:00") == 1.0  # after the first chunk ended
    assert cpu_hours(tmp_path, until="2026-11-30T12:15:00+00:00") == 1.25  # a quarter into the second
    assert cpu_hours(tmp_path, until="2026-11-30T09:00:00+00:00") == 0.0
    assert cpu_hours(tmp_path / "missing") is None


def test_a_missing_iteration_names_the_ones_there(run_dir, tmp_path, capsys):
    assert main(["export", str(run_dir), "--out", str(tmp_path / "x.safetensors"), "--iteration", "9"]) == 2
    assert "(it has iterations 0, 1 and 2)" in capsys.readouterr().err


@pytest.mark.parametrize("row, needle", [
    ("\t\t\t\t\t", "line 2 is damaged (start ''"),
    ("garbage", "line 2 is damaged (start 'garbage'"),
    ("2026-11-30T10:00:00Z\t60\t\t\tabc\t0", "cpu_s 'abc'"),
])
def test_a_damaged_cputime_row_is_named(tmp_path, row, needle):
    """A bad row of cputime.tsv gave numpy/datetime's bare words ("Invalid isoformat string: ''")."""
    from zeroplay.train.export import cpu_hours

    (tmp_path / "cputime.tsv").write_text("start\twall_s\tuser_s\tsys_s\tcpu_s\trc\n" + row + "\n")
    with pytest.raises(ValueError, match="cputime.tsv line 2 is damaged") as info:
        cpu_hours(tmp_path)
    assert needle in str(info.value) and "mend or remove that line" in str(info.value)


def test_export_refuses_to_overwrite_the_runs_own_checkpoint(run_dir, capsys):
    own = run_dir / "checkpoints" / "iter-000001.safetensors"
    before = own.read_bytes()
    assert main(["export", str(run_dir), "--out", str(own), "--iteration", "2"]) == 2
    assert "a training run's checkpoint file" in capsys.readouterr().err and own.read_bytes() == before


def test_shogi_cannot_train_in_a_compiled_run_directory(run_dir, capsys):
    assert main(["train", "--game", "shogi", "--run-dir", str(run_dir), "--iterations", "3"]) == 2
    assert "holds a run of the compiled pipeline" in capsys.readouterr().err
    assert not (run_dir / "python-loop.json").exists()


def test_export_refuses_another_runs_checkpoints_too(run_dir, tmp_path, capsys):
    import shutil

    other = tmp_path / "other"
    shutil.copytree(run_dir, other)
    target = other / "checkpoints" / "iter-000001.safetensors"
    before = target.read_bytes()
    link = tmp_path / "link.safetensors"
    link.symlink_to(target)
    for out in (target, link, other / "checkpoints" / ".." / "checkpoints" / "iter-000009.safetensors"):
        assert main(["export", str(run_dir), "--out", str(out)]) == 2
        assert "a training run's checkpoint file" in capsys.readouterr().err
    assert target.read_bytes() == before and not (other / "checkpoints" / "iter-000009.safetensors").exists()
