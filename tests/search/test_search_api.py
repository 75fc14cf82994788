"""Issue 4 beyond the listed cases: search_many, proofs and their verification, debug mode, a full
table, an evaluator that raises, limits, LCB move choice, and regressions."""

from __future__ import annotations

import numpy as np
import pytest

import zeroplay.search.searcher as searcher_module
from test_search_fakes import CountingEvaluator, FakeEvaluator, cell, state_key
from zeroplay.games import make
from zeroplay.search import (
    Limits,
    RolloutEvaluator,
    Searcher,
    SearchConfig,
    UniformEvaluator,
    search,
    search_many,
)
from zeroplay.search.gather import check_invariants

GOMOKU = make("gomoku")
SMALL = make("gomoku", size=9)


def no_virtual_loss(s: Searcher) -> bool:
    return not s.tree.stat_vl.any() and not s.tree.node_vl.any()


# --- search_many ---------------------------------------------------------------------------------
def many_states():
    s0 = SMALL.initial()
    return [s0, s0.play(40), s0.play(40).play(41), SMALL.from_stones([0, 1, 2], [70, 71, 72])]


def test_search_many_matches_separate_searches_with_one_call_per_round():
    cfg = SearchConfig(batch_size=8, seed=1, debug=True)
    counting = CountingEvaluator(UniformEvaluator())
    results = search_many(many_states(), counting, playouts=96, config=cfg)
    single_calls = []
    for state, r in zip(many_states(), results):
        c = CountingEvaluator(UniformEvaluator())
        alone = search(state, c, playouts=96, config=cfg)
        single_calls.append(len(c.batch_sizes))
        # deterministic evaluator and tree: the lockstep search is the same search
        assert r.best_move == alone.best_move
        assert r.root_visits == alone.root_visits == r.playouts == 96
        assert [(m.move, m.visits) for m in r.moves] == [(m.move, m.visits) for m in alone.moves]
        np.testing.assert_array_equal(r.policy, alone.policy)
        assert r.root_q == pytest.approx(alone.root_q)
    # one evaluator call per round, all searches' leaves merged into it
    assert len(counting.batch_sizes) == max(single_calls)
    assert counting.batch_sizes[0] == len(many_states())  # the four roots together
    assert max(counting.batch_sizes) > cfg.batch_size


def test_search_many_with_a_finished_position_and_reused_searchers():
    states = many_states()
    finished = GOMOKU.from_stones([cell(x, 7) for x in range(5)], [cell(x, 9) for x in range(4)])
    assert finished.is_terminal
    results = search_many([GOMOKU.initial(), finished], UniformEvaluator(), playouts=32)
    assert not results[0].game_over and results[1].game_over
    searchers = [Searcher(SMALL, UniformEvaluator()) for _ in states]
    first = search_many(states, UniformEvaluator(), playouts=40, searchers=searchers)
    second = search_many(states, UniformEvaluator(), playouts=40, searchers=searchers)
    for a, b in zip(first, second):
        assert b.root_visits == a.root_visits + 40
    with pytest.raises(ValueError):
        search_many(states, UniformEvaluator(), playouts=4, searchers=searchers[:1])


def test_search_many_with_rollouts():
    game = make("tictactoe")
    s0 = game.initial()
    results = search_many([s0, s0.play(4), s0.play(0)], RolloutEvaluator(seed=3), playouts=300)
    for r in results:
        assert r.playouts == 300 or r.stopped_by == "proven"
        assert r.best_move is not None


@pytest.mark.parametrize("wrap", [False, True], ids=["as-given", "through-evaluate"])
def test_rollout_search_explores_the_root_from_the_first_chunk(wrap):
    """Regression: with the rollouts run inside the compiled loop, the first chunk of playouts
    selected at the root before its private priors were set (all zero on a fresh searcher, or the
    previous root's), so PUCT never explored: all 199 playouts went into one move."""
    ev = RolloutEvaluator(seed=1)
    s = Searcher(SMALL, CountingEvaluator(ev) if wrap else ev, SearchConfig(debug=True))
    r = s.search(SMALL.initial(), playouts=200)
    visited = [m for m in r.moves if m.visits > 0]
    assert len(visited) >= 10
    assert max(m.visits for m in r.moves) < 150
    np.testing.assert_allclose(s.root_priors(), np.full(SMALL.num_actions, 1 / SMALL.num_actions), rtol=1e-5)


