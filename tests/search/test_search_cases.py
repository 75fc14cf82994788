"""Issue 4, "Cases that must pass": backup signs, terminal leaves, virtual loss, transpositions,
and the 15x15 tactics (take a five, block a four).

Positions are given in Gomocup (x, y) = (column, row from the top); ``cell(x, y)`` flattens them.
Values are from the side to move at the node unless a name says otherwise.
"""

from __future__ import annotations

import pytest

from test_search_fakes import FakeEvaluator, cell, state_key
from zeroplay.games import make
from zeroplay.search import Searcher, SearchConfig, UniformEvaluator, search

GOMOKU = make("gomoku")


def edge(stats: dict, move: int) -> dict:
    """The edge dict of ``move`` in a ``Searcher.stats_at`` result."""
    (e,) = [e for e in stats["edges"] if e["move"] == move]
    return e


def no_virtual_loss_anywhere(searcher: Searcher) -> bool:
    t = searcher.tree
    return not t.stat_vl.any() and not t.node_vl.any()


# --- backup signs -----------------------------------------------------------------------------
class TestBackupSigns:
    """R (empty board, Black to move) -(B (7,7))-> A -(W (8,8))-> G.

    The fake evaluator puts all prior mass on that line; U(A) = +0.6 for White (A's mover) and
    U(G) = +0.2 for Black (G's mover).

    In this implementation the root's own evaluation is playout 1 (``SearchResult.playouts``
    counts it and N(root) = 1 + sum of edge visits), so the issue's "playout 1" (reaching A) is
    the second playout of a fresh search and "playout 2" (reaching G) the third.
    """

    A_MOVE, G_MOVE = cell(7, 7), cell(8, 8)

    def setup_method(self):
        r = GOMOKU.initial()
        a = r.play(self.A_MOVE)
        g = a.play(self.G_MOVE)
        self.root = r
        self.evaluator = FakeEvaluator({
            state_key(r): ({self.A_MOVE: 1.0}, 0.0),
            state_key(a): ({self.G_MOVE: 1.0}, 0.6),
            state_key(g): (None, 0.2),
        })

    def run(self, playouts: int) -> Searcher:
        s = Searcher(GOMOKU, self.evaluator, SearchConfig(batch_size=1, eval_cache_size=0, debug=True))
        result = s.search(self.root, playouts=playouts)
        assert result.playouts == playouts
        assert result.root_visits == playouts  # the root's evaluation is one of them
        return s

    def test_root_evaluation_is_the_first_playout(self):
        s = self.run(1)
        root = s.stats_at(())
        assert root["visits"] == 1 and root["state"] == "expanded"
        assert all(e["visits"] == 0 for e in root["edges"])

    def test_playout_reaching_a(self):
        s = self.run(2)
        r_a = edge(s.stats_at(()), self.A_MOVE)
        assert r_a["visits"] == 1
        assert r_a["q"] == pytest.approx(-0.6, abs=1e-6)  # Black's view of A
        a = s.stats_at([self.A_MOVE])
        assert a["visits"] == 1 and a["q"] == pytest.approx(0.6, abs=1e-6)  # White's view
        assert s.stats_at(())["q"] == pytest.approx((0.0 - 0.6) / 2, abs=1e-6)

    def test_playout_reaching_g(self):
        s = self.run(3)
        a = s.stats_at([self.A_MOVE])
        a_g = edge(a, self.G_MOVE)
        assert a_g["visits"] == 1
        assert a_g["q"] == pytest.approx(-0.2, abs=1e-6)  # White's view of G
        r_a = edge(s.stats_at(()), self.A_MOVE)
        assert r_a["visits"] == 2
        # Q(A) = (U(A) + 1 * -Q(G)) / N(A) = (0.6 - 0.2) / 2 = 0.2 for White; -0.2 for Black
        assert a["visits"] == 2 and a["q"] == pytest.approx(0.2, abs=1e-6)
        assert r_a["q"] == pytest.approx(-0.2, abs=1e-6)
        g = s.stats_at([self.A_MOVE, self.G_MOVE])
        assert g["visits"] == 1 and g["u"] == pytest.approx(0.2, abs=1e-6)


