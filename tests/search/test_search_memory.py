"""Lean search memory: 16-bit priors, lazily allocated statistics, the sizing rule, recycling and
the candidate radius (issue 20)."""

from __future__ import annotations

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.search import SearchConfig, Searcher, UniformEvaluator
from zeroplay.search.cache import EvalCache
from zeroplay.search.config import MAX_PLAYOUT_MEMORY, table_bytes
from zeroplay.search.gather import check_invariants, near_stones
from zeroplay.search.gc import recycle
from zeroplay.search.tree import PRIOR_ABS_ERROR, decode_priors, quantise_priors
from zeroplay.tt.node_table import node_count

G9 = make("gomoku", width=9, height=9)
G15 = make("gomoku", width=15, height=15)


def test_priors_round_trip_within_the_bound_and_keep_their_order():
    rng = np.random.default_rng(1)
    p = np.concatenate([rng.random(5000) ** 4, [0.0, 1.0, 1e-9, 0.5]])
    q = quantise_priors(p)
    assert np.abs(q - p).max() <= PRIOR_ABS_ERROR
    order = np.argsort(p)
    assert (np.diff(q[order]) >= 0).all()  # monotone: the order by prior survives
    assert q[-3] == 1.0 and decode_priors(np.array([0], np.uint16))[0] == 0.0


def _array_bytes(s: Searcher) -> int:
    th = s.batch.threats
    arrays = list(s.tree) + list(s.table) + [th.node_line, th.pool, th.table.entries]
    if s.cache is not None:
        arrays += [s.cache.keys, s.cache.valid, s.cache.values, s.cache.priors]
    return sum(a.nbytes for a in arrays if isinstance(a, np.ndarray) and a.size > 1024)


@pytest.mark.parametrize("budget", [1 << 20, 24 << 20, 300 << 20])
@pytest.mark.parametrize("game", [G9, G15, make("connect4")], ids=["g9", "g15", "c4"])
def test_for_memory_tables_fit_the_budget_counted_from_the_arrays(budget, game):
    """Independent check: the nbytes of every array the searcher allocates (all pages touched)."""
    for threat in (False, True) if budget > 8 << 20 else (False,):
        cfg = SearchConfig.for_memory(budget, game, threat_solver=threat)
        s = Searcher(game, UniformEvaluator(), cfg)
        total = _array_bytes(s)
        assert total <= budget, (total, budget)
        assert total >= 0.6 * budget - (3 << 20)  # and most of it is used
        assert cfg.node_capacity & (cfg.node_capacity - 1) == 0 and 0 < cfg.max_load <= 0.9


def test_for_memory_refuses_a_budget_below_the_smallest_table():
    with pytest.raises(ValueError, match="needs at least"):
        SearchConfig.for_memory(10_000, G15)


