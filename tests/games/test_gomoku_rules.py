"""Gomoku rules: the cases of issue 2 with their exact coordinates, edges, corners, wrap-around,
gap-filling stones, the standard rule's overlines, full-board draws and tic-tac-toe.

Coordinates are (x, y) = (column, row), 0-based, row 0 on top; cell = y * width + x.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from gomoku_reference import DIRECTIONS, cell, cells, holds_win, winning_cells
from zeroplay.games import IllegalMoveError, make

RULES = ("freestyle", "standard")


def _setup(game, black_xy, white_xy=(), to_play=0):
    """A position with the given (x, y) stones and ``to_play`` to move."""
    w = game.width
    return game.from_stones(cells(black_xy, w), cells(white_xy, w), to_play=to_play)


def _plays_and_wins(game, black_xy, move_xy, white_xy=()):
    """Black to move plays ``move_xy``; returns the new state (after sanity checks)."""
    s = _setup(game, black_xy, white_xy, to_play=0)
    assert not s.is_terminal
    return s.play(cell(*move_xy, game.width))


# --- cases of issue 2 -------------------------------------------------------------------------
@pytest.mark.parametrize("rule", RULES)
def test_anti_diagonal_five_touching_left_edge(rule):
    g = make("gomoku", rule=rule)
    s = _plays_and_wins(g, [(0, 4), (1, 3), (2, 2), (3, 1)], (4, 0))
    assert s.is_terminal and s.winner == 0
    assert s.legal_moves().size == 0


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize(
    "black",
    [
        # anti-diagonal that would wrap from the left edge to the right edge in flat indices
        [(0, 4), (14, 3), (13, 2), (12, 1), (11, 0)],
        # consecutive in row-major order across a row end
        [(12, 0), (13, 0), (14, 0), (0, 1), (1, 1)],
        # diagonals that would wrap in a flat index
        [(11, 0), (12, 1), (13, 2), (14, 3), (0, 5)],
        [(3, 0), (2, 1), (1, 2), (0, 3), (14, 3)],
    ],
    ids=["anti-diag-wrap", "row-wrap", "diag-wrap", "anti-diag-wrap-2"],
)
def test_wrapped_lines_do_not_win(rule, black):
    g = make("gomoku", rule=rule)
    w = g.width
    # as a set-up position
    s = g.from_stones(cells(black, w), [], to_play=1)
    assert not s.is_terminal and s.winner is None
    # and played stone by stone in every order of the last stone (White answers far away)
    for last in range(5):
        order = [c for i, c in enumerate(black) if i != last] + [black[last]]
        st = g.initial()
        whites = [(7, 10), (9, 10), (11, 10), (13, 10), (7, 12)]
        for b, wh in zip(order, whites):
            st = st.play(cell(*b, w))
            assert not st.is_terminal
            st = st.play(cell(*wh, w))
        assert not st.is_terminal and st.winner is None


def _line(center, d, offsets):
    dx, dy = DIRECTIONS[d]
    return [(center[0] + k * dx, center[1] + k * dy) for k in offsets]


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("d", range(4), ids=["horizontal", "vertical", "diagonal", "anti-diagonal"])
def test_gap_filling_stone_wins(rule, d):
    """B at (4,7),(5,7),(7,7),(8,7) (and rotations), B plays (6,7) -> win in both rules."""
    g = make("gomoku", rule=rule)
    center = (6, 7)
    s = _plays_and_wins(g, _line(center, d, (-2, -1, 1, 2)), center)
    assert s.is_terminal and s.winner == 0


@pytest.mark.parametrize("extra", [-3, 3], ids=["extra-before", "extra-after"])
@pytest.mark.parametrize("d", range(4), ids=["horizontal", "vertical", "diagonal", "anti-diagonal"])
def test_gap_filling_stone_making_six(d, extra):
    """With (3,7) also black: freestyle win; standard: no win, the game continues."""
    center = (6, 7)
    black = _line(center, d, (-2, -1, 1, 2, extra))
    s = _plays_and_wins(make("gomoku", rule="freestyle"), black, center)
    assert s.is_terminal and s.winner == 0
    s = _plays_and_wins(make("gomoku", rule="standard"), black, center)
    assert not s.is_terminal and s.winner is None
    assert s.to_play == 1
    assert s.legal_moves().size == 225 - 6


def test_issue_gap_case_exact_coordinates():
    """The literal case: B (4,7),(5,7),(7,7),(8,7) [+ (3,7)], B plays (6,7)."""
    four = [(4, 7), (5, 7), (7, 7), (8, 7)]
    for rule in RULES:
        s = _plays_and_wins(make("gomoku", rule=rule), four, (6, 7))
        assert s.winner == 0
    s = _plays_and_wins(make("gomoku", rule="freestyle"), four + [(3, 7)], (6, 7))
    assert s.winner == 0
    s = _plays_and_wins(make("gomoku", rule="standard"), four + [(3, 7)], (6, 7))
    assert not s.is_terminal


def test_standard_five_next_to_gap_then_stone_wins():
    """B (3,7),(4,7),(5,7),(6,7),(9,7), B plays (7,7) -> win (XXXXX.X)."""
    g = make("gomoku", rule="standard")
    s = _plays_and_wins(g, [(3, 7), (4, 7), (5, 7), (6, 7), (9, 7)], (7, 7))
    assert s.is_terminal and s.winner == 0


def test_standard_overline_in_one_line_five_in_another_wins():
    """Horizontal six and vertical five at once -> win under standard."""
    g = make("gomoku", rule="standard")
    black = [(1, 7), (2, 7), (3, 7), (5, 7), (6, 7), (4, 3), (4, 4), (4, 5), (4, 6)]
    s = _plays_and_wins(g, black, (4, 7))
    assert s.is_terminal and s.winner == 0
    # without the vertical four the same move makes only an overline
    s = _plays_and_wins(g, black[:5], (4, 7))
    assert not s.is_terminal


def test_standard_white_overline_does_not_win():
    """White (3,7),(4,7),(5,7),(7,7),(8,7) + (6,7) -> no win under standard; a win in freestyle."""
    white = [(3, 7), (4, 7), (5, 7), (7, 7), (8, 7)]
    black = [(0, 0), (2, 0), (4, 0), (6, 0), (8, 0)]
    for rule, terminal in (("standard", False), ("freestyle", True)):
        g = make("gomoku", rule=rule)
        s = _setup(g, black, white, to_play=1)
        assert not s.is_terminal
        s = s.play(cell(6, 7, g.width))
        assert s.is_terminal is terminal
        assert s.winner == (1 if terminal else None)


@pytest.mark.parametrize("length", [6, 7, 9])
def test_standard_long_overlines_never_win(length):
    """Filling any cell of a long line never wins under standard (both colours)."""
    for player in (0, 1):
        g = make("gomoku", rule="standard")
        line = [(x, 5) for x in range(2, 2 + length)]
        for gap in range(length):
            if 5 in (gap, length - 1 - gap):
                continue  # the set-up would already hold an exact five
            stones = [c for i, c in enumerate(line) if i != gap]
            other = [(x, 12) for x in range(0, 2 * len(stones), 2)][: len(stones)]
            mine, theirs = (stones, other) if player == 0 else (other, stones)
            s = _setup(g, mine, theirs, to_play=player)
            assert not s.is_terminal
            s = s.play(cell(*line[gap], g.width))
            assert not s.is_terminal, (player, length, gap)


def test_five_blocked_by_opponent_stone_still_wins_standard():
    """An exact five bounded by White stones (or the edge) is a five under standard."""
    g = make("gomoku", rule="standard")
    s = _plays_and_wins(g, [(1, 3), (2, 3), (3, 3), (4, 3)], (5, 3), white_xy=[(0, 3), (6, 3)])
    assert s.winner == 0
    s = _plays_and_wins(g, [(0, 3), (1, 3), (2, 3), (3, 3)], (4, 3), white_xy=[(5, 3)])
    assert s.winner == 0


# --- edges and corners on 15x15 and 20x20, every direction and stone order -------------------
def _edge_segments(width, height, n=5):
    """Every segment of n cells in every direction that touches the board's edge at one end."""
    out = []
    for d, (dx, dy) in enumerate(DIRECTIONS):
        for y in range(height):
            for x in range(width):
                seg = [(x + k * dx, y + k * dy) for k in range(n)]
                if not all(0 <= a < width and 0 <= b < height for a, b in seg):
                    continue
                bx, by = x - dx, y - dy  # cell before the segment
                ax, ay = seg[-1][0] + dx, seg[-1][1] + dy  # cell after it
                before_off = not (0 <= bx < width and 0 <= by < height)
                after_off = not (0 <= ax < width and 0 <= ay < height)
                if before_off or after_off:
                    out.append((d, seg))
    return out


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("size", [15, 20])
def test_fives_touching_the_edge_win_with_any_last_stone(size, rule):
    g = make("gomoku", width=size, height=size, rule=rule)
    segs = _edge_segments(size, size)
    assert {d for d, _ in segs} == {0, 1, 2, 3}
    for d, seg in segs:
        seg_cells = cells(seg, size)
        for last in range(5):
            before = [c for i, c in enumerate(seg_cells) if i != last]
            s = g.from_stones(before, [], to_play=0)
            assert not s.is_terminal
            assert seg_cells[last] in s.winning_moves(0), (d, seg, last)
            s = s.play(seg_cells[last])
            assert s.is_terminal and s.winner == 0, (d, seg, last)
            # the same line for White
            s = g.from_stones([], before, to_play=1).play(seg_cells[last])
            assert s.is_terminal and s.winner == 1, (d, seg, last)


