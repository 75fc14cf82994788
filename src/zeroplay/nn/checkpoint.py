"""Checkpoints: one ``.safetensors`` file, weights plus JSON metadata in its header. Never pickle.

Layout (the safetensors format): 8 bytes little-endian header length N, N bytes of JSON header
(tensor names, dtypes, shapes, offsets, and ``__metadata__``), then the raw tensor data.
``__metadata__["zeroplay"]`` holds our JSON record:

    format, format_version       "zeroplay-checkpoint", 1
    zeroplay_version             package version that wrote it
    game                         {"name": ..., "options": {...}} as ``games.make`` takes them
    board                        {"height": H, "width": W} it was trained on
    rule                         game rule (``options["rule"]``), None if the game has none
    features, planes_version     input feature set and the plane encoding's version
    arch                         ``ArchSpec.to_dict()``
    step, elo                    optimizer steps taken; Elo (None when unmeasured)
    tensors_sha256               hash over every tensor's name, dtype, shape and bytes
    optimizer                    ``Trainer.optimizer_state()``'s JSON part, or None
    extra                        free-form JSON from the caller (run id, iteration, ...)

Model weights are stored under their ``state_dict`` names, optimizer tensors under ``optim/...``.
Saving is atomic (``zeroplay.files.atomic``): a crash leaves the previous checkpoint intact.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors.torch import load as st_load
from safetensors.torch import save as st_save
from torch import nn

from zeroplay import __version__
from zeroplay.files.atomic import atomic_write_bytes
from zeroplay.games import Game
from zeroplay.games.planes import FEATURE_CHANNELS
from zeroplay.nn.arch import PLANES_VERSION, ArchSpec
from zeroplay.nn.models import model_from_spec
from zeroplay.nn.record import (  # noqa: F401  (re-exported: the checkpoint API)
    FORMAT,
    FORMAT_VERSION,
    CheckpointError,
    CheckpointMismatchError,
    _differences,
    _parse,
    _read,
    check_shapes,
    read_checkpoint_meta,
)

OPTIM_PREFIX = "optim/"

@dataclass
class Checkpoint:
    """A loaded checkpoint.

    Attributes:
        model: the network, on the requested device, in eval mode.
        meta: the JSON record (see the module docstring).
        optimizer: ``(tensors, info)`` for ``Trainer.load_optimizer_state``, or None.
    """

    model: nn.Module
    meta: dict
    optimizer: tuple[dict[str, torch.Tensor], dict] | None

    @property
    def arch(self) -> ArchSpec:
        return ArchSpec.from_dict(self.meta["arch"])

    @property
    def features(self) -> str:
        return self.meta["features"]

    @property
    def step(self) -> int:
        return int(self.meta["step"])

    @property
    def elo(self) -> float | None:
        return self.meta["elo"]


def tensors_sha256(tensors: dict[str, torch.Tensor]) -> str:
    """Hex SHA-256 over the tensors' names, dtypes, shapes and bytes, in name order."""
    h = hashlib.sha256()
    for name in sorted(tensors):
        t = tensors[name].detach().cpu().contiguous()
        h.update(f"{name}|{t.dtype}|{tuple(t.shape)}|".encode())
        h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def save_checkpoint(
    path: str | os.PathLike,
    model: nn.Module,
    *,
    game: Game,
    features: str,
    step: int = 0,
    elo: float | None = None,
    optimizer: tuple[dict[str, torch.Tensor], dict] | None = None,
    extra: dict | None = None,
) -> Path:
    """Write ``model`` (a ``TinyNet``/``ResTower`` with ``.spec``) atomically to ``path``.

    Args:
        game: the game it is trained on (name, options and board size are recorded).
        features: its input feature set; must match ``model.spec.in_channels``.
        step: optimizer steps taken; elo: its rating, None when unmeasured.
        optimizer: ``Trainer.optimizer_state()`` to resume training exactly, or None.
        extra: JSON-able details the caller wants back (iteration, run id, ...).

    Returns:
        The path written. On any error the file at ``path`` is left as it was.
    """
    spec: ArchSpec = model.spec
    if FEATURE_CHANNELS.get(features) != spec.in_channels:
        raise ValueError(f"feature set {features!r} does not give the {spec.in_channels} planes {spec.name} reads")
    tensors = {k: v.detach().cpu().contiguous().clone() for k, v in model.state_dict().items()}
    optimizer_info = None
    if optimizer is not None:
        opt_tensors, optimizer_info = optimizer
        for k, v in opt_tensors.items():
            tensors[OPTIM_PREFIX + k] = v.detach().cpu().contiguous().clone()
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "zeroplay_version": __version__,
        "game": {"name": game.name, "options": dict(game.options)},
        "board": {"height": game.height, "width": game.width},
        "rule": game.options.get("rule"),
        "features": features,
        "planes_version": PLANES_VERSION,
        "arch": spec.to_dict(),
        "step": int(step),
        "elo": None if elo is None else float(elo),
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "tensors_sha256": tensors_sha256(tensors),
        "optimizer": optimizer_info,
        "extra": extra or {},
    }
    data = st_save(tensors, metadata={"format": "pt", "zeroplay": json.dumps(meta, sort_keys=True)})
    return atomic_write_bytes(path, data)


