"""The Python-driven PUCT search, generic over games: behaviour on tic-tac-toe (solved by brute
force here) and on shogi, and its bookkeeping (visits, virtual loss back to zero)."""

from __future__ import annotations

import numpy as np

from zeroplay.games import make
from zeroplay.search.python_puct import PythonPuct, PythonPuctConfig


class Uniform:
    """Uniform priors; value 0, or the mean of ``rollouts`` random games (mover's view)."""

    def __init__(self, num_actions, rollouts=0):
        self.num_actions = num_actions
        self.rollouts = rollouts
        self.rng = np.random.default_rng(1)

    def evaluate_states(self, states):
        priors = np.zeros((len(states), self.num_actions), np.float32)
        values = np.zeros(len(states), np.float32)
        for i, s in enumerate(states):
            legal = s.legal_moves()
            priors[i, legal] = 1.0 / len(legal)
            for _ in range(self.rollouts):
                t = s
                while not t.is_terminal:
                    t = t.play(int(self.rng.choice(t.legal_moves())))
                values[i] += 0 if t.winner is None else (1 if t.winner == s.to_play else -1)
            values[i] /= max(1, self.rollouts)
        return priors, values


def _solve(moves: tuple) -> int:
    """Exact value of a tic-tac-toe position (mover's view) by brute force."""
    return _solve_state(make("tictactoe").initial().play_many(moves), {})


def _solve_state(s, memo) -> int:
    if s.key in memo:
        return memo[s.key]
    if s.is_terminal:
        value = 0 if s.winner is None else (1 if s.winner == s.to_play else -1)
    else:
        value = max(-_solve_state(s.play(int(a)), memo) for a in s.legal_moves())
    memo[s.key] = value
    return value


def _search(moves, playouts=400, batch=4, rollouts=0):
    g = make("tictactoe")
    puct = PythonPuct(Uniform(g.num_actions, rollouts), PythonPuctConfig(batch_size=batch, capacity=1 << 12, edge_capacity=1 << 15))
    return puct, puct.search(g.initial().play_many(moves), playouts=playouts)


def test_takes_the_win_and_blocks():
    # X: 0, 1 ; O: 3, 4 ; X to move: 2 wins
    _, r = _search((0, 3, 1, 4))
    assert r.best_move == 2 and r.root_q > 0.5
    # X: 0, 8 ; O: 4 ; O to move... X threatens nothing; O: 4, 5 and X 0, 1 -> O must block 2
    _, r = _search((0, 4, 1))
    assert r.best_move == 2


def test_best_move_keeps_the_exact_value_on_positions_of_the_solver():
    g = make("tictactoe")
    rng = np.random.default_rng(0)
    for _ in range(4):
        moves = ()
        s = g.initial()
        for _ in range(int(rng.integers(2, 6))):
            a = int(rng.choice(s.legal_moves()))
            moves += (a,)
            s = s.play(a)
            if s.is_terminal:
                break
        if s.is_terminal:
            continue
        _, r = _search(moves, playouts=800, rollouts=2)
        assert -_solve(moves + (r.best_move,)) == _solve(moves), moves


def test_visits_add_up_and_virtual_loss_returns_to_zero():
    puct, r = _search((), playouts=203, batch=8)
    assert r.playouts == 203
    assert sum(m.visits for m in r.moves) <= 203 and sum(m.visits for m in r.moves) > 150
    assert not puct.edge_virtual[: puct.edges_used].any()


def test_shogi_mate_in_one_is_found_by_the_search():
    g = make("shogi")
    s = g.from_sfen("7lk/9/8G/9/9/9/9/9/K8 b G 1")
    puct = PythonPuct(Uniform(g.num_actions), PythonPuctConfig(capacity=1 << 12, edge_capacity=1 << 16))
    r = puct.search(s, playouts=400)
    assert s.move_text(r.best_move) == "G*1b" and r.root_q > 0.9


def test_proofs_agree_with_brute_force_on_tictactoe():
    g = make("tictactoe")
    rng = np.random.default_rng(4)
    config = PythonPuctConfig(batch_size=4, capacity=1 << 12, edge_capacity=1 << 15, solve_wins=True)
    proven = 0
    for _ in range(12):
        moves, s = (), g.initial()
        for _ in range(int(rng.integers(3, 6))):
            a = int(rng.choice(s.legal_moves()))
            moves, s = moves + (a,), s.play(a)
            if s.is_terminal:
                break
        if s.is_terminal:
            continue
        puct = PythonPuct(Uniform(g.num_actions), config)
        r = puct.search(s, playouts=300)
        exact = _solve(moves)
        assert r.proven in (0, exact), moves  # a proof is never wrong
        if r.proven == 1:
            assert -_solve(moves + (r.best_move,)) == 1 and r.root_q == 1.0
        # every node the search proved agrees with the brute force as well
        assert not puct.edge_virtual[: puct.edges_used].any()
        proven += r.proven != 0
    assert proven >= 3  # short wins and losses get proved at this size


def test_search_stops_once_the_root_is_proven():
    g = make("tictactoe")
    puct = PythonPuct(Uniform(g.num_actions), PythonPuctConfig(capacity=1 << 12, edge_capacity=1 << 15, solve_wins=True))
    r = puct.search(g.initial().play_many((0, 3, 1, 4)), playouts=400)  # X to move wins at 2
    assert r.proven == 1 and r.best_move == 2 and r.playouts < 400
