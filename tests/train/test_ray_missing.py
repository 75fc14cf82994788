"""Without Ray: ``--backend ray`` says how to install it and exits non-zero; local stays the
default (issue 6). Runs whether or not ray is installed (the import is made to fail)."""

from __future__ import annotations

import sys

import pytest

from zeroplay.cli import build_parser, main
from zeroplay.train import ray_backend


@pytest.fixture
def no_ray(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError


def test_train_with_the_ray_backend_says_how_to_install_it(no_ray, tmp_path, capsys):
    run_dir = tmp_path / "run"
    code = main(["train", "--run-dir", str(run_dir), "--game", "tictactoe", "--backend", "ray",
                 "--iterations", "1", "--no-progress"])
    err = capsys.readouterr().err
    assert code != 0
    assert "pip install 'zeroplay[ray]'" in err
    assert not run_dir.exists()  # refused before anything is written


def test_the_backend_raises_a_clear_import_error(no_ray):
    with pytest.raises(ImportError, match=r"pip install 'zeroplay\[ray\]'"):
        ray_backend.require_ray()
    assert "pip install 'zeroplay[ray]'" in ray_backend.ray_missing_message()


def test_local_is_the_default_backend():
    args = build_parser().parse_args(["train", "--run-dir", "x"])
    assert args.backend == "local" and args.address is None