# --- terminal leaves ---------------------------------------------------------------------------
FOUR_BLACK = [cell(5, 7), cell(6, 7), cell(7, 7), cell(8, 7)]
FOUR_WHITE_SCATTERED = [cell(0, 0), cell(2, 0), cell(4, 0), cell(14, 14)]
FIVES = {cell(4, 7), cell(9, 7)}


@pytest.mark.parametrize("one_ply_proofs", [True, False], ids=["one-ply-proofs", "plain-selection"])
def test_terminal_leaf_is_backed_up_without_the_evaluator(one_ply_proofs):
    state = GOMOKU.from_stones(FOUR_BLACK, FOUR_WHITE_SCATTERED, to_play=0)
    ev = FakeEvaluator()  # uniform priors, value 0
    s = Searcher(GOMOKU, ev, SearchConfig(one_ply_proofs=one_ply_proofs, debug=True))
    result = s.search(state, playouts=1000)
    assert result.best_move in FIVES
    assert result.proven == "win" and result.proven_distance == 1
    e = edge(s.stats_at(()), result.best_move)
    assert e["q"] == 1.0  # Black's view
    child = s.stats_at([result.best_move])
    assert child["state"] == "terminal"
    assert child["q"] == -1.0 and child["u"] == -1.0  # White's view: White has lost
    assert child["edges"] == []
    won = state.play(result.best_move)
    assert won.is_terminal and won.winner == 0
    assert state_key(won) not in ev.evaluated
    assert all(not pos_is_terminal(k) for k in ev.evaluated)
    assert no_virtual_loss_anywhere(s)


def pos_is_terminal(key) -> bool:
    board, to_play = key
    stones_b = [i for i, v in enumerate(board) if v == 1]
    stones_w = [i for i, v in enumerate(board) if v == 2]
    return GOMOKU.from_stones(stones_b, stones_w, to_play=to_play).is_terminal


def test_finished_position_returns_game_over():
    state = GOMOKU.from_stones(FOUR_BLACK, FOUR_WHITE_SCATTERED, to_play=0).play(cell(9, 7))
    assert state.is_terminal
    ev = FakeEvaluator()
    result = search(state, ev, playouts=100)
    assert result.game_over and result.best_move is None and result.stopped_by == "game over"
    assert ev.calls == []
    # a Searcher that has a tree can be asked about a finished position too, and goes on after
    s = Searcher(GOMOKU, ev)
    s.search(GOMOKU.initial(), playouts=10)
    assert s.search(state, playouts=10).game_over
    assert s.search(GOMOKU.initial(), playouts=10).best_move is not None


# --- virtual loss --------------------------------------------------------------------------------
@pytest.mark.parametrize("virtual_loss", [1, 3])
def test_virtual_loss_spreads_a_batch_and_leaves_nothing_behind(virtual_loss):
    root = GOMOKU.initial()
    m1, m2 = cell(7, 7), cell(7, 8)
    ev = FakeEvaluator({state_key(root): ({m1: 0.5, m2: 0.5}, 0.0)})
    s = Searcher(GOMOKU, ev, SearchConfig(batch_size=2, virtual_loss=virtual_loss, eval_cache_size=0, debug=True))
    result = s.search(root, playouts=3)  # the root's evaluation, then one batch of two leaves
    assert [len(c) for c in ev.calls] == [1, 2]
    first, second = ev.calls[1]
    assert first != second
    assert {first, second} == {state_key(root.play(m1)), state_key(root.play(m2))}
    root_stats = s.stats_at(())
    for m in (m1, m2):
        e = edge(root_stats, m)
        assert e["visits"] == 1 and e["q"] == 0.0 and e["virtual_loss"] == 0
        child = s.stats_at([m])
        assert child["visits"] == 1 and child["q"] == 0.0 and child["virtual_loss"] == 0
    assert root_stats["virtual_loss"] == 0
    assert no_virtual_loss_anywhere(s)
    assert result.root_visits == 3


