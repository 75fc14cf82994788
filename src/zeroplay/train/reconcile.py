"""What a resume puts right in a run directory before it continues (issue 23).

- ``reconcile_selfplay_metrics``: a kill between a shard's rename and its ``selfplay`` line in
  ``metrics.jsonl`` leaves games in the replay buffer that the metrics never show (the charts and
  the games counted from them disagree with the shards). Each shard whose game-id range no
  ``selfplay`` record covers gets one record written from the shard itself, marked
  ``"reconciled": true``.
- ``remove_stale_temps``: a save killed before its rename leaves a ``.NAME.XXXX.tmp`` file
  (``files.atomic_file``); they are removed, since no live writer can own them while the run lock
  is held.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from zeroplay.files.atomic import TEMP_SUFFIX
from zeroplay.games import Game
from zeroplay.train.metrics import MetricsLog, read_metrics
from zeroplay.train.shards import ShardError, parse_shard_name, read_shard


def _covered(records: list[dict]) -> list[tuple[int, int]]:
    spans = []
    for r in records:
        first, last = r.get("first_id"), r.get("last_id")
        if isinstance(first, int) and isinstance(last, int):
            spans.append((first, last))
    return spans


def shard_outcomes(game_ids: np.ndarray, sample_game: np.ndarray, ply: np.ndarray,
                   z: np.ndarray) -> tuple[int, int, int]:
    """(Black wins, White wins, draws) of a shard's games, from each game's earliest sample:
    ``z`` is the final result from the side to move at that sample (Black at even plies)."""
    black = white = draws = 0
    for gid in game_ids:
        rows = np.flatnonzero(sample_game == gid)
        if len(rows) == 0:
            continue
        first = rows[np.argmin(ply[rows])]
        result = float(z[first]) * (1.0 if ply[first] % 2 == 0 else -1.0)  # Black's view
        black += result > 0
        white += result < 0
        draws += result == 0
    return int(black), int(white), int(draws)


def reconcile_selfplay_metrics(shard_paths: list[Path], game: Game, features: str,
                               metrics: MetricsLog, iteration_of: Callable[[int], int | None],
                               log: Callable[[str], None] = lambda msg: None) -> int:
    """Write a ``selfplay`` record for every shard in ``shard_paths`` that no record covers.

    ``iteration_of(first_game_id)`` names the iteration the shard belongs to (None: unknown). The
    record holds what the shard knows: ``games``, ``samples``, ``first_id``, ``last_id``,
    ``black_wins``, ``white_wins``, ``draws``, ``time`` (the shard file's modification time) and
    ``"seconds": null`` (the self-play time was never logged; games/hour leaves it out).
    Unreadable shards are left to the replay buffer, which skips them. Returns the records written.
    """
    covered = _covered(read_metrics(metrics.path, "selfplay"))
    written = 0
    for path in shard_paths:
        ids = parse_shard_name(path.name)
        if ids is None or any(a <= ids[0] and ids[1] <= b for a, b in covered):
            continue
        try:
            shard = read_shard(path, game, features)
        except (ShardError, ValueError):
            continue
        black, white, draws = shard_outcomes(shard.game_ids, shard.game_id, shard.samples.ply, shard.samples.z)
        metrics.append("selfplay", time=round(path.stat().st_mtime, 3), iteration=iteration_of(ids[0]),
                       games=len(shard.game_ids), samples=len(shard.samples.z), seconds=None, first_id=ids[0],
                       last_id=ids[1], black_wins=black, white_wins=white, draws=draws, reconciled=True)
        log(f"metrics: games {ids[0]}..{ids[1]} were in the replay shards but not in {metrics.path.name} "
            f"(the run stopped, by Ctrl-C or a kill, between the shard and its metrics line): recorded now from the shard")
        written += 1
    return written


def remove_stale_temps(directories: list[Path], log: Callable[[str], None] = lambda msg: None) -> int:
    """Remove the temp files of killed atomic saves (``.NAME.*.tmp``) in ``directories``; returns
    how many. Only names of that form are touched."""
    removed = 0
    for directory in directories:
        if not directory.is_dir():
            continue
        for path in directory.iterdir():
            if path.name.startswith(".") and path.name.endswith(TEMP_SUFFIX) and path.is_file():
                try:
                    path.unlink()
                    removed += 1
                except OSError:
                    pass
    if removed:
        log(f"removed {removed} temp file{'' if removed == 1 else 's'} of interrupted saves")
    return removed