def test_search_many_evaluator_error_leaves_all_searchers_usable():
    class FailOnce(CountingEvaluator):
        def evaluate(self, batch):
            if len(self.batch_sizes) == 2:
                self.batch_sizes.append(-1)
                raise RuntimeError("network down")
            return super().evaluate(batch)

    states = many_states()
    failing = FailOnce(UniformEvaluator())
    # NOTE: with ``searchers`` given, search_many evaluates with the searchers' own evaluator
    searchers = [Searcher(SMALL, failing, SearchConfig(batch_size=8, debug=True)) for _ in states]
    with pytest.raises(RuntimeError):
        search_many(states, failing, playouts=64, searchers=searchers)
    for s in searchers:
        assert no_virtual_loss(s)
        assert check_invariants(s.tree, s.root) == -1
    results = search_many(states, UniformEvaluator(), playouts=64, searchers=searchers)
    assert all(r.best_move is not None for r in results)


# --- proofs ------------------------------------------------------------------------------------------
OPEN_THREE = [cell(5, 7), cell(6, 7), cell(7, 7)]
FAR_WHITE = [cell(0, 0), cell(14, 0), cell(0, 14)]


def test_forced_win_in_three_is_proven_and_replays():
    state = GOMOKU.from_stones(OPEN_THREE, FAR_WHITE, to_play=0)
    result = search(state, UniformEvaluator(), playouts=3000)
    assert result.proven == "win" and result.proven_distance == 3
    assert result.stopped_by == "proven"
    assert result.best_move in {cell(4, 7), cell(8, 7)}  # the open fours
    # the PV runs to the five: open four, a block, the other end
    assert len(result.pv) == 3
    end = state.play_many(result.pv)
    assert end.is_terminal and end.winner == 0
    # and the win really comes: whatever White does after the open four, Black completes five
    after = state.play(result.pv[0])
    assert after.to_play == 1
    assert len(after.winning_moves(1)) == 0 and len(after.winning_moves(0)) >= 2
    for reply in after.legal_moves():
        s = after.play(int(reply))
        assert any(s.play(int(w)).winner == 0 for w in s.winning_moves(0))
    assert result.notes == ()


def test_proof_that_fails_verification_is_dropped_with_a_note(monkeypatch):
    state = GOMOKU.from_stones(OPEN_THREE, FAR_WHITE, to_play=0)
    calls = []

    def refuse(*args):
        calls.append(args)
        return False

    monkeypatch.setattr(searcher_module, "verify_line", refuse)
    result = search(state, UniformEvaluator(), playouts=3000)
    assert calls
    assert result.proven is None and result.proven_distance is None
    assert any("verification" in n for n in result.notes)
    assert result.best_move in set(state.legal_moves().tolist())


def test_verify_line_refuses_wrong_claims():
    from zeroplay.search.proof import verify_line

    state = GOMOKU.from_stones(FOUR := [cell(5, 7), cell(6, 7), cell(7, 7), cell(8, 7)], FAR_WHITE + [cell(1, 1)], to_play=0)
    assert verify_line(state, "win", 1, [cell(9, 7)])
    assert not verify_line(state, "win", 3, [cell(9, 7)])  # wrong distance
    assert not verify_line(state, "loss", 1, [cell(9, 7)])  # wrong side
    assert not verify_line(state, "win", 1, [cell(10, 7)])  # no win there
    assert not verify_line(state, "win", 1, [FOUR[0]])  # illegal move
    assert not verify_line(state, "draw", 1, [cell(9, 7)])


