"""The centre (issue 20): on an empty 15x15 board the default engines open within one cell of h8.

Checked through the two front-ends a user meets, with their own defaults: ``zeroplay play
--color white`` (the shipped 15x15 model, 800 playouts) and the Gomocup engine's ``BEGIN``
(``pbrain-zeroplay``: its turn time and memory). ``tests/search/test_opening.py`` checks the
search's opening prior underneath."""

from __future__ import annotations

import argparse
import re

import pytest
from play_helpers import Engine

pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")


def near_h8(row_from_top: int, col: int) -> bool:
    return max(abs(row_from_top - 7), abs(col - 7)) <= 1


@pytest.mark.slow  # loads the model and compiles the whole play path: a minute on the shared machine
def test_zeroplay_play_opens_near_h8():
    from zeroplay.games import make
    from zeroplay.play.commands import add_play_commands
    from zeroplay.play.terminal import run

    parser = argparse.ArgumentParser(prog="zeroplay")
    add_play_commands(parser.add_subparsers(dest="command"))
    lines: list[str] = []
    code = run(parser.parse_args(["play", "--color", "white"]), inp=lambda _: "quit", out=lines.append)
    assert code == 0
    text = "\n".join(map(str, lines))
    assert "15x15" in text or "gomoku-15x15" in text  # the default board and model
    move = re.search(r"zeroplay plays ([a-o]\d{1,2})", text)
    assert move, text
    cell = make("gomoku", width=15, height=15).parse_move(move.group(1))
    assert near_h8(*divmod(cell, 15)), move.group(1)


def _begin(e: Engine) -> tuple[int, int]:
    assert e.send("START 15") == ["OK"]
    reply = e.send("BEGIN")[-1]  # after any MESSAGE lines
    x, y = map(int, reply.split(","))  # Gomocup x = column, y = row from the top
    return x, y


def test_pbrain_begin_opens_near_h8():
    """Both answers a Gomocup manager can get: the searched move (shipped model, default turn
    time) once the engine is warm, and the quick heuristic move of a turn that comes before."""
    e = Engine(warm_up=False)
    x, y = _begin(e)  # the search is not compiled yet: the quick move
    assert near_h8(y, x), (x, y)
    # that BEGIN started the warm-up thread (compile the search, load the model): wait for it
    assert e.engine._model_ready.wait(timeout=600) and e.engine._warm_error is None
    x, y = _begin(e)
    assert near_h8(y, x), (x, y)
