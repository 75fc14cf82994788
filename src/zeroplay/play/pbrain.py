"""The Gomocup (Piskvork) engine protocol on stdin/stdout: ``zeroplay pbrain``, ``pbrain-zeroplay``.

Commands (one a line, LF or CR LF; keywords in any case)::

    START n             new n x n game (5..25)                   -> OK | ERROR ...
    RECTSTART w,h       new w x h game                           -> OK | ERROR ...
    RESTART             new game, same board                     -> OK
    BEGIN               we move first                            -> x,y
    TURN x,y            the opponent played x,y                  -> x,y (our move)
    BOARD               whole position, then lines x,y,f, then DONE   -> x,y
                        (f: 1 own stone, 2 opponent's, 3 marker (continuous game), ignored)
    SWAP2BOARD          the SWAP2 opening: lines x,y (0, 3 or 5 stones, Black first), DONE
                        -> x,y x,y x,y | SWAP | x,y | x,y x,y  (``play/swap2.py``)
    TAKEBACK x,y        remove the stone at x,y                  -> OK
    INFO key value      timeout_turn, timeout_match, time_left (ms), max_memory (bytes),
                        game_type, rule (bitmask 1 exactly five, 2 continuous, 4 renju, 8 caro),
                        evaluate, folder                         -> nothing, ever
    ABOUT                                                        -> name="zeroplay", ...
    END                                                          -> exit, status 0

Anything else gets ``UNKNOWN ...``; a command that cannot be done gets ``ERROR ...`` and leaves
the game as it was. A multi-line command (BOARD, SWAP2BOARD, YXBOARD) always reads its block up
to DONE and then answers once, whatever the answer is (an ERROR included); a command word inside
the block ends it early (the block's one answer, an ERROR, then the command runs). Blank lines are
ignored, inside a block too.

A START or RECTSTART that fails (ERROR) ends the game that was going: until a START succeeds,
RESTART, BEGIN, TURN, BOARD and TAKEBACK answer ``ERROR no game: START n failed; send START
first`` (before any START: ``ERROR no game: send START first``).

Rules: START and RECTSTART only set the board, so they answer OK to any size zeroplay plays
whatever ``INFO rule`` said (RESTART and TAKEBACK likewise only edit the board). The rule applies
to the commands that ask for our move: BEGIN, TURN and BOARD answer ``ERROR rule ...`` while a rule
we do not play (continuous, caro) is set, until a supported rule (0, 1 or 4: renju, RIF rules,
Black's forbidden points never played) arrives; so do they while the ``--model`` given cannot
play the rule (a free-style net and ``INFO rule 1``). A
board size the model cannot play is refused at START. Without ``--model`` a rule no shipped model
plays gets the search-only engine (``engine.make_engine``). A ``--model`` that can play no board,
or whose weights are damaged, stops the engine at start-up (stderr, exit status 2).

Coordinates: x = column, y = row from the top, both from 0. Only protocol replies go to stdout:
the process points file descriptor 1 at stderr at start and writes replies to a private copy of
it, so numba, torch or warnings can never corrupt the protocol stream.

Time: the search gets ``min(timeout_turn, time_left / 16) * 0.8 - 0.1 s`` (at most ``--playouts``
playouts), with ``time_left`` the last one the manager sent, whatever ``timeout_match`` says (the
protocol: managers send ``INFO time_left`` before each move of a timed match, 2147483647 when the
match time is unlimited, so a brain relies on it and not on ``timeout_match``; a negative one
counts as 0). A budget under 0.02 s gets the heuristic move; ``timeout_turn 0`` asks for an
instant move (a few dozen playouts, or the heuristic move). Tree reuse: the search keeps its tree
between turns (a BOARD that continues the game finds its position in it too); START, RESTART,
TAKEBACK and a rule change start fresh.

Warm-up: the compiled search takes about 20 s to compile the first time in a new environment
(cached on disk afterwards). The engine compiles it in a background thread from the moment it
starts; a move asked for before that is done comes from ``heuristic.quick_move`` (win in one,
block a win in one, else the best heuristic cell), computed in plain numpy within milliseconds.
Once the compiled search is loaded (about 2 s on an installed machine) the engine searches; the
warm-up then loads the 15x15 model and searches with it once (the kernels a network's priors
specialise), and from then on every turn is model-backed. Until that is done, turns of at least
``STOPGAP_MIN_S`` are searched by the search-only engine for a ``STOPGAP_SHARE`` of the turn.

Memory: the net runs in numpy by default (``--inference numpy``, ``nn.numpy_net``): torch is never
imported, which saves about 190 MiB of the ``INFO max_memory`` that the whole process must stay
under; the search's tables get what ``max_memory`` leaves after the process's resident memory
(``search_memory``).
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import numpy as np

from zeroplay import __version__
from zeroplay.engine import heuristic
from zeroplay.games import option_names
from zeroplay.games.gomoku import MAX_SIZE, MIN_SIZE
from zeroplay.play import yixin

DEFAULT_PLAYOUTS = 3000
"""Default cap on playouts per move (``--playouts`` of ``zeroplay pbrain`` and
``pbrain-zeroplay``); the turn time usually stops the search first."""
MESSAGE_EVERY_S = 1.0
"""Seconds between the MESSAGE progress lines of a search (``yixin.progress_line``)."""
STOPGAP_MIN_S = 3.0
"""Shortest turn (seconds) searched while the model still loads; shorter ones get the heuristic
move then. Importing torch stalled the process 1-3 s at a time on a loaded 2-core machine."""
STOPGAP_SHARE = 0.4
"""Share of the turn such a search may use, the rest left for a stall of the model's loading."""
FAST_PLAYOUTS = 48
"""Playouts for ``timeout_turn 0`` (answer as fast as possible)."""
DEFAULT_TURN_MS = 5000
"""Turn time assumed until the manager sends ``INFO timeout_turn``."""

