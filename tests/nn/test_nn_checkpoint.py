"""Checkpoints: bit-exact round trip, clear refusals, damaged files, atomic saves, no pickle."""

import json
import os

import numpy as np
import pytest
import torch

import zeroplay
from zeroplay.games import make
from zeroplay.nn import (
    CheckpointError,
    CheckpointMismatchError,
    TrainConfig,
    Trainer,
    build_model,
    load_checkpoint,
    read_checkpoint_meta,
    save_checkpoint,
)
from zeroplay.files import atomic as atomic_file

FEATURES = "alphazero-gomoku"


def _trained(arch, game, steps=2):
    net = build_model(arch, game, FEATURES, seed=0)
    trainer = Trainer(net, TrainConfig(lr=1e-2))
    rng = np.random.default_rng(0)
    planes = (rng.random((8, 4, game.height, game.width)) < 0.2).astype(np.float32)
    legal = np.ones((8, game.num_actions), np.bool_)
    pi = np.full((8, game.num_actions), 1.0 / game.num_actions, np.float32)
    for _ in range(steps):
        trainer.train_step(planes, pi, rng.choice([-1.0, 1.0], 8).astype(np.float32), legal)
    return net, trainer, torch.from_numpy(planes)


@pytest.fixture
def saved(tmp_path, game6):
    net, trainer, planes = _trained("tiny", game6)
    path = tmp_path / "net.safetensors"
    save_checkpoint(path, net, game=game6, features=FEATURES, step=trainer.step, elo=123.5,
                    optimizer=trainer.optimizer_state(), extra={"iteration": 7})
    return path, net, trainer, planes


@pytest.mark.parametrize("arch", ["tiny", "b1c16"])
def test_round_trip_is_bit_exact(tmp_path, game6, arch):
    net, trainer, planes = _trained(arch, game6)
    path = tmp_path / f"{arch}.safetensors"
    save_checkpoint(path, net, game=game6, features=FEATURES, step=trainer.step)
    ck = load_checkpoint(path, game=game6, features=FEATURES, arch=arch)
    want, got = net.state_dict(), ck.model.state_dict()
    assert want.keys() == got.keys()
    for k in want:
        assert want[k].dtype == got[k].dtype and torch.equal(want[k], got[k]), k
    net.eval()
    with torch.inference_mode():
        a, b = net(planes), ck.model(planes)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])


def test_metadata_records_what_the_net_is(saved, game6):
    path, *_ = saved
    meta = read_checkpoint_meta(path)
    assert meta["game"] == {"name": "gomoku", "options": dict(game6.options)}
    assert meta["board"] == {"height": 6, "width": 6}
    assert meta["rule"] == "freestyle"
    assert meta["features"] == FEATURES and meta["planes_version"] == 1
    assert meta["arch"]["name"] == "tiny" and meta["step"] == 2 and meta["elo"] == 123.5
    assert meta["zeroplay_version"] == zeroplay.__version__
    assert meta["extra"] == {"iteration": 7}


def test_optimizer_state_resumes_training_exactly(saved, game6):
    path, net, trainer, planes = saved
    ck = load_checkpoint(path, game=game6)
    resumed = Trainer(ck.model, TrainConfig(lr=1e-2), step=ck.step)
    resumed.load_optimizer_state(*ck.optimizer)
    legal = np.ones((8, 36), np.bool_)
    pi = np.full((8, 36), 1 / 36, np.float32)
    z = np.ones(8, np.float32)
    trainer.train_step(planes.numpy(), pi, z, legal)
    resumed.train_step(planes.numpy(), pi, z, legal)
    for (k, a), b in zip(net.state_dict().items(), ck.model.state_dict().values()):
        assert torch.equal(a, b), k


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"game": make("tictactoe")}, ["game: checkpoint 'gomoku', wanted 'tictactoe'"]),
        ({"features": "basic"}, ["feature set: checkpoint 'alphazero-gomoku', wanted 'basic'"]),
        ({"arch": "b6c64"}, ["architecture: checkpoint 'tiny', wanted 'b6c64'"]),
        ({"game": make("gomoku", size=7, n_in_row=4)}, ["board size: checkpoint 6x6", "wanted 7x7"]),
        ({"game": make("gomoku", size=6, n_in_row=5)}, ["game option n_in_row: checkpoint 4, wanted 5"]),
    ],
)
def test_mismatch_is_refused_with_what_differs(saved, kwargs, words):
    path, *_ = saved
    before = path.read_bytes()
    with pytest.raises(CheckpointMismatchError) as err:
        load_checkpoint(path, **kwargs)
    for w in words:
        assert w in str(err.value)
    assert path.read_bytes() == before


