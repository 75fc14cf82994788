"""The Game / State API: immutability, fields, errors, from_stones, planes, actions, display."""

from __future__ import annotations

import numpy as np
import pytest

from gomoku_reference import cell, cells, winning_cells
from zeroplay.games import IllegalMoveError, State, make
from zeroplay.games.planes import planes_batch
from zeroplay.hashing import EMPTY_KEY, zobrist_key


def _snapshot(s: State):
    """Everything observable about a state, to check that it did not change."""
    return (
        s.board.copy(),
        s.to_play,
        s.ply,
        s.key,
        s.is_terminal,
        s.winner,
        s.last_move,
        s.moves,
        s.legal_moves().tolist(),
        s.winning_moves(0).tolist(),
        s.winning_moves(1).tolist(),
        s.planes("alphazero-gomoku").tobytes(),
    )


def _same(a, b):
    return all(
        np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(a, b)
    )


# --- initial state and play -------------------------------------------------------------------
def test_initial_state_fields():
    g = make("gomoku")
    s = g.initial()
    assert (g.width, g.height, g.cells, g.num_actions) == (15, 15, 225, 225)
    assert s.to_play == 0 and s.ply == 0 and s.moves == ()
    assert not s.is_terminal and s.winner is None and s.last_move is None
    legal = s.legal_moves()
    assert legal.dtype == np.int64 and legal.tolist() == list(range(225))
    assert s.key == EMPTY_KEY == zobrist_key([], [], 0, 225)
    assert s.board.shape == (15, 15) and s.board.dtype == np.int8 and not s.board.any()
    assert s.winning_moves().size == 0
    assert g.initial() == s and hash(g.initial()) == hash(s)


def test_play_returns_a_new_state_and_leaves_the_old_one():
    g = make("gomoku")
    s0 = g.initial()
    before = _snapshot(s0)
    s1 = s0.play(112)
    assert _same(_snapshot(s0), before)
    assert s1 is not s0
    assert s1.to_play == 1 and s1.ply == 1 and s1.moves == (112,) and s1.last_move == 112
    assert s1.board[7, 7] == 1
    assert 112 not in s1.legal_moves() and s1.legal_moves().size == 224
    s2 = s1.play(113)
    assert s2.board[7, 8] == 2 and s2.to_play == 0 and s2.moves == (112, 113)
    assert s1.board[7, 8] == 0


def test_moves_by_text_and_numpy_ints():
    g = make("gomoku")
    a = g.initial().play("h8").play("9,7")
    b = g.initial().play(np.int64(112)).play(np.int32(7 * 15 + 9))
    assert a.moves == b.moves == (112, 114)
    assert a == b and a.key == b.key
    c = g.initial().play_many(["h8", "7,6", 100])
    assert c.moves == (112, 97, 100)


def test_state_arrays_are_read_only():
    s = make("gomoku").initial().play(0)
    with pytest.raises(ValueError):
        s.board[0, 1] = 1
    with pytest.raises(ValueError):
        s._pos.info[0] = 1


def test_fast_gives_writable_copies():
    s = make("gomoku").initial().play(3)
    pos = s.fast()
    pos.board[5] = 2
    pos.info[0] = 0
    assert s.board.flat[5] == 0 and s.to_play == 1


# --- errors -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "move, fragment",
    [
        (112, "112"),
        ("h8", "h8"),
        ("7,7", "7,7"),
        (-1, "-1"),
        (225, "225"),
        ("p8", "p8"),
        ("h16", "h16"),
        ("h0", "h0"),
        ("15,0", "15,0"),
        ("-1,3", "-1,3"),
        ("", "''"),
        ("hello", "hello"),
        ("8", "'8'"),
        ("1,2,3", "1,2,3"),
        (1.5, "1.5"),
        (None, "None"),
        (True, "True"),
    ],
)
def test_illegal_moves_raise_and_leave_the_state(move, fragment):
    g = make("gomoku")
    s = g.initial().play(112).play(0)  # h8 and a15 occupied
    before = _snapshot(s)
    with pytest.raises(IllegalMoveError) as info:
        s.play(move)
    assert isinstance(info.value, ValueError)
    assert fragment in str(info.value)
    assert _same(_snapshot(s), before)


def test_occupied_cell_message_names_the_move():
    s = make("gomoku").initial().play("h8")
    with pytest.raises(IllegalMoveError, match="h8"):
        s.play("h8")
    with pytest.raises(IllegalMoveError, match="occupied"):
        s.play("7,7")


def test_move_after_the_game_ended():
    g = make("gomoku")
    s = g.from_stones(cells([(0, 0), (1, 0), (2, 0), (3, 0)], 15), [], to_play=0).play(4)
    assert s.is_terminal and s.winner == 0
    assert s.legal_moves().size == 0
    before = _snapshot(s)
    for move in (100, "a1", "5,5"):
        with pytest.raises(IllegalMoveError, match="over") as info:
            s.play(move)
        assert str(move) in str(info.value)
    assert _same(_snapshot(s), before)


