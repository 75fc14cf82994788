"""TensorBoard event files beside ``metrics.jsonl``, so that ``tensorboard --logdir RUN_DIR`` shows
a run's curves live (issue 23). Written with ``torch.utils.tensorboard.SummaryWriter`` (needs the
``tensorboard`` package, a dependency); ``metrics.jsonl`` stays the record of truth, and a run
whose event files cannot be written trains on (said once).

Each metrics record becomes scalars (the tag, then the x axis):

    train     loss/total, loss/policy, loss/value, loss/l2, loss/val_policy, loss/val_value,
              train/lr                                           by training step
    selfplay  selfplay/games, selfplay/moves_per_game, selfplay/black_wins, white_wins, draws,
              selfplay/games_per_hour (records with seconds)      by first game id of the batch
    arena     elo/<opponent> (and elo_low/, elo_high/ bounds)     by iteration
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

_TRAIN = (("loss", "loss/total"), ("policy_loss", "loss/policy"), ("value_loss", "loss/value"), ("l2", "loss/l2"),
          ("val_policy_loss", "loss/val_policy"), ("val_value_loss", "loss/val_value"), ("lr", "train/lr"))


def scalars(record: dict) -> list[tuple[str, float, int]]:
    """``(tag, value, step)`` of one metrics record (see the module docstring); [] for others."""
    kind, out = record.get("kind"), []

    def add(tag: str, value, step) -> None:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and isinstance(step, int):
            out.append((tag, float(value), step))

    if kind == "train":
        for key, tag in _TRAIN:
            add(tag, record.get(key), record.get("step"))
    elif kind == "selfplay":
        step, games = record.get("first_id"), record.get("games")
        add("selfplay/games", games, step)
        for key in ("black_wins", "white_wins", "draws"):
            add(f"selfplay/{key}", record.get(key), step)
        if isinstance(games, int) and games > 0 and isinstance(record.get("moves"), int):
            add("selfplay/moves_per_game", record["moves"] / games, step)
        seconds = record.get("seconds")
        if isinstance(games, int) and isinstance(seconds, (int, float)) and seconds > 0:
            add("selfplay/games_per_hour", games / seconds * 3600.0, step)
    elif kind == "arena":
        name = re.sub(r"[^A-Za-z0-9_.:-]+", "_", str(record.get("opponent", "?")))[:60]
        for key in ("elo", "elo_low", "elo_high"):
            add(f"{key}/{name}", record.get(key), record.get("iteration"))
    return out


class EventMirror:
    """Writes each metrics record as TensorBoard scalars into ``run_dir`` (a ``MetricsLog``
    mirror). The writer is made on the first record; if that fails (no tensorboard package, an
    unwritable directory), ``log`` gets one line and the mirror stays off."""

    def __init__(self, run_dir: str | os.PathLike, log: Callable[[str], None] = lambda msg: None):
        self.run_dir = Path(run_dir)
        self.log = log
        self._writer: Any = None  # torch.utils.tensorboard.SummaryWriter, made on the first record
        self._off = False

    def __call__(self, record: dict) -> None:
        if self._off:
            return
        try:
            if self._writer is None:
                from torch.utils.tensorboard import SummaryWriter

                self._writer = SummaryWriter(log_dir=os.fspath(self.run_dir), flush_secs=10)
            for tag, value, step in scalars(record):
                self._writer.add_scalar(tag, value, step, walltime=record.get("time"))
            self._writer.flush()
        except (ImportError, OSError) as e:
            self._off = True
            self.log(f"TensorBoard event files not written ({type(e).__name__}: {e}); metrics.jsonl has everything")

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
