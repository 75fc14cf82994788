"""Go rules: perft counts of issue 22, the hand cases (checked with GNU Go), scoring, keys, undo,
and random games against the plain-Python reference in ``go_reference.py``."""

from __future__ import annotations

import random

import numpy as np
import pytest
from go_reference import RefGo

from zeroplay.games import IllegalMoveError, make
from zeroplay.games.go import kernels as K
from zeroplay.games.go.playout import perft, random_game
from zeroplay.games.layout import I_KEY

PERFT = {
    3: [9, 72, 504, 2976, 14720, 56176, 168144, 343008, 700096],
    4: [16, 240, 3360, 43576, 521800],
    5: [25, 600, 13800, 303424],
}


def _perft(size, depth):
    g = make("go", size=size)
    p = g.initial()._pos
    return perft(g.params, g.zkeys, p.board, p.info, p.stack, p.aux, depth)


@pytest.mark.parametrize("size,depth", [(3, 6), (4, 4), (5, 3)])
def test_perft_shallow(size, depth):
    assert [_perft(size, d) for d in range(1, depth + 1)] == PERFT[size][:depth]


@pytest.mark.slow
@pytest.mark.parametrize("size", [3, 4, 5])
def test_perft_full(size):
    assert [_perft(size, d) for d in range(1, len(PERFT[size]) + 1)] == PERFT[size]


def test_ko_hand_case():
    g = make("go", size=9)
    s = g.initial().play_many("C4 E5 D5 E3 D3 F4 J9 D4 E4".split())
    assert g.prisoners(s) == (1, 0)
    assert s.board[9 - 4, 3] == 0  # D4 taken
    with pytest.raises(IllegalMoveError, match="ko"):
        s.play("D4")
    assert g.parse_move("D4") not in s.legal_moves()
    s = s.play_many(["J1", "H1"])
    assert g.parse_move("D4") in s.legal_moves()
    s = s.play("D4")
    assert g.prisoners(s) == (1, 1)
    assert s.board[9 - 4, 4] == 0  # E4 taken back


def test_capture_beats_suicide():
    g = make("go", size=9)
    s = g.from_stones(["A2", "B1"], ["A3", "B2", "C1"], to_play=1)
    assert g.parse_move("A1") in s.legal_moves()
    s = s.play("A1")
    assert g.prisoners(s) == (0, 2)
    assert s.board[8, 0] == 2 and s.board[7, 0] == 0 and s.board[8, 1] == 0


def test_single_stone_suicide_is_never_legal():
    for suicide in ("off", "multi"):
        g = make("go", size=5, suicide=suicide)
        s = g.from_stones([], ["A2", "B1"], to_play=0)
        with pytest.raises(IllegalMoveError, match="suicide"):
            s.play("A1")


def test_multi_stone_suicide():
    g = make("go", size=5, suicide="multi")
    s = g.from_stones(["A1"], ["A3", "B2", "B1"], to_play=0)
    assert g.parse_move("A2") in s.legal_moves()  # A1 + A2 have no liberty: both go
    t = s.play("A2")
    assert t.board[4, 0] == 0 and t.board[3, 0] == 0 and g.prisoners(t) == (0, 2)
    off = make("go", size=5)
    assert off.parse_move("A2") not in off.from_stones(["A1"], ["A3", "B2", "B1"]).legal_moves()


def test_scoring_hand_case():
    black = ["C1", "C2", "C3", "C4", "C5", "A1"]
    white = ["D1", "D2", "D3", "D4", "D5"]
    area = make("go", size=5, komi=0.5)
    s = area.from_stones(black, white).play("pass").play("pass")
    assert s.is_terminal and s.winner == 0 and area.score(s) == 4.5 and area.result_text(s) == "B+4.5"
    territory = make("go", size=5, komi=0.5, scoring="territory")
    t = territory.from_stones(black, white).play("pass").play("pass")
    assert territory.score(t) == 3.5


def test_two_passes_end_and_a_move_resets():
    g = make("go", size=5)
    s = g.initial().play("pass")
    assert not s.is_terminal and g.passes(s) == 1
    s = s.play("C3").play("pass")
    assert not s.is_terminal
    s = s.play("pass")
    assert s.is_terminal and s.legal_moves().size == 0
    with pytest.raises(IllegalMoveError):
        s.play("A1")


def test_ply_cap_ends_the_game():
    g = make("go", size=2)
    s = g.initial()
    while not s.is_terminal:
        s = s.play(s.legal_moves()[0] if s.ply % 2 == 0 else g.pass_action)
    assert s.ply <= g.max_plies


def test_notation_round_trip():
    g = make("go", size=19)
    for a in range(g.num_actions):
        assert g.parse_move(g.format_move(a)) == a
    assert g.format_move(0) == "A19" and g.format_move(g.cells - 1) == "T1"
    assert g.parse_move("j1") == g.parse_move("J1") == 18 * 19 + 8
    for bad in ("I5", "Z1", "A20", "A0", "", "pas", "D 4x"):
        with pytest.raises(IllegalMoveError):
            g.parse_move(bad)


def test_symmetries_fix_pass():
    g = make("go", size=9)
    assert len(g.symmetries) == 8
    for sym in g.symmetries:
        assert sym.action(g.pass_action) == g.pass_action
        assert sorted(sym.action_perm) == list(range(g.num_actions))


