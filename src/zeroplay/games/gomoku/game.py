"""Gomoku (n in a row on a width x height board) and tic-tac-toe, on the compiled kernels.

Rules: ``freestyle`` -- n or more in a row wins; ``standard`` -- exactly n wins, an overline does
not (for both colours), and a move that makes an overline in one line and exactly n in another
wins; ``renju`` (RIF rules, five in a row only) -- Black wins with exactly five and may not play a
forbidden point (overline, double-four, double-three; ``renju.py`` has the definitions), White
wins with five or more. A full board without a win is a draw.

Notation: ``h8`` -- column letter from the left (a = 0; the letter i is used, unlike Go), row
number from the bottom (1 = bottom row); Gomocup ``x,y`` -- x = column, y = row from the top,
both from 0.
"""

from __future__ import annotations

import re

import numpy as np

from zeroplay.games.api import FastPosition, Game, IllegalMoveError, State, new_info, setup_info
from zeroplay.games.gomoku import kernels as K
from zeroplay.games.gomoku import renju
from zeroplay.games.gomoku.layout import P_N_IN_ROW, P_RULE, RULE_FREESTYLE, RULE_RENJU, RULE_STANDARD
from zeroplay.games.layout import I_KEY, I_LAST, I_TERMINAL, I_TO_PLAY, I_WINNER, P_EMPTY_KEY
from zeroplay.games.symmetry import board_symmetries
from zeroplay.hashing import last_move_keys, stone_keys

RULES = {"freestyle": RULE_FREESTYLE, "standard": RULE_STANDARD, "renju": RULE_RENJU}
MIN_SIZE, MAX_SIZE = 5, 25
MIN_N_IN_ROW = 3
"""Fewest stones in a row a game may ask for (the web board's and server's bound too)."""
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
# re.ASCII: \d must not accept other scripts' digits ("h\uff18" is malformed, not h8)
_ALGEBRAIC = re.compile(r"^\s*([a-zA-Z])\s*(\d{1,3})\s*$", re.ASCII)
_GOMOCUP = re.compile(r"^\s*(-?\d{1,6})\s*,\s*(-?\d{1,6})\s*$", re.ASCII)


USUAL_N_IN_ROW = {6: 4}
"""Board size -> the line length zeroplay's commands take when none is given, where it is not 5:
on 6x6, five in a row leaves little room to win, and four in a row is the game of the shipped
6x6 model (``gomoku-6x6-4-freestyle``; docs/STRENGTH.md)."""


def default_n_in_row(size: int) -> int:
    """Gomoku line length when the user gives none: 4 on 6x6 (``USUAL_N_IN_ROW``), else 5. Used by
    ``zeroplay play``, ``serve``, ``solve gomoku``, ``arena`` and ``train`` alike. The
    ``Gomoku`` constructor itself keeps 5."""
    return USUAL_N_IN_ROW.get(int(size), 5)


