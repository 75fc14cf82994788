"""The README's Python examples run as written, and print what a user wants: moves in text
notation (issue 23: the example recommended b15, a corner, and printed raw integers)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_the_python_examples_run_and_speak_in_notation():
    blocks = python_blocks()
    assert len(blocks) >= 2
    out = io.StringIO()
    namespace: dict = {}
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, str(README), "exec"), namespace)  # noqa: S102 (our own README)
    text = out.getvalue()
    r, game = namespace["r"], namespace["game"]
    assert "model gomoku-15x15-freestyle" in namespace["engine"].name  # model-backed
    best = game.format_move(r.best_move)
    assert f"{best}: win rate" in text and re.search(r"^line: [a-o]\d+( [a-o]\d+)*$", text, re.M)
    # a sensible move near the stones, not a corner: within two cells of one of them
    stones = [game.parse_move(m) for m in ("h8", "h9", "i9", "g7", "j10")]
    near = min(max(abs(r.best_move % 15 - c % 15), abs(r.best_move // 15 - c // 15)) for c in stones)
    assert near <= 2, text
    assert not re.search(r"^\s*\d+\s*$", text, re.M)  # no bare integers printed
