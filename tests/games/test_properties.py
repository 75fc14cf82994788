"""Hypothesis properties over random Gomoku games (sizes 5..12, n 3..5, both rules), on the
in-place fast path with moves and undos interleaved:

* the incremental Zobrist key equals ``zobrist_key`` from scratch;
* winning moves (both players) equal a brute-force scan; the masks' counts agree;
* legal moves are exactly the empty cells, and a terminal position has none;
* the winner is set exactly when the mover completed a line (reference rules);
* an undo restores board, info and wmask exactly;
* the State API built on the same moves agrees with the fast path.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gomoku_reference import holds_win, winning_cells, wins_with
from zeroplay.games import fast, make
from zeroplay.games.layout import I_KEY, I_LAST, I_PLY, I_TERMINAL, I_TO_PLAY, I_WINNER
from zeroplay.hashing import zobrist_key

UNDO = -1


def _key(info) -> int:
    return int(info[I_KEY : I_KEY + 1].view(np.uint64)[0])


def _check_position(game, pos):
    board = pos.board.reshape(game.height, game.width).astype(np.int64)
    info = pos.info
    black = np.flatnonzero(pos.board == 1)
    white = np.flatnonzero(pos.board == 2)
    to_play = int(info[I_TO_PLAY])
    assert info[I_PLY] == black.size + white.size
    assert _key(info) == zobrist_key(black, white, to_play, game.cells)
    terminal = bool(info[I_TERMINAL])
    out = np.empty(game.num_actions, dtype=np.int64)
    n_legal = fast.legal_moves(game.params, pos.board, info, pos.aux, out)
    if terminal:
        assert n_legal == 0
    else:
        assert out[:n_legal].tolist() == np.flatnonzero(pos.board == 0).tolist()
    for p in (0, 1):
        n_win = fast.winning_moves(game.params, pos.board, info, pos.aux, p, out)
        expected = [] if terminal else winning_cells(board, p, game.n_in_row, game.rule).tolist()
        assert out[:n_win].tolist() == expected
        assert fast.num_winning_moves(game.params, pos.board, info, pos.aux, p) == len(expected)
        assert np.count_nonzero(pos.aux[p]) == info[6 + p]
        assert not (pos.aux[p] != 0)[pos.board != 0].any()
    # no finished game goes on: at most the last mover holds a win
    if not terminal:
        assert not holds_win(board, 0, game.n_in_row, game.rule)
        assert not holds_win(board, 1, game.n_in_row, game.rule)


def _pick(game, board, step):
    """An empty cell: mostly one next to a stone (so that lines form), else any."""
    empty = board == 0
    if step % 3 != 0 and not empty.all():
        b = (~empty).reshape(game.height, game.width)
        near = np.zeros((game.height + 2, game.width + 2), dtype=bool)
        for dy in range(3):
            for dx in range(3):
                near[dy : dy + game.height, dx : dx + game.width] |= b
        candidates = np.flatnonzero(near[1:-1, 1:-1].ravel() & empty)
        if candidates.size:
            return int(candidates[(step // 3) % candidates.size])
    cells = np.flatnonzero(empty)
    return int(cells[step % cells.size])


@st.composite
def games(draw):
    width = draw(st.integers(5, 12))
    height = draw(st.integers(5, 12))
    n = draw(st.integers(3, 5))
    rule = draw(st.sampled_from(["freestyle", "standard"]))
    # each step: UNDO, or a number that picks an empty cell (see _pick)
    length = draw(st.integers(0, 160))
    step = st.one_of(st.just(UNDO), st.integers(0, 10_000), st.integers(0, 10_000))
    steps = draw(st.lists(step, min_size=length, max_size=length))
    return make("gomoku", width=width, height=height, n_in_row=n, rule=rule), steps


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_fast_path_invariants(case):
    game, steps = case
    pos = game.initial().fast()
    args = (game.params, game.zkeys)
    snapshots = []
    moves = []
    _check_position(game, pos)
    for step in steps:
        if step == UNDO or pos.info[I_TERMINAL]:
            if not snapshots:
                continue
            undone = fast.undo(*args, pos.board, pos.info, pos.stack, pos.aux)
            assert undone == moves.pop()
            board, info, wmask = snapshots.pop()
            assert np.array_equal(pos.board, board)
            assert np.array_equal(pos.info, info)
            assert np.array_equal(pos.aux, wmask)
        else:
            move = _pick(game, pos.board, step)
            mover = int(pos.info[I_TO_PLAY])
            before = pos.board.reshape(game.height, game.width).astype(np.int64)
            snapshots.append((pos.board.copy(), pos.info.copy(), pos.aux.copy()))
            fast.apply(*args, pos.board, pos.info, pos.stack, pos.aux, move)
            moves.append(move)
            won = wins_with(before, move % game.width, move // game.width, mover, game.n_in_row, game.rule)
            full = not (pos.board == 0).any()
            assert bool(pos.info[I_TERMINAL]) == (won or full)
            assert pos.info[I_WINNER] == (mover if won else -1)
            assert pos.info[I_LAST] == move and pos.info[I_TO_PLAY] == 1 - mover
        _check_position(game, pos)
    # the State API reaches the same position by the surviving moves
    s = game.initial().play_many(moves)
    assert s.moves == tuple(moves)
    assert np.array_equal(s._pos.board, pos.board)
    assert np.array_equal(s._pos.info, pos.info)
    assert np.array_equal(s._pos.aux, pos.aux)
    assert s.key == _key(pos.info)
    # undo all -> the initial position
    while moves:
        assert fast.undo(*args, pos.board, pos.info, pos.stack, pos.aux) == moves.pop()
    start = game.initial()._pos
    assert np.array_equal(pos.board, start.board)
    assert np.array_equal(pos.info, start.info)
    assert np.array_equal(pos.aux, start.aux)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(5, 12),
    st.integers(5, 12),
    st.integers(3, 5),
    st.sampled_from(["freestyle", "standard"]),
    st.integers(0, 2**32 - 1),
    st.floats(0.0, 0.6),
)
def test_from_stones_agrees_with_reference(width, height, n, rule, seed, fill):
    """Random stone sets: terminal/winner, key and winning moves of ``from_stones``."""
    game = make("gomoku", width=width, height=height, n_in_row=n, rule=rule)
    rng = np.random.default_rng(seed)
    k = int(fill * game.cells)
    chosen = rng.permutation(game.cells)[:k]
    black, white = chosen[: (k + 1) // 2], chosen[(k + 1) // 2 :]
    board = np.zeros(game.cells, dtype=np.int64)
    board[black] = 1
    board[white] = 2
    board2d = board.reshape(height, width)
    win_b = holds_win(board2d, 0, n, rule)
    win_w = holds_win(board2d, 1, n, rule)
    if win_b and win_w:
        try:
            game.from_stones(black, white)
        except ValueError:
            return
        raise AssertionError("both sides winning must raise")
    s = game.from_stones(black, white)
    assert s.to_play == (1 if black.size > white.size else 0)
    assert s.key == zobrist_key(black, white, s.to_play, game.cells)
    if win_b or win_w:
        assert s.is_terminal and s.winner == (0 if win_b else 1)
        assert s.legal_moves().size == 0
    else:
        assert s.is_terminal == (k == game.cells) and s.winner is None
        for p in (0, 1):
            assert s.winning_moves(p).tolist() == winning_cells(board2d, p, n, rule).tolist()
