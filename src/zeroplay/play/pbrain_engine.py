"""One Gomocup brain: ``PbrainEngine`` reads the protocol's lines (``pbrain_protocol``) and
answers them.

Its parts: the single-line commands here, the multi-line ones in ``pbrain_blocks``, the ``INFO``
settings and the turn's limits in ``pbrain_limits``, our moves (warm-up, engines, search) in
``pbrain_turn``; what the parts read of one another, declared for the type checker, in
``pbrain_base``. The process around it (stdin, stdout, the command line) is ``pbrain``.
"""

from __future__ import annotations

import re
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import numpy as np

from zeroplay import __version__
from zeroplay.games.gomoku import MAX_SIZE, MIN_SIZE
from zeroplay.play import yixin
from zeroplay.play.pbrain_blocks import BlockCommands
from zeroplay.play.pbrain_limits import DEFAULT_TURN_MS, RULE_RENJU, InfoLimits
from zeroplay.play.pbrain_protocol import (
    COORD_LINE,
    LINE_TOO_LONG,
    MAX_LINE,
    MOVE_COMMANDS,
    UNPLAYED_BLOCKS,
    quote,
)
from zeroplay.play.pbrain_turn import DEFAULT_PLAYOUTS, Turns


class PbrainEngine(BlockCommands, Turns, InfoLimits):
    """One brain: reads protocol lines with ``handle(line)``, answers through ``out(text)``.

    Args:
        out: called once per reply line, without the line end.
        playouts: most playouts per move.
        model: checkpoint path, or None for the shipped model / search only.
        warm_up: compile the search in a background thread now (the CLI does); False means
            compile on the first move that needs it (tests that never search).
        log: where diagnostics go (a text stream; never stdout).
        search: False plays ``heuristic.quick_move`` only (instant; fuzzing).
        inference: how the model's net runs (``engine.factory.INFERENCE_BACKENDS``): ``"numpy"``
            (default) never imports torch, which would cost about 190 MiB of ``max_memory``.

    After ``END``, ``finished`` is True and further lines are ignored.
    """

    def __init__(self, out: Callable[[str], None], *, playouts: int = DEFAULT_PLAYOUTS, model=None,
                 warm_up: bool = True, log=None, search: bool = True, inference: str = "numpy"):
        self.out = out
        self.inference = inference
        self.log = log if log is not None else sys.stderr
        self.max_playouts = max(1, int(playouts))
        self.model = model
        self.use_search = search
        self.finished = False
        # game
        self.width = self.height = 0
        self.board = np.zeros(0, dtype=np.int8)  # 0 empty, 1 own, 2 opponent
        self.last_opponent: int | None = None
        # True from our reply until the opponent's next stone: with equal counts the side to move
        # is Black, and it is not us then (YXSHOWFORBID named White's points; helper-80)
        self.opponent_to_move = False
        # settings from INFO
        self.timeout_turn_ms = DEFAULT_TURN_MS
        self.timeout_match_ms = 0
        self.time_left_ms: int | None = None
        self.max_memory = 0
        self._memory_told = -1  # the max_memory whose shortfall was said (InfoLimits._check_memory)
        self.rule = 0
        self.rule_error: str | None = None
        self._no_game = "send START first"  # why there is no game (width 0), after "no game: "
        # a multi-line command's block (BOARD ... DONE)
        self._block: str | None = None  # the command whose lines are being read, or None
        self._board_lines: list[str] = []
        self._board_bad: str | None = None  # why the block being read is refused ("got ..."), or None
        # search (created once the compiled code is ready)
        self._ready = threading.Event()  # the compiled search is loaded
        self._model_ready = threading.Event()  # the warm-up's engine (model, torch) is loaded too
        self._warm_error: str | None = None
        self._searcher = None
        self._searcher_key = None
        self._engines: dict = {}
        self._stopgaps: dict = {}  # search-only engines for the moves before the model is loaded
        self._last_result = None  # the last search's SearchResult (YXNBEST reads its moves)
        self._guard_memory: dict = {}  # game -> the VCT guard's GuardMemory, across searchers
        self._analysing = False  # a YXNBEST search: its final MESSAGE line always printed
        self.stop_requested = threading.Event()  # YXSTOP (or a live END) read while a search runs (``run``)
        self._fresh_tree = True
        self._command_started = time.perf_counter()  # the turn's clock: when the line being handled was taken
        # when the command being handled began to search, else None; the reader thread reads it
        # (``searching``) without a lock: one reference, assigned whole
        self._search_started: float | None = None
        if search and warm_up:
            threading.Thread(target=self._warm_up, name="pbrain-warm-up", daemon=True).start()

    # --- I/O --------------------------------------------------------------------------------
    def _say(self, text: str) -> None:
        self.out(text)

    @property
    def searching(self) -> bool:
        """Whether the command being handled is searching now (from its first search to its
        answer): for the reader thread, which stops it on an END read meanwhile (``pbrain.run``)."""
        return self._search_started is not None

    def interrupt_search(self) -> None:
        """From the reader thread, on YXSTOP (or a live END): the running search's threat searches
        (the root VCT before its first stop poll, the VCT guard after its last) stop now
        (``Searcher.interrupt``); ``stop_requested`` ends the playouts."""
        searcher = self._searcher
        if searcher is not None and hasattr(searcher, "interrupt"):
            searcher.interrupt()

    def _debug(self, text: str) -> None:
        # one write: print() writes the line end apart, and the warm-up thread's line could land between
        self.log.write(f"pbrain: {text}\n")
        self.log.flush()

    # --- dispatch -----------------------------------------------------------------------------
    def handle(self, line: str) -> None:
        """Process one input line (its line end, CR LF or LF, may still be on it); one over
        ``MAX_LINE`` characters is refused as ``line_too_long`` refuses it. A command that asks
        for a move has its turn's time (``move_seconds``) from this call on."""
        if self.finished:
            return
        line = line.rstrip("\r\n")
        if len(line) > MAX_LINE:
            self.line_too_long()
            return
        # the turn's clock starts here, before the tables are built or the compiled search waited for
        self._command_started = time.perf_counter()
        try:
            self._handle(line)
        except BrokenPipeError:
            raise  # the manager closed our stdout: nobody is left to answer, so stop (not a bug)
        except Exception as e:  # a bug must not kill the brain mid-tournament
            self._debug("internal error:\n" + traceback.format_exc())
            self._close_block()
            self._say(f"ERROR internal error: {quote(type(e).__name__ + ': ' + str(e))}")
        finally:
            self._search_started = None

    def line_too_long(self) -> None:
        """A line over ``MAX_LINE`` characters was read (``pbrain.run`` drops its text unread): one
        ERROR for it, or, inside a block, the block's one answer at DONE is an ERROR."""
        if self.finished:
            return
        if self._block is not None:
            self._block_bad(f"got a {LINE_TOO_LONG}")
        else:
            self._say(f"ERROR {LINE_TOO_LONG}; line ignored")

    def _handle(self, line: str) -> None:
        if self._block is not None and self._block_line(line.strip()):
            return
        parts = line.strip().split(None, 1)
        if not parts:
            return  # blank lines are ignored
        command = parts[0].upper()
        arg = parts[1].strip() if len(parts) > 1 else ""
        if command == "INFO":
            self._cmd_info(arg)
            return
        if command in UNPLAYED_BLOCKS or command == "SWAP2BOARD":
            self._open_block(command)
            return
        handler = {
            "START": self._cmd_start,
            "RECTSTART": self._cmd_rectstart,
            "RESTART": self._cmd_restart,
            "BEGIN": self._cmd_begin,
            "TURN": self._cmd_turn,
            "BOARD": self._cmd_board,
            "TAKEBACK": self._cmd_takeback,
            "ABOUT": self._cmd_about,
            "END": self._cmd_end,
            "YXBOARD": self._cmd_yxboard,
            "YXNBEST": self._cmd_nbest,
            "YXSTOP": self._cmd_yxstop,
            "YXSHOWFORBID": self._cmd_showforbid,
            "YXHASHCLEAR": self._cmd_hashclear,
            "YXSHOWINFO": self._cmd_showinfo,
        }.get(command)
        if handler is None:
            self._say(f"UNKNOWN command {quote(parts[0])!r}")
            return
        if self.rule_error and command in MOVE_COMMANDS and command != "BOARD":
            self._say(f"ERROR {self.rule_error}")  # BOARD says it at DONE, after its block
            return
        handler(arg)

    # --- commands -----------------------------------------------------------------------------
    def _new_game(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.board = np.zeros(width * height, dtype=np.int8)
        self.last_opponent = None
        self.opponent_to_move = False
        self._fresh_tree = True

    def _start_failed(self, command: str, arg: str, error: str) -> None:
        """A START or RECTSTART we cannot do: its ERROR, and no game until one succeeds (the old
        one is gone: the manager has moved on from it)."""
        self.width = self.height = 0
        self.board = np.zeros(0, dtype=np.int8)
        self.last_opponent = None
        self._fresh_tree = True
        self._no_game = f"{' '.join(filter(None, (command, quote(arg))))} failed; send START first"
        self._say("ERROR " + error)

    def _cmd_start(self, arg: str) -> None:
        if not re.fullmatch(r"\d{1,9}", arg, re.ASCII):
            self._start_failed("START", arg, f"START expects a board size such as 15, got {quote(arg)!r}")
            return
        size = int(arg)
        if not MIN_SIZE <= size <= MAX_SIZE:
            self._start_failed("START", arg, f"unsupported size {size}: zeroplay plays {MIN_SIZE}..{MAX_SIZE}")
            return
        if why := self._model_misfit(size, size):
            self._start_failed("START", arg, why.replace("\n", " "))
            return
        self._new_game(size, size)
        self._say("OK")

    def _cmd_rectstart(self, arg: str) -> None:
        m = COORD_LINE.match(arg)
        if not m:
            self._start_failed("RECTSTART", arg, f"RECTSTART expects width,height, got {quote(arg)!r}")
            return
        w, h = int(m.group(1)), int(m.group(2))
        if not (MIN_SIZE <= w <= MAX_SIZE and MIN_SIZE <= h <= MAX_SIZE):
            self._start_failed("RECTSTART", arg,
                               f"unsupported size {w}x{h}: zeroplay plays {MIN_SIZE}..{MAX_SIZE} each way")
            return
        if why := self._model_misfit(w, h):
            self._start_failed("RECTSTART", arg, why.replace("\n", " "))
            return
        self._new_game(w, h)
        self._say("OK")

    def _started(self) -> bool:
        if self.width == 0:
            self._say(f"ERROR no game: {self._no_game}")
            return False
        return True

    def _cmd_restart(self, arg: str) -> None:
        if not self._started():
            return
        self._new_game(self.width, self.height)
        self._say("OK")

    def _cell(self, arg: str, command: str) -> int | None:
        m = COORD_LINE.match(arg)
        if not m:
            self._say(f"ERROR {command} expects x,y, got {quote(arg)!r}")
            return None
        x, y = int(m.group(1)), int(m.group(2))
        if not (x < self.width and y < self.height):
            self._say(f"ERROR {command} {x},{y} is off the {self.width}x{self.height} board")
            return None
        return y * self.width + x

    def _cmd_begin(self, arg: str) -> None:
        if not self._started():
            return
        if self.board.any():
            self._say("ERROR BEGIN on a board that has stones; use BOARD or TURN")
            return
        self._reply_move()

    def _cmd_turn(self, arg: str) -> None:
        if not self._started():
            return
        cell = self._cell(arg, "TURN")
        if cell is None:
            return
        if self.board[cell] != 0:
            self._say(f"ERROR TURN {cell % self.width},{cell // self.width}: the cell is occupied")
            return
        self.board[cell] = 2
        self.last_opponent = cell
        self.opponent_to_move = False
        self._reply_move()

    def _cmd_takeback(self, arg: str) -> None:
        if not self._started():
            return
        cell = self._cell(arg, "TAKEBACK")
        if cell is None:
            return
        if self.board[cell] == 0:
            self._say(f"ERROR TAKEBACK {cell % self.width},{cell // self.width}: the cell is empty")
            return
        self.opponent_to_move = bool(self.board[cell] == 2)  # the side whose stone went moves again
        self.board[cell] = 0
        if self.last_opponent == cell:
            self.last_opponent = None
        self._fresh_tree = True
        self._say("OK")

    def _cmd_about(self, arg: str) -> None:
        self._say(f'name="zeroplay", version="{__version__}", author="zeroplay developers", '
                  f'country="", www="", email="", model="{self._model_name()}"')

    def _model_name(self) -> str:
        """The model that plays the current board (15x15 before START), by file name without
        its suffix (``_model_for``), or ``search-only`` (the heuristic evaluator)."""
        if self.model is not None:
            return Path(self.model).stem
        from zeroplay.games import make

        try:
            game = make("gomoku", width=self.width or 15, height=self.height or 15, rule=self._rule_name())
        except ValueError:
            return "search-only"
        return self._model_for(game) or "search-only"

    # --- Yixin extensions (play/yixin.py) ----------------------------------------------------------
    def _cmd_yxstop(self, arg: str) -> None:
        self.stop_requested.clear()  # the search it stopped is over; nothing to answer

    def _cmd_hashclear(self, arg: str) -> None:
        # Yixin-Board sends it before a search when its "hash autoclear" is on: the next search
        # starts from an empty tree instead of reusing this one; nothing is answered (as Rapfi)
        self._fresh_tree = True

    def _cmd_showinfo(self, arg: str) -> None:
        # Yixin-Board asks for the engine's option ranges at start; none of its options are ours
        # (thread count, hash size, depth), so nothing is answered, as other engines without them
        return None

    def _cmd_showforbid(self, arg: str) -> None:
        if not self._started():
            return
        cells: list[int] = []
        if self.rule & RULE_RENJU:
            try:
                state = self._state()
                cells = [int(c) for c in state.game.forbidden_moves(state, 0)]
            except ValueError as e:  # a position no game reaches (both sides with a five)
                self._debug(f"YXSHOWFORBID: {e}")
        self._say(yixin.forbid_line(cells, self.width))

    def _cmd_nbest(self, arg: str) -> None:
        if not self._started():
            return
        if not re.fullmatch(r"\d{1,3}", arg, re.ASCII) or not 1 <= int(arg) <= yixin.MAX_NBEST:
            self._say(f"ERROR YXNBEST expects a number of moves 1..{yixin.MAX_NBEST}, got {quote(arg)!r}")
            return
        why = self._game_over()
        if why:
            self._say(f"ERROR {why}")
            return
        self._analysing, self._last_result = True, None
        try:
            cell = self._searched_move()
        finally:
            self._analysing = False
        if cell is None:
            cell = self._quick_move()
            self._debug("YXNBEST: quick heuristic move (no search available now)")
        elif self._last_result is not None:
            result, known = self._last_result, set()
            check = getattr(self._searcher, "vct_known_lost", None)
            if check is not None:  # losses the guard's memory holds from earlier searches: marked too
                try:
                    known = check(self._state(), [m.move for m in result.moves])
                except ValueError:
                    known = set()
            for line in yixin.nbest_lines(result, self.width, int(arg), lost=known):
                self._say(line)
        self._say(yixin.gomocup(int(cell), self.width))

    def _cmd_end(self, arg: str) -> None:
        self.finished = True

