"""Connect Four: 7 columns x 6 rows, stones drop to the lowest empty cell, four in a row wins.

Actions are the 7 columns (``num_actions = 7``, action 0 = leftmost). Cells keep the shared
convention ``row * 7 + col`` with row 0 at the top, so a stone dropped in an empty column lands
on row 5. Four or more in a row of one colour (horizontal, vertical or either diagonal) wins; a
full board without one is a draw. Player 0 moves first.

Notation (Pascal Pons' test sets, see ``shared/data/connect4/README.md``): a move is its column
digit ``"1"`` .. ``"7"`` (1 = leftmost); a game is the digits run together, ``"4453"``
(``parse_moves`` / ``format_moves``). Cells, where a function needs one from text (``from_stones``),
are written ``"d1"``: column letter from the left, row number from the bottom.

``action_to_cell(a)`` is the bottom cell of column a (where a stone lands on the empty board) and
``cell_to_action(c) = c % 7`` (the column to drop in to fill c eventually);
``game.landing_cell(state, a)`` gives the cell a stone would land on in that state.
"""

from __future__ import annotations

import re

import numpy as np

from zeroplay.games.api import FastPosition, Game, IllegalMoveError, State, new_info, setup_info
from zeroplay.games.connect4 import kernels as K
from zeroplay.games.connect4.layout import P_N_IN_ROW
from zeroplay.games.layout import I_KEY, I_LAST, I_TERMINAL, I_WINNER, P_EMPTY_KEY
from zeroplay.games.symmetry import mirror_symmetries
from zeroplay.hashing import last_move_keys, stone_keys

WIDTH, HEIGHT, N_IN_ROW = 7, 6, 4
_COLUMN = re.compile(r"^\s*([1-9])\s*$")
_CELL = re.compile(r"^\s*([a-zA-Z])\s*(\d{1,2})\s*$")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


