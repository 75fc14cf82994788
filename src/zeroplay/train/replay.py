"""Replay buffer on disk: shards of finished games, a window of the newest samples, a validation
split by game, and symmetry augmentation when sampling.

Durability: every shard is written atomically (``shards.write_shard``), so after a crash the
directory holds whole shards plus, at worst, ignored temp files; reopening the directory finds
them all. Only the shards that reach into the window are read in full (and checked); a damaged
one is skipped with a one-line message (``log``, default stderr) and listed in ``skipped``, never
half-used.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

from zeroplay.games import Game
from zeroplay.train.shards import (
    Shard,
    ShardError,
    parse_shard_name,
    read_shard,
    read_shard_meta,
    shard_name,
    write_shard,
)
from zeroplay.train.targets import Samples, empty_samples

SPLITS = ("train", "validation")


def validation_games(game_ids: np.ndarray, fraction: float) -> np.ndarray:
    """bool (N,): which games belong to the validation split.

    A fixed hash of the game id (SplitMix64) decides, so the split never depends on shard
    boundaries, the window or the order of loading: all positions of a game fall on one side.
    """
    x = np.asarray(game_ids, dtype=np.int64).astype(np.uint64)
    with np.errstate(over="ignore"):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    return (x >> np.uint64(11)).astype(np.float64) / float(1 << 53) < fraction


class ReplayBuffer:
    """The newest ``window`` samples of a run's self-play games, from shards in ``directory``.

    Args:
        directory: created if missing; reopening an existing one resumes it.
        game, features: every shard must be of this game and feature set (ValueError otherwise).
        window: how many of the newest samples (by game id) are sampled from.
        validation_fraction: share of games (not positions) held out for validation.
        log: where the one-line message about a skipped shard goes (default: stderr, as
            ``zeroplay: skipping replay shard ...``; a plain line, not a Python warning with its
            source location).

    Attributes:
        skipped: (path, reason) of shards that could not be read whole.
    """

    def __init__(self, directory: str | os.PathLike, game: Game, features: str, *,
                 window: int = 500_000, validation_fraction: float = 0.05, log=None):
        if window < 1:
            raise ValueError(f"window must be >= 1, got {window}")
        if not 0.0 <= validation_fraction < 1.0:
            raise ValueError(f"validation_fraction must be in [0, 1), got {validation_fraction}")
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.game, self.features = game, features
        self.window, self.validation_fraction = int(window), float(validation_fraction)
        self.skipped: list[tuple[Path, str]] = []
        self.log = log or (lambda msg: print(f"zeroplay: {msg}", file=sys.stderr, flush=True))
        self._ranges: dict[tuple[int, int], dict] = {}  # valid shards on disk -> meta
        self._bad: set[str] = set()  # names already reported unreadable
        self._loaded: dict[tuple[int, int], Shard] = {}  # shards reaching into the window
        self._cache: tuple[Samples, np.ndarray, dict[str, np.ndarray]] | None = None
        self.refresh()

    # --- disk -----------------------------------------------------------------------------
    def refresh(self) -> int:
        """Pick up shards written by other processes; returns how many new ones were found."""
        found = 0
        for path in sorted(self.directory.iterdir()):
            ids = parse_shard_name(path.name)
            if ids is None or ids in self._ranges or path.name in self._bad:
                continue  # temp files of interrupted writes land here too
            try:
                meta = read_shard_meta(path)
            except ShardError as e:
                self._skip(path, str(e))
                continue
            self._check_overlap(ids, path.name)
            self._ranges[ids] = meta
            found += 1
        self._load_window()
        return found

    def add_games(self, games: list[Samples], game_ids: list[int] | None = None) -> Path:
        """Write finished games as one shard and add them to the window; returns its path.

        Args:
            games: one ``Samples`` per game (``game_samples``).
            game_ids: ascending unique ids; default ``next_game_id, next_game_id + 1, ...``.
                Writing the same ids again is a no-op returning the existing shard
                (idempotent); ids overlapping another shard raise ValueError.
        """
        if game_ids is None:
            game_ids = list(range(self.next_game_id, self.next_game_id + len(games)))
        if not games:
            raise ValueError("no games to add")
        ids = (int(game_ids[0]), int(game_ids[-1]))
        if ids in self._ranges:
            return self.directory / shard_name(*ids)
        self._check_overlap(ids, shard_name(*ids))
        path = write_shard(self.directory, self.game, self.features, games, list(game_ids))
        self._bad.discard(path.name)  # a damaged file of that name was just replaced
        self._ranges[ids] = read_shard_meta(path)
        self._load_window()
        return path

    def _check_overlap(self, ids: tuple[int, int], name: str) -> None:
        for first, last in self._ranges:
            if ids[0] <= last and first <= ids[1]:
                raise ValueError(f"games {ids[0]}..{ids[1]} ({name}) overlap {shard_name(first, last)}: "
                                 "a game would be stored twice")

    def _skip(self, path: Path, reason: str) -> None:
        self._bad.add(path.name)
        self.skipped.append((path, reason))
        self.log(f"skipping replay shard: {reason}")

    def _load_window(self) -> None:
        """Read (newest first) the shards that reach into the window; drop the others."""
        keep: dict[tuple[int, int], Shard] = {}
        count = 0
        for ids in sorted(self._ranges, reverse=True):
            if count >= self.window:
                break
            shard = self._loaded.get(ids)
            if shard is None:
                path = self.directory / shard_name(*ids)
                try:
                    shard = read_shard(path, self.game, self.features)
                except ShardError as e:
                    del self._ranges[ids]
                    self._skip(path, str(e))
                    continue
            keep[ids] = shard
            count += len(shard.samples)
        if keep.keys() != self._loaded.keys():
            self._cache = None
        self._loaded = keep

    # --- counts ---------------------------------------------------------------------------
    @property
    def next_game_id(self) -> int:
        """The id the next new game gets: one past the largest id on disk."""
        return max((last for _, last in self._ranges), default=-1) + 1

    @property
    def total_games(self) -> int:
        """Games in all readable shards on disk (window or not)."""
        return sum(m["games"] for m in self._ranges.values())

    @property
    def total_samples(self) -> int:
        """Samples in all readable shards on disk (window or not)."""
        return sum(m["samples"] for m in self._ranges.values())

    @property
    def shard_paths(self) -> list[Path]:
        """Readable shards on disk, oldest first."""
        return [self.directory / shard_name(*ids) for ids in sorted(self._ranges)]

    def __len__(self) -> int:
        """Samples in the window (both splits)."""
        return len(self._window()[0])

    def num_samples(self, split: str = "train") -> int:
        """Samples of ``split`` (``"train"`` or ``"validation"``) in the window."""
        return len(self._window()[2][_split(split)])

    # --- sampling -------------------------------------------------------------------------
    def _window(self) -> tuple[Samples, np.ndarray, dict[str, np.ndarray]]:
        """(samples in the window, their game ids, sample indices per split), cached."""
        if self._cache is None:
            shards = [self._loaded[k] for k in sorted(self._loaded)]
            if shards:
                def cat(field):
                    return np.concatenate([getattr(s.samples, field) for s in shards])[-self.window:]

                samples = Samples(cat("planes"), cat("pi"), cat("z"), cat("legal"), cat("ply"), cat("reply"),
                                  cat("ownership"), cat("score"), cat("has_final"))
                gid = np.concatenate([s.game_id for s in shards])[-self.window:]
            else:
                samples = _empty(self.game, self.features)
                gid = np.zeros(0, np.int64)
            val = validation_games(gid, self.validation_fraction)
            splits = {"train": np.flatnonzero(~val), "validation": np.flatnonzero(val)}
            self._cache = (samples, gid, splits)
        return self._cache

    def sample(self, batch_size: int, rng: np.random.Generator, *, split: str = "train",
               augment: bool = True) -> Samples:
        """A batch drawn uniformly with replacement from ``split`` of the window.

        With ``augment``, each sample gets a random transform from ``game.symmetries``,
        applied to its planes and (the same transform) to its policy and legal mask; z is
        unchanged (a symmetric position has the same value).

        Returns:
            ``Samples`` with planes float32 (B, C, H, W).

        Raises:
            ValueError: the split has no samples yet.
        """
        samples, _, splits = self._window()
        pool = splits[_split(split)]
        if len(pool) == 0:
            raise ValueError(f"the replay buffer has no {split} samples yet")
        batch = _rows(samples, pool[rng.integers(len(pool), size=batch_size)])
        batch.planes = batch.planes.astype(np.float32)
        if augment:
            batch = augment_samples(batch, self.game, rng)
        return batch

    def iter_split(self, split: str = "validation", batch_size: int = 256):
        """Every sample of ``split`` in the window once, in order, unaugmented (``Samples`` batches)."""
        samples, _, splits = self._window()
        pool = splits[_split(split)]
        for start in range(0, len(pool), batch_size):
            batch = _rows(samples, pool[start : start + batch_size])
            batch.planes = batch.planes.astype(np.float32)
            yield batch

    def window_game_ids(self, split: str | None = None) -> np.ndarray:
        """int64 unique ids of the games with samples in the window (of ``split`` when given)."""
        _, gid, splits = self._window()
        return np.unique(gid if split is None else gid[splits[_split(split)]])


def transform_samples(batch: Samples, sym) -> Samples:
    """``batch`` under one ``Symmetry``: planes and ownership by its cell map, pi, legal and reply
    by its action map."""
    reply = np.where(batch.reply >= 0, sym.action_perm[np.maximum(batch.reply, 0)], -1).astype(np.int32)
    own = batch.ownership
    own = sym.planes(own.reshape(len(own), *batch.planes.shape[-2:])).reshape(own.shape)
    return Samples(sym.planes(batch.planes), sym.policy(batch.pi), batch.z.copy(),
                   sym.policy(batch.legal), batch.ply.copy(), reply, own, batch.score.copy(),
                   batch.has_final.copy())


def augment_samples(batch: Samples, game: Game, rng: np.random.Generator) -> Samples:
    """A copy of ``batch`` with one random symmetry of ``game`` per sample (``transform_samples``)."""
    syms = game.symmetries
    choice = rng.integers(len(syms), size=len(batch))
    planes, pi, legal, reply = batch.planes.copy(), batch.pi.copy(), batch.legal.copy(), batch.reply.copy()
    own = batch.ownership.copy()
    for k, sym in enumerate(syms):
        sel = np.flatnonzero(choice == k)
        if len(sel):
            part = transform_samples(_rows(batch, sel), sym)
            planes[sel], pi[sel], legal[sel], reply[sel] = part.planes, part.pi, part.legal, part.reply
            own[sel] = part.ownership
    return Samples(planes, pi, batch.z.copy(), legal, batch.ply.copy(), reply, own, batch.score.copy(),
                   batch.has_final.copy())


def _rows(batch: Samples, idx: np.ndarray) -> Samples:
    return Samples(batch.planes[idx], batch.pi[idx], batch.z[idx], batch.legal[idx], batch.ply[idx],
                   batch.reply[idx], batch.ownership[idx], batch.score[idx], batch.has_final[idx])


def _split(split: str) -> str:
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    return split


def _empty(game: Game, features: str) -> Samples:
    s = empty_samples(game, features)
    return Samples(s.planes.astype(np.uint8), s.pi, s.z, s.legal, s.ply)
