"""Othello (Reversi) on an even square board 4..10, default 6 x 6.

Actions: cell ``row * size + col`` (row 0 at the top) places a disc; ``PASS = cells`` passes,
legal only when no placement is (``num_actions = cells + 1``). Two passes in a row, or a full
board, end the game; more discs wins, equal counts draw. Start position (the standard one): White
on the two centre cells of the main diagonal (top-left and bottom-right of the centre), Black on
the other two; Black (player 0) moves first.

Notation: ``c4`` -- column letter from the left, row number from the bottom (as Gomoku's), and
``pass``. ``State.ply`` counts actions since the start position, passes included.
"""

from __future__ import annotations

import re

import numpy as np

from zeroplay.games.api import FastPosition, Game, IllegalMoveError, State, setup_info
from zeroplay.games.layout import I_LAST, I_PLY, I_TERMINAL, I_TO_PLAY, I_WINNER
from zeroplay.games.othello import kernels as K
from zeroplay.games.othello.layout import I_DISCS0, NUM_DIRS, P_PASS
from zeroplay.games.symmetry import Symmetry, board_symmetries
from zeroplay.hashing import last_move_keys, stone_keys

MIN_SIZE, MAX_SIZE, DEFAULT_SIZE = 4, 10, 6
_LETTERS = "abcdefghij"
_ALGEBRAIC = re.compile(r"^\s*([a-zA-Z])\s*(\d{1,2})\s*$", re.ASCII)
_PASS_WORDS = ("pass",)


def start_discs(size: int) -> tuple[list[int], list[int]]:
    """(black cells, white cells) of the standard start position on a size x size board."""
    m = size // 2
    white = [(m - 1) * size + (m - 1), m * size + m]
    black = [(m - 1) * size + m, m * size + (m - 1)]
    return black, white