def test_proven_loss_in_two_at_the_root_returns_a_legal_block():
    """Regression: White to move facing two of Black's fives, with no five of its own. The root
    used to be proven lost in one ply with no edges, and ``result()`` raised IndexError."""
    state = GOMOKU.from_stones([cell(5, 7), cell(6, 7), cell(7, 7), cell(8, 7)], FAR_WHITE + [cell(1, 1)], to_play=1)
    assert len(state.winning_moves(0)) == 2 and len(state.winning_moves(1)) == 0
    for cfg in (SearchConfig(debug=True), SearchConfig(batch_size=1, debug=True), SearchConfig.selfplay(seed=1)):
        result = search(state, UniformEvaluator(), playouts=200, config=cfg)
        assert result.best_move in {cell(4, 7), cell(9, 7)}
        assert result.proven == "loss" and result.proven_distance == 2
        assert result.policy.sum() == pytest.approx(1.0)
        assert state.play_many(result.pv)  # legal


def test_proven_loss_in_two_tictactoe_regression():
    game = make("tictactoe")
    state = game.initial().play_many([8, 7, 6, 5, 4])  # X threatens 0 and 2; O cannot win
    result = search(state, RolloutEvaluator(seed=0), playouts=2000)
    assert result.best_move in {0, 2}
    assert result.proven == "loss"


def test_reused_root_proven_lost_in_one_ply_is_searched_afresh():
    """Regression: the node after the opponent's open four was in the tree as a one-ply loss
    (no edges); reusing it as the root raised IndexError in ``result()``."""
    w_three = [cell(5, 7), cell(6, 7), cell(7, 7)]
    black = [cell(0, 0), cell(14, 0), cell(0, 14)]
    root = GOMOKU.from_stones(black, w_three, to_play=0)
    x, four = cell(12, 12), cell(8, 7)
    ev = FakeEvaluator({state_key(root): ({x: 1.0}, 0.0), state_key(root.play(x)): ({four: 1.0}, 0.0)})
    s = Searcher(GOMOKU, ev, SearchConfig(batch_size=1, debug=True))
    s.search(root, playouts=10)
    lost = s.stats_at([x, four])
    assert lost is not None and lost["proven"] == "loss" and lost["edges"] == []
    new_state = root.play(x).play(four)
    result = s.search(new_state, playouts=50)
    assert result.best_move in {cell(4, 7), cell(9, 7)}
    assert result.proven == "loss" and result.proven_distance == 2


def test_node_whose_only_child_was_proven_through_another_parent_is_proven_when_reached():
    """Regression (graph search + MCTS-solver). Tic-tac-toe, X at 7, O at 8, X to move. After X3 O2
    X must block at 5, and X3 O2 X5 is a win for O (O4 makes two threats) -- the same node as
    X5 O2 X3. When that node was proven through the X5 parent, the X3 O2 node (its only edge now
    leading to a proven win) was reached again and again, but select_edge found no edge, the
    playout stopped there without updating it, and its stale Q (+1 for X) kept being backed up:
    the engine played the losing X3 against a minimax player."""
    game = make("tictactoe")
    root = game.initial().play_many([7, 8])
    entries = {
        state_key(root): ({3: 0.5, 5: 0.5}, 0.0),
        state_key(root.play(3)): ({2: 1.0}, 0.0),
        state_key(root.play(5)): ({2: 1.0}, 0.0),
        state_key(root.play_many([3, 2])): (None, 0.0),
        state_key(root.play_many([5, 2])): ({3: 1.0}, 0.5),
        state_key(root.play_many([5, 2, 3])): (None, 0.5),
    }
    s = Searcher(game, FakeEvaluator(entries), SearchConfig(batch_size=1, debug=True))
    result = s.search(root, playouts=30)
    shared = s.stats_at([3, 2, 5])
    assert shared["proven"] == "win" and s.node_at([3, 2, 5]) == s.node_at([5, 2, 3])
    blocked = s.stats_at([3, 2])
    into_blocked = [e for e in s.stats_at([3])["edges"] if e["move"] == 2][0]
    assert into_blocked["visits"] > blocked["visits"]  # it was reached after the proof
    assert blocked["proven"] == "loss" and blocked["q"] == -1.0
    assert s.stats_at([3])["proven"] == "win"  # for O
    (x3,) = [m for m in result.moves if m.move == 3]
    assert x3.proven == "loss" and x3.q == -1.0
    assert result.best_move != 3


