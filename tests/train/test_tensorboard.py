"""TensorBoard event files beside metrics.jsonl (issue 23): what each record becomes, read back
with TensorBoard's own reader."""

from __future__ import annotations

import pytest

from zeroplay.train.metrics import MetricsLog
from zeroplay.train.tensorboard import EventMirror, scalars

pytest.importorskip("tensorboard", reason="tensorboard is not installed: pip install tensorboard")


def test_records_become_scalars_by_step_game_and_iteration():
    assert scalars({"kind": "train", "step": 7, "loss": 2.5, "policy_loss": 2.0, "value_loss": 0.5, "lr": 0.1}) == [
        ("loss/total", 2.5, 7), ("loss/policy", 2.0, 7), ("loss/value", 0.5, 7), ("train/lr", 0.1, 7)]
    sp = dict((t, v) for t, v, _ in scalars({"kind": "selfplay", "first_id": 10, "games": 4, "moves": 40,
                                            "seconds": 3.6, "black_wins": 3, "white_wins": 1, "draws": 0}))
    assert sp["selfplay/moves_per_game"] == 10 and sp["selfplay/games_per_hour"] == pytest.approx(4000)
    assert scalars({"kind": "selfplay", "first_id": 10, "games": 4, "seconds": None})[0][0] == "selfplay/games"
    assert scalars({"kind": "arena", "iteration": 3, "opponent": "previous (iteration 2)", "elo": 12.0}) == [
        ("elo/previous_iteration_2_", 12.0, 3)]
    assert scalars({"kind": "arena", "iteration": 3, "elo": None}) == [] and scalars({"kind": "x"}) == []


def test_event_files_read_back_with_tensorboard(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    mirror = EventMirror(tmp_path)
    log = MetricsLog(tmp_path / "metrics.jsonl", mirror=mirror)
    for step in (1, 2, 3):
        log.append("train", step=step, loss=3.0 - step / 2, policy_loss=2.0, value_loss=0.5, lr=0.01)
    log.append("arena", iteration=1, opponent="baseline", elo=50.0, elo_low=10.0, elo_high=90.0)
    mirror.close()
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    assert [(e.step, e.value) for e in acc.Scalars("loss/total")] == [(1, 2.5), (2, 2.0), (3, 1.5)]
    assert [(e.step, e.value) for e in acc.Scalars("elo/baseline")] == [(1, 50.0)]


def test_an_unwritable_run_dir_is_said_once_and_training_goes_on(tmp_path):
    said = []
    blocker = tmp_path / "file"
    blocker.write_text("x")
    mirror = EventMirror(blocker / "run", said.append)  # a directory under a file cannot be made
    mirror({"kind": "train", "step": 1, "loss": 1.0})
    mirror({"kind": "train", "step": 2, "loss": 1.0})
    assert len(said) == 1 and "metrics.jsonl has everything" in said[0]
