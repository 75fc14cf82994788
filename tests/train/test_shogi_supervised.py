"""Supervised bootstrap of the shogi net from match records: samples, targets, a checkpoint."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")

from zeroplay.games import make  # noqa: E402
from zeroplay.train.shogi_supervised import load_samples, main  # noqa: E402


def _record(path, plies=12, winner=0, a_is_black=False):
    rng = np.random.default_rng(3)
    s = make("shogi").initial()
    moves = []
    for _ in range(plies):
        legal = s.legal_moves()
        moves.append(int(legal[rng.integers(len(legal))]))
        s = s.play(moves[-1])
    header = {"zeroplay_match": 1, "a": "alphabeta:1000", "b": "random:1", "game": "shogi", "options": {"max_moves": 512}}
    game = {"game": 0, "a_is_black": a_is_black, "winner": winner, "moves": moves, "seconds": 1.0}
    path.write_text(json.dumps(header) + "\n" + json.dumps(game) + "\n")
    return moves


def test_targets_teacher_moves_and_results_from_each_mover(tmp_path):
    moves = _record(tmp_path / "m.jsonl", plies=12, winner=0, a_is_black=False)  # the teacher is White, Black won
    planes, pi, legal, z = load_samples([tmp_path / "m.jsonl"], "alphabeta:1000", skip_plies=2)
    assert planes.shape == (10, 119, 9, 9) and pi.shape == legal.shape == (10, 2187)
    # plies 2..11: Black moves at even plies (no policy target), White (the teacher) at odd ones
    assert (pi[0::2].sum(axis=1) == 0).all() and (pi[1::2].sum(axis=1) == 1).all()
    assert [int(np.argmax(row)) for row in pi[1::2]] == moves[3::2]
    assert legal[np.arange(1, 10, 2), moves[3::2]].all()
    assert (z[0::2] == 1).all() and (z[1::2] == -1).all()  # Black won: +1 from Black's view


@pytest.mark.slow  # trains a net: 5-8 s idle, 25-60 s under load
def test_checkpoint_written_and_bad_teacher_refused(tmp_path, capsys):
    from zeroplay.nn.shogi_net import load_shogi_net

    _record(tmp_path / "m.jsonl")
    out = tmp_path / "net.safetensors"
    assert main([str(out), "--records", str(tmp_path / "m.jsonl"), "--teacher", "alphabeta:1000", "--net", "b1c16",
                 "--steps", "3", "--batch-size", "4"]) == 0
    net, facts = load_shogi_net(out)
    assert (net.blocks_count, net.channels) == (1, 16) and facts["samples"] == 10 and facts["steps"] == 3
    assert main([str(tmp_path / "x.safetensors"), "--records", str(tmp_path / "m.jsonl"), "--teacher", "gnu"]) == 2
    assert "did not play" in capsys.readouterr().err and not (tmp_path / "x.safetensors").exists()
