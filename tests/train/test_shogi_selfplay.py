"""Shogi self-play training smoke run: games, samples, loss, a checkpoint that plays."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from zeroplay.engine.shogi_mcts import MctsEngine  # noqa: E402
from zeroplay.games import make  # noqa: E402
from zeroplay.train.shogi_selfplay import run  # noqa: E402


def test_smoke_run_writes_a_checkpoint_that_plays(tmp_path):
    figures = run(tmp_path, iterations=1, games=1, playouts=4, max_moves=12, steps=6, blocks=1, channels=16,
                  log=lambda _: None)
    assert figures["samples"] == 12 and figures["results"] == ["draw"]
    assert figures["loss_last"] < figures["loss_first"]
    engine = MctsEngine(playouts=8, model=figures["checkpoint"])
    s = make("shogi").initial()
    assert engine.search(s).best_move in {s.move_text(int(m)) for m in s.legal_moves()}
    assert (tmp_path / "last.json").exists() and not list(tmp_path.glob("*.tmp*"))
    assert np.isfinite(figures["loss_last"])
