"""``zeroplay.nn.shipped``: the shipped models' folder, name -> file, their names; in the nn room so
that the arena (train room) and play resolve a name the same way."""

from __future__ import annotations

import subprocess
import sys

import pytest

from zeroplay.nn import shipped
from zeroplay.nn.shipped import MODELS_DIR, model_files, resolve_model, shipped_names

SIX = MODELS_DIR / "gomoku-6x6-4-freestyle.safetensors"


def test_play_engine_re_exports_the_same_lookup():
    from zeroplay.engine import factory as engine

    assert engine.MODELS_DIR == MODELS_DIR
    for name in ("model_files", "resolve_model", "shipped_names"):
        assert getattr(engine, name) is getattr(shipped, name)


def test_names_are_the_files_stems():
    assert shipped_names() == [p.stem for p in model_files()]
    assert all(p.parent == MODELS_DIR and p.suffix == ".safetensors" for p in model_files())
    assert model_files(MODELS_DIR / "no-such-dir") == [] and shipped_names(MODELS_DIR / "no-such-dir") == []


def test_a_name_gives_its_file_and_other_values_stay():
    for path in model_files():
        assert resolve_model(path.stem) == str(path) == resolve_model(path.name)
    assert resolve_model("no-such-model") == "no-such-model"
    assert resolve_model("dir/gomoku-6x6-4-freestyle") == "dir/gomoku-6x6-4-freestyle"


def test_a_file_of_that_name_here_wins_a_directory_does_not(tmp_path, monkeypatch):
    if not SIX.exists():
        pytest.skip("the shipped 6x6 model is not in this checkout (src/zeroplay/models/)")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gomoku-6x6-4-freestyle").mkdir()
    assert resolve_model("gomoku-6x6-4-freestyle") == str(SIX)
    (tmp_path / "gomoku-6x6-4-freestyle.safetensors").write_bytes(b"mine")
    assert resolve_model("gomoku-6x6-4-freestyle.safetensors") == "gomoku-6x6-4-freestyle.safetensors"


def test_importing_it_imports_no_torch():
    code = "import sys, zeroplay.nn.shipped as s; s.shipped_names(); assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
