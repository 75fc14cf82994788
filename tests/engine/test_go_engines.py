"""The Go engines of ``zeroplay gtp``: both take a large capture that random play sees at once."""

from __future__ import annotations

import pytest

from zeroplay.engine.go_montecarlo import FlatMonteCarlo, ownership
from zeroplay.engine.go_search import PuctRollout
from zeroplay.games import make

# 7x7: the White chain C4 D4 E4 F4 is in atari (its last liberty G4); Black to move
BLACK = ["B4", "C5", "D5", "E5", "F5", "C3", "D3", "E3", "F3", "B6", "B2"]
WHITE = ["C4", "D4", "E4", "F4", "A5", "A3", "G6", "G2"]


@pytest.mark.parametrize("engine", [FlatMonteCarlo(1500, seed=1), PuctRollout(1500, seed=1)],
                         ids=["flat", "search"])
def test_engines_capture_four(engine):
    game = make("go", size=7, komi=0.5)
    state = game.from_stones(BLACK, WHITE, to_play=0)
    stats = engine.think(state)
    move = engine.choose(state, stats)
    assert game.format_move(move) == "G4"
    assert stats[0].visits >= stats[-1].visits and 0.5 < stats[0].winrate <= 1.0


def test_ownership_sees_the_chain_die():
    game = make("go", size=7, komi=0.5)
    state = game.from_stones(BLACK, WHITE, to_play=0).play("G4")
    owner = ownership(state, 200)
    assert all(owner[game.parse_move(v)] > 0.5 for v in ("C4", "D4", "E4", "F4"))  # Black's now


def test_report_slices_shorter_than_a_batch_do_not_end_the_search():
    # GTP's `genmove_analyze b 1` reports every 10 ms: a first slice that ended before its first
    # batch (the root's set-up) made 0 playouts, which ended the search and played the prior's move
    game = make("go", size=9)
    state = game.initial().play(game.parse_move("E5")).play(game.parse_move("C3"))
    engine = PuctRollout(200, seed=1)
    reports = []
    stats = engine.think(state, playouts=200, on_progress=reports.append, progress_every_s=1e-6)
    assert sum(s.visits for s in stats) >= 190 and engine.last.root_visits >= 200
    assert reports and reports[-1]