def test_for_playouts_holds_twice_the_playouts_with_every_legal_move_up_to_its_cap():
    cfg = SearchConfig.for_playouts(100_000, G15)
    assert cfg.node_capacity * cfg.max_load >= 200_000
    assert cfg.edge_capacity >= 200_000 * 225 and cfg.stat_capacity >= 200_000
    big = SearchConfig.for_playouts(1 << 27, G15)
    assert big.memory_bytes == MAX_PLAYOUT_MEMORY
    nodes = round(big.node_capacity * big.max_load)
    assert table_bytes(nodes, big.edge_capacity // nodes) <= MAX_PLAYOUT_MEMORY
    with pytest.raises(ValueError):
        SearchConfig.for_playouts(0, G15)


SMALL_SEARCHES = {  # a game, the moves to a position, playouts per move
    "connect4": (make("connect4"), [3, 3, 2], 100),
    "gomoku9": (G9, ["e5", "d4"], 200),
    "othello": (make("othello"), [], 200),
    "go9": (make("go", width=9, height=9), [], 200),
}


@pytest.mark.parametrize("case", sorted(SMALL_SEARCHES))
def test_a_search_sized_for_its_playouts_never_recycles(case):
    """The failure this guards: Connect Four at 100 playouts got 3 edges per node for its 7 legal
    moves (a share of the actions), filled its edge pool and recycled on the first move."""
    game, moves, playouts = SMALL_SEARCHES[case]
    cfg = SearchConfig.for_playouts(playouts, game, batch_size=8)
    assert cfg.edge_capacity >= 2 * playouts * game.max_legal_moves
    s = Searcher(game, UniformEvaluator(), cfg)
    state = game.initial().play_many(moves)
    for _ in range(4):  # with tree reuse from move to move
        r = s.search(state, playouts=playouts)
        assert r.playouts == playouts and s.recycled_total == 0 and s.stopped_by != "full", (s.stopped_by, s.recycled_total)
        assert check_invariants(s.tree, s.root) == -1
        state = state.play(int(r.best_move))


def test_recycling_keeps_the_kept_nodes_statistics_exactly():
    s = Searcher(G9, UniformEvaluator(), SearchConfig(debug=True, batch_size=8))
    state = G9.initial().play_many(["e5", "d4"])
    s.search(state, playouts=3000)
    before = s.stats_at(())
    best = max(before["edges"], key=lambda e: e["visits"])["move"]
    child_before = s.stats_at([best])
    nodes = int(node_count(s.table))
    freed = recycle(s.tree, s.table, s.root, 3)
    assert freed > nodes // 2 and int(node_count(s.table)) == nodes - freed
    after = s.stats_at(())
    assert after["visits"] == before["visits"] and after["q"] == pytest.approx(before["q"], abs=1e-6)
    for e0, e1 in zip(before["edges"], after["edges"]):
        assert (e0["move"], e0["visits"]) == (e1["move"], e1["visits"])
        if e0["visits"]:
            assert e1["q"] == pytest.approx(e0["q"], abs=1e-6)  # frozen or kept: the same value
    assert s.stats_at([best])["visits"] == child_before["visits"]
    assert check_invariants(s.tree, s.root) == -1
    # the search goes on from the recycled graph, and the frozen edges grow new children
    r = s.search(state, playouts=500)
    assert r.playouts == 500 and check_invariants(s.tree, s.root) == -1


def _near_reference(board, width, height, moves, radius):
    stones = [(c // width, c % width) for c in range(len(board)) if board[c]]
    if not stones:
        return list(moves)
    kept = [m for m in moves if any(max(abs(m // width - r), abs(m % width - q)) <= radius for r, q in stones)]
    return kept or list(moves)


def test_near_stones_matches_a_brute_force_reference():
    rng = np.random.default_rng(7)
    for width, height in ((9, 9), (15, 15), (7, 11)):
        game = make("gomoku", width=width, height=height)
        for stones in (0, 1, 3, 12):
            board = np.zeros(game.cells, np.int8)
            board[rng.choice(game.cells, stones, replace=False)] = rng.integers(1, 3, stones)
            legal = np.flatnonzero(board == 0).astype(np.int64)
            for radius in (1, 2, 3):
                moves = legal.copy()
                k = near_stones(game.params, board, moves, len(moves), radius, np.zeros(game.cells, np.uint8))
                assert moves[:k].tolist() == _near_reference(board, width, height, legal, radius)


def test_candidate_radius_keeps_the_neighbourhood_and_the_forced_blocks():
    state = G15.initial().play_many(["h8", "h9"])
    s = Searcher(G15, UniformEvaluator(), SearchConfig(candidate_radius=2))
    s.search(state, playouts=200)
    moves = {e["move"] for e in s.stats_at(())["edges"]}
    assert moves == set(_near_reference(state.board.ravel(), 15, 15, state.legal_moves(), 2))
    assert len(moves) == 5 * 6 - 2
    # a four far from the rest: its blocks stay the only moves
    far = G15.initial().play_many(["a1", "o15", "b1", "o14", "c1", "o13", "d1"])
    r = Searcher(G15, UniformEvaluator(), SearchConfig(candidate_radius=1)).search(far, playouts=50)
    assert r.best_move == G15.parse_move("e1")
    # a game without the capability ignores the radius
    c4 = make("connect4")
    assert not getattr(c4, "stones_stay", False)
    r = Searcher(c4, UniformEvaluator(), SearchConfig(candidate_radius=1)).search(c4.initial().play(3), playouts=50)
    assert len(r.moves) == 7


def test_eval_cache_entry_bytes_match_the_sizing_rule():
    from zeroplay.search.config import _cache_entry_bytes

    c = EvalCache(16, 225)
    assert (c.keys.nbytes + c.valid.nbytes + c.values.nbytes + c.priors.nbytes) // 16 == _cache_entry_bytes(225)


@pytest.mark.parametrize("case", sorted(SMALL_SEARCHES))
def test_max_legal_moves_bounds_every_position_of_random_games(case):
    game = SMALL_SEARCHES[case][0]
    rng = np.random.default_rng(3)
    for _ in range(5):
        state = game.initial()
        while not state.is_terminal:
            legal = state.legal_moves()
            assert 1 <= len(legal) <= game.max_legal_moves
            state = state.play(int(rng.choice(legal)))