def test_tower_loads_on_another_board_size(tmp_path, game6):
    net, _, _ = _trained("b1c16", game6)
    path = tmp_path / "tower.safetensors"
    save_checkpoint(path, net, game=game6, features=FEATURES)
    big = make("gomoku", size=9, n_in_row=4)
    ck = load_checkpoint(path, game=big, features=FEATURES, arch="b1c16")
    logits, _ = ck.model(torch.from_numpy(big.initial().planes(FEATURES)[None]))
    assert logits.shape == (1, 81)


def test_option_differences_are_structured_and_only_for_options_alone(saved):
    """Front-ends name a shipped model's rules from these (``factory._rules_differ``), not by
    parsing the messages of ``checkpoint_differences``."""
    from zeroplay.nn import option_differences

    path, *_ = saved  # a 6x6 four-in-a-row net
    assert option_differences(path, make("gomoku", size=6, n_in_row=5)) == {"n_in_row": (4, 5)}
    assert option_differences(path, make("gomoku", size=6, n_in_row=4)) is None  # it fits
    assert option_differences(path, make("go", size=6)) is None  # another game


@pytest.mark.parametrize("keep", [0, 5, 8, 60, "half", -1])
def test_truncated_file_is_rejected(saved, keep):
    path, *_ = saved
    data = path.read_bytes()
    cut = {"half": len(data) // 2}.get(keep, keep if keep != -1 else len(data) - 1)
    path.write_bytes(data[:cut])
    with pytest.raises(CheckpointError, match="truncated|corrupt|not a"):
        load_checkpoint(path)
    assert path.read_bytes() == data[:cut]


def test_flipped_weight_byte_fails_the_checksum(saved):
    path, *_ = saved
    data = bytearray(path.read_bytes())
    data[-100] ^= 0x40  # inside the last tensor's bytes
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="checksum"):
        load_checkpoint(path)


def test_damaged_header_and_foreign_files_are_rejected(saved, tmp_path):
    path, *_ = saved
    data = bytearray(path.read_bytes())
    data[12] = ord("#")  # breaks the JSON header
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="corrupt"):
        load_checkpoint(path)
    other = tmp_path / "plain.safetensors"
    from safetensors.torch import save_file

    save_file({"w": torch.zeros(2)}, other)
    with pytest.raises(CheckpointError, match="not a zeroplay checkpoint"):
        load_checkpoint(other)
    with pytest.raises(CheckpointError, match="no checkpoint"):
        load_checkpoint(tmp_path / "missing.safetensors")


def test_failed_save_leaves_the_old_checkpoint(saved, game6, monkeypatch):
    path, net, *_ = saved
    before = path.read_bytes()

    def crash(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(atomic_file.os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(path, net, game=game6, features=FEATURES, step=99)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert os.listdir(path.parent) == [path.name]  # no temp file left behind
    with pytest.raises(ValueError, match="feature set"):
        save_checkpoint(path, net, game=game6, features="basic")
    assert path.read_bytes() == before


def test_loading_never_unpickles(saved, monkeypatch):
    path, *_ = saved

    def no_pickle(*a, **k):
        raise AssertionError("torch.load must not be used on checkpoints")

    monkeypatch.setattr(torch, "load", no_pickle)
    load_checkpoint(path)


def test_metadata_is_plain_json_in_the_safetensors_header(saved):
    path, *_ = saved
    data = path.read_bytes()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + n])
    assert json.loads(header["__metadata__"]["zeroplay"])["format"] == "zeroplay-checkpoint"


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({}, []),
        ({"features": "basic"}, ["feature set"]),
        ({"game": make("gomoku", size=7, n_in_row=4)}, ["board size: checkpoint 6x6"]),
        ({"game": make("gomoku", size=6, n_in_row=5)}, ["game option n_in_row: checkpoint 4, wanted 5"]),
    ],
)
def test_header_only_differences_agree_with_loading(saved, kwargs, words):
    from zeroplay.nn import checkpoint_differences

    path, *_ = saved
    diffs = checkpoint_differences(path, **kwargs)
    assert all(any(w in d for d in diffs) for w in words) and bool(diffs) == bool(words)
    if not diffs:
        load_checkpoint(path, **kwargs)
    else:
        with pytest.raises(CheckpointMismatchError):
            load_checkpoint(path, **kwargs)