class Connect4(Game):
    """Connect Four on the standard 7 x 6 board. No options.

    ``winning_moves(player)`` gives the columns whose landing cell completes four for ``player``;
    ``num_winning_moves`` counts those columns.
    """

    exact_solver = True
    heuristic = "columns"
    notation = "columns"
    player_names = ("X", "O")
    policy_layout = "columns"

    def __init__(self):
        self.name = "connect4"
        self.options = {}
        self.width, self.height, self.n_in_row = WIDTH, HEIGHT, N_IN_ROW
        self.cells = WIDTH * HEIGHT
        self.num_actions = WIDTH
        self.kernels = K.KERNELS
        self.max_plies = self.cells
        self.aux_shape = (2, self.cells)
        params = self._shared_params()
        params[P_N_IN_ROW] = N_IN_ROW
        params.setflags(write=False)
        self.params = params
        zkeys = np.empty((3, self.cells), dtype=np.uint64)
        zkeys[:2] = stone_keys(self.cells)
        zkeys[2] = last_move_keys(self.cells)
        self.zkeys = zkeys.view(np.int64)
        self.zkeys.setflags(write=False)
        self.symmetries = mirror_symmetries(HEIGHT, WIDTH, np.arange(WIDTH)[::-1].copy())

    # --- actions and cells ----------------------------------------------------------------
    def action_to_cell(self, action: int) -> int:
        """Bottom cell of column ``action`` (where the stone lands on the empty board)."""
        a = int(action)
        if not 0 <= a < WIDTH:
            raise ValueError(f"action {action!r} out of range 0..{WIDTH - 1}")
        return (HEIGHT - 1) * WIDTH + a

    def cell_to_action(self, cell: int) -> int:
        """Column of ``cell``: the action that drops a stone towards it."""
        c = int(cell)
        if not 0 <= c < self.cells:
            raise ValueError(f"cell {cell!r} out of range 0..{self.cells - 1}")
        return c % WIDTH

    # --- compiled hooks -------------------------------------------------------------------
    def _new_position(self) -> FastPosition:
        info = new_info()
        info[I_KEY] = self.params[P_EMPTY_KEY]
        return FastPosition(
            np.zeros(self.cells, dtype=np.int8),
            info,
            np.full(self.cells + 1, -1, dtype=np.int32),
            np.zeros((2, self.cells), dtype=np.uint8),
        )

    def _check_action(self, pos, action, text):
        if pos.board[action] != 0:
            raise IllegalMoveError(f"move {text}: column {action + 1} is full")

    def landing_cell(self, state: State, action: int) -> int | None:
        """Cell where a stone dropped in column ``action`` lands in ``state``; None if full."""
        a = int(action)
        if not 0 <= a < WIDTH:
            raise ValueError(f"action {action!r} out of range 0..{WIDTH - 1}")
        col = state.board[:, a]
        empty = np.flatnonzero(col == 0)
        return None if len(empty) == 0 else int(empty[-1]) * WIDTH + a

    # --- set-up ---------------------------------------------------------------------------
    def from_stones(self, black, white, to_play: int | None = None, last_move: int | str | None = None) -> State:
        """A position with the given stones (tests, puzzles).

        Args:
            black, white: cells (``row * 7 + col``, row 0 at the top) or cell texts (``"d1"``)
                of the first / second player's stones.
            to_play: side to move; must agree with the counts (equal -> 0, one more first-player
                stone -> 1), which is also the default.
            last_move: the cell (or cell text) of the last move: it must hold a stone of the side
                that just moved and be the top stone of its column. Without it the last-move plane
                is all zeros.

        Returns:
            The State; terminal with its winner if four in a row is already on the board, a draw
            if the board is full. Its history (``moves``) is empty.

        Raises:
            IllegalMoveError: a cell out of range, malformed, or listed twice.
            ValueError: a floating stone (an empty cell below it), impossible counts, a ``to_play``
                that disagrees with them, both sides holding four, a bad ``last_move``.
        """
        board = np.zeros(self.cells, dtype=np.int8)
        lists = []
        for stone, cells in ((1, black), (2, white)):
            parsed = []
            for c in cells:
                a = self._cell_arg(c)
                if board[a] != 0:
                    raise IllegalMoveError(f"cell {self.format_cell(a)} is listed twice")
                board[a] = stone
                parsed.append(a)
            lists.append(parsed)
        for c in range(self.cells - WIDTH):
            if board[c] != 0 and board[c + WIDTH] == 0:
                raise ValueError(f"stone on {self.format_cell(c)} floats: {self.format_cell(c + WIDTH)} below it is empty")
        nb, nw = len(lists[0]), len(lists[1])
        if nb == nw:
            expected = 0
        elif nb == nw + 1:
            expected = 1
        else:
            raise ValueError(f"{nb} first-player and {nw} second-player stones cannot arise in Connect Four")
        if to_play is None:
            to_play = expected
        if to_play != expected:
            raise ValueError(f"to_play={to_play!r} disagrees with the stone counts ({nb} and {nw}): expected {expected}")
        info = setup_info(lists[0], lists[1], to_play, self.cells)
        stack = np.full(self.cells + 1, -1, dtype=np.int32)
        if last_move is not None:
            lm = self._cell_arg(last_move)
            if board[lm] != 2 - to_play:
                raise ValueError(
                    f"last_move {self.format_cell(lm)} must hold a stone of player {1 - to_play}, "
                    "the side that just moved"
                )
            if lm >= WIDTH and board[lm - WIDTH] != 0:
                raise ValueError(f"last_move {self.format_cell(lm)} is not the top stone of its column")
            info[I_LAST] = lm
            stack[nb + nw - 1] = lm % WIDTH
        winners = {p for p in range(2) for a in lists[p] if K.wins_at(self.params, board, a, p + 1)}
        if len(winners) == 2:
            raise ValueError("both sides already hold four in a row")
        if winners:
            info[I_TERMINAL] = 1
            info[I_WINNER] = winners.pop()
        elif nb + nw == self.cells:
            info[I_TERMINAL] = 1
        wmask = np.zeros((2, self.cells), dtype=np.uint8)
        K.compute_wmask(self.params, board, info, wmask)
        return State(self, FastPosition(board, info, stack, wmask), ())

    def from_moves(self, moves: str | list) -> State:
        """The state after the game ``moves`` (``"4453"`` or a list of actions / column texts)."""
        if isinstance(moves, str):
            moves = self.parse_moves(moves)
        return self.initial().play_many(moves)

    def _cell_arg(self, c) -> int:
        if isinstance(c, str):
            return self.parse_cell(c)
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 0 <= c < self.cells:
            raise IllegalMoveError(f"cell {c!r}: out of range 0..{self.cells - 1}")
        return int(c)

    # --- notation -------------------------------------------------------------------------
    def parse_move(self, text: str) -> int:
        """Action from a column digit ``"1"`` .. ``"7"`` (1 = leftmost column -> action 0).

        Raises:
            IllegalMoveError: malformed text or a column off the board (the message quotes it).
        """
        if not isinstance(text, str):
            raise IllegalMoveError(f"move {text!r}: expected a column digit '1'..'{WIDTH}'")
        m = _COLUMN.match(text)
        if not m or not 1 <= int(m.group(1)) <= WIDTH:
            raise IllegalMoveError(f"move {text!r}: expected a column digit '1'..'{WIDTH}'")
        return int(m.group(1)) - 1

    def format_move(self, action: int, style: str = "digit") -> str:
        """Column digit ``"1"`` .. ``"7"`` of an action (the only style, ``"digit"``)."""
        a = int(action)
        if not 0 <= a < WIDTH:
            raise ValueError(f"action {action!r} out of range 0..{WIDTH - 1}")
        if style != "digit":
            raise ValueError(f"unknown move style {style!r}; use 'digit'")
        return str(a + 1)

    def parse_moves(self, text: str) -> list[int]:
        """Actions of a game written as column digits, ``"4453"`` -> ``[3, 3, 4, 2]``.

        Whitespace and commas between digits are ignored; the empty string is the empty game.
        Legality (full columns, a finished game) is checked when the moves are played.

        Raises:
            IllegalMoveError: a character that is not a column digit (the message names it and
                its position).
        """
        if not isinstance(text, str):
            raise IllegalMoveError(f"moves {text!r}: expected a string of column digits")
        out = []
        for i, ch in enumerate(text):
            if ch.isspace() or ch == ",":
                continue
            if not "1" <= ch <= str(WIDTH):
                raise IllegalMoveError(f"moves {text!r}: {ch!r} at position {i} is not a column digit 1..{WIDTH}")
            out.append(ord(ch) - ord("1"))
        return out

    def format_moves(self, actions) -> str:
        """Column digits of a sequence of actions run together, ``[3, 3, 4, 2]`` -> ``"4453"``."""
        return "".join(self.format_move(a) for a in actions)

    def parse_cell(self, text: str) -> int:
        """Cell from ``"d1"`` (column letter from the left, row number from the bottom).

        Raises:
            IllegalMoveError: malformed or off-board text.
        """
        m = _CELL.match(text) if isinstance(text, str) else None
        if not m:
            raise IllegalMoveError(f"cell {text!r}: expected a cell such as 'd1'")
        x = _LETTERS.index(m.group(1).lower())
        row = int(m.group(2))
        if x >= WIDTH or not 1 <= row <= HEIGHT:
            raise IllegalMoveError(f"cell {text!r}: off the {WIDTH}x{HEIGHT} board")
        return (HEIGHT - row) * WIDTH + x

    def format_cell(self, cell: int) -> str:
        """``"d1"`` for a cell (column letter, row number from the bottom)."""
        c = int(cell)
        if not 0 <= c < self.cells:
            raise ValueError(f"cell {cell!r} out of range 0..{self.cells - 1}")
        return f"{_LETTERS[c % WIDTH]}{HEIGHT - c // WIDTH}"

    def move_help(self) -> str:
        """The notation in one sentence, and who is X."""
        return (f"Type a move as a column digit, 1 (left) .. {WIDTH} (right): your stone drops to the lowest "
                "empty cell. Black is X and moves first.")

    def render(self, state: State) -> str:
        """The board with column digits: X = first player, O = second, ')' after the last move."""
        last = state.last_move
        header = " " + " ".join(str(i + 1) for i in range(WIDTH))
        lines = [header]
        b = state.board
        for y in range(HEIGHT):
            row = " "
            for x in range(WIDTH):
                row += ".XO"[b[y, x]] + (")" if y * WIDTH + x == last else " ")
            lines.append(row.rstrip())
        lines.append(header)
        if state.is_terminal:
            lines.append("draw" if state.winner is None else f"{'X' if state.winner == 0 else 'O'} (player {state.winner}) wins")
        else:
            lines.append(f"{'X' if state.to_play == 0 else 'O'} (player {state.to_play}) to move")
        return "\n".join(lines)