def test_illegal_move_error_is_a_value_error():
    assert issubclass(IllegalMoveError, ValueError)


# --- from_stones ------------------------------------------------------------------------------
def test_from_stones_to_play_defaults_from_counts():
    g = make("gomoku")
    assert g.from_stones([], []).to_play == 0
    assert g.from_stones([1], []).to_play == 1
    assert g.from_stones([1], [2]).to_play == 0
    assert g.from_stones([1, 3], [2]).to_play == 1
    with pytest.raises(ValueError):
        g.from_stones([1, 3], [])
    with pytest.raises(ValueError):
        g.from_stones([], [1])
    assert g.from_stones([], [1], to_play=0).to_play == 0
    with pytest.raises(ValueError):
        g.from_stones([], [], to_play=2)


def test_from_stones_validates_cells():
    g = make("gomoku")
    for bad in (-1, 225, 1000, 2.0, None):
        with pytest.raises(IllegalMoveError):
            g.from_stones([bad], [])
    with pytest.raises(IllegalMoveError, match="h8"):
        g.from_stones([112], [112])
    with pytest.raises(IllegalMoveError):
        g.from_stones([5, 5], [])
    with pytest.raises(IllegalMoveError, match="z9"):
        g.from_stones(["z9"], [])
    with pytest.raises(IllegalMoveError):
        g.from_stones(["h8"], ["7,7"])


def test_from_stones_fields_and_key():
    g = make("gomoku")
    black, white = [112, 0, 224], [1, 14]
    s = g.from_stones(black, white)
    assert s.to_play == 1 and s.ply == 5 and s.moves == ()
    assert s.key == zobrist_key(black, white, 1, 225)
    assert s.last_move is None
    assert sorted(s.stones(0).tolist()) == sorted(black)
    assert sorted(s.stones(1).tolist()) == sorted(white)
    # text cells are accepted
    t = g.from_stones(["h8", "a15", "o1"], ["b15", "o15"])
    assert t == s and t.key == s.key
    # same as playing the moves
    p = g.initial().play_many([112, 1, 0, 14, 224])
    assert p.key == s.key and p == s


def test_from_stones_without_last_move_has_zero_last_move_plane():
    g = make("gomoku")
    s = g.from_stones([112], [])
    planes = s.planes("alphazero-gomoku")
    assert not planes[2].any()
    s2 = g.from_stones([112], [], last_move=112)
    assert s2.last_move == 112
    p2 = s2.planes("alphazero-gomoku")
    assert p2[2, 7, 7] == 1 and p2[2].sum() == 1
    assert s2.key == s.key  # the key covers stones and side to move only
    s3 = g.from_stones([112], [], last_move="h8")
    assert s3.last_move == 112


def test_from_stones_last_move_must_be_the_side_that_just_moved():
    g = make("gomoku")
    with pytest.raises(ValueError):
        g.from_stones([112], [], last_move=0)  # empty
    with pytest.raises(ValueError):
        g.from_stones([112], [5], last_move=112)  # Black to move: last move was White's
    s = g.from_stones([112], [5], last_move=5)
    assert s.last_move == 5


def test_from_stones_undo_to_the_set_up_last_move():
    from zeroplay.games import fast

    g = make("gomoku")
    s = g.from_stones([112, 30], [5], last_move=30)
    pos = s.fast()
    fast.apply(g.params, g.zkeys, pos.board, pos.info, pos.stack, pos.aux, 60)
    assert pos.info[5] == 60
    fast.undo(g.params, g.zkeys, pos.board, pos.info, pos.stack, pos.aux)
    for a, b in zip((pos.board, pos.info, pos.aux), (s._pos.board, s._pos.info, s._pos.aux)):
        assert np.array_equal(a, b)
    assert np.array_equal(pos.stack[: s.ply], s._pos.stack[: s.ply])  # entries above ply are stale


@pytest.mark.parametrize("rule", ["freestyle", "standard"])
def test_from_stones_already_won_is_terminal_with_winner(rule):
    g = make("gomoku", rule=rule)
    five = cells([(2, 3), (3, 4), (4, 5), (5, 6), (6, 7)], 15)
    s = g.from_stones(five, [0, 1, 2, 3])
    assert s.is_terminal and s.winner == 0
    assert s.legal_moves().size == 0 and s.winning_moves(1).size == 0
    s = g.from_stones([0, 1, 2, 3, 200], five)
    assert s.is_terminal and s.winner == 1
    with pytest.raises(ValueError):
        g.from_stones(five, cells([(x, 12) for x in range(5)], 15))


def test_from_stones_overline_depends_on_rule():
    six = cells([(x, 9) for x in range(3, 9)], 15)
    s = make("gomoku", rule="freestyle").from_stones(six, [0, 2, 4, 6, 8, 10])
    assert s.is_terminal and s.winner == 0
    s = make("gomoku", rule="standard").from_stones(six, [0, 2, 4, 6, 8, 10])
    assert not s.is_terminal and s.winner is None