@pytest.mark.parametrize("keep", [0, 5, 8, 60, "half", -1])
def test_header_only_reader_rejects_truncated_files(saved, keep):
    from zeroplay.nn import checkpoint_differences

    path, *_ = saved
    data = path.read_bytes()
    path.write_bytes(data[: {"half": len(data) // 2}.get(keep, keep if keep != -1 else len(data) - 1)])
    with pytest.raises(CheckpointError, match="truncated|corrupt|not a"):
        checkpoint_differences(path)



def test_checkpoint_game_reads_the_game_from_the_header(saved, tmp_path):
    from zeroplay.nn.record import checkpoint_game

    path, *_ = saved
    name, options = checkpoint_game(path)
    assert name == "gomoku" and options["n_in_row"] == 4 and options["width"] == 6
    for bad in (tmp_path / "missing.safetensors", tmp_path):
        with pytest.raises(CheckpointError):
            checkpoint_game(bad)
    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"\x10" + b"\x00" * 7 + b"not json at all!")
    with pytest.raises(CheckpointError):
        checkpoint_game(junk)


def _rewrite_arch(path, **arch):
    """The same tensors (and checksum) under an architecture record changed by hand."""
    from safetensors.torch import load as st_load, save as st_save

    data = path.read_bytes()
    header = json.loads(data[8:8 + int.from_bytes(data[:8], "little")])
    record = json.loads(header["__metadata__"]["zeroplay"])
    record["arch"].update(arch)
    path.write_bytes(st_save(st_load(data), metadata={"format": "pt", "zeroplay": json.dumps(record)}))


@pytest.mark.parametrize("arch", [{"channels": 10**6}, {"blocks": 10**9}, {"height": 10**5, "width": 10**5},
                                  {"num_actions": 2**40}, {"in_channels": 3}, {"kind": "tower", "blocks": 2}])
def test_an_absurd_architecture_record_is_refused_before_any_net_is_built(saved, monkeypatch, arch):
    # issue 23: such headers made play, arena, serve, export and pbrain allocate 150-576 GB
    path, *_ = saved
    _rewrite_arch(path, **arch)
    import zeroplay.nn.checkpoint as ck

    real = ck.model_from_spec

    def only_on_meta(spec):
        assert torch.empty(0).device.type == "meta", "a net was built with real storage"
        return real(spec)

    monkeypatch.setattr(ck, "model_from_spec", only_on_meta)
    with pytest.raises(CheckpointError, match="corrupt: arch|does not fit architecture"):
        load_checkpoint(path)


@pytest.mark.parametrize("text", [b"not a model\n", b"#!/bin/sh\necho hello world\n" * 3, b"\x01" + bytes(7) + b"xyz"])
def test_a_file_of_another_kind_is_not_a_model_file_without_a_nonsense_size(tmp_path, text):
    from zeroplay.nn import checkpoint_differences

    path = tmp_path / "notmodel.txt"
    path.write_bytes(text)
    for load in (load_checkpoint, checkpoint_differences):
        with pytest.raises(CheckpointError) as err:
            load(path)
        assert str(err.value) == f"{path} is not a model file (safetensors checkpoint)"


@pytest.mark.parametrize("keep", [8, 60, "half"])
def test_a_truncated_checkpoint_still_says_truncated(saved, keep):
    path, *_ = saved
    data = path.read_bytes()
    path.write_bytes(data[: {"half": len(data) // 2}.get(keep, keep)])
    with pytest.raises(CheckpointError, match="truncated"):
        load_checkpoint(path)