def test_search_continues_past_an_unproven_root():
    r = search(make("tictactoe").initial(), RolloutEvaluator(seed=1), playouts=500)
    assert r.proven in (None, "draw")
    assert r.best_move is not None


# --- debug mode ----------------------------------------------------------------------------------------
class RandomEvaluator:
    """Seeded random priors (peaked) and values in [-1, 1]."""

    features = None

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def evaluate(self, batch):
        n = len(batch)
        p = (self.rng.random((n, batch.game.num_actions)) ** 3 * batch.legal).astype(np.float32)
        return p, self.rng.uniform(-1, 1, n).astype(np.float32)


def random_state(game, rng, max_moves):
    s = game.initial()
    for _ in range(int(rng.integers(0, max_moves + 1))):
        if s.is_terminal:
            break
        s = s.play(int(rng.choice(s.legal_moves())))
    return s


GAMES = [
    ("tictactoe", {}, 8),
    ("gomoku", {"size": 9}, 30),
    ("gomoku", {"size": 15}, 60),
    ("gomoku", {"size": 7, "n_in_row": 4, "rule": "standard"}, 25),
    ("connect4", {}, 30),
]


@pytest.mark.parametrize("name,options,max_moves", GAMES, ids=[g[0] + str(g[1].get("size", "")) for g in GAMES])
def test_debug_mode_on_random_positions(name, options, max_moves):
    game = make(name, **options)
    rng = np.random.default_rng(abs(hash(name + str(options))) % (1 << 32))
    for i in range(5):
        state = random_state(game, rng, max_moves)
        cfg = SearchConfig(
            debug=True,
            batch_size=int(rng.choice([1, 4, 16])),
            virtual_loss=int(rng.choice([0, 1, 3])),
            noise=bool(rng.integers(2)),
            c_puct_log=float(rng.choice([0.0, 1.0])),
            node_capacity=1 << 12,
            seed=i,
        )
        s = Searcher(game, RandomEvaluator(i), cfg)
        r = s.search(state, playouts=300)
        if r.game_over:
            continue
        assert state.play(r.best_move) is not None
        assert no_virtual_loss(s)
        nxt = state.play(r.best_move)
        if not nxt.is_terminal:
            nxt = nxt.play(int(rng.choice(nxt.legal_moves())))
            if not nxt.is_terminal:
                r2 = s.search(nxt, playouts=200)
                assert nxt.play(r2.best_move) is not None
                assert no_virtual_loss(s)


def test_debug_mode_catches_a_broken_invariant():
    s = Searcher(SMALL, UniformEvaluator(), SearchConfig(debug=True))
    s.search(SMALL.initial(), playouts=50)
    s.tree.node_vl[s.root] += 1  # corrupt: virtual loss left behind
    with pytest.raises(AssertionError):
        s.search(SMALL.initial(), playouts=10)


# --- full table ---------------------------------------------------------------------------------------
TINY_TABLES = [SearchConfig(node_capacity=64), SearchConfig(edge_capacity=2000), SearchConfig(stat_capacity=400)]