def test_from_stones_winning_moves_match_reference():
    g = make("gomoku", rule="standard")
    black = cells([(3, 7), (4, 7), (5, 7), (6, 7), (8, 7), (10, 2), (10, 3), (10, 4)], 15)
    white = cells([(0, 0), (1, 1), (2, 2), (3, 3), (14, 14), (13, 14), (12, 14)], 15)
    s = g.from_stones(black, white, to_play=0)
    board = s.board.astype(np.int64)
    for p in (0, 1):
        assert s.winning_moves(p).tolist() == winning_cells(board, p, 5, "standard").tolist()
    assert cell(7, 7, 15) not in s.winning_moves(0)  # it would make six
    assert cell(2, 7, 15) in s.winning_moves(0)


# --- actions ----------------------------------------------------------------------------------
def test_actions_are_cells_for_gomoku():
    g = make("gomoku", width=9, height=7)
    assert g.num_actions == 63
    for c in range(63):
        assert g.action_to_cell(c) == c and g.cell_to_action(c) == c


# --- planes -----------------------------------------------------------------------------------
def test_planes_orientation_non_square():
    g = make("gomoku", width=9, height=7)
    b = cell(8, 0, 9)  # top right
    w = cell(0, 6, 9)  # bottom left
    s = g.initial().play(b)
    p = s.planes()
    assert p.shape == (3, 7, 9) and p.dtype == np.float32
    # White to move: own = White (none), opponent = Black at (8, 0)
    assert not p[0].any()
    assert p[1, 0, 8] == 1 and p[1].sum() == 1
    assert not p[2].any()  # first player not to move
    s = s.play(w)
    p = s.planes()
    assert p[0, 0, 8] == 1 and p[0].sum() == 1  # Black to move: own = Black
    assert p[1, 6, 0] == 1 and p[1].sum() == 1
    assert (p[2] == 1).all()
    q = s.planes("alphazero-gomoku")
    assert q.shape == (4, 7, 9) and q.dtype == np.float32
    assert np.array_equal(q[:2], p[:2])
    assert q[2, 6, 0] == 1 and q[2].sum() == 1  # last move
    assert (q[3] == 1).all()
    # off-diagonal cell that a % height indexing would misplace
    s = s.play(cell(7, 2, 9))
    q = s.planes("alphazero-gomoku")
    assert q[2, 2, 7] == 1 and q[1, 2, 7] == 1 and q[2].sum() == 1
    assert not q[3].any()


@pytest.mark.parametrize("shape", [(15, 15), (9, 7), (5, 12)])
def test_planes_match_the_board_and_the_batch_encoder(shape):
    width, height = shape
    g = make("gomoku", width=width, height=height)
    rng = np.random.default_rng(width * 100 + height)
    states = [g.initial()]
    s = g.initial()
    for _ in range(12):
        if s.is_terminal:
            break
        s = s.play(int(rng.choice(s.legal_moves())))
        states.append(s)
    for features in ("basic", "alphazero-gomoku"):
        boards = np.stack([st._pos.board for st in states])
        infos = np.stack([st._pos.info for st in states])
        batch = planes_batch(g, boards, infos, features)
        for i, st in enumerate(states):
            p = st.planes(features)
            assert p.shape == ((3 if features == "basic" else 4), height, width)
            assert np.array_equal(p, batch[i])
            me, other = st.to_play + 1, 2 - st.to_play
            assert np.array_equal(p[0], (st.board == me).astype(np.float32))
            assert np.array_equal(p[1], (st.board == other).astype(np.float32))


def test_basic_planes_ignore_history():
    g = make("gomoku")
    a = g.initial().play_many([0, 1, 2, 3])
    b = g.initial().play_many([2, 3, 0, 1])
    assert np.array_equal(a.planes(), b.planes())
    assert not np.array_equal(a.planes("alphazero-gomoku"), b.planes("alphazero-gomoku"))


def test_unknown_feature_set():
    with pytest.raises(ValueError):
        make("gomoku").initial().planes("nope")


# --- misc -------------------------------------------------------------------------------------
def test_str_shows_coordinates_and_status():
    g = make("gomoku")
    s = g.initial().play("h8")
    text = str(s)
    lines = text.splitlines()
    assert lines[0].split() == list("abcdefghijklmno")
    assert lines[1].split()[0] == "15" and lines[15].split()[0] == "1"
    assert "X)" in lines[8]  # row 8 from the bottom holds h8, marked as last move
    assert "White" in lines[-1]
    assert "ply=1" in repr(s)
    won = g.from_stones([0, 1, 2, 3], [], to_play=0).play(4)
    assert "Black" in str(won).splitlines()[-1] and "wins" in str(won)


def test_winning_moves_argument_checks():
    s = make("gomoku").initial()
    with pytest.raises(ValueError):
        s.winning_moves(2)
    assert s.num_winning_moves(0) == 0


def test_play_many_and_game_equality():
    g = make("gomoku", width=9, height=9)
    assert g == make("gomoku", size=9)
    assert g != make("gomoku", size=9, rule="standard")
    assert hash(g) == hash(make("gomoku", size=9))
    assert "gomoku" in repr(g)
