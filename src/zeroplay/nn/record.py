"""The JSON record of a checkpoint file, read and checked without torch.

``read_checkpoint_meta`` and ``checkpoint_differences`` read only the file's header (8-byte length
plus JSON, see ``zeroplay.nn.checkpoint``), so that choosing among shipped models costs no torch
import; ``load_checkpoint`` uses the same checks before it loads the weights.
"""

from __future__ import annotations

import dataclasses
import json
import os
import struct
from pathlib import Path

from zeroplay import __version__
from zeroplay.games import Game
from zeroplay.nn.arch import PLANES_VERSION, ArchSpec

FORMAT = "zeroplay-checkpoint"
FORMAT_VERSION = 1
_SIZE_OPTIONS = ("width", "height", "size")
_MAX_HEADER = 100 * 1024 * 1024


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used: missing, truncated, corrupt, or of another format."""


class CheckpointMismatchError(CheckpointError):
    """A valid checkpoint made for another game, feature set, architecture or board size.

    Attributes:
        differences: one line per field that differs, e.g. ``"feature set: checkpoint 'basic',
            wanted 'alphazero-gomoku'"``.
    """

    def __init__(self, path, differences: list[str]):
        from zeroplay.nn.shipped import MODELS_DIR

        self.differences = differences
        # a shipped model by its name: where the package lies is no business of a web client
        # or a Gomocup manager, and the name is what --model takes
        shipped = Path(path).resolve().parent == MODELS_DIR.resolve()
        shown = Path(path).stem if shipped else os.fspath(path)
        super().__init__(f"checkpoint {shown} does not fit: " + "; ".join(differences))


def _implausible(n: int, data: bytes) -> bool:
    """Whether header length ``n`` (the file's first 8 bytes) and the bytes after it cannot be a
    checkpoint's: over ``_MAX_HEADER``, or a header that does not open with ``{`` (safetensors'
    JSON): another kind of file (a text file's first 8 letters read as a length of 10^18 bytes),
    not a truncated checkpoint."""
    return n > _MAX_HEADER or (len(data) > 8 and data[8:9] != b"{")


def _not_a_model(where: str) -> str:
    return f"{where} is not a model file (safetensors checkpoint)"


SHOGI_NET_FORMAT = "zeroplay-shogi-net-1"
"""The ``format`` field of the nets ``zeroplay.nn.shogi_net`` saves (not this record's format)."""


def _parse(path, data: bytes, size: int | None = None) -> dict:
    """The zeroplay record of ``data`` (the file, or its first bytes when ``size``, the file's
    size, is given), after checking the container is whole."""
    where = os.fspath(path)
    size = len(data) if size is None else size
    if size < 8:
        raise CheckpointError(f"checkpoint {where} is truncated or not a checkpoint ({size} bytes)")
    (n,) = struct.unpack("<Q", data[:8])
    if _implausible(n, data):
        raise CheckpointError(_not_a_model(where))
    if n > min(size - 8, len(data) - 8, _MAX_HEADER):
        raise CheckpointError(
            f"checkpoint {where} is truncated or not a checkpoint: header says {n} bytes, "
            f"file has {size - 8} after the length field"
        )
    try:
        header = json.loads(data[8 : 8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"checkpoint {where} is corrupt or not a checkpoint (header: {e})") from None
    if isinstance(header, dict) and (header.get("__metadata__") or {}).get("format") == SHOGI_NET_FORMAT:
        raise CheckpointError(f"{where} is a shogi net (zeroplay train --game shogi writes its own format): "
                              f"play it with the arena player shogimcts:PLAYOUTS@{where}, or usi-zeroplay's "
                              "MCTS engine")
    if not isinstance(header, dict) or "zeroplay" not in (header.get("__metadata__") or {}):
        raise CheckpointError(f"{where} is corrupt or not a zeroplay checkpoint (no zeroplay record in its "
                              f"header: weights saved by another program cannot be loaded)")
    try:
        record = json.loads(header["__metadata__"]["zeroplay"])
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as e:
        raise CheckpointError(f"checkpoint {where} is corrupt or not a zeroplay checkpoint (header: {e})") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise CheckpointError(f"{where} is not a zeroplay checkpoint")
    if record.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(
            f"checkpoint {where} has format version {record.get('format_version')!r}; this zeroplay "
            f"({__version__}) reads version {FORMAT_VERSION}"
        )
    missing = [k for k in ("game", "board", "features", "planes_version", "arch", "step") if k not in record]
    if missing:
        raise CheckpointError(f"checkpoint {where} is corrupt: its record lacks {', '.join(missing)}")
    _check_fields(where, record)
    try:
        ends = [int(v["data_offsets"][1]) for k, v in header.items() if k != "__metadata__"]
    except (KeyError, TypeError, ValueError, IndexError):
        raise CheckpointError(f"checkpoint {where} is corrupt: bad tensor entries in its header") from None
    have = size - 8 - n
    if max(ends, default=0) != have:
        raise CheckpointError(
            f"checkpoint {where} is truncated or corrupt: header promises {max(ends, default=0)} bytes "
            f"of tensor data, the file has {have}"
        )
    return record


_MISSING = object()
_KINDS = {
    "an object": lambda v: isinstance(v, dict),
    "a string": lambda v: isinstance(v, str),
    "an integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "a positive integer": lambda v: isinstance(v, int) and not isinstance(v, bool) and v > 0,
    "a number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "a boolean": lambda v: isinstance(v, bool),
}
# (dotted field, kind, required); a parent comes before its children. Optional fields may be
# missing or null.
_FIELDS = (
    ("game", "an object", True),
    ("game.name", "a string", True),
    ("game.options", "an object", True),
    *((f"game.options.{k}", "a positive integer", False) for k in (*_SIZE_OPTIONS, "n_in_row")),
    ("game.options.rule", "a string", False),
    ("board", "an object", True),
    ("board.height", "a positive integer", True),
    ("board.width", "a positive integer", True),
    ("rule", "a string", False),
    ("features", "a string", True),
    ("planes_version", "an integer", True),
    ("arch", "an object", True),
    # a field of another type added to ArchSpec fails here, at import, until it is given a kind
    *((f"arch.{f.name}", {"str": "a string", "int": "an integer", "bool": "a boolean"}[str(f.type)], f.default is dataclasses.MISSING)
      for f in dataclasses.fields(ArchSpec)),
    ("step", "an integer", True),
    ("elo", "a number", False),
    ("tensors_sha256", "a string", False),
    ("optimizer", "an object", False),
    ("extra", "an object", False),
)


def _check_fields(where: str, record: dict) -> None:
    """Refuse a record whose fields do not have the types its readers index them with.

    ``_differences``, ``ArchSpec``, ``Checkpoint`` and the play commands index the record freely
    (``record["game"]["options"]``, ``int(record["step"])``): a hand-edited or foreign-written record
    must be refused here with the field named, not fail later as a KeyError or TypeError.

    Raises:
        CheckpointError: e.g. ``checkpoint PATH is corrupt: record field game.options is missing
            (wanted an object)``.
    """
    for name, kind, required in _FIELDS:
        value = record
        for key in name.split("."):
            value = value.get(key, _MISSING)
        if (value is _MISSING or value is None) and not required:
            continue
        if value is not _MISSING and _KINDS[kind](value):
            continue
        shown = "missing" if value is _MISSING else repr(value)
        shown = shown if len(shown) <= 40 else shown[:40] + "..."
        raise CheckpointError(f"checkpoint {where} is corrupt: record field {name} is {shown} (wanted {kind})")
    unknown = sorted(set(record["arch"]) - {f.name for f in dataclasses.fields(ArchSpec)})
    if unknown:
        raise CheckpointError(f"checkpoint {where} is corrupt: record field arch has unknown fields "
                              f"{', '.join(unknown)}")


def read_checkpoint_meta(path: str | os.PathLike) -> dict:
    """The JSON record of the checkpoint at ``path`` (weights not loaded, hash not checked).

    Raises:
        CheckpointError: missing, truncated, not a checkpoint, or a record field of the wrong type
            (the field named). An OSError (permission denied, ...) passes through: the commands
            word it (``zeroplay.engine.factory.unreadable``).
    """
    return _parse(path, _read(path))


def _read(path) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise CheckpointError(f"no checkpoint at {os.fspath(path)}") from None
    except IsADirectoryError:
        raise CheckpointError(f"{os.fspath(path)} is a directory, not a checkpoint") from None


def _compared_options(theirs: dict, game: Game) -> list[str]:
    """The game options a checkpoint must share with ``game``: all but the board size and the
    options that only move the final margin (Go's komi)."""
    return sorted((set(theirs) | set(game.options)) - set(_SIZE_OPTIONS) - set(getattr(game, "value_only_options", ())))


def _differences(record: dict, spec: ArchSpec, game: Game | None, features: str | None,
                 arch: str | None) -> list[str]:
    diffs = []
    if game is not None:
        theirs = record["game"]
        if theirs["name"] != game.name:
            diffs.append(f"game: checkpoint {theirs['name']!r}, wanted {game.name!r}")
        else:
            # board size is compared separately: only size-specific nets care; options that only
            # move the final margin (Go's komi) do not stop a net from playing
            for k in _compared_options(theirs["options"], game):
                a, b = theirs["options"].get(k), game.options.get(k)
                if a != b:
                    diffs.append(f"game option {k}: checkpoint {a!r}, wanted {b!r}")
            if spec.size_specific and (spec.height, spec.width) != (game.height, game.width):
                diffs.append(  # width x height, as boards are named everywhere else
                    f"board size: checkpoint {spec.width}x{spec.height} ({spec.name} is size-specific), "
                    f"wanted {game.width}x{game.height}"
                )
    if features is not None and record["features"] != features:
        diffs.append(f"feature set: checkpoint {record['features']!r}, wanted {features!r}")
    if record.get("planes_version") != PLANES_VERSION:
        diffs.append(f"planes version: checkpoint {record.get('planes_version')!r}, this zeroplay {PLANES_VERSION}")
    if arch is not None and spec.name != arch:
        diffs.append(f"architecture: checkpoint {spec.name!r}, wanted {arch!r}")
    return diffs


def read_header(path: str | os.PathLike) -> tuple[dict, bytes]:
    """``(record, header bytes)`` of the checkpoint at ``path``, reading the header only.

    Raises:
        CheckpointError: missing, not a checkpoint, or a corrupt header (the tensor data is not
            read, so a damaged body is found only by ``load_checkpoint``).
    """
    where = os.fspath(path)
    try:
        with open(path, "rb") as f:
            head = f.read(8)
            if len(head) < 8:
                raise CheckpointError(f"checkpoint {where} is truncated or not a checkpoint ({len(head)} bytes)")
            (n,) = struct.unpack("<Q", head)
            if _implausible(n, head + f.read(1)):
                raise CheckpointError(_not_a_model(where))
            f.seek(8)
            header = f.read(n)
            size = os.fstat(f.fileno()).st_size
    except FileNotFoundError:
        raise CheckpointError(f"no checkpoint at {where}") from None
    except IsADirectoryError:
        raise CheckpointError(f"{where} is a directory, not a checkpoint") from None
    return _parse(path, head + header, size), header


def checkpoint_game(path: str | os.PathLike) -> tuple[str, dict]:
    """``(game name, game options)`` the checkpoint at ``path`` was trained on, from its header.

    Raises:
        CheckpointError: missing, not a checkpoint, a corrupt header, or a malformed game entry.
    """
    try:
        game = read_header(path)[0]["game"]
        return str(game["name"]), dict(game.get("options") or {})
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        if isinstance(e, CheckpointError):
            raise
        raise CheckpointError(f"checkpoint {os.fspath(path)} is corrupt: bad game entry ({e})") from None


def checkpoint_differences(path: str | os.PathLike, *, game: Game | None = None, features: str | None = None,
                           arch: str | None = None) -> list[str]:
    """Why the checkpoint at ``path`` would not load for ``game`` (empty: it fits), header only.

    Raises:
        CheckpointError: as ``read_header``.
    """
    record, spec = _header_spec(path)
    return _differences(record, spec, game, features, arch)


def _header_spec(path: str | os.PathLike) -> tuple[dict, ArchSpec]:
    """The checkpoint's record and architecture, from its header alone (``CheckpointError``)."""
    record, _ = read_header(path)
    try:
        return record, ArchSpec.from_dict(record["arch"])
    except (KeyError, ValueError) as e:
        raise CheckpointError(f"checkpoint {os.fspath(path)} has a bad architecture record: {e}") from None


def option_differences(path: str | os.PathLike, game: Game) -> dict[str, tuple[object, object]] | None:
    """The game options in which the checkpoint at ``path`` differs from ``game``, as name ->
    (the checkpoint's value, ``game``'s), when those are all that keep it from loading (header
    only); None when it fits, or when anything else differs too (the game, a size-specific
    board, the planes version). Front-ends name a shipped model's rules with it ("the shipped
    go-9x9 plays scoring 'area'").

    Raises:
        CheckpointError: as ``read_header``.
    """
    record, spec = _header_spec(path)
    diffs = _differences(record, spec, game, None, None)
    if not diffs or not all(d.startswith("game option ") for d in diffs):
        return None
    theirs = record["game"]["options"]
    return {k: (theirs.get(k), game.options.get(k)) for k in _compared_options(theirs, game)
            if theirs.get(k) != game.options.get(k)}


def check_shapes(where: str, arch: str, expected: dict[str, tuple], have: dict[str, tuple]) -> None:
    """Raise ``CheckpointError`` unless the tensors ``have`` (name -> shape) are exactly those the
    architecture ``arch`` needs (``expected``): a wrong shape, a missing or an unexpected tensor
    (at most three of each named). Both loaders (torch and numpy) check a file with it before any
    tensor of the net is built, so an absurd header never allocates."""
    wrong = sorted(k for k in expected.keys() & have.keys() if expected[k] != have[k])
    missing, extra = sorted(expected.keys() - have.keys()), sorted(have.keys() - expected.keys())
    if wrong or missing or extra:
        parts = [f"{k} is {have[k]}, {arch} needs {expected[k]}" for k in wrong[:3]]
        parts += [f"missing {', '.join(missing[:3])}"] if missing else []
        parts += [f"unexpected {', '.join(extra[:3])}"] if extra else []
        raise CheckpointError(f"checkpoint {where} does not fit architecture {arch!r}: " + "; ".join(parts))