def test_a_leaf_hit_twice_in_a_batch_is_evaluated_once():
    """Without virtual loss every playout of a batch picks the same leaf: the repeats are dropped
    (not counted as playouts) and their virtual loss removed."""
    root = GOMOKU.initial()
    m1 = cell(7, 7)
    ev = FakeEvaluator({state_key(root): ({m1: 1.0}, 0.0)})
    s = Searcher(GOMOKU, ev, SearchConfig(batch_size=8, virtual_loss=0, eval_cache_size=0, debug=True))
    result = s.search(root, playouts=20)
    for call in ev.calls:
        assert len(call) == len(set(call))
    assert sum(len(c) for c in ev.calls) <= result.playouts
    assert result.playouts == 20 and result.root_visits == 20
    assert no_virtual_loss_anywhere(s)


# --- transpositions ---------------------------------------------------------------------------------
ORDER_1 = [cell(7, 7), cell(9, 9), cell(7, 8), cell(8, 8)]
ORDER_2 = [cell(7, 8), cell(8, 8), cell(7, 7), cell(9, 9)]


class LastMoveFake(FakeEvaluator):
    """A fake whose inputs include the last move (as the alphazero-gomoku planes do)."""

    def __init__(self, entries):
        super().__init__(entries, features="alphazero-gomoku")


def transposition_evaluator(cls=FakeEvaluator):
    """Priors that lead the search down both orders to the same four-stone position P.

    The root splits 0.5 / 0.5 between the first moves of the two orders; every later node puts
    all its prior on the next move of its order. Intermediate values (found by trying: each order
    must lead the race to P for a while, so that both descend into it) make both parents of P
    pass playouts into it, not only catch up on its value.
    """
    root = GOMOKU.initial()
    entries = {state_key(root): ({ORDER_1[0]: 0.5, ORDER_2[0]: 0.5}, 0.0)}
    values = {0: (0.0, 0.0, 0.0), 1: (0.5, 0.5, -0.5)}
    for k, order in enumerate((ORDER_1, ORDER_2)):
        s = root
        for i in range(1, 4):
            s = s.play(order[i - 1])
            entries[state_key(s)] = ({order[i]: 1.0}, values[k][i - 1])
    return cls(entries)


def run_transposition_search(evaluator, playouts: int = 40):
    """Search one playout at a time (reusing the tree, whose node indices stay put) and attribute
    every increase of N(node) to the root edge the playout went through.

    Returns (searcher, via) with via[j][k] = increases of N(node reached by order j) during
    playouts through the first move of order k.
    """
    root = GOMOKU.initial()
    # explicit PUCT constants: the race above depends on them, not on tuned defaults
    cfg = SearchConfig(batch_size=1, eval_cache_size=0, debug=True, node_capacity=1 << 10,
                       c_puct=1.25, c_puct_log=0.0, fpu_reduction=0.2, fpu_reduction_root=0.1)
    s = Searcher(GOMOKU, evaluator, cfg)

    def root_edge_visits():
        st = s.stats_at(())
        return [edge(st, order[0])["visits"] if st else 0 for order in (ORDER_1, ORDER_2)]

    snapshots = []
    for _ in range(playouts):
        before_n, before_e = s.tree.node_n.copy(), root_edge_visits()
        result = s.search(root, playouts=1)
        assert result.playouts == 1
        after_e = root_edge_visits()
        k = 0 if after_e[0] > before_e[0] else 1
        assert after_e[k] == before_e[k] + 1 or before_e == [0, 0]  # the root's own evaluation
        assert after_e[1 - k] == before_e[1 - k]  # one playout, one root edge
        snapshots.append((before_n, s.tree.node_n.copy(), k if after_e != before_e else None))
    nodes = [s.node_at(ORDER_1), s.node_at(ORDER_2)]
    via = [[0, 0], [0, 0]]
    for before_n, after_n, k in snapshots:
        for j, n in enumerate(nodes):
            if n >= 0 and after_n[n] > before_n[n]:
                assert k is not None
                via[j][k] += after_n[n] - before_n[n]
    return s, via


