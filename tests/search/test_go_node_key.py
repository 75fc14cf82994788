"""Go's node keys and its network's last-move planes: the ``go`` feature set shows the last three
moves (planes 4-6), so two positions with the same stones, side to move and ko but other recent
moves get other network inputs. Transposed move orders reach such positions all the time (B D4,
W E5, B C3 and B C3, W E5, B D4); a node keyed without the recent moves took the priors of
whichever path reached it first. The search folds the moves the planes show into node and cache
keys, as it folds Gomoku's last move (``games.planes.recent_moves_shown``)."""

from __future__ import annotations

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.search import SearchConfig, Searcher
from zeroplay.search.gather import node_key

GO = make("go", size=7)


def _key(state, recent: int) -> int:
    pos = state.fast()
    return int(node_key(GO.zkeys, pos.info, pos.stack, recent))


def test_transposed_orders_share_a_zobrist_key_but_not_a_node_key_under_go_planes():
    from zeroplay.games.planes import recent_moves_shown

    a = GO.initial().play_many(["D4", "E5", "C3"])
    b = GO.initial().play_many(["C3", "E5", "D4"])
    assert a.key == b.key  # the same stones, side to move, no ko: a transposition
    assert not np.array_equal(a.planes("go"), b.planes("go"))  # ... which the net sees differently
    shown = recent_moves_shown("go")
    assert shown == 3
    assert _key(a, shown) != _key(b, shown)
    assert _key(a, 0) == _key(b, 0) == a.key  # evaluators without planes keep the transposition


def test_positions_the_planes_cannot_tell_apart_still_share_a_node():
    from zeroplay.games.planes import recent_moves_shown

    # the same last three moves (D4, E5, C3) after other orders of the moves before them
    a = GO.initial().play_many(["A1", "G1", "A2", "G2", "D4", "E5", "C3"])
    b = GO.initial().play_many(["A2", "G2", "A1", "G1", "D4", "E5", "C3"])
    assert np.array_equal(a.planes("go"), b.planes("go"))
    assert _key(a, recent_moves_shown("go")) == _key(b, recent_moves_shown("go"))


@pytest.mark.parametrize("first, second", [
    ("D4 E5 C3", "C3 E5 D4"),
    ("A1 G1 A2 G2 D4 E5 C3", "A2 G2 A1 G1 D4 E5 C3"),
    ("D4 pass C3 E5", "C3 pass D4 E5"),  # the moves two and three back differ
    ("D4 pass C3 pass B2", "C3 pass D4 pass B2"),  # three back only, behind a pass
    ("A1 pass A2 pass D4 pass C3", "A2 pass A1 pass D4 pass C3"),  # four back: not shown
    ("D4 E5 C3 pass", "C3 E5 D4 pass"),  # the last action a pass
])
def test_the_node_key_changes_exactly_when_the_planes_do(first, second):
    from zeroplay.games.planes import recent_moves_shown

    a, b = GO.initial().play_many(first.split()), GO.initial().play_many(second.split())
    assert a.key == b.key
    shown = recent_moves_shown("go")
    planes_differ = not np.array_equal(a.planes("go"), b.planes("go"))
    assert (_key(a, shown) != _key(b, shown)) == planes_differ


class _RecentMovePriors:
    """A stand-in net reading the ``go`` planes: its priors peak on the point right of the move
    two before the last (plane 6), value 0."""

    features = "go"

    def evaluate(self, batch):
        planes = batch.planes("go")
        priors = np.where(batch.legal, 1.0, 0.0).astype(np.float32)
        for i in range(len(batch)):
            older = np.flatnonzero(planes[i, 6].ravel())
            if older.size and batch.legal[i, older[0] + 1]:
                priors[i, older[0] + 1] = 50.0
        return priors / priors.sum(axis=1, keepdims=True), np.zeros(len(batch), np.float32)


def _top_prior(searcher) -> str:
    edges = searcher.stats_at([])["edges"]
    return GO.format_move(max(edges, key=lambda e: e["prior"])["move"])


def test_a_reused_root_has_the_priors_of_its_own_path():
    searcher = Searcher(GO, _RecentMovePriors(), SearchConfig.for_playouts(64, GO, batch_size=4))
    a = GO.initial().play_many(["D4", "E5", "C3"])
    b = GO.initial().play_many(["C3", "E5", "D4"])
    searcher.search(a, playouts=32)
    assert _top_prior(searcher) == "E4"  # right of D4
    searcher.search(b, playouts=1)  # tree reuse: before the fix b took a's root node
    assert _top_prior(searcher) == "D3"  # right of C3
