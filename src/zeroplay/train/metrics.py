"""Run metrics as JSON Lines (``RUN_DIR/metrics.jsonl``): one object per line, appended.

Each record has ``"kind"`` and ``"time"`` (Unix seconds); what ``zeroplay plot`` reads:

    {"kind": "train", "step": int, "loss": f, "value_loss": f, "policy_loss": f, "l2": f, "lr": f,
     "val_value_loss": f, "val_policy_loss": f}                         (val_* optional)
    {"kind": "selfplay", "games": int, "moves": int, "seconds": f}     one batch of games
    {"kind": "arena", "iteration": int, "opponent": str, "elo": f, "elo_low": f, "elo_high": f,
     "wins": int, "draws": int, "losses": int}

A line is written with one ``write`` on a file opened for appending and flushed, so a crash
can only tear the last line; ``read_metrics`` skips a line that does not parse, and the first
record a ``MetricsLog`` appends after a torn line starts on a line of its own (a resumed run
wrote its next record onto the torn one, and both were lost).
"""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path

METRICS_FILE = "metrics.jsonl"


class MetricsLog:
    """Appends records to ``path`` (a ``metrics.jsonl``); parent directories are created.

    ``mirror``: called with each record after it is written (``train.tensorboard.EventMirror``)."""

    def __init__(self, path: str | os.PathLike, mirror=None):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.mirror = mirror
        self._torn_checked = False

    def append(self, kind: str, **fields) -> dict:
        """Write ``{"kind": kind, "time": now, **fields}`` as one line; returns the record.

        Non-finite floats (an Elo of +inf) are written as null: JSON has no infinity.
        """
        record = {"kind": kind, "time": round(time.time(), 3)}
        record.update({k: _finite(v) for k, v in fields.items()})
        line = json.dumps(record, sort_keys=False) + "\n"
        if not self._torn_checked:
            self._torn_checked = True
            if _ends_torn(self.path):
                line = "\n" + line
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
        if self.mirror is not None:
            self.mirror(record)
        return record


def read_metrics(path: str | os.PathLike, kind: str | None = None) -> list[dict]:
    """Records of ``path`` in order (of ``kind`` when given); [] if the file is missing.
    Lines that do not parse (a torn last line after a crash, bytes that are not UTF-8) are skipped.
    An iteration redone on a resume (its checkpoint lost) wrote its ``train`` and ``arena`` lines
    again: only the last of each (kind, iteration, opponent) is returned, so plots and sums do not
    count it twice (helper-79)."""
    path = Path(path)
    if not path.exists():
        return []
    out = []
    with open(path, "rb") as f:  # bytes: a line that is not UTF-8 is skipped, not the whole file
        for line in f:
            try:
                record = json.loads(line.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                continue
            if isinstance(record, dict) and (kind is None or record.get("kind") == kind):
                out.append(record)
    last: dict[tuple, int] = {}
    for i, record in enumerate(out):
        if record.get("kind") in ("train", "arena") and record.get("iteration") is not None:
            last[(record["kind"], repr(record["iteration"]), repr(record.get("opponent")))] = i
    return [r for i, r in enumerate(out) if r.get("kind") not in ("train", "arena") or r.get("iteration") is None
            or last[(r["kind"], repr(r["iteration"]), repr(r.get("opponent")))] == i]


def _ends_torn(path: Path) -> bool:
    """Whether ``path`` exists, is not empty and does not end with a newline."""
    try:
        with open(path, "rb") as f:
            if f.seek(0, os.SEEK_END) == 0:
                return False
            f.seek(-1, os.SEEK_END)
            return f.read(1) != b"\n"
    except FileNotFoundError:
        return False


def _finite(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v
