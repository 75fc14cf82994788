"""``winning_moves`` and the incremental masks behind it equal a brute-force scan after every move
and every undo of random games, under both rules; plus hand-made cases."""

from __future__ import annotations

import numpy as np
import pytest

from gomoku_reference import DIRECTIONS, cell, cells, line_totals, winning_cells
from zeroplay.games import FastPosition, State, fast, make
from zeroplay.games.layout import I_TERMINAL, I_TO_PLAY, I_WINNER
from zeroplay.games.gomoku.layout import I_NWIN0


def _winning_moves(game, pos, player):
    out = np.empty(game.num_actions, dtype=np.int64)
    n = fast.winning_moves(game.params, pos.board, pos.info, pos.aux, player, out)
    return out[:n]


def _as_state(game, pos) -> State:
    """A read-only State over copies of ``pos`` (to use the public API on a search position)."""
    return State(game, FastPosition(pos.board.copy(), pos.info.copy(), pos.stack.copy(), pos.aux.copy()), ())


def _check(game, pos, play_on_copies: bool):
    """Compare everything about winning moves in ``pos`` with the brute-force reference."""
    board = pos.board.reshape(game.height, game.width).astype(np.int64)
    terminal = bool(pos.info[I_TERMINAL])
    for p in (0, 1):
        totals = line_totals(board, p + 1)
        # the mask, bit by bit: bit d set <=> a stone there wins in direction d
        if game.rule == "standard":
            wins_d = totals == game.n_in_row
        else:
            wins_d = totals >= game.n_in_row
        expected_mask = np.zeros(game.cells, dtype=np.uint8)
        for d in range(len(DIRECTIONS)):
            expected_mask |= (wins_d[d].ravel() & (board.ravel() == 0)).astype(np.uint8) << d
        assert np.array_equal(pos.aux[p], expected_mask), (p, np.flatnonzero(pos.aux[p] != expected_mask))
        assert pos.info[I_NWIN0 + p] == np.count_nonzero(expected_mask)
        expected = [] if terminal else winning_cells(board, p, game.n_in_row, game.rule).tolist()
        assert _winning_moves(game, pos, p).tolist() == expected
        num = fast.num_winning_moves(game.params, pos.board, pos.info, pos.aux, p)
        assert num == len(expected)
    if play_on_copies and not terminal:
        # brute force through the public API: play every empty cell on a copy
        s = _as_state(game, pos)
        me = s.to_play
        wins = [c for c in s.legal_moves().tolist() if s.play(c).winner == me]
        assert s.winning_moves(me).tolist() == wins
        assert s.winning_moves().tolist() == wins


def _random_game_with_undos(game, seed, *, max_moves, play_on_copies=False, undo_every=5):
    """Moves mostly next to earlier stones (so lines form), some taken back; checks each step.

    ``max_moves`` moves are applied in all; a finished game is taken back 1-3 moves and goes on.
    Every undo must restore board, info and wmask exactly.
    """
    rng = np.random.default_rng(seed)
    pos = game.initial().fast()
    args = (game.params, game.zkeys)
    snapshots = []
    _check(game, pos, play_on_copies)
    played = 0
    while played < max_moves:
        if snapshots and (pos.info[I_TERMINAL] or rng.integers(undo_every) == 0):
            for _ in range(int(rng.integers(1, 4))):
                if not snapshots:
                    break
                fast.undo(*args, pos.board, pos.info, pos.stack, pos.aux)
                board, info, wmask = snapshots.pop()
                assert np.array_equal(pos.board, board)
                assert np.array_equal(pos.info, info)
                assert np.array_equal(pos.aux, wmask)
                _check(game, pos, play_on_copies)
            continue
        empty = np.flatnonzero(pos.board == 0)
        occupied = np.flatnonzero(pos.board != 0)
        if occupied.size and rng.random() < 0.8:
            near = []
            for c in occupied[rng.permutation(occupied.size)[:6]]:
                x, y = c % game.width, c // game.width
                for dx in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        nx, ny = x + dx, y + dy
                        if 0 <= nx < game.width and 0 <= ny < game.height and pos.board[ny * game.width + nx] == 0:
                            near.append(ny * game.width + nx)
            move = int(rng.choice(near)) if near else int(rng.choice(empty))
        else:
            move = int(rng.choice(empty))
        snapshots.append((pos.board.copy(), pos.info.copy(), pos.aux.copy()))
        mover = pos.info[I_TO_PLAY]
        wins_before = _winning_moves(game, pos, mover).tolist()
        fast.apply(*args, pos.board, pos.info, pos.stack, pos.aux, move)
        played += 1
        assert (pos.info[I_WINNER] == mover) == (move in wins_before)
        _check(game, pos, play_on_copies)
    # take everything back
    while snapshots:
        fast.undo(*args, pos.board, pos.info, pos.stack, pos.aux)
        board, info, wmask = snapshots.pop()
        assert np.array_equal(pos.board, board) and np.array_equal(pos.info, info)
        assert np.array_equal(pos.aux, wmask)
    assert not pos.board.any()
    _check(game, pos, play_on_copies)
    return played


