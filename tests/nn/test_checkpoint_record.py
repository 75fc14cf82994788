"""A checkpoint whose JSON record is valid JSON of the wrong shape is refused in words.

Each case rewrites one field of a saved checkpoint's zeroplay record (the safetensors container
and the weights stay whole) and expects ``CheckpointError`` naming the field from every reader:
``read_checkpoint_meta``, the header-only ``checkpoint_differences`` / ``checkpoint_game``, and
``load_checkpoint``; never a KeyError or TypeError from deeper down.
"""

import json
import struct

import pytest

from zeroplay.nn import (CheckpointError, build_model, checkpoint_differences, load_checkpoint,
                         read_checkpoint_meta, save_checkpoint)
from zeroplay.nn.record import checkpoint_game


def rewrite_record(path, change) -> None:
    """Rewrite the zeroplay record in ``path``'s header with ``change(record)`` (it edits the dict
    in place); the tensor data is kept byte for byte."""
    data = path.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    record = json.loads(header["__metadata__"]["zeroplay"])
    change(record)
    header["__metadata__"]["zeroplay"] = json.dumps(record)
    head = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(head)) + head + data[8 + n :])


def _set(field, value):
    """A change that sets the dotted ``field`` to ``value`` (a ``...`` value deletes it)."""

    def change(record):
        *parents, last = field.split(".")
        for key in parents:
            record = record[key]
        if value is ...:
            del record[last]
        else:
            record[last] = value

    return change


BAD = [
    ("game.options", ..., "record field game.options is missing (wanted an object)"),
    ("game", "gomoku", "record field game is 'gomoku' (wanted an object)"),
    ("game.options", [6, 6], "record field game.options is [6, 6] (wanted an object)"),
    ("game.name", 7, "record field game.name is 7 (wanted a string)"),
    ("game.options.width", "six", "record field game.options.width is 'six' (wanted a positive integer)"),
    ("game.options.n_in_row", 4.5, "record field game.options.n_in_row is 4.5 (wanted a positive integer)"),
    ("board", [6, 6], "record field board is [6, 6] (wanted an object)"),
    ("board.height", "6", "record field board.height is '6' (wanted a positive integer)"),
    ("board.width", True, "record field board.width is True (wanted a positive integer)"),
    ("features", 3, "record field features is 3 (wanted a string)"),
    ("step", "2", "record field step is '2' (wanted an integer)"),
    ("arch", "tiny", "record field arch is 'tiny' (wanted an object)"),
    ("arch.kind", ..., "record field arch.kind is missing (wanted a string)"),
    ("arch.height", "x", "record field arch.height is 'x' (wanted an integer)"),
    ("arch.depth", 3, "record field arch has unknown fields depth"),
    ("extra", [1], "record field extra is [1] (wanted an object)"),
    ("arch", ..., "its record lacks arch"),
]


@pytest.fixture
def saved(tmp_path, game6):
    path = tmp_path / "net.safetensors"
    save_checkpoint(path, build_model("tiny", game6, "basic", seed=0), game=game6, features="basic")
    return path


@pytest.mark.parametrize("field, value, words", BAD, ids=[f"{f}={v!r}" for f, v, _ in BAD])
def test_malformed_record_is_refused_by_every_reader(saved, game6, field, value, words):
    rewrite_record(saved, _set(field, value))
    before = saved.read_bytes()
    want = f"checkpoint {saved} is corrupt: {words}"
    for read in (read_checkpoint_meta, checkpoint_game, lambda p: checkpoint_differences(p, game=game6),
                 lambda p: load_checkpoint(p, game=game6)):
        with pytest.raises(CheckpointError) as info:
            read(saved)
        assert str(info.value) == want
    assert saved.read_bytes() == before  # only read


def test_optional_fields_may_be_null_or_missing(saved, game6):
    """Records written before a field existed, or with nothing to say, still load."""
    def change(record):
        record["elo"] = record["optimizer"] = record["rule"] = None
        del record["extra"], record["tensors_sha256"], record["game"]["options"]["rule"]

    rewrite_record(saved, change)
    assert read_checkpoint_meta(saved)["elo"] is None
    assert checkpoint_differences(saved, game=game6) == ["game option rule: checkpoint None, wanted 'freestyle'"]


def test_damaged_weights_fail_the_checksum_only_at_load(saved, game6):
    """The header readers cannot see damaged tensor bytes; ``load_checkpoint`` refuses them."""
    data = bytearray(saved.read_bytes())
    data[-5] ^= 0xFF
    saved.write_bytes(bytes(data))
    assert read_checkpoint_meta(saved)["features"] == "basic"
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(saved, game=game6)
    assert str(info.value) == f"checkpoint {saved} is corrupt: tensor data does not match its checksum"


def test_a_shipped_model_that_does_not_fit_is_named_not_located(tmp_path):
    """The web board's 400 and pbrain's ERROR showed where the package lies on the server."""
    from zeroplay.nn.record import CheckpointMismatchError
    from zeroplay.nn.shipped import MODELS_DIR

    shipped = CheckpointMismatchError(MODELS_DIR / "gomoku-8x8-5-freestyle.safetensors", ["board size: x"])
    assert str(shipped) == "checkpoint gomoku-8x8-5-freestyle does not fit: board size: x"
    mine = CheckpointMismatchError(tmp_path / "mine.safetensors", ["board size: x"])
    assert str(mine) == f"checkpoint {tmp_path / 'mine.safetensors'} does not fit: board size: x"
