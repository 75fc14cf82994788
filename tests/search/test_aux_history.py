"""A game whose aux is a history (``Game.aux_is_history``: Go's boards for superko) is searched
without copying aux back to the root after each playout: the rows up to the root's ply never
change, those after it are rewritten before they are read. Checked against the same search with
the copy (the flag turned off on one game object): the same tree, move for move, under every ko
rule, superko included, on small boards where playouts run into repetitions."""

from __future__ import annotations

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.search import SearchConfig, Searcher


class _HashedPriors:
    """Deterministic, non-uniform priors and values from each leaf's board (no inline rule, so
    the batched gather / finish path runs)."""

    features = "basic"

    def evaluate(self, batch):
        boards = np.asarray(batch.boards, np.int64)
        q, a = len(boards), batch.legal.shape[1]
        seeds = (boards * np.arange(1, boards.shape[1] + 1)).sum(axis=1)
        priors = np.zeros((q, a), np.float32)
        values = np.zeros(q, np.float32)
        for i, s in enumerate(seeds):
            rng = np.random.default_rng(int(s) & 0xFFFFFFFF)
            p = rng.random(a).astype(np.float32) * batch.legal[i]
            priors[i] = p / p.sum() if p.sum() > 0 else 0.0
            values[i] = rng.uniform(-0.6, 0.6)
        return priors, values


def _search(game, moves: list[str], playouts: int):
    state = game.initial().play_many(moves)
    aux_before = state.fast().aux.copy()
    s = Searcher(game, _HashedPriors(), SearchConfig(batch_size=8))
    r = s.search(state, playouts=playouts)
    assert np.array_equal(state.fast().aux, aux_before)  # the State's own arrays are never touched
    return s, r


@pytest.mark.parametrize("ko", ["simple", "positional", "situational"])
def test_a_history_aux_is_not_copied_back_and_the_tree_is_the_same(ko):
    moves = ["B2", "C2", "C1", "B1", "A2", "D1", "B3", "C3", "pass", "A1"]  # captures, a ko fight
    history = make("go", size=4, ko=ko, komi=0.5)
    copied = make("go", size=4, ko=ko, komi=0.5)
    copied.aux_is_history = False  # this game object restores aux after every playout
    s1, r1 = _search(history, moves, 600)
    s2, r2 = _search(copied, moves, 600)
    assert s1.batch.root_wmask.shape[0] == 0 and s2.batch.root_wmask.shape == copied.aux_shape
    assert [(m.move, m.visits) for m in r1.moves] == [(m.move, m.visits) for m in r2.moves]
    assert r1.root_q == pytest.approx(r2.root_q, abs=1e-12)
    assert r1.pv == r2.pv and r1.proven == r2.proven
    assert len(r1.pv) >= 4  # deep enough to pass through positions superko bans moves in


def test_only_go_declares_a_history_aux():
    assert make("go", size=9).aux_is_history
    for name, opts in (("gomoku", {"size": 9}), ("connect4", {}), ("othello", {})):
        assert not make(name, **opts).aux_is_history