def test_transposition_shares_one_node_with_basic_features():
    ev = transposition_evaluator()
    s, via = run_transposition_search(ev)
    p1, p2 = s.node_at(ORDER_1), s.node_at(ORDER_2)
    assert p1 >= 0 and p1 == p2
    p = s.stats_at(ORDER_1)
    # N(P) counts the playouts that went through it, from both parents
    assert via[0] == via[1]  # one node
    assert via[0][0] >= 1 and via[0][1] >= 1
    assert p["visits"] == via[0][0] + via[0][1]
    assert p["visits"] == 1 + sum(e["visits"] for e in p["edges"])
    # evaluated once
    final = GOMOKU.initial().play_many(ORDER_1)
    assert ev.evaluated.count(state_key(final)) == 1
    # root visit targets still sum to the root's playouts (the first playout evaluated the root)
    result = s.search(GOMOKU.initial(), playouts=1)
    root = s.stats_at(())
    assert sum(e["visits"] for e in root["edges"]) == root["visits"] - 1 == result.root_visits - 1
    assert result.policy.sum() == pytest.approx(1.0)


def test_transposition_single_search_targets_sum_to_playouts():
    ev = transposition_evaluator()
    result = Searcher(GOMOKU, ev, SearchConfig(batch_size=4, debug=True)).search(GOMOKU.initial(), playouts=200)
    assert sum(m.visits for m in result.moves) == result.playouts - 1
    assert result.root_visits == result.playouts
    assert result.policy.sum() == pytest.approx(1.0)
    for m in result.moves:
        assert result.policy[m.move] == pytest.approx(m.visits / (result.playouts - 1))


@pytest.mark.parametrize("cache", [0, 1 << 10], ids=["no-cache", "cache"])
def test_transposition_with_last_move_features_keeps_two_nodes(cache):
    ev = transposition_evaluator(LastMoveFake)
    s, via = run_transposition_search(ev)
    p1, p2 = s.node_at(ORDER_1), s.node_at(ORDER_2)
    assert p1 >= 0 and p2 >= 0 and p1 != p2  # the last moves differ: (8,8) vs (9,9)
    # each node counts the playouts of its own order only
    assert via[0][1] == 0 and via[1][0] == 0
    assert s.stats_at(ORDER_1)["visits"] == via[0][0] >= 1
    assert s.stats_at(ORDER_2)["visits"] == via[1][1] >= 1
    final = GOMOKU.initial().play_many(ORDER_1)
    assert ev.evaluated.count(state_key(final)) == 2  # once per last move, cache or not
    # and with the cache on, a full search still evaluates both
    ev2 = transposition_evaluator(LastMoveFake)
    Searcher(GOMOKU, ev2, SearchConfig(batch_size=4, eval_cache_size=cache)).search(GOMOKU.initial(), playouts=200)
    assert ev2.evaluated.count(state_key(final)) == 2


def test_transposition_cache_is_shared_with_basic_features():
    ev = transposition_evaluator()
    Searcher(GOMOKU, ev, SearchConfig(batch_size=4)).search(GOMOKU.initial(), playouts=200)
    final = GOMOKU.initial().play_many(ORDER_1)
    assert ev.evaluated.count(state_key(final)) == 1


# --- 15x15 tactics with uniform priors ------------------------------------------------------------
def test_takes_an_immediate_five():
    state = GOMOKU.from_stones(FOUR_BLACK, [cell(4, 7), cell(2, 0), cell(4, 0), cell(14, 14)], to_play=0)
    result = search(state, UniformEvaluator(), playouts=2000)
    assert result.best_move == cell(9, 7)
    assert result.proven == "win" and result.proven_distance == 1


def test_takes_its_five_rather_than_blocking():
    # both sides have a four; Black to move wins at once
    state = GOMOKU.from_stones(FOUR_BLACK, [cell(3, 9), cell(4, 9), cell(5, 9), cell(6, 9)], to_play=0)
    result = search(state, UniformEvaluator(), playouts=2000)
    assert result.best_move in FIVES


def test_blocks_the_four():
    state = GOMOKU.from_stones(
        [cell(2, 7), cell(9, 9), cell(10, 10), cell(0, 14)],
        [cell(3, 7), cell(4, 7), cell(5, 7), cell(6, 7)],
        to_play=0,
    )
    result = search(state, UniformEvaluator(), playouts=2000)
    assert result.best_move == cell(7, 7)
    assert result.playouts == 2000
