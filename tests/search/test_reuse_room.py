"""A reused tree leaves room for the next search (``Searcher._make_room``)."""

from __future__ import annotations

import pytest

from zeroplay.engine.factory import MODELS_DIR, make_engine
from zeroplay.games import make


@pytest.mark.skipif(not (MODELS_DIR / "go-9x9.safetensors").exists(), reason="the 9x9 Go model does not ship")
def test_a_game_at_the_default_playouts_never_recycles_in_a_search():
    """A new user's 9x9 Go game at the default 800 playouts said "search tables filled: the least
    visited nodes were recycled" at move 12 (and that move took 2.3 s instead of 0.3 s): the
    tree kept from move to move had grown past half the tables sized for 800 playouts."""
    game = make("go", size=9, komi=7)
    searcher = make_engine(game, None).new_searcher(playouts=800)
    state = game.initial()
    for _ in range(24):  # the engine plays both sides, its predicted lines: the most reuse
        result = searcher.search(state, playouts=800)
        assert searcher.recycled == 0 and "search tables filled" not in " ".join(result.notes), state.ply
        assert max(searcher.memory_load().values()) <= 1.0
        state = state.play(int(result.best_move))
        if state.is_terminal:
            break
    assert state.ply >= 20


def test_trimming_a_reused_tree_keeps_the_roots_statistics():
    game = make("gomoku", size=9)
    searcher = make_engine(game, None, use_shipped=False).new_searcher(playouts=200)
    state = game.initial()
    searcher.search(state, playouts=400)  # twice what the tables were sized for
    assert max(searcher.memory_load().values()) > 0.5
    visits = searcher.stats_at(())["visits"]
    searcher.search(state, playouts=1)  # the same root, reused: trimmed first
    assert searcher.recycled == 0 and searcher.stats_at(())["visits"] == visits + 1
    assert max(searcher.memory_load().values()) <= 0.55