@pytest.mark.parametrize("cfg", TINY_TABLES, ids=["nodes", "edges", "stats"])
def test_full_tables_recycle_and_the_search_uses_all_its_playouts(cfg):
    s = Searcher(GOMOKU, UniformEvaluator(), cfg.replace(debug=True))
    state = GOMOKU.initial().play_many(["h8", "h9", "i8"])
    result = s.search(state, playouts=3000)
    assert result.stopped_by == "playouts" and result.playouts == 3000
    assert s.recycled > 0 and any("recycled" in n for n in result.notes)
    assert result.best_move in set(state.legal_moves().tolist())
    assert no_virtual_loss(s)
    assert max(s.memory_load().values()) <= 1.0
    # a sane move with tiny tables too: Black's open three becomes an open four, a proven win
    three = GOMOKU.initial().play_many(["h8", "a1", "i8", "a15", "j8", "o15"])
    r = s.search(three, playouts=3000)
    assert r.best_move in {GOMOKU.parse_move("g8"), GOMOKU.parse_move("k8")} and r.proven == "win"
    # after reuse (GC) the search goes on
    r2 = s.search(state.play(result.best_move), playouts=10)
    assert r2.best_move is not None


@pytest.mark.parametrize("cfg", TINY_TABLES[:2], ids=["nodes", "edges"])
def test_full_table_without_recycling_stops_with_a_note(cfg):
    s = Searcher(GOMOKU, UniformEvaluator(), cfg.replace(debug=True, recycle=False))
    result = s.search(GOMOKU.initial(), playouts=5000)
    assert result.stopped_by == "full"
    assert any("full" in n for n in result.notes)
    assert result.playouts < 5000
    assert result.best_move is not None
    assert no_virtual_loss(s)
    r2 = s.search(GOMOKU.initial().play(result.best_move), playouts=10)
    assert r2.best_move is not None


def test_edge_pool_too_small_for_the_root_still_returns_a_legal_move():
    """Regression: the root could not get its edges, so it had no moves and result() raised
    IndexError."""
    state = SMALL.initial()
    result = search(state, UniformEvaluator(), playouts=5, config=SearchConfig(edge_capacity=10))
    assert result.stopped_by == "full" and any("full" in n for n in result.notes)
    assert result.best_move in set(state.legal_moves().tolist())


# --- an evaluator that raises ------------------------------------------------------------------------
class FailingEvaluator:
    features = None

    def __init__(self, fail_on_call):
        self.calls = 0
        self.fail_on_call = fail_on_call

    def evaluate(self, batch):
        self.calls += 1
        if self.calls == self.fail_on_call:
            raise RuntimeError("evaluator failed")
        return UniformEvaluator().evaluate(batch)


@pytest.mark.parametrize("fail_on_call", [1, 3])
def test_evaluator_error_leaves_the_searcher_usable(fail_on_call):
    s = Searcher(SMALL, FailingEvaluator(fail_on_call), SearchConfig(batch_size=8, virtual_loss=1, debug=True))
    state = SMALL.initial()
    with pytest.raises(RuntimeError):
        s.search(state, playouts=200)
    assert no_virtual_loss(s)
    assert not (s.tree.node_state == 1).any()  # nothing left pending
    assert check_invariants(s.tree, s.root) == -1
    r = s.search(state, playouts=100)
    assert r.playouts == 100 and r.best_move is not None
    assert no_virtual_loss(s)


def test_evaluator_with_wrong_shapes_is_refused():
    class Bad:
        features = None

        def evaluate(self, batch):
            return np.zeros((len(batch), 3), np.float32), np.zeros(len(batch), np.float32)

    s = Searcher(SMALL, Bad())
    with pytest.raises(ValueError, match="shape"):
        s.search(SMALL.initial(), playouts=10)
    assert no_virtual_loss(s)


# --- limits ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"playouts": 0}, {"visits": 0}, {"seconds": 0.0}, {"seconds": -1.0},
                                    {"playouts": -5}])
def test_limits_validation(kwargs):
    with pytest.raises(ValueError):
        Limits(**kwargs)


def test_searcher_search_without_a_limit_is_refused():
    with pytest.raises(ValueError):
        Searcher(SMALL, UniformEvaluator()).search(SMALL.initial())


