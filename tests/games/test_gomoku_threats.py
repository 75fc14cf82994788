"""Gomoku threat planes (games/gomoku/threats.py): hand positions, a brute-force reference, symmetry."""

from __future__ import annotations

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.games.gomoku.threats import THREAT_PLANE_NAMES, THREAT_PLANES, threat_planes

FIVE, OPEN_FOUR, FOUR, OPEN_THREE = range(4)


def cells_on(game, planes, plane: int) -> set[str]:
    return {game.format_move(int(c)) for c in np.flatnonzero(planes[plane].ravel())}


@pytest.fixture(scope="module")
def game():
    return make("gomoku", width=15, height=15, rule="freestyle")


def test_plane_names():
    assert THREAT_PLANES == 8 == len(THREAT_PLANE_NAMES)


def test_open_four_and_four_for_the_opponent(game):
    # Black g8 h8 i8 (an open three); White to move: Black is "opponent"
    s = game.from_stones(["g8", "h8", "i8"], ["a1", "a2"])
    assert s.to_play == 1
    p = threat_planes(s)
    assert cells_on(game, p, 4 + OPEN_FOUR) == {"f8", "j8"}
    assert cells_on(game, p, 4 + FOUR) == {"e8", "k8"}  # e8 . g8 h8 i8: one five cell (f8)
    assert cells_on(game, p, 4 + FIVE) == set()
    for plane in range(4):  # White has nothing
        assert not p[plane].any()


def test_five_for_the_mover_only_five(game):
    # Black to move with four in a column e5..e8 open at e4 and e9
    s = game.from_stones(["e5", "e6", "e7", "e8", "a15"], ["o1", "o2", "o3", "n1", "n2"])
    assert s.to_play == 0
    p = threat_planes(s)
    assert cells_on(game, p, FIVE) == {"e4", "e9"}
    assert not (p[FIVE] * (p[OPEN_FOUR] + p[FOUR] + p[OPEN_THREE])).any()  # a five is only a five


def test_open_three_solid_and_broken(game):
    # Black h8 i8: g8 or j8 make the open three .XXX., f8 or k8 the broken one .X.XX.
    s = game.from_stones(["h8", "i8", "o15"], ["b13", "d13", "e13"])
    assert s.to_play == 0
    p = threat_planes(s)
    assert cells_on(game, p, OPEN_THREE) == {"f8", "g8", "j8", "k8"}
    # White's broken three b13 . d13 e13: c13 fills it (open four a13..f13 both empty)
    assert "c13" in cells_on(game, p, 4 + OPEN_FOUR)
    assert {"a13", "f13"} <= cells_on(game, p, 4 + FOUR)


def test_closed_three_is_not_open(game):
    # Black h8 i8 with White g8 against them: j8 (or k8) makes a three that can only become a four
    s = game.from_stones(["h8", "i8", "a15"], ["g8", "a1"])
    p = threat_planes(s)
    assert "j8" not in cells_on(game, p, OPEN_THREE)
    assert not p[OPEN_THREE].any()


def test_edge_blocks_a_three(game):
    # Black a8 b8 at the edge: c8 makes XXX against the edge, not an open three
    s = game.from_stones(["a8", "b8", "o15"], ["o1", "o2"])
    p = threat_planes(s)
    assert "c8" not in cells_on(game, p, OPEN_THREE)
    assert not p[OPEN_THREE].any()


def test_overline_counts_under_freestyle_only():
    stones = (["c8", "d8", "e8", "f8", "h8"], ["a1", "a2", "a3", "a4", "a6"])  # g8 makes six
    free = make("gomoku", width=15, height=15, rule="freestyle")
    std = make("gomoku", width=15, height=15, rule="standard")
    assert "g8" in cells_on(free, threat_planes(free.from_stones(*stones)), FIVE)
    p = threat_planes(std.from_stones(*stones))
    assert "g8" not in cells_on(std, p, FIVE)
    assert "b8" in cells_on(std, p, FIVE)  # b8..f8: exactly five