class Gomoku(Game):
    """n in a row on a width x height board. Actions are cells (``num_actions = width*height``).

    ``threat_space`` is True: the threat-space solvers (VCF/VCT, ``zeroplay.solvers``) apply.

    Args:
        width, height: 5..25 each (default 15 x 15).
        n_in_row: line length that wins, 3..max(width, height) (default 5).
        rule: ``"freestyle"`` (default), ``"standard"`` or ``"renju"`` (needs ``n_in_row`` 5).

    Raises:
        ValueError: an option out of range, or renju with another line length than five.
    """

    stones_stay = True
    """Capability: actions are cells and a stone never moves or leaves the board, so a search may
    restrict its candidate moves to the neighbourhood of the stones (``SearchConfig.candidate_radius``)."""

    def __init__(self, width: int = 15, height: int = 15, n_in_row: int = 5, rule: str = "freestyle",
                 *, _name: str = "gomoku", _min_size: int = MIN_SIZE):
        for label, v in (("width", width), ("height", height)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not _min_size <= v <= MAX_SIZE:
                raise ValueError(f"{label} must be an integer in {_min_size}..{MAX_SIZE}, got {v!r}")
        if isinstance(n_in_row, bool) or not isinstance(n_in_row, (int, np.integer)) \
                or not MIN_N_IN_ROW <= n_in_row <= max(width, height):
            raise ValueError(f"n_in_row must be in {MIN_N_IN_ROW}..{max(width, height)}, got {n_in_row!r}")
        if rule not in RULES:
            raise ValueError(f"rule must be one of {sorted(RULES)}, got {rule!r}")
        if rule == "renju" and n_in_row != 5:
            raise ValueError(f"renju is played five in a row; n_in_row must be 5, got {n_in_row!r}")
        self.name = _name
        self.width, self.height, self.n_in_row, self.rule = int(width), int(height), int(n_in_row), rule
        self.options = (
            {} if _name == "tictactoe"
            else {"width": self.width, "height": self.height, "n_in_row": self.n_in_row, "rule": rule}
        )
        self.cells = self.width * self.height
        self.num_actions = self.cells
        self.kernels = K.KERNELS
        self.max_plies = self.cells
        self.aux_shape = (2, self.cells)
        params = self._shared_params()
        params[P_N_IN_ROW] = self.n_in_row
        params[P_RULE] = RULES[rule]
        params.setflags(write=False)
        self.params = params
        zkeys = np.empty((3, self.cells), dtype=np.uint64)
        zkeys[:2] = stone_keys(self.cells)
        zkeys[2] = last_move_keys(self.cells)
        self.zkeys = zkeys.view(np.int64)
        self.zkeys.setflags(write=False)
        self.symmetries = board_symmetries(self.height, self.width)

    threat_space = True
    threat_planes = True
    feature_sets = ("basic", "alphazero-gomoku", "basic+threats")  # + the threat planes (games.planes)
    heuristic = "cells"
    board_sizes: tuple[int, int] | None = (MIN_SIZE, MAX_SIZE)
    play_search_options: tuple[tuple[str, object], ...] = (
        ("threat_solver", True),  # VCF proofs at play-time playouts (docs/THREATS.md)
        ("defence", True),  # a node threatened by a VCF after a pass keeps the moves that break it
        ("vct_root_nodes", 100_000),  # the proof-number VCT at the root (docs/THREATS.md "In play")
        ("vct_guard_nodes", 50_000),  # the chosen move checked against the opponent's VCT (search/root_guard.py)
        ("opening_prior", 0.5),  # the centre prior for the first move (docs/THREATS.md "The centre")
    )

    def describe(self) -> str:
        """``"gomoku 15x15 freestyle"``, ``"gomoku 6x6 freestyle, 4 in a row"``: the line length is
        named where it is not 5, and on boards whose default is another (``default_n_in_row``)."""
        named = self.n_in_row != 5 or default_n_in_row(self.width) != 5
        return f"{self.name} {self.width}x{self.height} {self.rule}" + (
            f", {self.n_in_row} in a row" if named else "")

    OPENING_SIGMA = 1.0
    """Spread (cells) of ``opening_prior``'s Gaussian around the centre."""
    OPENING_RADIUS = 1
    """``opening_prior`` is 0 beyond this many cells (king moves) from the centre cell(s)."""

    def opening_prior(self) -> np.ndarray:
        """float32 (cells,) summing to 1: a Gaussian of ``OPENING_SIGMA`` cells around the board's
        centre, 0 beyond ``OPENING_RADIUS`` (the 3 x 3 centre of an odd board, 4 x 4 of an even
        one). The first stone gains most near the centre (it lies on the most lines that can
        still become five, and its lines reach furthest in every direction before an edge);
        opening books and Gomocup engines start there (free-style 15x15 is a first-player win:
        Allis, van den Herik and Huntjens 1993, "Go-Moku and threat-space search"). For a net
        whose priors and values are flat noise on an empty board (docs/THREATS.md, "The
        centre"); the zeros keep the search's first move in the centre whatever that noise
        favours at many playouts (``search/opening.py``)."""
        rows, cols = np.mgrid[0 : self.height, 0 : self.width]
        dr = np.abs(rows - (self.height - 1) / 2)
        dc = np.abs(cols - (self.width - 1) / 2)
        prior = np.exp(-(dr**2 + dc**2) / (2 * self.OPENING_SIGMA**2))
        prior[np.maximum(dr, dc) > self.OPENING_RADIUS + 0.5] = 0.0
        prior = prior.ravel()
        return (prior / prior.sum()).astype(np.float32)

    def write_threat_planes(self, boards: np.ndarray, infos: np.ndarray, out: np.ndarray) -> None:
        """Five, open four, four and open three cells of each side, side to move first: out
        float32 (B, 8, height, width) from boards int8 (B, cells) and infos int64 (B, INFO_SIZE)
        (definitions and plane order: ``games/gomoku/threats.py``)."""
        from zeroplay.games.gomoku.threats import threat_planes_batch

        threat_planes_batch(self.params, boards, infos, out)

    # --- compiled hooks -------------------------------------------------------------------
    def _new_position(self) -> FastPosition:
        info = new_info()
        info[I_KEY] = self.params[P_EMPTY_KEY]
        wmask = np.zeros((2, self.cells), dtype=np.uint8)
        board = np.zeros(self.cells, dtype=np.int8)
        K.compute_wmask(self.params, board, info, wmask)  # non-zero only on tiny boards
        return FastPosition(board, info, np.full(self.cells + 1, -1, dtype=np.int32), wmask)

    def _check_action(self, pos, action, text):
        if pos.board[action] != 0:
            raise IllegalMoveError(f"move {text}: cell {self.format_move(action)} is occupied")
        if self.rule == "renju" and pos.info[I_TO_PLAY] == 0:
            reason = renju.forbidden_reason(pos.board.copy(), self.width, self.height, int(action))
            if reason != renju.ALLOWED:
                raise IllegalMoveError(f"move {text}: {self.format_move(action)} is forbidden for Black under "
                                       f"renju ({renju.REASONS[reason]})")

    def forbidden_moves(self, state: State, player: int | None = None) -> np.ndarray:
        """int64 cells, ascending, that ``player`` (default: the side to move) may not play
        although they are empty: Black's forbidden points under renju (overline, double-four,
        double-three; RIF rules); empty for White, in the other rules and in a finished game."""
        player = state.to_play if player is None else player
        if self.rule != "renju" or player != 0 or state.is_terminal:
            return np.empty(0, dtype=np.int64)
        out = np.empty(self.cells, dtype=np.int64)
        return out[: renju.forbidden_cells(state._pos.board, self.width, self.height, out)]

    def forbidden_reason(self, state: State, cell: int) -> str:
        """``"allowed"``, ``"overline"``, ``"double-four"`` or ``"double-three"`` for an empty
        ``cell`` and Black under renju (``"allowed"`` in the other rules and for White)."""
        if self.rule != "renju" or state.to_play != 0 or state._pos.board[cell] != 0:
            return renju.REASONS[renju.ALLOWED]
        return renju.REASONS[renju.forbidden_reason(state._pos.board.copy(), self.width, self.height, int(cell))]

    # --- set-up ---------------------------------------------------------------------------
    def from_stones(self, black, white, to_play: int | None = None, last_move: int | str | None = None) -> State:
        """A position with the given stones (puzzles, the Gomocup BOARD command, tests).

        Args:
            black, white: cells (ints) or move texts of Black's / White's stones.
            to_play: side to move; default from the counts (equal -> Black, one more Black ->
                White; other counts need it explicit).
            last_move: the cell of the last move (must hold a stone of the side not to move);
                without it the last-move plane is all zeros.

        Returns:
            The State; terminal with its winner if a winning line is already on the board, a
            draw if the board is full.

        Raises:
            IllegalMoveError: a cell out of range, malformed, or listed twice.
            ValueError: counts that need an explicit ``to_play``; both sides holding a win;
                a ``last_move`` that is not a stone of the side that just moved.
        """
        board = np.zeros(self.cells, dtype=np.int8)
        lists = []
        for stone, cells in ((1, black), (2, white)):
            parsed = []
            for c in cells:
                a = self._cell_arg(c)
                if board[a] != 0:
                    raise IllegalMoveError(f"cell {self.format_move(a)} is listed twice")
                board[a] = stone
                parsed.append(a)
            lists.append(parsed)
        nb, nw = len(lists[0]), len(lists[1])
        if to_play is None:
            if nb == nw:
                to_play = 0
            elif nb == nw + 1:
                to_play = 1
            else:
                raise ValueError(f"{nb} black and {nw} white stones: pass to_play explicitly")
        if to_play not in (0, 1):
            raise ValueError(f"to_play must be 0 or 1, got {to_play!r}")
        info = setup_info(lists[0], lists[1], to_play, self.cells)
        stack = np.full(self.cells + 1, -1, dtype=np.int32)
        if last_move is not None:
            lm = self._cell_arg(last_move)
            if board[lm] != 2 - to_play:
                raise ValueError(
                    f"last_move {self.format_move(lm)} must hold a stone of player {1 - to_play}, "
                    "the side that just moved"
                )
            info[I_LAST] = lm
            stack[nb + nw - 1] = lm
        winners = {p for p in range(2) for a in lists[p] if K.wins_at(self.params, board, a, p + 1)}
        if len(winners) == 2:
            raise ValueError("both sides already hold a winning line")
        if winners:
            info[I_TERMINAL] = 1
            info[I_WINNER] = winners.pop()
        elif nb + nw == self.cells:
            info[I_TERMINAL] = 1
        wmask = np.zeros((2, self.cells), dtype=np.uint8)
        K.compute_wmask(self.params, board, info, wmask)
        return State(self, FastPosition(board, info, stack, wmask), ())

    def _cell_arg(self, c) -> int:
        if isinstance(c, str):
            return self.parse_move(c)
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 0 <= c < self.cells:
            raise IllegalMoveError(f"cell {c!r}: out of range 0..{self.cells - 1}")
        return int(c)

    # --- notation -------------------------------------------------------------------------
    def parse_move(self, text: str) -> int:
        """Cell from ``"h8"`` (column letter, row from the bottom) or Gomocup ``"7,7"`` (x, y).

        Raises:
            IllegalMoveError: malformed or off-board text (the message quotes it).
        """
        if not isinstance(text, str):
            raise IllegalMoveError(f"move {text!r}: expected text such as 'h8' or '7,7'")
        m = _ALGEBRAIC.match(text)
        if m:
            x = _LETTERS.index(m.group(1).lower())
            row = int(m.group(2))
            y = self.height - row
            if x >= self.width or not 1 <= row <= self.height:
                raise IllegalMoveError(f"move {text!r}: off the {self.width}x{self.height} board")
            return y * self.width + x
        m = _GOMOCUP.match(text)
        if m:
            x, y = int(m.group(1)), int(m.group(2))
            if not (0 <= x < self.width and 0 <= y < self.height):
                raise IllegalMoveError(f"move {text!r}: off the {self.width}x{self.height} board")
            return y * self.width + x
        # examples on this board (h8 is off a 6x6 one): its centre in both notations
        centre = (self.height // 2) * self.width + self.width // 2
        raise IllegalMoveError(f"move {text!r}: expected a move such as {self.format_move(centre)!r} or "
                               f"{self.format_move(centre, 'gomocup')!r}")

    def format_move(self, action: int, style: str = "algebraic") -> str:
        """``"h8"`` (style ``"algebraic"``) or ``"7,7"`` (style ``"gomocup"``) for a cell."""
        a = int(action)
        if not 0 <= a < self.cells:
            raise ValueError(f"action {action!r} out of range 0..{self.cells - 1}")
        x, y = a % self.width, a // self.width
        if style == "algebraic":
            return f"{_LETTERS[x]}{self.height - y}"
        if style == "gomocup":
            return f"{x},{y}"
        raise ValueError(f"unknown move style {style!r}; use 'algebraic' or 'gomocup'")

    def move_help(self) -> str:
        """The notation in one sentence; the example is the board's centre in both notations
        (``h8`` / ``7,7`` on 15x15, ``b2`` / ``1,1`` on tic-tac-toe), a cell on every board."""
        centre = (self.height // 2) * self.width + self.width // 2
        return (f"Type a move as {self.format_move(centre)} (column letter, row from the bottom) or "
                f"{self.format_move(centre, 'gomocup')} (column, row from the top, from 0). On the board, "
                f"the last stone played has a ) after it.")

    FORBIDDEN_MARK = "!"
    """How ``render`` marks an empty point Black may not play (renju, Black to move)."""

    def render(self, state: State) -> str:
        """The board with coordinates: X = Black, O = White, ')' after the last move; under
        renju with Black to move, ``FORBIDDEN_MARK`` on Black's forbidden points and a legend."""
        last = state.last_move
        lines = ["   " + " ".join(_LETTERS[: self.width])]
        b = state.board
        forbidden = set(int(c) for c in self.forbidden_moves(state))
        for y in range(self.height):
            row = f"{self.height - y:2d} "
            for x in range(self.width):
                c = y * self.width + x
                ch = self.FORBIDDEN_MARK if c in forbidden else ".XO"[b[y, x]]
                row += ch + (")" if c == last else " ")
            # the cell's trailing separator (' ' or the last-move ')') is the gap before the label
            lines.append(row + f"{self.height - y:2d}")
        lines.append(lines[0])
        if forbidden:
            lines.append(f"{self.FORBIDDEN_MARK} = forbidden for Black (renju: double-three, double-four, overline)")
        if state.is_terminal:
            lines.append("draw" if state.winner is None else f"{'Black' if state.winner == 0 else 'White'} (player {state.winner}) wins")
        else:
            lines.append(f"{'Black (X)' if state.to_play == 0 else 'White (O)'} to move")
        return "\n".join(lines)


class TicTacToe(Gomoku):
    """Tic-tac-toe: 3 x 3, three in a row, on the Gomoku kernels."""

    play_search_options = ()  # nothing for a threat solver to find on 3 x 3
    board_sizes = None  # always 3 x 3

    def describe(self) -> str:
        """``"tictactoe 3x3"``."""
        return f"{self.name} {self.width}x{self.height}"

    def __init__(self):
        super().__init__(3, 3, 3, "freestyle", _name="tictactoe", _min_size=3)
