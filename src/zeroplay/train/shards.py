"""Replay shards: one compressed ``.npz`` file per batch of finished games, written atomically.

A shard is named ``shard-FIRST-LAST.npz`` after the smallest and largest game id it holds, so
writing the same games again produces the same name (idempotent), and two shards never hold the
same game (their id ranges do not overlap; ``ReplayBuffer`` checks). Files are written to a
``.tmp`` name and renamed (``zeroplay.files.atomic``): a crash mid-write leaves a temp file, which readers
ignore, never a half shard under a shard name.

Arrays (``allow_pickle=False`` on both sides, so a shard cannot run code):

    planes   uint8   (N, C, H, W)  0/1 input planes (stored as bytes; float32 when read)
    pi       float32 (N, A)        policy targets
    z        float32 (N,)          result from the side to move at the sample
    legal    bool    (N, A)        legal actions
    ply      int32   (N,)          moves before the sample
    reply    int32   (N,)          the opponent's next action, -1 none (optional: older shards
                                   lack it and read as all -1)
    ownership int8   (N, H*W)      final owner of each cell from the side to move, -1/0/+1 (optional)
    score    float32 (N,)          final margin from the side to move, points / cells (optional)
    has_final bool   (N,)          ownership and score are targets (optional: absent reads False)
    game_id  int64   (N,)          game of each sample
    game_ids int64   (G,)          every game of the shard, ascending
    meta     str     ()            JSON: format, version, game, features, planes_version, counts
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from zeroplay.files.atomic import atomic_write
from zeroplay.games import Game
from zeroplay.nn.arch import PLANES_VERSION
from zeroplay.train.targets import Samples

SHARD_FORMAT = "zeroplay-replay-shard"
SHARD_VERSION = 1
SHARD_NAME = re.compile(r"^shard-(\d{9,})-(\d{9,})\.npz$")
_FIELDS = ("planes", "pi", "z", "legal", "ply", "game_id")


class ShardError(ValueError):
    """A shard that cannot be read whole: truncated, corrupt, inconsistent, or of another format."""


@dataclass
class Shard:
    """A shard's contents (what ``read_shard`` returns).

    Attributes:
        path: the file.
        first_id, last_id: smallest and largest game id.
        game_ids: int64 (G,) its games.
        samples: ``Samples``, ``planes`` kept as uint8 0/1 (a quarter of float32's memory).
        game_id: int64 (N,) game of each sample.
        meta: the JSON record.
    """

    path: Path
    first_id: int
    last_id: int
    game_ids: np.ndarray
    samples: Samples
    game_id: np.ndarray
    meta: dict


def shard_name(first_id: int, last_id: int) -> str:
    """``shard-000000012-000000019.npz`` for games 12..19 (zero-padded so names sort by id)."""
    return f"shard-{first_id:09d}-{last_id:09d}.npz"


def parse_shard_name(name: str) -> tuple[int, int] | None:
    """(first_id, last_id) of a shard file name, None for any other name (temp files included)."""
    m = SHARD_NAME.match(name)
    return (int(m.group(1)), int(m.group(2))) if m else None


def game_record(game: Game, features: str) -> dict:
    """What a shard records about the game and planes, to refuse mixing runs."""
    return {"game": {"name": game.name, "options": dict(game.options)}, "features": features,
            "planes_version": PLANES_VERSION}


def write_shard(directory: str | os.PathLike, game: Game, features: str,
                games: list[Samples], game_ids: list[int]) -> Path:
    """Write ``games[i]`` (one ``Samples`` per finished game) under id ``game_ids[i]``; returns the path.

    Raises:
        ValueError: no games, ids not strictly ascending or negative, lengths differ, planes not 0/1.
    """
    if not games or len(games) != len(game_ids):
        raise ValueError(f"need one id per game, got {len(games)} games and {len(game_ids)} ids")
    ids = np.asarray(game_ids, dtype=np.int64)
    if ids[0] < 0 or (np.diff(ids) <= 0).any():
        raise ValueError("game ids must be non-negative and strictly ascending")
    planes = np.concatenate([g.planes for g in games])
    if not np.isin(planes, (0.0, 1.0)).all():
        raise ValueError("planes must be 0/1 to be stored as bytes")
    arrays: dict[str, Any] = {  # (Any: numpy's stub would take a ** ndarray for allow_pickle)
        "planes": planes.astype(np.uint8),
        "pi": np.concatenate([g.pi for g in games]).astype(np.float32),
        "z": np.concatenate([g.z for g in games]).astype(np.float32),
        "legal": np.concatenate([g.legal for g in games]).astype(np.bool_),
        "ply": np.concatenate([g.ply for g in games]).astype(np.int32),
        "reply": np.concatenate([g.reply for g in games]).astype(np.int32),
        "ownership": np.concatenate([g.ownership for g in games]).astype(np.int8),
        "score": np.concatenate([g.score for g in games]).astype(np.float32),
        "has_final": np.concatenate([g.has_final for g in games]).astype(np.bool_),
        "game_id": np.repeat(ids, [len(g) for g in games]),
        "game_ids": ids,
    }
    meta = dict(game_record(game, features), format=SHARD_FORMAT, version=SHARD_VERSION,
                samples=int(len(arrays["z"])), games=int(len(ids)),
                first_id=int(ids[0]), last_id=int(ids[-1]))
    arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
    path = Path(directory) / shard_name(int(ids[0]), int(ids[-1]))
    return atomic_write(path, lambda f: np.savez_compressed(f, **arrays))


def _why(e: Exception) -> str:
    """The damage in our words. numpy reads a file that is not an .npz archive as a pickle and
    says how to load it unsafely, which is advice never to follow for a file of unknown origin."""
    if "allow_pickle" in str(e):
        return "not an .npz archive of arrays (damaged, or not a replay shard)"
    return str(e) or type(e).__name__


def read_shard_meta(path: str | os.PathLike) -> dict:
    """The JSON record only (cheap: one small zip member). Raises ShardError when unreadable."""
    try:
        # our own file object: np.load leaks its handle when the zip is damaged (ResourceWarning)
        with open(path, "rb") as f, np.load(f, allow_pickle=False) as z:
            return json.loads(str(z["meta"][()]))
    except Exception as e:  # zipfile, zlib, numpy and json each raise their own types on damage
        raise ShardError(f"shard {os.fspath(path)} is unreadable: {_why(e)}") from None


def read_shard(path: str | os.PathLike, game: Game, features: str) -> Shard:
    """Read and check a whole shard. All arrays are read (zip CRCs checked) before returning,
    so a damaged shard is rejected whole, never half-used.

    Raises:
        ShardError: truncated, corrupt or inconsistent (the caller skips it).
        ValueError: a valid shard of another game, feature set or plane version.
    """
    path = Path(path)
    where = os.fspath(path)
    try:
        # our own file object: np.load leaks its handle when the zip is damaged (ResourceWarning)
        with open(path, "rb") as f, np.load(f, allow_pickle=False) as z:
            arrays = {k: z[k] for k in (*_FIELDS, "game_ids", "meta")}
            n_read = len(arrays["z"])
            arrays["reply"] = z["reply"] if "reply" in z.files else np.full(n_read, -1, np.int32)
            if "has_final" in z.files:  # the final-position targets (later shards only)
                arrays.update(ownership=z["ownership"], score=z["score"], has_final=z["has_final"])
            else:
                cells = arrays["planes"].shape[-2] * arrays["planes"].shape[-1]
                arrays.update(ownership=np.zeros((n_read, cells), np.int8), score=np.zeros(n_read, np.float32),
                              has_final=np.zeros(n_read, np.bool_))
        meta = json.loads(str(arrays["meta"][()]))
    except Exception as e:  # zipfile, zlib, numpy and json each raise their own types on damage
        raise ShardError(f"shard {where} is unreadable: {_why(e)}") from None
    if meta.get("format") != SHARD_FORMAT or meta.get("version") != SHARD_VERSION:
        raise ShardError(f"shard {where} has format {meta.get('format')!r} v{meta.get('version')!r}")
    want = game_record(game, features)
    for key in want:
        if meta.get(key) != want[key]:
            raise ValueError(f"shard {where} is for {key} {meta.get(key)!r}, this buffer {want[key]!r}")
    n = meta["samples"]
    ids = arrays["game_ids"]
    named = parse_shard_name(path.name)
    if any(len(arrays[k]) != n for k in (*_FIELDS, "reply", "ownership", "score", "has_final")) \
            or arrays["ownership"].shape[1:] != (arrays["planes"].shape[-2] * arrays["planes"].shape[-1],) \
            or len(ids) != meta["games"] or len(ids) == 0 \
            or named != (int(ids[0]), int(ids[-1])) or not np.isin(arrays["game_id"], ids).all():
        raise ShardError(f"shard {where} is inconsistent (array lengths, ids or name disagree)")
    samples = Samples(arrays["planes"], arrays["pi"], arrays["z"], arrays["legal"], arrays["ply"],
                      arrays["reply"].astype(np.int32), arrays["ownership"].astype(np.int8),
                      arrays["score"].astype(np.float32), arrays["has_final"].astype(np.bool_))
    return Shard(path, int(ids[0]), int(ids[-1]), ids, samples, arrays["game_id"], meta)