def test_limits_stop_reasons():
    s0 = SMALL.initial()
    assert search(s0, playouts=50).stopped_by == "playouts"
    r = search(s0, visits=60)
    assert r.stopped_by == "visits" and r.root_visits == 60
    r = search(s0, seconds=0.05)
    assert r.stopped_by == "seconds" and r.playouts > 0
    r = search(s0, playouts=40, seconds=30.0)
    assert r.stopped_by == "playouts" and r.playouts == 40
    assert search(s0).playouts == 800  # the default


def test_tiny_time_limit_still_evaluates_the_root():
    """Regression: a time limit that had passed before the first playout stopped the search with
    an unexpanded root, and result() raised IndexError."""
    ev = CountingEvaluator(UniformEvaluator())
    r = search(SMALL.initial(), ev, seconds=1e-9)
    assert r.stopped_by == "seconds" and r.playouts == 1 and ev.batch_sizes == [1]
    assert r.best_move is not None
    rs = search_many([SMALL.initial(), SMALL.initial().play(40)], UniformEvaluator(), seconds=1e-9)
    assert all(x.best_move is not None and x.playouts == 1 for x in rs)


def test_search_of_another_game_is_refused():
    s = Searcher(SMALL, UniformEvaluator())
    with pytest.raises(ValueError):
        s.search(GOMOKU.initial(), playouts=5)


def test_config_validation():
    for bad in ({"node_capacity": 1000}, {"eval_cache_size": 3}, {"batch_size": 0}, {"virtual_loss": -1},
                {"max_load": 0.0}, {"max_load": 1.5}, {"move_choice": "random"}):
        with pytest.raises(ValueError):
            SearchConfig(**bad)


# --- move choice -------------------------------------------------------------------------------------------
class LcbEvaluator:
    """Root priors 0.85 on A and 0.15 on B; any position with a Black stone on B is worth +0.4 to
    Black. A is visited most, B has the better value."""

    features = None
    A, B = cell(4, 4, 9), cell(0, 0, 9)

    def evaluate(self, batch):
        n = len(batch)
        p = batch.legal.astype(np.float32)
        v = np.zeros(n, np.float32)
        for i in range(n):
            if batch.boards[i].sum() == 0:
                p[i] = 0.0
                p[i, self.A], p[i, self.B] = 0.85, 0.15
            if batch.boards[i][self.B] == 1:
                v[i] = 0.4 if batch.infos[i][0] == 0 else -0.4
        return p, v


def test_move_choice_lcb():
    s0 = SMALL.initial()
    by_visits = search(s0, LcbEvaluator(), playouts=100, config=SearchConfig(move_choice="visits"))
    by_lcb = search(s0, LcbEvaluator(), playouts=100, config=SearchConfig(move_choice="lcb"))
    assert by_visits.best_move == LcbEvaluator.A
    assert by_lcb.best_move == LcbEvaluator.B
    z = SearchConfig().lcb_z
    top = max(m.visits for m in by_lcb.moves)
    pool = [m for m in by_lcb.moves if m.visits >= 0.1 * top]
    assert by_lcb.best_move == max(pool, key=lambda m: m.lcb).move
    for m in by_lcb.moves:
        if m.visits:
            assert m.lcb == pytest.approx(m.q - z * np.sqrt((1 - m.q**2) / m.visits))
        else:
            assert m.lcb == -np.inf


def test_result_fields_are_consistent():
    r = search(SMALL.initial(), UniformEvaluator(), playouts=200, config=SearchConfig(batch_size=8))
    assert r.root_visits == 1 + sum(m.visits for m in r.moves)
    assert r.policy.dtype == np.float32 and r.policy.shape == (SMALL.num_actions,)
    assert r.policy.sum() == pytest.approx(1.0)
    assert r.pv[0] == r.best_move
    SMALL.initial().play_many(r.pv)
    assert [m.visits for m in r.moves] == sorted((m.visits for m in r.moves), reverse=True)
    assert 0.0 < r.table_load < 1.0 and r.playouts_per_s > 0
    assert -1.0 <= r.root_q <= 1.0 and r.win_rate == pytest.approx((r.root_q + 1) / 2)