def _key_from_scratch(g, s):
    pos = s.fast()
    K.refresh(g.params, g.zkeys, pos.board, pos.info, pos.aux)
    return int(pos.info[I_KEY])


@pytest.mark.parametrize("ko,suicide", [("simple", "off"), ("positional", "multi"), ("situational", "off")])
def test_random_games_match_reference(ko, suicide):
    """Legal moves, boards and prisoners after every ply equal the Python reference's; the
    incremental key equals the from-scratch key; undo restores the previous position."""
    rng = random.Random(7)
    for game_no in range(4):
        size = 4 if game_no % 2 else 5
        g = make("go", size=size, ko=ko, suicide=suicide)
        ref = RefGo(size, ko=ko, suicide=suicide)
        s = g.initial()
        for _ in range(120):
            legal = [y * size + x for x, y in ref.legal()]
            assert list(s.legal_moves()) == legal + [g.pass_action]
            assert int(s.key) & ((1 << 64) - 1) == _key_from_scratch(g, s) & ((1 << 64) - 1)
            if not legal or rng.random() < 0.03:
                s2 = s.play("pass")
                ref.pass_move()
            else:
                a = rng.choice(legal)
                s2 = s.play(int(a))
                ref.play(a % size, a // size)
            pos = s2.fast()
            assert g._undo(pos) == s2.moves[-1]
            assert np.array_equal(pos.board, s._pos.board) and np.array_equal(pos.info, s._pos.info)
            s = s2
            if s.is_terminal:
                break
            assert s.board.tolist() == ref.board and g.prisoners(s) == (ref.caps[1], ref.caps[2])


def test_key_tells_banned_points():
    """Positions equal in stones and side to move but different in the ko ban get other keys."""
    g = make("go", size=9)
    s = g.initial().play_many("C4 E5 D5 E3 D3 F4 J9 D4 E4".split())  # ko: D4 banned
    t = s.play_many(["J1", "H1", "pass", "J2"])
    u = g.from_stones(np.flatnonzero(s._pos.board == 1), np.flatnonzero(s._pos.board == 2), to_play=1)
    assert g.ko_point(s) is not None and g.ko_point(u) is None
    assert s.key != u.key and t.key != s.key


def test_random_playout_ends_with_a_score():
    g = make("go", size=9)
    pos = g.initial().fast()
    n = random_game(g.params, g.zkeys, pos.board, pos.info, pos.stack, pos.aux, 3)
    assert 0 < n <= g.max_plies and pos.info[4] == 1
    ref = RefGo(9)
    ref.board = pos.board.reshape(9, 9).tolist()
    b, w = ref.area()
    assert pos.info[13] == 2 * (b - w) - 15


def test_planes():
    g = make("go", size=9, komi=7.5)
    s = g.initial().play_many("C4 E5 D5 E3 D3 F4 J9 D4 E4".split())  # White to move, ko at D4
    p = s.planes("go")
    assert p.shape == (16, 9, 9) and p.dtype == np.float32
    b = s.board
    assert (p[1] == (b == 2)).all() and (p[2] == (b == 1)).all() and (p[0] == 1).all()
    d4 = g.parse_move("D4")
    assert p[3].sum() == 1 and p[3].flat[d4] == 1
    assert p[4].flat[g.parse_move("E4")] == 1 and p[5].flat[d4] == 1 and p[6].flat[g.parse_move("J9")] == 1
    ref = RefGo(9)
    ref.board = b.tolist()
    for c in np.flatnonzero(b.ravel()):
        _, libs = ref._chain(ref.board, c % 9, c // 9)
        for k in (1, 2, 3):
            assert p[6 + k].flat[c] == (len(libs) == k)
    assert (p[10] == 1).all() and p[11:].sum() == 0  # White to move receives the komi
    t = s.play("pass")
    assert (t.planes("go")[15] == 1).all() and (t.planes("go")[10] == 0).all()


def test_planes_follow_the_symmetries():
    g = make("go", size=7)
    rng = np.random.default_rng(5)
    s = g.initial()
    for _ in range(30):
        moves = [m for m in s.legal_moves() if m != g.pass_action]
        s = s.play(int(rng.choice(moves)))
    base = g.from_stones(s.stones(0), s.stones(1), to_play=s.to_play)
    for sym in g.symmetries:
        moved = g.from_stones([sym.cell(c) for c in s.stones(0)], [sym.cell(c) for c in s.stones(1)],
                              to_play=s.to_play)
        assert np.array_equal(moved.planes("go"), sym.planes(base.planes("go")))


def test_superko_ban_is_in_the_key_and_the_legal_moves():
    """Under positional superko the immediate ko recapture repeats the board: banned, and the key
    says so (the same stones without that history get another key and allow the move)."""
    g = make("go", size=9, ko="positional")
    s = g.initial().play_many("C4 E5 D5 E3 D3 F4 J9 D4 E4".split())
    u = g.from_stones(np.flatnonzero(s._pos.board == 1), np.flatnonzero(s._pos.board == 2), to_play=1)
    d4 = g.parse_move("D4")
    assert d4 not in s.legal_moves() and d4 in u.legal_moves()
    with pytest.raises(IllegalMoveError, match="superko"):
        s.play("D4")
    assert s.key != u.key and g.ko_point(s) == d4 and g.ko_point(u) is None
