"""Othello 6x6 search-only engine (PUCT with random-rollout values) against a uniformly random
mover: the measured line in docs/STRENGTH.md. Slow: run with

    PYTHONPATH=src python -m pytest tests/games/test_othello_strength.py -m slow -s

or, to write the games as JSON lines (the first line the command and the result),

    PYTHONPATH=src python tests/games/test_othello_strength.py --record FILE

The quick test checks that the search plays legal moves (the pass included) and beats the random
mover in a few games."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.search import RolloutEvaluator, search
from zeroplay.engine.elo import elo_estimate

GAMES, PLAYOUTS, SEED = 100, 200, 2026


def _play(game, engine_colour, playouts, rng, evaluator):
    """One game; returns the winner (0, 1) or None, and the moves."""
    state = game.initial()
    while not state.is_terminal:
        if state.to_play == engine_colour:
            move = search(state, evaluator, playouts=playouts).best_move
        else:
            move = int(rng.choice(state.legal_moves()))
        assert move in state.legal_moves()
        state = state.play(int(move))
    return state.winner, state.moves


def match(games: int, playouts: int, seed: int = 0):
    """(wins, draws, losses) of the engine, colours alternating (engine Black in even games), and
    the games' moves."""
    game = make("othello", size=6)
    rng = np.random.default_rng(seed)
    evaluator = RolloutEvaluator(seed=seed)
    w = d = l = 0
    records = []
    for i in range(games):
        colour = i % 2
        winner, moves = _play(game, colour, playouts, rng, evaluator)
        records.append((colour, winner, " ".join(game.format_move(m) for m in moves)))
        if winner is None:
            d += 1
        elif winner == colour:
            w += 1
        else:
            l += 1
    return (w, d, l), records


def test_search_beats_a_random_mover_in_a_few_games():
    (w, d, l), _ = match(games=4, playouts=100, seed=1)
    assert w >= 3


def summary(w: int, d: int, l: int) -> str:
    return (f"othello 6x6, search only (random rollouts, {PLAYOUTS} playouts) vs a uniformly random mover, "
            f"{w + d + l} games, colours alternating: {elo_estimate(w, d, l)}")


@pytest.mark.slow
def test_search_only_engine_vs_random_100_games(capsys):
    (w, d, l), records = match(games=GAMES, playouts=PLAYOUTS, seed=SEED)
    with capsys.disabled():
        print("\n" + summary(w, d, l))
    assert w > 80


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--record":
        sys.exit("usage: test_othello_strength.py --record FILE")
    (w, d, l), records = match(games=GAMES, playouts=PLAYOUTS, seed=SEED)
    lines = [json.dumps({"command": "PYTHONPATH=src python tests/games/test_othello_strength.py --record FILE",
                         "games": GAMES, "playouts": PLAYOUTS, "seed": SEED, "wins": w, "draws": d, "losses": l,
                         "summary": summary(w, d, l)})]
    lines += [json.dumps({"engine": "BW"[colour], "winner": None if winner is None else "BW"[winner], "moves": moves})
              for colour, winner, moves in records]
    tmp = sys.argv[2] + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    import os

    os.replace(tmp, sys.argv[2])
    print(summary(w, d, l))