CONFIGS = [
    # width, height, n_in_row, seeds
    (15, 15, 5, range(2)),
    (9, 9, 5, range(4)),
    (8, 6, 4, range(4)),
    (7, 7, 4, range(4)),
    (6, 5, 3, range(4)),
    (20, 20, 5, range(1)),
]


@pytest.mark.parametrize("rule", ["freestyle", "standard"])
@pytest.mark.parametrize("width, height, n, seeds", CONFIGS, ids=lambda v: str(v) if not isinstance(v, range) else "")
def test_random_games_match_brute_force(width, height, n, seeds, rule):
    game = make("gomoku", width=width, height=height, n_in_row=n, rule=rule)
    total = 0
    for seed in seeds:
        total += _random_game_with_undos(game, 1000 * width + 10 * n + seed, max_moves=game.cells)
    assert total > 0


@pytest.mark.parametrize("rule", ["freestyle", "standard"])
def test_random_game_play_on_copies_15x15(rule):
    game = make("gomoku", rule=rule)
    _random_game_with_undos(game, 7, max_moves=70, play_on_copies=True, undo_every=8)


@pytest.mark.parametrize("rule", ["freestyle", "standard"])
def test_random_games_play_on_copies_small(rule):
    for w, h, n in ((7, 7, 4), (9, 6, 5), (5, 5, 3)):
        game = make("gomoku", width=w, height=h, n_in_row=n, rule=rule)
        for seed in range(3):
            _random_game_with_undos(game, seed, max_moves=game.cells, play_on_copies=True)


def test_tictactoe_random_games():
    game = make("tictactoe")
    for seed in range(20):
        _random_game_with_undos(game, seed, max_moves=9, play_on_copies=True)


# --- hand-made cases ----------------------------------------------------------------------------
def test_open_four_has_two_winning_cells():
    g = make("gomoku")
    s = g.from_stones(cells([(5, 7), (6, 7), (7, 7), (8, 7)], 15), cells([(0, 0), (0, 2), (0, 4)], 15))
    assert s.to_play == 1
    assert s.winning_moves(0).tolist() == cells([(4, 7), (9, 7)], 15)
    assert s.winning_moves(1).size == 0
    assert s.winning_moves().size == 0  # default: the side to move (White)
    assert s.num_winning_moves(0) == 2


def test_standard_overline_cell_is_not_a_winning_move():
    black = cells([(3, 7), (4, 7), (5, 7), (6, 7), (8, 7)], 15)
    white = cells([(0, 0), (0, 2), (0, 4), (0, 6), (0, 8)], 15)
    s = make("gomoku", rule="standard").from_stones(black, white)
    assert s.winning_moves(0).tolist() == [cell(2, 7, 15)]  # (7,7) would make six
    s = make("gomoku", rule="freestyle").from_stones(black, white)
    assert s.winning_moves(0).tolist() == [cell(2, 7, 15), cell(7, 7, 15)]


def test_winning_moves_update_when_a_stone_turns_five_into_overline():
    """A stone at distance n from an empty cell can turn its exact five into an overline."""
    g = make("gomoku", rule="standard")
    # B four (3..6, 7); (7,7) wins. A black stone at (8,7) makes (7,7) an overline point, and a
    # black stone at (12, 7)... is too far to matter; White at (8,7) keeps (7,7) a win.
    s = g.from_stones(cells([(3, 7), (4, 7), (5, 7), (6, 7)], 15), cells([(0, 0), (0, 2), (0, 4)], 15))
    assert cell(7, 7, 15) in s.winning_moves(0)
    s1 = s.play(cell(14, 14, 15)).play(cell(8, 7, 15))
    assert cell(7, 7, 15) not in s1.winning_moves(0) and cell(2, 7, 15) in s1.winning_moves(0)
    s2 = s.play(cell(8, 7, 15))  # White blocks next to it
    assert s2.winning_moves(0).tolist() == [cell(2, 7, 15), cell(7, 7, 15)]


def test_winning_moves_empty_when_terminal():
    g = make("gomoku")
    s = g.from_stones(cells([(0, 0), (1, 0), (2, 0), (3, 0)], 15), cells([(0, 5), (1, 5), (2, 5), (3, 5)], 15))
    assert s.winning_moves(0).tolist() == cells([(4, 0)], 15)
    assert s.winning_moves(1).tolist() == cells([(4, 5)], 15)
    t = s.play(cell(4, 0, 15))
    assert t.is_terminal and t.winning_moves(0).size == 0 and t.winning_moves(1).size == 0
    assert t.num_winning_moves(1) == 0


def test_tiny_board_initial_masks():
    """On 5x5 with n = 5 nothing wins at once; with n = 3 on tic-tac-toe neither."""
    for g in (make("gomoku", width=5, height=5), make("tictactoe")):
        s = g.initial()
        assert s.winning_moves(0).size == 0 and s.winning_moves(1).size == 0