RULE_EXACT5, RULE_CONTINUOUS, RULE_RENJU, RULE_CARO = 1, 2, 4, 8
_UNSUPPORTED_RULES = {RULE_CONTINUOUS: "continuous game", RULE_CARO: "caro"}

_COORD = re.compile(r"^\s*(\d{1,9})\s*,\s*(\d{1,9})\s*$", re.ASCII)
_BOARD_LINE = re.compile(r"^\s*(\d{1,9})\s*,\s*(\d{1,9})\s*,\s*(\d{1,9})\s*$", re.ASCII)
_UNPLAYED_BLOCKS: frozenset[str] = frozenset()
"""Multi-line commands (lines, then DONE) we do not play: the block is read, then UNKNOWN once."""
_COMMANDS = frozenset({"START", "RECTSTART", "RESTART", "BEGIN", "TURN", "BOARD", "TAKEBACK", "ABOUT",
                       "END", "INFO", "YXBOARD", "YXNBEST", "YXSTOP", "YXSHOWFORBID", "SWAP2BOARD"}) | _UNPLAYED_BLOCKS
"""Command words: inside a block one of these ends the block (the manager gave up on it)."""
_MOVE_COMMANDS = frozenset({"BEGIN", "TURN", "BOARD"})
"""The commands that ask for our move: the ones an unplayable rule answers with ERROR."""
_INT = re.compile(r"^\s*-?\d{1,30}\s*$", re.ASCII)
_MAX_ECHO = 60  # characters of a bad line quoted back in a message


def _count(n: int, noun: str) -> str:
    """``1 playout``, ``60 playouts``."""
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _quote(text: str) -> str:
    """A short printable rendering of untrusted input for a one-line message."""
    text = "".join(ch if " " <= ch < "\x7f" else "?" for ch in text)
    return text if len(text) <= _MAX_ECHO else text[:_MAX_ECHO] + "..."