def _run(board, w, h, x, y, dx, dy, stone):
    n = 0
    while 0 <= x < w and 0 <= y < h and board[y, x] == stone:
        n += 1
        x, y = x + dx, y + dy
    return n


def _through(board, w, h, x, y, dx, dy, stone):
    """Length of the run of ``stone`` through (x, y) along (dx, dy) ((x, y) holds ``stone``)."""
    return _run(board, w, h, x, y, dx, dy, stone) + _run(board, w, h, x - dx, y - dy, -dx, -dy, stone)


def reference_shapes(board, n, exact, x, y, stone):
    """Brute force over whole lines: (five, open four, four, open three) of ``stone`` at (x, y)."""
    h, w = board.shape
    wins = (lambda run: run == n) if exact else (lambda run: run >= n)
    b = board.copy()
    b[y, x] = stone
    flags = [False] * 4
    for dx, dy in ((1, 0), (0, 1), (1, 1), (-1, 1)):
        if wins(_through(b, w, h, x, y, dx, dy, stone)):
            return (True, False, False, False)
        line = [(x + k * dx, y + k * dy) for k in range(-w - h, w + h)
                if 0 <= x + k * dx < w and 0 <= y + k * dy < h and b[y + k * dy, x + k * dx] == 0]

        def five_cells(bb, line=line, dx=dx, dy=dy):
            out = 0
            for fx, fy in line:
                if bb[fy, fx] != 0:
                    continue
                bb[fy, fx] = stone
                out += wins(_through(bb, w, h, x, y, dx, dy, stone))
                bb[fy, fx] = 0
            return out

        count = five_cells(b)
        if count >= 2:
            flags[1] = True
        elif count == 1:
            flags[2] = True
        else:
            for ex, ey in line:
                b[ey, ex] = stone
                if five_cells(b) >= 2:
                    flags[3] = True
                b[ey, ex] = 0
    return tuple(flags)


@pytest.mark.parametrize("size,n,rule,seed", [(9, 5, "freestyle", 1), (9, 5, "standard", 2), (8, 4, "freestyle", 3),
                                              (11, 5, "freestyle", 4), (9, 5, "renju", 5)])
def test_matches_brute_force(size, n, rule, seed):
    game = make("gomoku", width=size, height=size, n_in_row=n, rule=rule)
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(6):
        s = game.initial()
        for _ in range(int(rng.integers(6, size * size // 3))):
            moves = s.legal_moves()
            s2 = s.play(int(rng.choice(moves)))
            if s2.is_terminal:
                break
            s = s2
        board = s._pos.board.reshape(size, size)
        planes = threat_planes(s)
        mover = s.to_play + 1
        for side, stone in enumerate((mover, 3 - mover)):
            for y in range(size):
                for x in range(size):
                    if board[y, x] != 0:
                        assert not planes[4 * side:4 * side + 4, y, x].any()
                        continue
                    exact = rule == "standard" or (rule == "renju" and stone == 1)  # renju: Black exactly five
                    want = reference_shapes(board, n, exact, x, y, stone)
                    got = tuple(bool(v) for v in planes[4 * side:4 * side + 4, y, x])
                    assert got == want, (s.moves, game.format_move(y * size + x), side, got, want)
                    checked += 1
    assert checked > 500


def test_symmetry_consistent(game):
    rng = np.random.default_rng(7)
    s = game.initial()
    for _ in range(50):
        s2 = s.play(int(rng.choice(s.legal_moves())))
        if s2.is_terminal:
            break
        s = s2
    planes = threat_planes(s)
    assert planes[[1, 2, 3, 5, 6, 7]].any()  # the position has shapes to move around
    black = [int(c) for c in np.flatnonzero(s._pos.board == 1)]
    white = [int(c) for c in np.flatnonzero(s._pos.board == 2)]
    for sym in game.symmetries:
        moved = game.from_stones([sym.cell(c) for c in black], [sym.cell(c) for c in white])
        assert moved.to_play == s.to_play
        np.testing.assert_array_equal(threat_planes(moved), sym.planes(planes), err_msg=sym.name)
