"""The puzzle files the benchmarks read (``shared/data/gomoku/puzzles.jsonl``): one JSON object a
line, refused line by line with a message that names the file and the line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path


def puzzle_rows(path: Path, fields: tuple[str, ...] = ()) -> Iterator[dict]:
    """The objects of ``path`` in file order, read as they are taken (blank lines skipped; a
    byte-order mark ignored).

    Raises:
        ValueError: the file does not read (or is not UTF-8 text), a line is not JSON, or not an
            object with every one of ``fields``; the message names the file (and the line).
    """
    want = f"a JSON object with {', '.join(fields)}" if fields else "a JSON object"
    try:
        with open(path, encoding="utf-8-sig") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as e:
                    raise ValueError(f"--data {path}:{number}: not JSON ({e.msg})") from None
                if not isinstance(row, dict) or any(k not in row for k in fields):
                    raise ValueError(f"--data {path}:{number}: not a puzzle ({want})")
                yield row
    except (OSError, UnicodeDecodeError) as e:  # unreadable, or not text
        raise ValueError(f"--data {path}: {getattr(e, 'strerror', None) or e}") from None