class PbrainEngine:
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
        # settings from INFO
        self.timeout_turn_ms = DEFAULT_TURN_MS
        self.timeout_match_ms = 0
        self.time_left_ms: int | None = None
        self.max_memory = 0
        self.rule = 0
        self.rule_error: str | None = None
        self._no_game = "send START first"  # why there is no game (width 0), after "no game: "
        # a multi-line command's block (BOARD ... DONE)
        self._block: str | None = None  # the command whose lines are being read, or None
        self._board_lines: list[str] = []
        self._board_bad: str | None = None  # the first garbled line of the BOARD block being read
        # search (created once the compiled code is ready)
        self._ready = threading.Event()  # the compiled search is loaded
        self._model_ready = threading.Event()  # the warm-up's engine (model, torch) is loaded too
        self._warm_error: str | None = None
        self._searcher = None
        self._searcher_key = None
        self._engines: dict = {}
        self._stopgaps: dict = {}  # search-only engines for the moves before the model is loaded
        self._last_result = None  # the last search's SearchResult (YXNBEST reads its moves)
        self._analysing = False  # a YXNBEST search: its final MESSAGE line always printed
        self.stop_requested = threading.Event()  # YXSTOP read while a search runs (``run``)
        self._fresh_tree = True
        if search and warm_up:
            threading.Thread(target=self._warm_up, name="pbrain-warm-up", daemon=True).start()

    # --- I/O --------------------------------------------------------------------------------
    def _say(self, text: str) -> None:
        self.out(text)

    def _debug(self, text: str) -> None:
        print(f"pbrain: {text}", file=self.log, flush=True)

    def _warm_up(self) -> None:
        """Load the compiled search (``_ready``: the engine searches from then on), then the
        15x15 engine with its model, and search with it once (``_model_ready``): the kernels a
        network's priors specialise are compiled or loaded here, not in the first turn. Until
        then moves are searched by the search-only engine (``_engine``), not answered by the
        heuristic (the torch backend's import alone took 10 s on a loaded 2-core machine)."""
        import time

        started = time.perf_counter()
        try:
            from zeroplay.engine.factory import warm_up

            seconds = warm_up()
        except BaseException as e:  # never let the thread die silently; fall back to quick moves
            self._warm_error = f"{type(e).__name__}: {e}"
            self._debug(f"warm-up failed, quick moves only: {self._warm_error}")
            self._ready.set()
            self._model_ready.set()
            return
        self._ready.set()
        self._debug(f"search ready in {time.perf_counter() - started:.1f} s (compiled / loaded {seconds:.1f} s)")
        try:
            # the engine of the usual board too: loading a model imports torch (seconds), which
            # must not eat the first move's time
            from zeroplay.games import make

            engine = None
            if not self._model_misfit(15, 15):
                engine = self._load_engine(make("gomoku", width=15, height=15, rule="freestyle"))
                engine.warm_up()  # a model-backed search: its compiled code ready for the first turn
            total = time.perf_counter() - started
            self._debug(f"ready in {total:.1f} s" + (f" (15x15 engine: {engine.name})" if engine is not None else ""))
        except BaseException as e:  # the move's own _engine call will say what is wrong
            self._debug(f"engine not loaded ahead: {type(e).__name__}: {e}")
        finally:
            self._model_ready.set()

    # --- dispatch -----------------------------------------------------------------------------
    def handle(self, line: str) -> None:
        """Process one input line (its line end, CR LF or LF, may still be on it)."""
        if self.finished:
            return
        try:
            self._handle(line.rstrip("\r\n"))
        except BrokenPipeError:
            raise  # the manager closed our stdout: nobody is left to answer, so stop (not a bug)
        except Exception as e:  # a bug must not kill the brain mid-tournament
            self._debug("internal error:\n" + traceback.format_exc())
            self._close_block()
            self._say(f"ERROR internal error: {_quote(type(e).__name__ + ': ' + str(e))}")

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
        if command in _UNPLAYED_BLOCKS or command == "SWAP2BOARD":
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
        }.get(command)
        if handler is None:
            self._say(f"UNKNOWN command {_quote(parts[0])!r}")
            return
        if self.rule_error and command in _MOVE_COMMANDS and command != "BOARD":
            self._say(f"ERROR {self.rule_error}")  # BOARD says it at DONE, after its block
            return
        handler(arg)

    # --- multi-line commands ------------------------------------------------------------------
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
        if word in _COMMANDS:
            # the manager gave up on the block: one answer for it, then the command runs
            command, _, _ = self._close_block()
            if command in _UNPLAYED_BLOCKS:
                self._say(f"UNKNOWN command {command!r}")
            elif command == "SWAP2BOARD":
                self._say(f"ERROR SWAP2BOARD expects x,y lines then DONE, got {_quote(stripped)!r}; opening discarded")
            else:
                self._say(f"ERROR BOARD expects x,y,field lines then DONE, got {_quote(stripped)!r}; "
                          "board discarded")
            return False
        if self._block == "SWAP2BOARD":
            if _COORD.match(stripped) and len(self._board_lines) < 6:
                self._board_lines.append(stripped)
            elif self._board_bad is None:
                self._board_bad = stripped
        if self._block in ("BOARD", "YXBOARD"):
            if _BOARD_LINE.match(stripped) and len(self._board_lines) < 4 * MAX_SIZE * MAX_SIZE:
                self._board_lines.append(stripped)
            elif self._board_bad is None:
                self._board_bad = stripped  # a garbled stone line: one ERROR at DONE
        return True  # the lines of a block we do not play are read and dropped

    def _block_done(self) -> None:
        """DONE: the one answer to the block."""
        command, lines, bad = self._close_block()
        if command in _UNPLAYED_BLOCKS:
            self._say(f"UNKNOWN command {command!r}")
        elif command == "SWAP2BOARD":
            if not self._started():
                pass  # it said why
            elif self.rule_error or bad is not None:
                self._say("ERROR " + (self.rule_error or f"SWAP2BOARD expects x,y lines then DONE, got {_quote(bad)!r}"))
            else:
                self._cmd_swap2_done(lines)
        elif self.rule_error:
            self._say(f"ERROR {self.rule_error}")
        elif not self._started():
            pass
        elif bad is not None:
            self._say(f"ERROR BOARD expects x,y,field lines then DONE, got {_quote(bad)!r}; board discarded")
        else:
            self._cmd_board_done(lines, play=command == "BOARD")

    # --- commands -----------------------------------------------------------------------------
    def _cmd_info(self, arg: str) -> None:
        key, _, value = arg.partition(" ")
        key, value = key.lower(), value.strip()
        if key not in ("timeout_turn", "timeout_match", "time_left", "max_memory", "game_type", "rule"):
            return  # evaluate, folder and keys of future protocol versions: nothing to do
        if not _INT.match(value):
            self._debug(f"ignored INFO {key} with a non-integer value {_quote(value)!r}")
            return
        number = int(value)
        if key == "timeout_turn":
            self.timeout_turn_ms = max(number, 0)
        elif key == "timeout_match":
            self.timeout_match_ms = max(number, 0)
        elif key == "time_left":
            self.time_left_ms = max(number, 0)
        elif key == "max_memory":
            self.max_memory = max(number, 0)
        elif key == "rule":
            self._set_rule(number)

    def _set_rule(self, bits: int) -> None:
        unsupported = [name for bit, name in _UNSUPPORTED_RULES.items() if bits & bit]
        if bits < 0 or bits >= 16:
            unsupported.append(f"bits {bits}")
        if unsupported:
            self.rule_error = (f"rule {bits} ({', '.join(unsupported)}) is not supported; "
                               "zeroplay plays free-style (rule 0), exactly five (rule 1) and renju (rule 4)")
            return
        self.rule_error = None
        if bits != self.rule:
            self.rule = bits
            self._fresh_tree = True
        if self.model is not None and self.use_search:
            # as a board the model cannot play (START): ERROR at each move command, not quick moves
            # for the whole game; without --model the search-only engine plays a rule no shipped
            # model fits (make_engine)
            self.rule_error = model_error(self.model, rule=self._rule_name())

    def _rule_name(self) -> str:
        """The Game API's rule for ``INFO rule``: ``"renju"`` (bit 4), ``"standard"`` (exactly
        five) or ``"freestyle"``."""
        if self.rule & RULE_RENJU:
            return "renju"
        return "standard" if self.exact_five else "freestyle"

    def _model_misfit(self, width: int, height: int) -> str | None:
        """Why ``--model`` cannot play a ``width`` x ``height`` board (None: it can, or no model)."""
        if self.model is None or not self.use_search:
            return None
        return model_error(self.model, width, height)

    def _new_game(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.board = np.zeros(width * height, dtype=np.int8)
        self.last_opponent = None
        self._fresh_tree = True

    def _start_failed(self, command: str, arg: str, error: str) -> None:
        """A START or RECTSTART we cannot do: its ERROR, and no game until one succeeds (the old
        one is gone: the manager has moved on from it)."""
        self.width = self.height = 0
        self.board = np.zeros(0, dtype=np.int8)
        self.last_opponent = None
        self._fresh_tree = True
        self._no_game = f"{' '.join(filter(None, (command, _quote(arg))))} failed; send START first"
        self._say("ERROR " + error)

    def _cmd_start(self, arg: str) -> None:
        if not re.fullmatch(r"\d{1,9}", arg, re.ASCII):
            self._start_failed("START", arg, f"START expects a board size such as 15, got {_quote(arg)!r}")
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
        m = _COORD.match(arg)
        if not m:
            self._start_failed("RECTSTART", arg, f"RECTSTART expects width,height, got {_quote(arg)!r}")
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
        m = _COORD.match(arg)
        if not m:
            self._say(f"ERROR {command} expects x,y, got {_quote(arg)!r}")
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
        self.board[cell] = 0
        if self.last_opponent == cell:
            self.last_opponent = None
        self._fresh_tree = True
        self._say("OK")

    def _cmd_board(self, arg: str) -> None:
        # the block is read whatever happens; the rule, the game and the lines are checked at DONE
        self._open_block("BOARD")

    def _cmd_board_done(self, lines: list[str], *, play: bool = True) -> None:
        board = np.zeros(self.width * self.height, dtype=np.int8)
        last = None
        for text in lines:
            x, y, field = (int(v) for v in _BOARD_LINE.match(text).groups())
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
            x, y = (int(v) for v in _COORD.match(text).groups())
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
        self._fresh_tree = True
        self._say(answer.text)

    def _evaluate(self, state, seconds: float | None) -> tuple[float, int]:
        """(Q for the side to move in [-1, 1], best move) of ``state`` by the search within
        ``seconds``; without a search (none available, or no time): Q 0 and the heuristic move."""
        if self.use_search and not self._ready.is_set():
            if not any(t.name == "pbrain-warm-up" for t in threading.enumerate()):
                threading.Thread(target=self._warm_up, name="pbrain-warm-up", daemon=True).start()
            self._ready.wait(timeout=0 if seconds is None else max(seconds, 0) * 0.5)
        if self.use_search and self._ready.is_set() and self._warm_error is None \
                and (seconds is None or seconds >= 0.02):
            try:
                searcher = self._get_searcher(state.game)
                searcher.reset()
                if seconds is None:
                    result = searcher.search(state, playouts=min(FAST_PLAYOUTS, self.max_playouts))
                else:
                    result = searcher.search(state, playouts=self.max_playouts, seconds=seconds)
                if result.best_move is not None:
                    return float(result.root_q), int(result.best_move)
            except Exception:
                self._debug("SWAP2 search failed:\n" + traceback.format_exc())
        board = state.board.reshape(-1)
        me = state.to_play + 1
        cell = heuristic.quick_move(board, self.width, self.height, me, 5, self.exact_five)
        legal = state.legal_moves()
        if cell not in set(int(c) for c in legal):  # renju: a forbidden point of Black's
            cell = int(legal[0])
        return 0.0, int(cell)

    def _cmd_about(self, arg: str) -> None:
        self._say(f'name="zeroplay", version="{__version__}", author="zeroplay developers", '
                  f'country="", www="", email="", model="{self._model_name()}"')

    def _model_name(self) -> str:
        """The model that plays the current board (15x15 before START), by file name without
        its suffix, or ``search-only`` (the heuristic evaluator). Reads headers only."""
        if self.model is not None:
            return Path(self.model).stem
        from zeroplay.engine.factory import find_model
        from zeroplay.games import make

        try:
            found = find_model(make("gomoku", width=self.width or 15, height=self.height or 15,
                                    rule=self._rule_name()))
        except ValueError:
            found = None
        return "search-only" if found is None else Path(found).stem

    # --- Yixin extensions (play/yixin.py) ----------------------------------------------------------
    def _cmd_yxboard(self, arg: str) -> None:
        self._open_block("YXBOARD")  # as BOARD, without a move at DONE

    def _cmd_yxstop(self, arg: str) -> None:
        self.stop_requested.clear()  # the search it stopped is over; nothing to answer

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
            self._say(f"ERROR YXNBEST expects a number of moves 1..{yixin.MAX_NBEST}, got {_quote(arg)!r}")
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
            for line in yixin.nbest_lines(self._last_result, self.width, int(arg)):
                self._say(line)
        self._say(yixin.gomocup(int(cell), self.width))

    def _cmd_end(self, arg: str) -> None:
        self.finished = True

    # --- our move -----------------------------------------------------------------------------
    @property
    def exact_five(self) -> bool:
        return bool(self.rule & RULE_EXACT5)

    def _black_stone(self) -> int:
        """Board code (1 own, 2 the opponent's) of Black's stones: the first mover's, from the
        counts as in ``_state``."""
        return 2 if (self.board == 2).sum() == (self.board == 1).sum() + 1 else 1

    def _game_over(self) -> str | None:
        """Why no move can be asked for here, or None."""
        n = 5
        renju = bool(self.rule & RULE_RENJU)
        for stone, who in ((2, "the opponent has"), (1, "we have")):
            # renju: Black's five is exactly five, White's five or more
            exact = self.exact_five if not renju else stone == self._black_stone()
            for cell in np.flatnonzero(self.board == stone):
                board = self.board.copy()
                board[cell] = 0
                if heuristic.makes_win(board, self.width, self.height, int(cell), stone, n, exact):
                    return f"the game is over: {who} five in a row already"
        if not (self.board == 0).any():
            return "the board is full"
        return None

    def _quick_move(self) -> int:
        """``heuristic.quick_move`` for us; under renju as Black, never a forbidden point (the
        legal cell nearest to the heuristic's choice instead)."""
        renju = bool(self.rule & RULE_RENJU)
        exact = self.exact_five or (renju and self._black_stone() == 1)
        cell = heuristic.quick_move(self.board, self.width, self.height, 1, 5, exact)
        if renju and self._black_stone() == 1:
            state = self._state()
            if cell in set(int(c) for c in state.game.forbidden_moves(state)):
                legal = state.legal_moves()
                if len(legal):
                    dist = np.maximum(abs(legal % self.width - cell % self.width),
                                      abs(legal // self.width - cell // self.width))
                    cell = int(legal[int(np.argmin(dist))])
        return int(cell)

    def move_seconds(self) -> float | None:
        """Seconds the search may take for this move; None = answer at once (timeout_turn 0).

        The turn time and, once the manager has sent ``INFO time_left``, 1/16 of the time left
        (whatever ``timeout_match`` says: the protocol has the brain rely on time_left alone);
        then 80 % of that less 0.1 s for start-up and the reply, the margin on a loaded machine.
        """
        if self.timeout_turn_ms == 0:
            return None
        budget = self.timeout_turn_ms / 1000.0
        if self.time_left_ms is not None:
            budget = min(budget, self.time_left_ms / 1000.0 / 16.0)
        return max(budget * 0.8 - 0.1, 0.0)

    def _budget_text(self) -> str:
        """The limits ``move_seconds`` used, for the log."""
        text = f"timeout_turn {self.timeout_turn_ms} ms"
        return text + (f", time_left {self.time_left_ms} ms" if self.time_left_ms is not None else "")

    def _reply_move(self) -> None:
        why = self._game_over()
        if why:
            self._say(f"ERROR {why}")
            return
        cell = self._searched_move()
        if cell is None:
            cell = self._quick_move()
        self.board[cell] = 1
        self._say(f"{cell % self.width},{cell // self.width}")

    def _searched_move(self) -> int | None:
        """The search's move within the turn's budget, or None (logged why) for the heuristic."""
        if not self.use_search:
            return None
        cell = None
        seconds = self.move_seconds()
        started = time.perf_counter()
        if not self._ready.is_set():
            if not any(t.name == "pbrain-warm-up" for t in threading.enumerate()):
                threading.Thread(target=self._warm_up, name="pbrain-warm-up", daemon=True).start()
            # wait for the compile for at most half the move's time, then answer without it
            self._ready.wait(timeout=0 if seconds is None else seconds * 0.5)
        if self._ready.is_set() and self._warm_error is None:
            left = None if seconds is None else seconds - (time.perf_counter() - started)
            if left is not None and not self._model_ready.is_set():
                # the model's torch import holds the GIL for a second or more at a time: a
                # search beside it gets a share of the turn that such a stall cannot overrun
                left = min(left, seconds * STOPGAP_SHARE) if seconds >= STOPGAP_MIN_S else -1.0
            if left is None or left >= 0.02:
                cell = self._search_move(left)
        if cell is None:
            if seconds is not None and seconds < 0.02:
                why = f"no time left for a search (budget {seconds:.2f} s: {self._budget_text()})"
            elif not self._ready.is_set():
                why = "the search is not ready yet"
            elif not self._model_ready.is_set():
                why = f"the model is still loading and the turn ({seconds:.2f} s) is under {STOPGAP_MIN_S:.0f} s"
            else:
                why = "no time left for a search"
            self._debug("quick heuristic move: " + why)
        return cell

    def _search_move(self, seconds: float | None) -> int | None:
        """The search's move in at most ``seconds`` (None: FAST_PLAYOUTS), or None on failure."""
        try:
            from zeroplay.search import Limits  # noqa: F401  (compiled already: cheap)

            state = self._state()
            searcher = self._get_searcher(state.game)
            if self._fresh_tree:
                searcher.reset()
                self._fresh_tree = False
            next_message = [time.perf_counter() + MESSAGE_EVERY_S]

            def stop() -> bool:  # between batches: a MESSAGE line each second; YXSTOP ends it
                if time.perf_counter() >= next_message[0]:
                    next_message[0] += MESSAGE_EVERY_S
                    self._say(yixin.progress_line(searcher.result(), self.width))
                return self.stop_requested.is_set()

            if seconds is None:
                result = searcher.search(state, playouts=min(FAST_PLAYOUTS, self.max_playouts), stop=stop)
            else:
                result = searcher.search(state, playouts=self.max_playouts, seconds=max(seconds, 0.01), stop=stop)
            self._last_result = result
            if self._analysing or result.seconds >= MESSAGE_EVERY_S:  # the final figures too
                self._say(yixin.progress_line(result, self.width))
            move = result.best_move
            if move is None or self.board[int(move)] != 0:
                return None
            self._debug(f"{_count(result.playouts, 'playout')} in {result.seconds:.2f} s, win rate "
                        f"{100 * result.win_rate:.0f}%, stopped by {result.stopped_by}")
            return int(move)
        except Exception:
            self._debug("search failed, quick move instead:\n" + traceback.format_exc())
            self._searcher = None
            return None

    def _state(self):
        """The position as a Game API State, the side to move = us; colours from the counts."""
        from zeroplay.games import make

        game = make("gomoku", width=self.width, height=self.height,
                     rule=self._rule_name())
        own = np.flatnonzero(self.board == 1).tolist()
        opp = np.flatnonzero(self.board == 2).tolist()
        if len(own) == len(opp):
            return game.from_stones(own, opp, to_play=0, last_move=self._last_opponent_stone())
        if len(opp) == len(own) + 1:
            return game.from_stones(opp, own, to_play=1, last_move=self._last_opponent_stone())
        return game.from_stones(own, opp, to_play=0)

    def _last_opponent_stone(self) -> int | None:
        last = self.last_opponent
        return last if last is not None and self.board[last] == 2 else None

    def _get_searcher(self, game):
        engine = self._engine(game)
        key = (game, self.max_memory, id(engine))
        if self._searcher is None or self._searcher_key != key:
            self._searcher = None  # (its tables are not counted against the new budget)
            self._debug(f"engine: {engine.name}" + (f" -- {engine.note}" if engine.note else ""))
            # the stand-in search while the model (torch) loads: that memory is not in the RSS yet,
            # so the stand-in gets the smallest tables, not what the model will need
            stopgap = self.max_memory > 0 and engine is self._stopgaps.get(game)
            budget = MIN_MEMORY_BYTES if stopgap else search_memory(self.max_memory)
            self._searcher = engine.new_searcher(memory_bytes=budget)
            self._debug(f"search tables: {budget / 2**20:.0f} MiB")
            self._searcher_key = key
            self._fresh_tree = False
        return self._searcher

    def _engine(self, game):
        """The engine for ``game``; while the warm-up still loads the model (torch), the
        search-only engine, so that the first moves are searched rather than guessed."""
        if game in self._engines or self._model_ready.is_set() or not self._ready.is_set():
            return self._load_engine(game)
        if game not in self._stopgaps:
            from zeroplay.engine.factory import make_engine

            self._stopgaps[game] = make_engine(game, use_shipped=False)
            self._debug("the model is still loading: the search-only engine plays until it is in")
        return self._stopgaps[game]

    def _load_engine(self, game):
        """The engine for ``game`` (made once per game: a model load imports torch)."""
        if game not in self._engines:
            from zeroplay.engine.factory import make_engine

            self._engines[game] = make_engine(game, self.model, inference=self.inference)
        return self._engines[game]


def model_error(model: str, width: int | None = None, height: int | None = None, *, rule: str | None = None,
                load: bool = False, inference: str = "numpy") -> str | None:
    """Why ``model`` (a path or a shipped model's name) cannot play the protocol's game on a
    ``width`` x ``height`` board, in ``zeroplay play``'s words (``engine.check_model``); None: it can.

    The protocol's game is Gomoku, five in a row. ``rule`` is the one ``INFO rule`` asked for
    (``"freestyle"``, ``"standard"`` or ``"renju"``); None takes the model's own, as at START (``INFO rule`` may
    come after it). Without a size (the start-up check, before any START, and a rule change) the
    board is the model's own where the protocol has it, so only the game and its options are
    checked then. ``load`` also loads the weights (their checksum) with ``inference``'s loader, as
    ``zeroplay play`` does before its first move: the start-up check, so that damaged weights
    stop the engine instead of leaving it to quick heuristic moves.
    """
    from zeroplay.engine.factory import check_model, load_model
    from zeroplay.games import make
    from zeroplay.nn.record import CheckpointError, CheckpointMismatchError, checkpoint_game

    try:
        path = check_model(model)
        name, options = checkpoint_game(path)
        if width is None or height is None:
            own = (options.get("width"), options.get("height")) if "size" in option_names(name) else ()
            playable = len(own) == 2 and all(isinstance(v, int) and MIN_SIZE <= v <= MAX_SIZE for v in own)
            width, height = own if playable else (15, 15)
        if rule is None:
            rule = options.get("rule") if options.get("rule") in ("freestyle", "standard", "renju") else "freestyle"
        game = make("gomoku", width=width, height=height, n_in_row=5, rule=rule)
        check_model(path, game)
        if load:
            load_model(path, game, inference=inference)
    except CheckpointMismatchError as e:
        # "wanted 5" or "wanted 'standard'" alone does not say who wants it
        who = []
        if any(d.startswith(("game:", "game option n_in_row")) for d in e.differences):
            who.append("the Gomocup protocol plays five in a row")
        if any(d.startswith("game option rule") for d in e.differences):
            asked = {"standard": "1 asks for exactly five", "renju": "4 asks for renju"}
            who.append("INFO rule " + asked.get(rule, "0 asks for free-style"))
        return f"{e} ({'; '.join(who)})" if who else str(e)
    except CheckpointError as e:
        return str(e)
    return None


DEFAULT_MEMORY_BYTES = 256 << 20
"""Budget of the search's tables when the manager sends no ``INFO max_memory`` (256 MiB)."""
MEMORY_MARGIN_BYTES = 64 << 20
"""Part of ``max_memory`` kept free beyond what the process holds when its searcher is made:
leaf batches, the network's activations, compiled code loaded by the first searches, Python's own
growth (64 MiB). Measured: the process grew 34 MiB beyond its tables over its first three turns
(numpy net, 15x15; ``scripts/pbrain_memory_full.py``, docs/BENCHMARKS.md)."""
MIN_MEMORY_BYTES = 4 << 20
"""Smallest budget the search gets, however little ``max_memory`` leaves (4 MiB)."""


def search_memory(max_memory: int, rss: int | None = None) -> int:
    """Bytes the search's tables may take (``SearchConfig.for_memory``): what ``max_memory``
    leaves after the process's resident memory now (``rss``, measured when None; the model and
    torch are loaded by then) and ``MEMORY_MARGIN_BYTES``, at least ``MIN_MEMORY_BYTES``;
    ``DEFAULT_MEMORY_BYTES`` when max_memory is 0 (no limit sent). A search that fills its
    tables recycles its least visited nodes and goes on for the whole turn."""
    if max_memory <= 0:
        return DEFAULT_MEMORY_BYTES
    if rss is None:
        from zeroplay.search.config import current_rss

        rss = current_rss()
    return max(MIN_MEMORY_BYTES, int(max_memory) - int(rss) - MEMORY_MARGIN_BYTES)


def run(stdin, write: Callable[[str], None], **engine_options) -> int:
    """Serve the protocol from ``stdin`` (a text stream) until END or end of input; returns 0.

    A reader thread takes the lines as they come, so that a ``YXSTOP`` sent while the engine
    searches reaches it then (``PbrainEngine.stop_requested``), not after the search."""
    import queue

    engine = PbrainEngine(write, **engine_options)
    lines: queue.Queue = queue.Queue(maxsize=10_000)  # bounded: a flood waits in the pipe

    def read() -> None:
        try:
            for line in stdin:
                if line.strip().upper() == "YXSTOP":
                    engine.stop_requested.set()
                lines.put(line)
        finally:
            lines.put(None)

    threading.Thread(target=read, name="pbrain-reader", daemon=True).start()
    while (line := lines.get()) is not None:
        engine.handle(line)
        if engine.finished:
            break
    return 0


def main(argv: list[str] | None = None) -> int:
    """``pbrain-zeroplay`` console script: the protocol on stdin/stdout."""
    import argparse

    parser = argparse.ArgumentParser(prog="pbrain-zeroplay", description="zeroplay as a Gomocup (Piskvork) engine")
    add_pbrain_arguments(parser)
    return run_from_args(parser.parse_args(argv))


def add_pbrain_arguments(parser) -> None:
    """Options of ``zeroplay pbrain`` and ``pbrain-zeroplay``."""
    from zeroplay.engine.options import at_least_1, model_argument

    parser.add_argument("--playouts", type=at_least_1, default=DEFAULT_PLAYOUTS,
                        help=f"most playouts per move; the turn time usually stops the search sooner "
                             f"(default {DEFAULT_PLAYOUTS})")
    parser.add_argument("--model", default=None, type=model_argument,
                        help="checkpoint (.safetensors) or shipped model name to play with (default: the "
                             "shipped model, else search only)")
    parser.add_argument("--inference", choices=("numpy", "torch"), default="numpy",
                        help="how the model's net runs: numpy (default) never imports torch, which costs "
                             "about 190 MiB of INFO max_memory; torch searches about 1.3x the playouts a turn "
                             "where memory allows (docs/BENCHMARKS.md)")


def run_from_args(args) -> int:
    """Point fd 1 at stderr (so nothing but replies reach stdout) and serve stdin."""
    sys.stdout.flush()
    reply_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    replies = os.fdopen(reply_fd, "w", encoding="ascii", errors="replace", newline="\n", buffering=1)

    def write(text: str) -> None:
        replies.write(text + "\n")
        replies.flush()

    stdin = open(sys.stdin.fileno(), encoding="utf-8", errors="replace", newline="", closefd=False)
    # a model that can play no board, or whose weights are damaged, stops the engine before the
    # manager's first command
    inference = getattr(args, "inference", "numpy")
    if args.model is not None and (why := model_error(args.model, load=True, inference=inference)):
        program = "zeroplay pbrain" if getattr(args, "command", None) == "pbrain" else "pbrain-zeroplay"
        print(f"{program}: error: {why}", file=sys.stderr)
        return 2
    try:
        status = run(_lines(stdin), write, playouts=args.playouts, model=args.model, inference=inference)
    except KeyboardInterrupt:
        status = 0
    except BrokenPipeError:
        status = 0
        # the buffered reply would fail again when the interpreter closes the stream at exit
        replies = open(os.devnull, "w")
    _exit_if_warming_up(status, replies)
    return status


def _exit_if_warming_up(status: int, replies) -> None:
    """End the process at once when the background warm-up is still running.

    A daemon thread inside numba's LLVM compile (or torch) while the interpreter finalizes makes
    the C++ runtime abort ("terminate called without an active exception", status -6): an END
    soon after start, while the first compile runs, would exit with a crash instead of 0.
    """
    if any(t.name == "pbrain-warm-up" and t.is_alive() for t in threading.enumerate()):
        for stream in (replies, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)


def _lines(stream):
    """Lines of ``stream``, split on LF (CR before it is stripped later), read as they arrive."""
    while True:
        line = stream.readline()
        if not line:
            return
        yield line


if __name__ == "__main__":
    sys.exit(main())