class Othello(Game):
    """Othello on an even square board. Actions: cells, then the pass (``pass_action = cells``).

    ``winning_moves`` is always empty (no one-ply win to track); the symmetries are the four of
    the square that map the start position onto itself (identity, rot180, transpose,
    antitranspose), the pass mapped to itself.

    Args:
        width, height: equal and even, 4..10 (default 6; ``make("othello", size=8)``).

    Raises:
        ValueError: a size that is odd, out of range, or not square.
    """

    policy_layout = "cells+pass"

    def __init__(self, width: int = DEFAULT_SIZE, height: int = DEFAULT_SIZE):
        for label, v in (("width", width), ("height", height)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) \
                    or not MIN_SIZE <= v <= MAX_SIZE or v % 2:
                raise ValueError(f"{label} must be an even integer in {MIN_SIZE}..{MAX_SIZE}, got {v!r}")
        if width != height:
            raise ValueError(f"width and height must be equal (a square board), got {width}x{height}")
        self.name = "othello"
        self.size = self.width = self.height = int(width)
        self.options = {"width": self.width, "height": self.height}
        self.cells = self.width * self.height
        self.pass_action: int = self.cells
        self.num_actions = self.cells + 1
        self.kernels = K.KERNELS
        # placements <= cells - 4, at most one pass between two of them, two at the end
        self.max_plies = 2 * (self.cells - 4) + 2
        self.aux_shape = (self.max_plies + 1, NUM_DIRS)
        params = self._shared_params()
        params[P_PASS] = self.pass_action
        params.setflags(write=False)
        self.params = params
        zkeys = np.empty((3, self.cells), dtype=np.uint64)
        zkeys[:2] = stone_keys(self.cells)
        zkeys[2] = last_move_keys(self.cells)
        self.zkeys = zkeys.view(np.int64)
        self.zkeys.setflags(write=False)
        self.symmetries = self._start_symmetries()

    def _start_symmetries(self) -> tuple[Symmetry, ...]:
        board = np.zeros(self.cells, dtype=np.int8)
        black, white = start_discs(self.size)
        board[black], board[white] = 1, 2
        out = []
        for s in board_symmetries(self.height, self.width):
            moved = np.empty_like(board)
            moved[s.cell_perm] = board
            if np.array_equal(moved, board):
                actions = np.append(s.cell_perm, self.pass_action)
                out.append(Symmetry(s.name, s.cell_perm.copy(), actions, self.height, self.width))
        return tuple(out)

    # --- actions and cells ----------------------------------------------------------------
    def action_to_cell(self, action: int) -> int:
        """The cell a placement puts its disc on; -1 for the pass.

        Raises:
            ValueError: an action out of range 0..cells.
        """
        a = int(action)
        if not 0 <= a <= self.cells:
            raise ValueError(f"action {action!r} out of range 0..{self.cells}")
        return -1 if a == self.pass_action else a

    def cell_to_action(self, cell: int) -> int:
        """The placement on ``cell`` (the same number)."""
        c = int(cell)
        if not 0 <= c < self.cells:
            raise ValueError(f"cell {cell!r} out of range 0..{self.cells - 1}")
        return c

    def discs(self, state: State) -> tuple[int, int]:
        """(Black's discs, White's discs) on the board of ``state``."""
        info = state._pos.info
        return int(info[I_DISCS0]), int(info[I_DISCS0 + 1])

    # --- compiled hooks -------------------------------------------------------------------
    def _new_position(self) -> FastPosition:
        black, white = start_discs(self.size)
        return self._position(black, white, 0, 0)

    def _position(self, black, white, to_play: int, ply: int) -> FastPosition:
        board = np.zeros(self.cells, dtype=np.int8)
        board[black], board[white] = 1, 2
        info = setup_info(black, white, to_play, self.cells)
        info[I_PLY] = ply
        info[I_DISCS0], info[I_DISCS0 + 1] = len(black), len(white)
        if len(black) + len(white) == self.cells:
            info[I_TERMINAL] = 1
            info[I_WINNER] = 0 if len(black) > len(white) else (1 if len(white) > len(black) else -1)
        stack = np.full(self.max_plies + 1, -1, dtype=np.int32)
        return FastPosition(board, info, stack, np.zeros(self.aux_shape, dtype=np.uint8))

    def _check_action(self, pos, action, text):
        me = int(pos.info[I_TO_PLAY]) + 1
        if action == self.pass_action:
            if not self._must_pass(pos):
                raise IllegalMoveError(f"move {text}: pass is legal only when no disc can be placed")
            return
        if pos.board[action] != 0:
            raise IllegalMoveError(f"move {text}: cell {self.format_move(action)} is occupied")
        if not K.is_placement(pos.board, self.width, self.height, action, me):
            raise IllegalMoveError(f"move {text}: a disc on {self.format_move(action)} flips nothing")

    def _must_pass(self, pos) -> bool:
        out = np.empty(self.num_actions, dtype=np.int64)
        k = K.legal_moves(self.params, pos.board, pos.info, pos.aux, out)
        return k == 1 and out[0] == self.pass_action

    # --- set-up ---------------------------------------------------------------------------
    def from_stones(self, black, white, to_play: int = 0, last_move: int | str | None = None) -> State:
        """A position with the given discs (tests, puzzles). Its history (``moves``) is empty
        and ``ply`` is the discs beyond the start position's four.

        Args:
            black, white: cells (ints) or texts (``"c4"``) of Black's / White's discs.
            to_play: side to move, 0 (Black, default) or 1.
            last_move: the cell of the last move (must hold a disc of the side not to move);
                without it none is known.

        Returns:
            The State; terminal (with the winner by discs) if the board is full. A position
            where neither side can place is not terminal: the game ends after two passes.

        Raises:
            IllegalMoveError: a cell out of range, malformed, or listed twice.
            ValueError: an empty centre cell (every Othello position has its four), a bad
                ``to_play`` or ``last_move``.
        """
        if to_play not in (0, 1):
            raise ValueError(f"to_play must be 0 or 1, got {to_play!r}")
        seen: set[int] = set()
        lists = []
        for cells in (black, white):
            parsed = []
            for c in cells:
                a = self._cell_arg(c)
                if a in seen:
                    raise IllegalMoveError(f"cell {self.format_move(a)} is listed twice")
                seen.add(a)
                parsed.append(a)
            lists.append(parsed)
        for c in sum(start_discs(self.size), []):
            if c not in seen:
                raise ValueError(f"centre cell {self.format_move(c)} is empty: no Othello position has that")
        pos = self._position(lists[0], lists[1], to_play, len(seen) - 4)
        if last_move is not None:
            lm = self._cell_arg(last_move)
            if pos.board[lm] != 2 - to_play:
                raise ValueError(f"last_move {self.format_move(lm)} must hold a disc of player {1 - to_play}, "
                                 "the side that just moved")
            pos.info[I_LAST] = lm
            if pos.info[I_PLY] > 0:
                pos.stack[pos.info[I_PLY] - 1] = lm
        return State(self, pos, ())

    def _cell_arg(self, c) -> int:
        if isinstance(c, str):
            a = self.parse_move(c)
            if a == self.pass_action:
                raise IllegalMoveError(f"cell {c!r}: 'pass' is not a cell")
            return a
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 0 <= c < self.cells:
            raise IllegalMoveError(f"cell {c!r}: out of range 0..{self.cells - 1}")
        return int(c)

    # --- notation -------------------------------------------------------------------------
    def parse_move(self, text: str) -> int:
        """Action from ``"c4"`` (column letter, row number from the bottom) or ``"pass"``.

        Raises:
            IllegalMoveError: malformed or off-board text (the message quotes it).
        """
        if not isinstance(text, str):
            raise IllegalMoveError(f"move {text!r}: expected text such as 'c4' or 'pass'")
        if text.strip().lower() in _PASS_WORDS:
            return self.pass_action
        m = _ALGEBRAIC.match(text)
        if not m:
            raise IllegalMoveError(f"move {text!r}: expected a cell such as 'c5' or 'pass'")
        x = ord(m.group(1).lower()) - ord("a")
        row = int(m.group(2))
        if x >= self.width or not 1 <= row <= self.height:
            raise IllegalMoveError(f"move {text!r}: off the {self.width}x{self.height} board")
        return (self.height - row) * self.width + x

    def format_move(self, action: int, style: str = "algebraic") -> str:
        """``"c4"`` for a placement, ``"pass"`` for the pass (the only style, ``"algebraic"``)."""
        a = int(action)
        if not 0 <= a <= self.cells:
            raise ValueError(f"action {action!r} out of range 0..{self.cells}")
        if style != "algebraic":
            raise ValueError(f"unknown move style {style!r}; use 'algebraic'")
        if a == self.pass_action:
            return "pass"
        return f"{_LETTERS[a % self.width]}{self.height - a // self.width}"

    def move_help(self) -> str:
        """The notation in one sentence (``zeroplay play``'s help)."""
        return ("Type a move as c5 (column letter, row from the bottom: '*' marks where you may place), "
                "or pass when you cannot place a disc.")

    def render(self, state: State) -> str:
        """The board with coordinates: X = Black, O = White, ')' after the last move, '*' on the
        side to move's legal cells; then the disc counts, and whose turn it is or the result."""
        last = state.last_move
        legal = set() if state.is_terminal else set(int(a) for a in state.legal_moves())
        header = "   " + " ".join(_LETTERS[: self.width])
        lines = [header]
        b = state.board
        for y in range(self.height):
            row = f"{self.height - y:2d} "
            for x in range(self.width):
                c = y * self.width + x
                ch = "*" if c in legal else ".XO"[b[y, x]]
                row += ch + (")" if c == last else " ")
            lines.append(row + f"{self.height - y:2d}")
        lines.append(header)
        nb, nw = self.discs(state)
        lines.append(f"discs: X {nb}, O {nw}")
        if state.is_terminal:
            lines.append("draw" if state.winner is None else
                         f"{'Black' if state.winner == 0 else 'White'} (player {state.winner}) wins")
        else:
            side = "Black (X)" if state.to_play == 0 else "White (O)"
            lines.append(f"{side} to move" + (" and must pass" if legal == {self.pass_action} else ""))
        return "\n".join(lines)
