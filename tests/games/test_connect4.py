"""Connect Four rules, keys, winning moves, symmetries, notation and errors (issue 7).

A pure-Python reference (``_Ref``) replays every game and is the truth for wins, legal moves and
winning columns. Cells: ``row * 7 + col``, row 0 at the top.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zeroplay.games import IllegalMoveError, fast, make
from zeroplay.games.connect4 import kernels as K
from zeroplay.hashing import zobrist_key

W, H = 7, 6
DRAW_GAME = "446323116125713546635334125521577677446722"  # a full board without four (seeded search)


@pytest.fixture(scope="module")
def game():
    return make("connect4")


def cell(col: int, row_from_bottom: int) -> int:
    """Cell of (column, row counted from the bottom), both from 0."""
    return (H - 1 - row_from_bottom) * W + col


class _Ref:
    """Reference Connect Four in plain Python: grid[row][col], row 0 at the top."""

    def __init__(self):
        self.grid = [[0] * W for _ in range(H)]
        self.to_play = 0
        self.winner = None
        self.n = 0

    def landing(self, col):
        for r in range(H - 1, -1, -1):
            if self.grid[r][col] == 0:
                return r
        return None

    def four_through(self, r, c, stone):
        for dx, dy in ((1, 0), (0, 1), (1, 1), (-1, 1)):
            run = 1
            for sgn in (1, -1):
                x, y = c + sgn * dx, r + sgn * dy
                while 0 <= x < W and 0 <= y < H and self.grid[y][x] == stone:
                    run += 1
                    x += sgn * dx
                    y += sgn * dy
            if run >= 4:
                return True
        return False

    def any_four(self, stone):
        """Scan every window of four on the board (independent of ``four_through``)."""
        for r in range(H):
            for c in range(W):
                for dx, dy in ((1, 0), (0, 1), (1, 1), (-1, 1)):
                    cells = [(r + k * dy, c + k * dx) for k in range(4)]
                    if all(0 <= y < H and 0 <= x < W and self.grid[y][x] == stone for y, x in cells):
                        return True
        return False

    @property
    def terminal(self):
        return self.winner is not None or self.n == W * H

    def legal(self):
        return [] if self.terminal else [c for c in range(W) if self.grid[0][c] == 0]

    def winning_columns(self, player):
        if self.terminal:
            return []
        out = []
        for c in range(W):
            r = self.landing(c)
            if r is None:
                continue
            self.grid[r][c] = player + 1
            if self.any_four(player + 1):
                out.append(c)
            self.grid[r][c] = 0
        return out

    def play(self, col):
        r = self.landing(col)
        self.grid[r][col] = self.to_play + 1
        self.n += 1
        if self.any_four(self.to_play + 1):
            self.winner = self.to_play
        self.to_play = 1 - self.to_play

    def stones(self, player):
        return [r * W + c for r in range(H) for c in range(W) if self.grid[r][c] == player + 1]


def _check_against_ref(state, ref):
    assert state.to_play == ref.to_play
    assert state.is_terminal == ref.terminal
    assert state.winner == ref.winner
    assert list(state.legal_moves()) == ref.legal()
    for p in range(2):
        wins = ref.winning_columns(p)
        assert list(state.winning_moves(p)) == wins
        assert state.num_winning_moves(p) == len(wins)
        assert list(state.stones(p)) == ref.stones(p)
    assert state.key == zobrist_key(ref.stones(0), ref.stones(1), ref.to_play, W * H)


# --- rules ----------------------------------------------------------------------------------
def test_constants_and_registry(game):
    assert game.name == "connect4"
    assert (game.width, game.height, game.cells, game.num_actions) == (7, 6, 42, 7)
    assert game == make("connect4")
    s = game.initial()
    assert s.to_play == 0 and not s.is_terminal and s.winner is None
    assert list(s.legal_moves()) == list(range(7))
    assert s.planes().shape == (3, 6, 7)
    assert s.planes("alphazero-gomoku").shape == (4, 6, 7)


def test_stone_drops_to_the_bottom(game):
    s = game.initial().play("4")
    assert s.board[5, 3] == 1 and s.last_move == cell(3, 0)
    s = s.play("4")
    assert s.board[4, 3] == 2 and s.last_move == cell(3, 1)
    assert s.moves == (3, 3)
    assert game.landing_cell(s, 3) == cell(3, 2)
    assert game.landing_cell(s, 0) == cell(0, 0)


# one game per (direction, corner): its last move completes exactly one four, through that corner
EDGE_GAMES = [
    ("23217436317254534311641341542522", 1),   # horizontal, top-left corner a6
    ("266373477742163575524452417546566", 0),  # horizontal, top-right corner g6
    ("1547263", 0),                            # horizontal, bottom-left a1
    ("5572426", 0),                            # horizontal, bottom-right g1
    ("1511215121", 1),                         # vertical, a3..a6 (top-left)
    ("777375767", 0),                          # vertical, g3..g6 (top-right)
    ("1314171", 0),                            # vertical, a1..a4
    ("7176737", 0),                            # vertical, g1..g4
    ("47312446233112253161172", 0),            # diagonal down-right through a6
    ("55765144644", 0),                        # diagonal down-right through g1
    ("776455676442565274677", 0),              # anti-diagonal through g6
    ("23441336244", 0),                        # anti-diagonal through a1
]


@pytest.mark.parametrize("moves, winner", EDGE_GAMES)
def test_wins_in_every_direction_and_corner(game, moves, winner):
    state = game.initial()
    ref = _Ref()
    actions = game.parse_moves(moves)
    for i, a in enumerate(actions):
        assert not state.is_terminal, f"game over before move {i}"
        state = state.play(a)
        ref.play(a)
        _check_against_ref(state, ref)
    assert state.is_terminal and state.winner == winner
    # the move before: the winner had that column among its winning moves
    before = game.from_moves(actions[:-1])
    assert actions[-1] in before.winning_moves(winner)


def test_no_wrap_around_across_rows(game):
    # flat cells 33, 34, 35, 36 are consecutive: f2 g2 | a1 b1 -- not a line
    assert [cell(5, 1), cell(6, 1), cell(0, 0), cell(1, 0)] == [33, 34, 35, 36]
    s = game.from_stones([33, 34, 35, 36], [40, 41, 37, 38])
    assert not s.is_terminal
    assert list(s.winning_moves(0)) == []
    # flat step 8 (down-right) wrapping from g5 to a3: 13, 21, 29, 37
    s = game.from_stones([13, 21, 29, 37, 41, 36], [20, 27, 34, 28, 35])
    assert not s.is_terminal and s.to_play == 1
    # flat step 6 (down-left) wrapping from a4 to g4: 15, 21, 27, 33
    x = [15, 21, 27, 33, 39, 41]
    o = [22, 29, 28, 35, 36, 34, 40]
    assert not game.from_stones(x + [38], o).is_terminal
    for s in (game.from_stones([33, 34, 35, 36], [40, 41, 37, 38]),
              game.from_stones([13, 21, 29, 37, 41, 36], [20, 27, 34, 28, 35])):
        ref = _ref_from_board(s)
        for p in range(2):
            assert list(s.winning_moves(p)) == ref.winning_columns(p)


def _ref_from_board(state):
    ref = _Ref()
    for r in range(H):
        for c in range(W):
            ref.grid[r][c] = int(state.board[r, c])
    ref.n = int((state.board != 0).sum())
    ref.to_play = state.to_play
    return ref


def test_full_board_draw(game):
    ref = _Ref()
    state = game.initial()
    for a in game.parse_moves(DRAW_GAME):
        state = state.play(a)
        ref.play(a)
    assert state.is_terminal and state.winner is None and ref.winner is None
    assert len(state.legal_moves()) == 0
    assert list(state.winning_moves(0)) == [] and state.num_winning_moves(1) == 0
    with pytest.raises(IllegalMoveError, match="over"):
        state.play("1")
    # one move before the end: one legal move, then a draw
    before = game.from_moves(DRAW_GAME[:-1])
    assert list(before.legal_moves()) == [int(DRAW_GAME[-1]) - 1]


# --- keys, undo, fast path ------------------------------------------------------------------
def _random_game(game, rng, max_moves=42):
    pos = game.initial().fast()
    played = []
    while not pos.info[4] and len(played) < max_moves:
        legal = [c for c in range(W) if pos.board[c] == 0]
        a = int(rng.choice(legal))
        fast.apply(game.params, game.zkeys, pos.board, pos.info, pos.stack, pos.aux, a)
        played.append(a)
    return played


def test_incremental_key_and_undo_restore_everything(game):
    rng = np.random.default_rng(7)
    for _ in range(30):
        pos = game.initial().fast()
        snapshots = []
        while not pos.info[4]:
            snapshots.append((pos.board.copy(), pos.info.copy(), pos.aux.copy()))
            legal = np.empty(7, dtype=np.int64)
            n = fast.legal_moves(game.params, pos.board, pos.info, pos.aux, legal)
            a = int(legal[rng.integers(n)])
            fast.apply(game.params, game.zkeys, pos.board, pos.info, pos.stack, pos.aux, a)
            black = np.flatnonzero(pos.board == 1)
            white = np.flatnonzero(pos.board == 2)
            key = int(pos.info[2:3].view(np.uint64)[0])
            assert key == zobrist_key(black, white, int(pos.info[0]), 42)
            scratch = np.zeros_like(pos.aux)
            info2 = pos.info.copy()
            K.compute_wmask(game.params, pos.board, info2, scratch)
            assert np.array_equal(scratch, pos.aux)
            assert np.array_equal(info2, pos.info)
        while snapshots:
            board, info, wmask = snapshots.pop()
            fast.undo(game.params, game.zkeys, pos.board, pos.info, pos.stack, pos.aux)
            assert np.array_equal(board, pos.board)
            assert np.array_equal(info, pos.info)
            assert np.array_equal(wmask, pos.aux)
        assert int(pos.info[2:3].view(np.uint64)[0]) == game.initial().key


def test_transpositions_share_a_key(game):
    a = game.from_moves("4453")
    b = game.from_moves("4354")
    c = game.from_moves("5344")
    assert a.key == b.key == c.key and a == b == c
    assert game.from_moves("44").key != game.from_moves("4").key
    assert a.key == zobrist_key(a.stones(0), a.stones(1), 0, 42)
    assert a.key != zobrist_key(a.stones(0), a.stones(1), 1, 42)  # same stones, other side to move


def test_fast_dispatch_matches_state(game):
    state = game.from_moves("4453221")
    pos = state.fast()
    out = np.empty(7, dtype=np.int64)
    for p in range(2):
        n = fast.winning_moves(game.params, pos.board, pos.info, pos.aux, p, out)
        assert list(out[:n]) == list(state.winning_moves(p))
        assert fast.num_winning_moves(game.params, pos.board, pos.info, pos.aux, p) == n
    n = fast.legal_moves(game.params, pos.board, pos.info, pos.aux, out)
    assert list(out[:n]) == list(state.legal_moves())


def test_winning_moves_vs_brute_force(game):
    rng = np.random.default_rng(3)
    for _ in range(25):
        state = game.initial()
        ref = _Ref()
        while not state.is_terminal:
            a = int(rng.choice(state.legal_moves()))
            state = state.play(a)
            ref.play(a)
            _check_against_ref(state, ref)


def test_threat_above_the_landing_cell_is_not_a_winning_move(game):
    # X: b2 c2 d2 on O's b1 c1 d1. e2 would complete X's four but e1 is still empty.
    s = game.from_stones([cell(1, 1), cell(2, 1), cell(3, 1), cell(6, 0)],
                         [cell(1, 0), cell(2, 0), cell(3, 0), cell(5, 0)])
    assert list(s.winning_moves(0)) == []
    assert list(s.winning_moves(1)) == [0, 4]  # O: a1 or e1 completes the bottom row
    assert s.num_winning_moves(0) == 0 and s.num_winning_moves(1) == 2
    assert s._pos.aux[0, cell(4, 1)] != 0 and s._pos.aux[0, cell(0, 1)] != 0
    after = s.play("7")  # X g2: nothing changes for e2, still not playable
    assert list(after.winning_moves(0)) == []
    after = s.play("5")  # X e1 blocks O; now e2 is playable and wins for X
    assert list(after.winning_moves(0)) == [4] == _ref_from_board(after).winning_columns(0)
    assert list(after.winning_moves(1)) == [0]


# --- symmetries ------------------------------------------------------------------------------
def test_mirror_symmetry_planes_and_policy(game):
    syms = game.symmetries
    assert [t.name for t in syms] == ["identity", "flip_x"]
    flip = syms[1]
    moves = game.parse_moves("4453221")
    mirrored = [6 - a for a in moves]
    s = game.from_moves(moves)
    m = game.from_moves(mirrored)
    for features in ("basic", "alphazero-gomoku"):
        assert np.array_equal(flip.planes(s.planes(features)), m.planes(features))
        assert np.array_equal(flip.inverse().planes(flip.planes(s.planes(features))), s.planes(features))
    policy = np.arange(7, dtype=np.float32)
    assert list(flip.policy(policy)) == [6, 5, 4, 3, 2, 1, 0]
    assert np.array_equal(flip.inverse().policy(flip.policy(policy)), policy)
    for p in range(2):
        assert sorted(flip.action(a) for a in s.winning_moves(p)) == list(m.winning_moves(p))
    assert sorted(flip.action(a) for a in s.legal_moves()) == list(m.legal_moves())
    # the policy peak and the stone it produces move together
    one_hot = np.zeros(7)
    one_hot[1] = 1.0
    a = int(np.argmax(flip.policy(one_hot)))
    assert game.landing_cell(m, a) == flip.cell(game.landing_cell(s, 1))
    assert np.array_equal(syms[0].planes(s.planes()), s.planes())


# --- notation --------------------------------------------------------------------------------
def test_notation_round_trip(game):
    for a in range(7):
        assert game.parse_move(game.format_move(a)) == a
    assert game.parse_move("1") == 0 and game.parse_move(" 7 ") == 6
    assert game.parse_moves("4453") == [3, 3, 4, 2]
    assert game.parse_moves("4 4, 5 3") == [3, 3, 4, 2]
    assert game.parse_moves("") == []
    assert game.format_moves([3, 3, 4, 2]) == "4453"
    for text in ("44455554221", DRAW_GAME):
        assert game.format_moves(game.parse_moves(text)) == text
    for c in range(42):
        assert game.parse_cell(game.format_cell(c)) == c
    assert game.parse_cell("a1") == 35 and game.parse_cell("g6") == 6
    assert game.action_to_cell(3) == cell(3, 0)
    assert all(game.cell_to_action(game.action_to_cell(a)) == a for a in range(7))
    assert all(game.cell_to_action(c) == c % 7 for c in range(42))
    s = game.from_moves("4453")
    text = str(s)
    assert text.splitlines()[0].split() == list("1234567")
    assert "X (player 0) to move" in text


# --- errors ----------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["0", "8", "a", "", "44", "d1", "-1", None, 3.0])
def test_parse_move_errors(game, bad):
    with pytest.raises(IllegalMoveError):
        game.parse_move(bad)


def test_illegal_moves(game):
    s = game.from_moves("444444")
    with pytest.raises(IllegalMoveError, match="column 4 is full"):
        s.play("4")
    with pytest.raises(IllegalMoveError, match="3"):
        s.play(3)
    assert s.ply == 6 and s.board[0, 3] == 2  # unchanged
    for bad in (7, -1, 100):
        with pytest.raises(IllegalMoveError, match=str(bad)):
            s.play(bad)
    with pytest.raises(IllegalMoveError):
        s.play(True)
    with pytest.raises(IllegalMoveError, match="'9'"):
        s.play("9")
    with pytest.raises(IllegalMoveError, match="'x'"):
        game.parse_moves("44x5")
    won = game.from_moves("1122334")
    with pytest.raises(IllegalMoveError, match="over"):
        won.play("5")
    with pytest.raises(IllegalMoveError, match="full"):
        game.from_moves("4444444")
    assert issubclass(IllegalMoveError, ValueError)


def test_from_stones(game):
    played = game.from_moves("4453221")
    s = game.from_stones(played.stones(0), played.stones(1), last_move=played.last_move)
    assert s == played and s.key == played.key and s.last_move == played.last_move
    assert np.array_equal(s._pos.aux, played._pos.aux)
    assert np.array_equal(s._pos.info, played._pos.info)
    assert np.array_equal(s.planes("alphazero-gomoku"), played.planes("alphazero-gomoku"))
    assert s.play("4") == played.play("4")
    assert game.from_stones(["d1", "e1"], ["d2"]).to_play == 1
    with pytest.raises(ValueError, match="floats"):
        game.from_stones([cell(3, 1)], [])
    with pytest.raises(ValueError, match="cannot arise"):
        game.from_stones([cell(0, 0), cell(1, 0)], [])
    with pytest.raises(ValueError, match="disagrees"):
        game.from_stones([cell(0, 0)], [cell(1, 0)], to_play=1)
    with pytest.raises(IllegalMoveError, match="twice"):
        game.from_stones([cell(0, 0)], [cell(0, 0)])
    with pytest.raises(IllegalMoveError):
        game.from_stones([42], [])
    with pytest.raises(IllegalMoveError):
        game.from_stones(["h1"], [])
    with pytest.raises(ValueError, match="top stone"):
        game.from_stones([cell(0, 1), cell(1, 0)], [cell(0, 0), cell(2, 0)], last_move=cell(0, 0))
    with pytest.raises(ValueError, match="side that just moved"):
        game.from_stones([cell(0, 0), cell(1, 0)], [cell(0, 1), cell(2, 0)], last_move=cell(1, 0))
    won = game.from_stones([cell(c, 0) for c in range(4)], [cell(c, 1) for c in range(3)])
    assert won.is_terminal and won.winner == 0 and len(won.legal_moves()) == 0
    full = game.from_moves(DRAW_GAME)
    s = game.from_stones(full.stones(0), full.stones(1))
    assert s.is_terminal and s.winner is None


# --- property test ----------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=0, max_size=60))
def test_random_games_property(choices):
    game = make("connect4")
    state = game.initial()
    ref = _Ref()
    history = [state]
    for c in choices:
        if state.is_terminal:
            break
        legal = state.legal_moves()
        a = int(legal[c % len(legal)])
        state = state.play(a)
        ref.play(a)
        history.append(state)
        _check_against_ref(state, ref)
        m = game.from_moves([6 - x for x in state.moves])
        assert np.array_equal(game.symmetries[1].planes(state.planes()), m.planes())
    # undo everything on the fast path: each intermediate position comes back exactly
    pos = state.fast()
    for prev in reversed(history[:-1]):
        game._undo(pos)
        assert np.array_equal(pos.board, prev._pos.board)
        assert np.array_equal(pos.info, prev._pos.info)
        assert np.array_equal(pos.aux, prev._pos.aux)
