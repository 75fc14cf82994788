"""The Gomocup engine's multi-line commands: BOARD, YXBOARD and SWAP2BOARD, each a block of
lines up to DONE, read whatever they hold and answered once (``pbrain_protocol``).

``BlockCommands`` is part of ``pbrain_engine.PbrainEngine`` (a mixin: the board and the block
being read are set in ``PbrainEngine.__init__``).
"""

from __future__ import annotations

import time

import numpy as np

from zeroplay.games.gomoku import MAX_SIZE
from zeroplay.play.pbrain_base import PbrainBase
from zeroplay.play.pbrain_protocol import (
    BOARD_LINE,
    COMMANDS,
    COORD_LINE,
    UNPLAYED_BLOCKS,
    quote,
)

MAX_SWAP2_LINES = 6
"""Most stone lines a SWAP2BOARD block keeps (an opening has 0, 3 or 5 stones; more: an ERROR)."""


class BlockCommands(PbrainBase):
    """The multi-line commands of ``PbrainEngine``."""

    def _open_block(self, command: str) -> None:
        self._block = command
        self._board_lines = []
        self._board_bad = None

    def _close_block(self) -> tuple[str | None, list[str], str | None]:
        block = (self._block, self._board_lines, self._board_bad)
        self._block, self._board_lines, self._board_bad = None, [], None
        return block

    def _block_line(self, stripped: str) -> bool:
        """One line while a block is open; False: it ended the block and is a command of its own."""
        if not stripped:
            return True  # blank lines are ignored, inside a block too
        if stripped.upper() == "DONE":
            self._block_done()
            return True
        word = stripped.split(None, 1)[0].upper()
        if word in COMMANDS:
            # the manager gave up on the block: one answer for it, then the command runs
            command, _, _ = self._close_block()
            if command in UNPLAYED_BLOCKS:
                self._say(f"UNKNOWN command {command!r}")
            elif command == "SWAP2BOARD":
                self._say(f"ERROR SWAP2BOARD expects x,y lines then DONE, got {quote(stripped)!r}; opening discarded")
            else:
                self._say(f"ERROR {command} expects x,y,field lines then DONE, got {quote(stripped)!r}; "
                          "board discarded")
            return False
        # the lines kept are the numbers alone ("1,2,1"): the spaces a pattern allows take no memory
        if self._block == "SWAP2BOARD":
            if not (m := COORD_LINE.match(stripped)):
                self._block_bad(f"got {quote(stripped)!r}")
            elif len(self._board_lines) >= MAX_SWAP2_LINES:
                self._block_bad(f"got more than {MAX_SWAP2_LINES} stone lines")
            else:
                self._board_lines.append(",".join(m.groups()))
        if self._block in ("BOARD", "YXBOARD"):
            if not (m := BOARD_LINE.match(stripped)):
                self._block_bad(f"got {quote(stripped)!r}")  # a garbled stone line: one ERROR at DONE
            elif len(self._board_lines) >= (cells := self._block_cells()):
                self._block_bad(f"got more than {cells} stone lines ({self._board_text()} has {cells} cells)")
            else:
                self._board_lines.append(",".join(m.groups()))
        return True  # the lines of a block we do not play are read and dropped

    def _block_bad(self, why: str) -> None:
        """The open block has a line it cannot take (``why``: ``got ...``): its answer at DONE is an
        ERROR that says the first one."""
        if self._board_bad is None:
            self._board_bad = why

    def _block_cells(self) -> int:
        """Most stone lines a BOARD or YXBOARD block keeps: one for each cell of the board (of the
        largest board before a START; such a block is answered ``ERROR no game``)."""
        return self.width * self.height if self.width else MAX_SIZE * MAX_SIZE

    def _board_text(self) -> str:
        """``the 15x15 board`` (the game's), ``a 25x25 board`` before a START."""
        return f"the {self.width}x{self.height} board" if self.width else f"a {MAX_SIZE}x{MAX_SIZE} board"

    def _block_done(self) -> None:
        """DONE: the one answer to the block."""
        command, lines, bad = self._close_block()
        if command in UNPLAYED_BLOCKS:
            self._say(f"UNKNOWN command {command!r}")
        elif command == "SWAP2BOARD":
            if not self._started():
                pass  # it said why
            elif self.rule_error:
                self._say("ERROR " + self.rule_error)
            elif bad is not None:
                self._say(f"ERROR SWAP2BOARD expects x,y lines then DONE, {bad}")
            else:
                self._cmd_swap2_done(lines)
        elif self.rule_error:
            self._say(f"ERROR {self.rule_error}")
        elif not self._started():
            pass
        elif bad is not None:
            self._say(f"ERROR {command} expects x,y,field lines then DONE, {bad}; board discarded")
        else:
            self._cmd_board_done(lines, play=command == "BOARD")

    def _cmd_board(self, arg: str) -> None:
        # the block is read whatever happens; the rule, the game and the lines are checked at DONE
        self._open_block("BOARD")

    def _cmd_board_done(self, lines: list[str], *, play: bool = True) -> None:
        board = np.zeros(self.width * self.height, dtype=np.int8)
        last = None
        for text in lines:
            m = BOARD_LINE.match(text)
            assert m is not None  # _block_line kept only the lines that match
            x, y, field = (int(v) for v in m.groups())
            if not (x < self.width and y < self.height):
                self._say(f"ERROR BOARD {x},{y} is off the {self.width}x{self.height} board; board unchanged")
                return
            if field not in (1, 2, 3):
                self._say(f"ERROR BOARD {x},{y},{field}: the field must be 1, 2 or 3; board unchanged")
                return
            if field == 3:
                continue  # continuous-game marker, no stone
            cell = y * self.width + x
            if board[cell] != 0:
                self._say(f"ERROR BOARD {x},{y} is listed twice; board unchanged")
                return
            board[cell] = field
            if field == 2:
                last = cell
        self.board = board
        self.last_opponent = last
        self.opponent_to_move = False  # BOARD asks us for a move; YXBOARD's side to move is "own"
        if play:
            self._reply_move()

    def _cmd_swap2_done(self, lines: list[str]) -> None:
        """The SWAP2 answer (``play/swap2.py``); the board then holds the opening, our stones
        as our colour from here on."""
        from zeroplay.games import make
        from zeroplay.play import swap2

        game = make("gomoku", width=self.width, height=self.height, rule=self._rule_name())
        stones = []
        for text in lines:
            m = COORD_LINE.match(text)
            assert m is not None  # _block_line kept only the lines that match
            x, y = (int(v) for v in m.groups())
            if not (x < self.width and y < self.height):
                self._say(f"ERROR SWAP2BOARD {x},{y} is off the {self.width}x{self.height} board")
                return
            stones.append(y * self.width + x)
        seconds = self.move_seconds()
        started = time.perf_counter()

        def evaluate(state, searches_left: int) -> tuple[float, int]:
            left = None if seconds is None else (seconds - (time.perf_counter() - started)) / searches_left
            return self._evaluate(state, left)

        try:
            answer = swap2.decide(game, stones, evaluate)
        except ValueError as e:
            self._say(f"ERROR {e}")
            return
        self._debug(f"SWAP2: White's Q {', '.join(f'{q:+.2f}' for q in answer.values)} -> {answer.text}")
        final = game.initial().play_many(stones + list(answer.stones))
        black, white = final.stones(0), final.stones(1)
        self.board = np.zeros(self.width * self.height, dtype=np.int8)
        self.board[black] = 1 if answer.we_play_black else 2
        self.board[white] = 2 if answer.we_play_black else 1
        self.last_opponent = None
        self.opponent_to_move = False
        self._fresh_tree = True
        self._say(answer.text)

    def _cmd_yxboard(self, arg: str) -> None:
        self._open_block("YXBOARD")  # as BOARD, without a move at DONE