@pytest.mark.parametrize("size", [15, 20])
def test_corner_fives_every_stone_order(size):
    """Each of the 120 orders of a five into each corner, in each direction, White far away."""
    for rule in RULES:
        g = make("gomoku", width=size, height=size, rule=rule)
        m = size - 1
        corners = {(0, 0): (1, 1), (m, 0): (-1, 1), (0, m): (1, -1), (m, m): (-1, -1)}
        c0 = size // 2
        whites = cells([(c0, c0), (c0 + 2, c0), (c0, c0 + 2), (c0 + 2, c0 + 2)], size)
        for (cx, cy), (sx, sy) in corners.items():
            for dx, dy in ((sx, 0), (0, sy), (sx, sy)):
                seg = cells([(cx + k * dx, cy + k * dy) for k in range(5)], size)
                for order in itertools.permutations(seg):
                    s = g.initial()
                    for i, c in enumerate(order):
                        s = s.play(c)
                        if i < 4:
                            assert not s.is_terminal
                            s = s.play(whites[i])
                    assert s.is_terminal and s.winner == 0, (rule, order)


@pytest.mark.parametrize("size", [15, 20])
def test_flat_index_progressions_that_wrap_never_win(size):
    """Five cells c, c+s, ..., c+4s (s = 1, w, w+1, w-1) that are not a board line: no win."""
    g = {r: make("gomoku", width=size, height=size, rule=r) for r in RULES}
    w = size
    n_checked = 0
    for step in (1, w, w + 1, w - 1):
        for c in range(w * w - 4 * step):
            seg = [c + k * step for k in range(5)]
            xy = [(a % w, a // w) for a in seg]
            dx = xy[1][0] - xy[0][0]
            if all(xy[k + 1][0] - xy[k][0] == dx for k in range(4)):
                continue  # a real line
            board = np.zeros((w, w), dtype=np.int8)
            for x, y in xy:
                board[y, x] = 1
            for rule in RULES:
                assert not holds_win(board, 0, 5, rule)  # the reference agrees it is no line
                s = g[rule].from_stones(seg[:4], [], to_play=0)
                assert seg[4] not in s.winning_moves(0)
                assert not s.play(seg[4]).is_terminal, (rule, xy)
                assert not g[rule].from_stones(seg, [], to_play=1).is_terminal
            n_checked += 1
    assert n_checked > 0


# --- full-board draws -------------------------------------------------------------------------
def _draw_pattern(size=15):
    black, white = [], []
    for y in range(size):
        for x in range(size):
            (black if ((x + 2 * y) // 2) % 2 == 0 else white).append(cell(x, y, size))
    return black, white


@pytest.mark.parametrize("rule", RULES)
def test_full_board_without_five_is_a_draw(rule):
    black, white = _draw_pattern()
    board = np.zeros((15, 15), dtype=np.int8)
    board.flat[black] = 1
    board.flat[white] = 2
    assert not holds_win(board, 0, 5, "freestyle") and not holds_win(board, 1, 5, "freestyle")
    g = make("gomoku", rule=rule)
    s = g.from_stones(black, white)
    assert s.is_terminal and s.winner is None
    assert s.legal_moves().size == 0
    assert s.winning_moves(0).size == 0 and s.winning_moves(1).size == 0
    with pytest.raises(IllegalMoveError):
        s.play(0)


@pytest.mark.parametrize("rule", RULES)
def test_full_board_minus_one_cell_then_draw(rule):
    black, white = _draw_pattern()
    assert 0 in black
    black.remove(0)  # (0, 0) empty
    g = make("gomoku", rule=rule)
    s = g.from_stones(black, white, to_play=0)
    assert not s.is_terminal
    assert s.legal_moves().tolist() == [0]
    assert s.winning_moves(0).size == 0
    s = s.play(0)
    assert s.is_terminal and s.winner is None
    assert s.legal_moves().size == 0


def test_full_board_draw_through_the_fast_path():
    from zeroplay.games import fast

    black, white = _draw_pattern()
    black.remove(0)
    g = make("gomoku")
    s = g.from_stones(black, white, to_play=0)
    pos = s.fast()
    fast.apply(g.params, g.zkeys, pos.board, pos.info, pos.stack, pos.aux, 0)
    assert pos.info[4] == 1 and pos.info[3] == -1  # I_TERMINAL, I_WINNER: a draw
    assert fast.undo(g.params, g.zkeys, pos.board, pos.info, pos.stack, pos.aux) == 0
    assert pos.info[4] == 0 and pos.board[0] == 0


def test_last_stone_wins_on_a_full_board():
    """A move that fills the board and makes five is a win, not a draw."""
    g = make("gomoku", width=5, height=5)
    # rows alternate so no line exists, then the last cell completes row 0
    black = [cell(x, 0, 5) for x in range(1, 5)]
    white = []
    for y in range(1, 5):
        for x in range(5):
            (black if ((x + 2 * y) // 2) % 2 == 1 else white).append(cell(x, y, 5))
    board = np.zeros((5, 5), dtype=np.int8)
    board.flat[black] = 1
    board.flat[white] = 2
    assert not holds_win(board, 0, 5, "freestyle") and not holds_win(board, 1, 5, "freestyle")
    s = g.from_stones(black, white, to_play=0)
    assert winning_cells(board, 0, 5, "freestyle").tolist() == [0]
    s = s.play(0)
    assert s.is_terminal and s.winner == 0


# --- other board shapes and line lengths -------------------------------------------------------
def test_non_square_board_vertical_and_horizontal_lines():
    g = make("gomoku", width=9, height=7, n_in_row=5)
    s = _plays_and_wins(g, [(8, 2), (8, 3), (8, 4), (8, 5)], (8, 6))
    assert s.winner == 0
    s = _plays_and_wins(g, [(4, 6), (5, 6), (6, 6), (7, 6)], (8, 6))
    assert s.winner == 0
    s = _plays_and_wins(g, [(4, 2), (5, 3), (6, 4), (7, 5)], (8, 6))
    assert s.winner == 0
    # wrap across the row end of a 9-wide board
    s = _plays_and_wins(g, [(6, 0), (7, 0), (8, 0), (0, 1)], (1, 1))
    assert not s.is_terminal


@pytest.mark.parametrize("rule", RULES)
def test_four_in_a_row_game(rule):
    g = make("gomoku", width=6, height=6, n_in_row=4, rule=rule)
    s = _plays_and_wins(g, [(0, 0), (1, 1), (2, 2)], (3, 3))
    assert s.winner == 0
    s = _plays_and_wins(g, [(0, 0), (1, 1), (2, 2), (4, 4)], (3, 3))
    assert s.winner == (0 if rule == "freestyle" else None)


def test_tictactoe_basics():
    g = make("tictactoe")
    assert (g.width, g.height, g.n_in_row, g.num_actions) == (3, 3, 3, 9)
    assert g.name == "tictactoe" and g == make("tictactoe")
    s = g.initial()
    assert s.legal_moves().tolist() == list(range(9))
    assert s.winning_moves(0).size == 0
    s = s.play_many([4, 0, 2])  # X centre, O corner, X corner: X threatens 6
    assert s.to_play == 1
    assert s.winning_moves(0).tolist() == [6]
    s = s.play_many([6, 3])  # O blocks, X plays 3: X threatens 5
    assert sorted(s.winning_moves(0).tolist()) == [5]
    s = s.play(5)  # O blocks
    assert s.to_play == 0 and s.winning_moves(1).size == 0
    s = s.play_many([1, 8])  # X threatens 7 (column 1, 4, 7), O makes its own threat at 7
    assert s.winning_moves(0).tolist() == [7] and s.winning_moves(1).tolist() == [7]
    s = s.play(7)
    assert s.winner == 0 and s.is_terminal
    # a draw
    d = g.initial().play_many([0, 4, 8, 1, 7, 6, 2, 5, 3])
    assert d.is_terminal and d.winner is None
    assert g.format_move(0) == "a3" and g.parse_move("c1") == 8
    assert len(g.symmetries) == 8
    # anti-diagonal
    s = g.initial().play_many([2, 0, 4, 1, 6])
    assert s.winner == 0


def test_make_validates_options():
    with pytest.raises(ValueError):
        make("gomoku", width=4)
    with pytest.raises(ValueError):
        make("gomoku", height=26)
    with pytest.raises(ValueError):
        make("gomoku", n_in_row=2)
    with pytest.raises(ValueError):
        make("gomoku", width=5, height=5, n_in_row=6)
    with pytest.raises(ValueError):
        make("gomoku", rule="caro")
    with pytest.raises(ValueError):
        make("gomoku", bogus=1)
    with pytest.raises(ValueError):
        make("no-such-game")
    g = make("gomoku", size=9)
    assert (g.width, g.height, g.num_actions) == (9, 9, 81)
    g = make("gomoku", width=25, height=5)
    assert (g.width, g.height, g.num_actions) == (25, 5, 125)
