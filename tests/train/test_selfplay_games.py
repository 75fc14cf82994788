"""Self-play games: z signs of real games, policy targets, resignation, playout cap randomization."""

from __future__ import annotations

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.search import UniformEvaluator
from zeroplay.train.selfplay import FinishedGame, SelfPlayConfig, SelfPlayer

FOUR = make("gomoku", size=6, n_in_row=4)


def _play(game, n, **config):
    cfg = SelfPlayConfig(**{"playouts": 32, "parallel_games": 4, "seed": 3, **config})
    return SelfPlayer(game, UniformEvaluator(), cfg).play(n)


def test_plays_the_games_asked_for_with_valid_targets():
    games = _play(FOUR, 6, resign_threshold=None)
    assert len(games) == 6
    for g in games:
        final = FOUR.initial().play_many(g.moves)  # every move legal
        assert final.is_terminal and final.winner == g.winner and not g.resigned
        assert len(g.policies) == len(g.moves) == len(g.root_q)
        state = FOUR.initial()
        for move, pi in zip(g.moves, g.policies):
            legal = np.zeros(FOUR.num_actions, bool)
            legal[state.legal_moves()] = True
            assert pi.dtype == np.float32 and abs(pi.sum() - 1) < 1e-5 and (pi[~legal] == 0).all()
            state = state.play(move)


def test_z_signs_of_real_games_follow_the_winner():
    games = _play(FOUR, 8, resign_threshold=None)
    decisive = [g for g in games if g.winner is not None]
    assert decisive, "uniform self-play on 6x6 four-in-row should produce wins"
    for g in games:
        s = g.samples(FOUR, "basic")
        assert len(s) == len(g.moves)
        to_play = s.ply % 2  # Black moves at even plies
        if g.winner is None:
            assert (s.z == 0).all()
        else:
            expected = np.where(to_play == g.winner, 1.0, -1.0)
            np.testing.assert_array_equal(s.z, expected)
            if g.winner == 0:
                assert s.z[0] == 1.0  # a Black win gives +1 on Black's first move


def test_tictactoe_draws_give_zero_z():
    games = _play(make("tictactoe"), 6, playouts=200, resign_threshold=None, temperature_moves=0)
    draws = [g for g in games if g.winner is None]
    assert draws, "strong uniform search on tic-tac-toe draws"
    for g in draws:
        assert (g.samples(make("tictactoe"), "basic").z == 0).all()


def test_playout_cap_randomization_keeps_only_full_searches_as_targets():
    games = _play(FOUR, 6, resign_threshold=None, full_search_prob=0.3, fast_playouts=8)
    total = sum(len(g.moves) for g in games)
    targets = sum(g.targets for g in games)
    assert 0 < targets < total
    for g in games:
        assert len(g.samples(FOUR, "basic")) == g.targets
        assert all(p is None or abs(p.sum() - 1) < 1e-5 for p in g.policies)


def test_resignation_ends_games_and_no_resign_games_are_checked():
    # a uniform evaluator's Q goes to -1 once a side is lost: resignation triggers quickly
    games = _play(FOUR, 16, resign_threshold=-0.5, resign_moves=1, no_resign_fraction=0.5, playouts=64)
    resigned = [g for g in games if g.resigned]
    assert resigned
    for g in resigned:
        assert not g.resign_disabled and g.winner in (0, 1)
        final = FOUR.initial().play_many(g.moves)
        assert not final.is_terminal
        s = g.samples(FOUR, "basic")  # the winner comes from the resignation
        loser_moves = (s.ply % 2) != g.winner
        assert (s.z[loser_moves] == -1).all() and (s.z[~loser_moves] == 1).all()
        assert g.record(FOUR).result.endswith("+R")
    assert not any(g.resigned for g in games if g.resign_disabled)
    checked = [g for g in games if g.would_resign is not None]
    assert all(g.resign_disabled for g in checked)
    assert all(g.false_resignation == (g.winner != 1 - g.would_resign) for g in checked)


def test_false_resignation_bookkeeping():
    g = FinishedGame(moves=[], policies=[], root_q=[], winner=1, would_resign=1)
    assert g.false_resignation is True  # the would-be resigner won
    assert FinishedGame([], [], [], winner=0, would_resign=1).false_resignation is False
    assert FinishedGame([], [], [], winner=None, would_resign=0).false_resignation is True
    assert FinishedGame([], [], [], winner=0).false_resignation is None


def test_same_seed_same_games():
    a = _play(FOUR, 4, resign_threshold=None)
    b = _play(FOUR, 4, resign_threshold=None)
    assert [g.moves for g in a] == [g.moves for g in b]


def test_opening_moves_are_sampled():
    games = _play(FOUR, 8, resign_threshold=None, temperature_moves=4)
    assert len({tuple(g.moves[:4]) for g in games}) > 1


def test_with_a_network_evaluator():
    torch = pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")
    from zeroplay.nn import NetEvaluator, build_model

    torch.set_num_threads(1)
    net = NetEvaluator(build_model("tiny", FOUR, "basic", seed=0), "basic")
    games = SelfPlayer(FOUR, net, SelfPlayConfig(playouts=16, parallel_games=3, seed=1)).play(3)
    assert len(games) == 3 and net.calls > 0
    # one call per round for all games: far fewer calls than positions
    assert net.positions > 2 * net.calls


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        SelfPlayConfig(full_search_prob=0)
    with pytest.raises(ValueError):
        SelfPlayConfig(playouts=0)
    with pytest.raises(ValueError, match="batch_size <= 1024"):
        SelfPlayConfig(batch_size=2_000_000)
    with pytest.raises(ValueError, match="parallel_games must be <= 1024"):
        SelfPlayConfig(parallel_games=100_000)


def test_threat_solver_self_play_converts_every_forced_win():
    """With the VCF threat solver on, a mover who has a win by fours always wins the game."""
    from zeroplay.solvers.threat_solver import ThreatSolver

    game = make("gomoku", size=9, n_in_row=5)
    solver = ThreatSolver(game, table_mib=1)
    checked = 0
    for threat_solver in (True, False):
        games = _play(game, 8, playouts=24, resign_threshold=None, temperature_moves=2, threat_solver=threat_solver)
        missed = 0
        for g in games:
            state = game.initial()
            for move in g.moves:
                if solver.vcf(state, nodes=5_000).found:
                    checked += threat_solver
                    missed += g.winner != state.to_play
                    break
                state = state.play(move)
        if threat_solver:
            assert missed == 0
        else:
            assert missed > 0, "weak plain self-play should miss some forced wins (else this test proves nothing)"
    assert checked > 0