def _check_spec_fits(where: str, spec: ArchSpec, weights: dict[str, torch.Tensor]) -> None:
    """Refuse an architecture record that the file's own tensors do not match, before any net
    is built: a header with absurd sizes (``channels`` 10^6, ``blocks`` 10^9) would otherwise
    allocate hundreds of GB (issue 23). Building the net is then bounded by the file's size.

    Two steps: a torch-free bound (each size field at most the largest tensor's element count,
    at most one residual block per two tensors), so that even the shape check below builds
    nothing huge; then the net built on torch's ``meta`` device (shapes only, no storage) and
    compared tensor by tensor.

    Raises:
        CheckpointError: naming the field or the tensors that do not fit.
    """
    largest = max((t.numel() for t in weights.values()), default=0)
    sizes = {"in_channels": spec.in_channels, "channels": spec.channels, "height": spec.height,
             "width": spec.width, "num_actions": spec.num_actions}
    for name, value in sizes.items():
        if not 0 <= value <= largest:
            raise CheckpointError(f"checkpoint {where} is corrupt: arch.{name} {value} does not fit its "
                                  f"tensors (the largest holds {largest} numbers)")
    if not 0 <= spec.blocks <= len(weights) // 2:
        raise CheckpointError(f"checkpoint {where} is corrupt: arch.blocks {spec.blocks} does not fit its "
                              f"{len(weights)} tensors")
    try:
        with torch.device("meta"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "initializing zero-element tensors is a no-op"
            expected = {k: tuple(v.shape) for k, v in model_from_spec(spec).state_dict().items()}
    except (ValueError, RuntimeError) as e:
        raise CheckpointError(f"checkpoint {where} has a bad architecture record: {e}") from None
    check_shapes(where, spec.name, expected, {k: tuple(v.shape) for k, v in weights.items()})


def load_checkpoint(
    path: str | os.PathLike,
    *,
    game: Game | None = None,
    features: str | None = None,
    arch: str | None = None,
    device: str = "cpu",
) -> Checkpoint:
    """Load and check the checkpoint at ``path``; the file is only read.

    Args:
        game: when given, the checkpoint must be for this game: same name and options, except
            that a fully convolutional tower loads on any board size (``tiny`` needs the same).
        features: when given, the feature set must match.
        arch: when given, the architecture name must match (``"tiny"``, ``"b6c64"``, ...).

    Raises:
        CheckpointMismatchError: a valid checkpoint that does not fit; the message lists each
            difference.
        CheckpointError: missing, truncated, corrupt (hash mismatch, or a record field of the wrong
            type: ``read_checkpoint_meta``), or not a checkpoint. An OSError (permission denied,
            ...) passes through for the command to word.
    """
    data = _read(path)
    record = _parse(path, data)
    where = os.fspath(path)
    try:
        spec = ArchSpec.from_dict(record["arch"])
    except (KeyError, ValueError) as e:
        raise CheckpointError(f"checkpoint {where} has a bad architecture record: {e}") from None
    diffs = _differences(record, spec, game, features, arch)
    if diffs:
        raise CheckpointMismatchError(path, diffs)
    try:
        tensors = st_load(data)
    except Exception as e:  # safetensors raises its own error types for a damaged body
        raise CheckpointError(f"checkpoint {where} is corrupt: {e}") from None
    if tensors_sha256(tensors) != record.get("tensors_sha256"):
        raise CheckpointError(f"checkpoint {where} is corrupt: tensor data does not match its checksum")
    weights = {k: v for k, v in tensors.items() if not k.startswith(OPTIM_PREFIX)}
    _check_spec_fits(where, spec, weights)
    model = model_from_spec(spec)
    try:
        model.load_state_dict(weights, strict=True)
    except RuntimeError as e:
        raise CheckpointError(f"checkpoint {where} does not fit architecture {spec.name!r}: {e}") from None
    model.to(device).eval()
    optimizer = None
    if record.get("optimizer") is not None:
        opt = {k[len(OPTIM_PREFIX):]: v for k, v in tensors.items() if k.startswith(OPTIM_PREFIX)}
        optimizer = (opt, record["optimizer"])
    return Checkpoint(model, record, optimizer)
