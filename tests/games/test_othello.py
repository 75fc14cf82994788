"""Othello rules, keys, undo, perft, symmetries and notation against a plain-Python reference.

``_Ref`` below is written from the rules alone (grid[y][x], row 0 at the top, no shared code with
the kernels): it is the truth for legal moves, flips, passes, the end of the game and the winner.
The 8x8 perft figures are the published ones (e.g. Aart Bik's Othello perft table).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from zeroplay.games import IllegalMoveError, make
from zeroplay.games.othello import kernels as K
from zeroplay.games.othello.layout import I_DISCS0, I_PASSES
from zeroplay.hashing import zobrist_key

DIRS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]
PERFT_8X8 = {1: 4, 2: 12, 3: 56, 4: 244, 5: 1396, 6: 8200, 7: 55092, 8: 390216}


class _Ref:
    """Reference Othello: grid[y][x] in {0, 1 Black, 2 White}; moves are (x, y) or None (pass)."""

    def __init__(self, n):
        self.n = n
        self.grid = [[0] * n for _ in range(n)]
        m = n // 2
        self.grid[m - 1][m - 1] = self.grid[m][m] = 2
        self.grid[m - 1][m] = self.grid[m][m - 1] = 1
        self.to_play = 0
        self.passes = 0

    def copy(self):
        r = _Ref.__new__(_Ref)
        r.n, r.to_play, r.passes = self.n, self.to_play, self.passes
        r.grid = [row[:] for row in self.grid]
        return r

    def flips(self, x, y, me):
        if self.grid[y][x]:
            return []
        out = []
        for dx, dy in DIRS:
            run = []
            cx, cy = x + dx, y + dy
            while 0 <= cx < self.n and 0 <= cy < self.n and self.grid[cy][cx] == 3 - me:
                run.append((cx, cy))
                cx, cy = cx + dx, cy + dy
            if run and 0 <= cx < self.n and 0 <= cy < self.n and self.grid[cy][cx] == me:
                out += run
        return out

    def over(self):
        return self.passes >= 2 or all(all(row) for row in self.grid)

    def legal(self):
        """Legal moves: cells with flips, or [None] (pass) when there is none; [] when over."""
        if self.over():
            return []
        me = self.to_play + 1
        cells = [(x, y) for y in range(self.n) for x in range(self.n) if self.flips(x, y, me)]
        return cells or [None]

    def play(self, move):
        if move is None:
            self.passes += 1
        else:
            me = self.to_play + 1
            x, y = move
            for fx, fy in self.flips(x, y, me):
                self.grid[fy][fx] = me
            self.grid[y][x] = me
            self.passes = 0
        self.to_play = 1 - self.to_play

    def winner(self):
        b = sum(row.count(1) for row in self.grid)
        w = sum(row.count(2) for row in self.grid)
        return None if b == w else (0 if b > w else 1)

    def perft(self, depth):
        if depth == 0:
            return 1
        total = 0
        for m in self.legal():
            child = self.copy()
            child.play(m)
            total += child.perft(depth - 1)
        return total


def _action(game, move):
    return game.pass_action if move is None else move[1] * game.width + move[0]


def _random_games(game, count, seed):
    """Yield (reference, state) pairs along ``count`` random games, checked move by move."""
    rng = random.Random(seed)
    for _ in range(count):
        ref, state = _Ref(game.width), game.initial()
        yield ref, state
        while not ref.over():
            m = rng.choice(ref.legal())
            ref.play(m)
            state = state.play(_action(game, m))
            yield ref, state


@pytest.mark.parametrize("size", [4, 6, 8])
def test_random_games_match_the_reference(size):
    game = make("othello", size=size)
    for ref, state in _random_games(game, 40 if size < 8 else 10, seed=size):
        assert state.legal_moves().tolist() == sorted(_action(game, m) for m in ref.legal())
        assert state.board.tolist() == ref.grid
        assert state.to_play == ref.to_play
        assert state.is_terminal == ref.over()
        if state.is_terminal:
            assert state.winner == ref.winner()
        black, white = np.flatnonzero(state.board.ravel() == 1), np.flatnonzero(state.board.ravel() == 2)
        assert state.key == zobrist_key(black, white, state.to_play, game.cells)
        assert game.discs(state) == (len(black), len(white))


def test_undo_restores_every_array():
    game = make("othello", size=6)
    for _, state in _random_games(game, 20, seed=7):
        if state.is_terminal:
            continue
        before = state.fast()
        for action in state.legal_moves():
            pos = state.fast()
            game._apply(pos, int(action))
            assert game._undo(pos) == action
            for name in ("board", "info", "stack", "aux"):
                assert np.array_equal(getattr(pos, name), getattr(before, name)), name


def test_undo_a_whole_game_back_to_the_start():
    game = make("othello", size=6)
    games = [s for _, s in _random_games(game, 1, seed=3)]
    final = games[-1]
    pos = final.fast()
    for s in reversed(games[:-1]):
        game._undo(pos)
        for name in ("board", "info", "stack", "aux"):
            assert np.array_equal(getattr(pos, name), getattr(s._pos, name)), name


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5, 6])
def test_perft_6x6_against_the_reference(depth):
    game = make("othello", size=6)
    pos = game.initial().fast()
    got = K.perft(game.params, game.zkeys, pos.board, pos.info, pos.stack, pos.aux, depth)
    assert got == _Ref(6).perft(depth)


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5, 6, pytest.param(7, marks=pytest.mark.slow),
                                   pytest.param(8, marks=pytest.mark.slow)])
def test_perft_8x8_published(depth):
    game = make("othello", size=8)
    pos = game.initial().fast()
    assert K.perft(game.params, game.zkeys, pos.board, pos.info, pos.stack, pos.aux, depth) == PERFT_8X8[depth]


def test_passes_and_the_end_by_two_passes():
    game = make("othello", size=4)
    with pytest.raises(IllegalMoveError, match="pass is legal only"):
        game.initial().play("pass")
    single = double = 0
    for ref, state in _random_games(game, 200, seed=11):
        if state.legal_moves().tolist() != [game.pass_action]:
            continue
        empty = int(np.flatnonzero(state.board.ravel() == 0)[0])
        with pytest.raises(IllegalMoveError, match="flips nothing"):
            state.play(empty)
        after = state.play("pass")
        assert after.last_move is None and after.to_play == 1 - state.to_play
        assert after._pos.info[I_PASSES] == state._pos.info[I_PASSES] + 1
        nxt = ref.copy()
        nxt.play(None)
        if nxt.over():  # the second pass in a row ends the game
            assert after.is_terminal and after.winner == ref.winner() and after.legal_moves().size == 0
            with pytest.raises(IllegalMoveError, match="over"):
                after.play("pass")
            double += 1
        elif nxt.legal() != [None]:
            assert not after.is_terminal and game.pass_action not in after.legal_moves()
            with pytest.raises(IllegalMoveError, match="pass is legal only"):
                after.play("pass")
            single += 1
    assert single > 0 and double > 0  # both cases met


def test_full_board_ends_and_a_draw():
    game = make("othello", size=4)
    cells = list(range(16))
    s = game.from_stones(cells[:8], cells[8:])
    assert s.is_terminal and s.winner is None
    assert "draw" in str(s)


def test_rollout_result_on_a_forced_finish():
    game = make("othello", size=4)
    # one empty cell, d1; Black fills it (flipping c1's run) and wins 16-0... checked by the reference
    black = [c for c in range(15) if c != 14]
    s = game.from_stones(black, [14], to_play=0)
    board, info = s.fast().board, s.fast().info
    rng = np.array([12345], dtype=np.uint64)
    assert K.rollout(game.params, board, info, rng) == 0
    assert (board == 1).all()


def test_symmetries_keep_the_start_and_the_rules():
    game = make("othello", size=6)
    assert [s.name for s in game.symmetries] == ["identity", "rot180", "transpose", "antitranspose"]
    start = game.initial()
    for sym in game.symmetries:
        assert sym.action(game.pass_action) == game.pass_action
        moved = sym.planes(start.planes()[None])[0]
        assert np.array_equal(moved, start.planes())
    # a game played through a symmetry stays the image of the original
    rng = random.Random(1)
    s = start
    for _ in range(12):
        for sym in game.symmetries:
            t = game.initial().play_many([sym.action(a) for a in s.moves])
            assert sorted(sym.action(a) for a in s.legal_moves()) == t.legal_moves().tolist()
        s = s.play(int(rng.choice(list(s.legal_moves()))))


def test_notation_round_trip_and_errors():
    game = make("othello", size=6)
    for a in range(game.num_actions):
        assert game.parse_move(game.format_move(a)) == a
    assert game.parse_move("a6") == 0 and game.parse_move("f1") == 35 and game.parse_move(" PASS ") == 36
    for bad in ("g1", "a7", "a0", "zz", "", "7,7"):
        with pytest.raises(IllegalMoveError):
            game.parse_move(bad)
    with pytest.raises(IllegalMoveError, match="occupied"):
        game.initial().play("c4")
    for bad in (dict(size=5), dict(size=12), dict(size=2), dict(width=6, height=8)):
        with pytest.raises(ValueError):
            make("othello", **bad)
    with pytest.raises(ValueError, match="centre"):
        game.from_stones([0], [1])


def test_planes_from_the_side_to_move():
    game = make("othello", size=6)
    s = game.initial().play("c5")
    p = s.planes()
    assert p.shape == (3, 6, 6) and p[0].sum() == 1 and p[1].sum() == 4 and p[2].sum() == 0


@pytest.mark.parametrize("size", [4, 6])
def test_rollouts_end_where_neither_side_can_place(size):
    game = make("othello", size=size)
    rng = np.array([987654321], dtype=np.uint64)
    for _, state in _random_games(game, 3, seed=size):
        pos = state.fast()
        winner = K.rollout(game.params, pos.board, pos.info, rng)
        ref = _Ref(size)
        ref.grid = pos.board.reshape(size, size).tolist()
        for me in (1, 2):
            assert not any(ref.flips(x, y, me) for y in range(size) for x in range(size))
        assert (None if winner < 0 else winner) == ref.winner()
        # the rollout touched the scratch board only, never the state
        assert state.fast().board.sum() == state._pos.board.sum()
