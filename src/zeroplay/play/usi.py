"""USI (Universal Shogi Interface) engine: ``zeroplay usi`` and ``usi-zeroplay`` (no arguments).

Commands (the USI protocol as shogi GUIs -- ShogiHome, Shogidokoro -- and ``python -m
cshogi.cli`` speak it):

``usi`` -> ``id``, the options and ``usiok`` (at once: nothing heavy is imported before
``isready``); ``isready`` -> builds the engine, compiles the kernels (a few seconds the first time
in an environment) -> ``readyok`` (during a search: ``readyok`` at once, the search goes on);
``setoption name N [value V]``; ``usinewgame``;
``position startpos|sfen SFEN [moves ...]``; ``go [ponder] [btime B] [wtime W] [byoyomi Y]
[binc I] [winc I] [movetime T] [nodes N] [depth D] [infinite]`` -> ``info ...`` lines, then one
``info depth .. score cp|mate .. pv ..`` line right before ``bestmove MOVE [ponder MOVE]``,
``bestmove resign`` (no legal move) or ``bestmove win`` (entering-king declaration); a
position over by repetition (sennichite, perpetual check) is said in an ``info string`` and
searched as it stands (the GUI declares such results);
``go mate T|infinite`` -> ``checkmate MOVES`` / ``checkmate nomate`` / ``checkmate timeout``;
``stop``; ``ponderhit``; ``gameover win|lose|draw``; ``quit``.

Options: ``USI_Hash`` (MiB, alpha-beta table), ``USI_Ponder``, ``Engine`` (AlphaBeta or MCTS),
``Depth`` (0 = no limit), ``Playouts`` (MCTS per move), ``HandDominance``, ``ByoyomiMargin``
(ms kept back from every time limit), ``Model`` (MCTS network checkpoint; empty = none). An engine
that cannot be built (a Model that does not load) is said in an ``info string`` and the AlphaBeta
engine, which needs no model, plays instead: ``isready`` always answers ``readyok`` and every
``go`` a ``bestmove``.

Bad input never stops the engine: an unknown command, a malformed option or position, an
illegal move is answered with one ``info string`` line, and the last good position is kept; a
``go`` after a refused ``position`` answers ``bestmove resign`` (``checkmate timeout`` to ``go
mate``; a move of the position before would not be the GUI's; an infinite or ponder ``go`` answers
at ``stop``), until a good one comes. A ``go`` with a malformed or unknown parameter
says so in an ``info string`` and searches without it (a GUI waits for a ``bestmove`` after every
``go``; with no limit left, ``DEFAULT_GO_SECONDS``); a time below 0 counts as 0. A clock given
counts as the whole clock: a time it leaves out is 0 (``go byoyomi 0`` alone moves at once).
Time: with byoyomi the engine thinks ``time left / 40 + byoyomi - margin``, with increments
``time left / 30 + increment - margin``, with sudden death ``time left / 40 - margin``, never more
than ``time left + byoyomi + increment - margin`` and at least 20 ms.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Callable

from zeroplay import __version__

ENGINE_NAME = f"zeroplay {__version__}"
DEFAULT_GO_SECONDS = 5.0
"""Thinking time of a ``go`` with no limit at all (no time, nodes, depth, infinite or ponder)."""
MAX_HASH_MIB = 16384
MAX_LINE = 100_000
"""Longest input line read (a position of 1,000s of moves fits); longer lines are refused."""

_OPTIONS = (
    ("USI_Hash", "spin", 64, 1, MAX_HASH_MIB),
    ("USI_Ponder", "check", False, None, None),
    ("Engine", "combo", "AlphaBeta", ("AlphaBeta", "MCTS"), None),
    ("Depth", "spin", 0, 0, 64),
    ("Playouts", "spin", 800, 1, 10_000_000),
    ("HandDominance", "check", False, None, None),
    ("ByoyomiMargin", "spin", 300, 0, 60_000),
    ("Model", "string", "", None, None),
)
_CLOCK = ("btime", "wtime", "byoyomi", "binc", "winc")
_GO_NUMBERS = ("btime", "wtime", "byoyomi", "binc", "winc", "movetime", "nodes", "depth")


def think_seconds(go: dict, turn: int, margin_ms: int) -> float | None:
    """Seconds to think for a ``go`` (see the module docstring), None for no time limit."""
    if go.get("infinite") or go.get("ponder_now"):
        return None
    if "movetime" in go:
        return max(0.02, (go["movetime"] - margin_ms) / 1000)
    left = go.get("btime" if turn == 0 else "wtime")
    inc = go.get("binc" if turn == 0 else "winc", 0)
    byoyomi = go.get("byoyomi", 0)
    if not any(k in go for k in _CLOCK):  # no clock at all (a clock given as 0 is no time left)
        return None if ("nodes" in go or "depth" in go) else DEFAULT_GO_SECONDS
    left = left or 0
    if byoyomi:
        wish = left / 40 + byoyomi
    elif inc:
        wish = left / 30 + inc
    else:
        wish = left / 40
    ceiling = left + byoyomi + inc - margin_ms
    return max(0.02, min(wish - margin_ms, ceiling) / 1000)


class UsiSession:
    """The engine side of USI, driven line by line (``handle``); replies go to ``write``.

    Args:
        write: called with each reply line (no newline).
        max_seconds: a cap on every search's time (tests, fuzzing); None = none.
    """

    def __init__(self, write: Callable[[str], None], *, max_seconds: float | None = None):
        self._write_raw = write
        self._write_lock = threading.Lock()
        self.max_seconds = max_seconds
        self.options = {name: default for name, _, default, _, _ in _OPTIONS}
        self.finished = False
        self.engine = None
        self._engine_key = None
        self.state = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._pondering = False
        self._go: dict = {}
        self._timer: threading.Timer | None = None
        self._refused: str | None = None  # why the last position command was refused

    # --- plumbing -----------------------------------------------------------------------------
    def write(self, line: str) -> None:
        with self._write_lock:
            self._write_raw(line)

    def _say(self, text: str) -> None:
        self.write("info string " + " ".join(text.split())[:300])

    def handle(self, line: str) -> None:
        """Act on one input line (its newline, if any, is ignored)."""
        if len(line) > MAX_LINE:
            self._say(f"line of {len(line)} characters refused (at most {MAX_LINE})")
            return
        words = line.strip().split()
        if not words:
            return
        command, args = words[0], words[1:]
        handler = getattr(self, "_cmd_" + command, None) if command.isidentifier() else None
        if handler is None:
            self._say(f"unknown command {command[:40]!r}")
            return
        try:
            handler(args)
        except ValueError as e:  # every bad input ends here, with the state as it was
            self._say(f"{command}: {e}")
        except Exception as e:  # a bug: said, and the session goes on (a GUI would hang otherwise)
            self._say(f"{command}: internal error {type(e).__name__}: {e}")

    # --- commands -----------------------------------------------------------------------------
    def _cmd_usi(self, args):
        self.write(f"id name {ENGINE_NAME}")
        self.write("id author the zeroplay developers")
        for name, kind, default, low, high in _OPTIONS:
            if kind == "spin":
                self.write(f"option name {name} type spin default {default} min {low} max {high}")
            elif kind == "check":
                self.write(f"option name {name} type check default {'true' if default else 'false'}")
            elif kind == "combo":
                self.write(f"option name {name} type combo default {default} " + " ".join(f"var {v}" for v in low))
            else:
                self.write(f"option name {name} type string default <empty>")
        self.write("usiok")

    def _cmd_isready(self, args):
        if self._thread is not None and self._thread.is_alive():
            # a GUI's keep-alive during an infinite or ponder search: readyok at once, the search
            # goes on (it stopped and answered a bestmove no go was waiting for; helper-76). Options
            # set during the search get their engine now, beside it, not inside the next go's time
            if self.engine is not None and self._options_key() != self._engine_key:
                try:
                    self._ensure_engine(warm=True)
                except Exception as e:
                    self._say(f"isready: {e}")
            self.write("readyok")
            return
        try:
            self._ensure_engine(warm=True)
        except Exception as e:  # a GUI waits for readyok whatever happened: the problem is said first
            self._say(f"isready: {e}")
        self.write("readyok")

    def _cmd_setoption(self, args):
        if len(args) < 2 or args[0] != "name":
            raise ValueError("expected: setoption name NAME [value VALUE]")
        if "value" in args:
            at = args.index("value")
            name, value = " ".join(args[1:at]), " ".join(args[at + 1:])
        else:
            name, value = " ".join(args[1:]), ""
        spec = next((o for o in _OPTIONS if o[0].lower() == name.lower()), None)
        if spec is None:
            raise ValueError(f"unknown option {name[:40]!r}")
        name, kind, _, low, high = spec
        if kind == "spin":
            try:
                number = int(value)
            except ValueError:
                raise ValueError(f"{name} needs a whole number, got {value[:20]!r}") from None
            if not low <= number <= high:
                raise ValueError(f"{name} must be in {low}..{high}, got {number}")
            self.options[name] = number
        elif kind == "check":
            if value.lower() not in ("true", "false"):
                raise ValueError(f"{name} is true or false, got {value[:20]!r}")
            self.options[name] = value.lower() == "true"
        elif kind == "combo":
            match = next((v for v in low if v.lower() == value.lower()), None)
            if match is None:
                raise ValueError(f"{name} is one of {', '.join(low)}, got {value[:20]!r}")
            self.options[name] = match
        else:
            self.options[name] = "" if value == "<empty>" else value[:4096]

    def _cmd_usinewgame(self, args):
        self._finish_search()
        if self.engine is not None:
            self.engine.new_game()

    def _cmd_position(self, args):
        try:
            self.state = _usi_position(args)
            self._refused = None
        except ValueError as e:
            self._refused = str(e)  # the GUI's position is not ours: no move for the one before
            raise

    def _cmd_go(self, args):
        self._finish_search()
        problems: list[str] = []
        go = _parse_go(args, problems)
        if problems:  # a GUI waits for a bestmove after every go: the rest of it still plays
            self._say(f"go: {'; '.join(problems)}; left out")
        if self._refused is not None:
            self._say(f"go: the last position command was refused ({self._refused}); no answer for the "
                      "position before it")
            self._start(self._refuse, go)  # (an infinite or ponder go still answers at stop)
            return
        if "mate" in go:
            self._start(self._mate, go)
            return
        if self.state is None:
            self.state = _usi_game().initial()
        try:
            self._ensure_engine()
        except Exception as e:  # nothing can play: a GUI still waits for a bestmove
            self._say(f"go: {e}")
            self.write("bestmove resign")
            return
        self._start(self._think, go)

    def _cmd_stop(self, args):
        self._stop.set()
        self._finish_search()

    def _cmd_ponderhit(self, args):
        if not self._pondering:
            return
        self._pondering = False
        if self._refused is not None or self.state is None:
            return  # a go after a refused position: it answers now (_refuse), with no search to time
        go = dict(self._go, ponder_now=False)
        seconds = think_seconds(go, self.state.to_play, self.options["ByoyomiMargin"])
        if self.max_seconds is not None:
            seconds = min(seconds or self.max_seconds, self.max_seconds)
        if seconds is not None:
            self._timer = threading.Timer(seconds, self._stop.set)
            self._timer.daemon = True
            self._timer.start()

    def _cmd_gameover(self, args):
        self._stop.set()
        self._finish_search()

    def _cmd_quit(self, args):
        self._stop.set()
        self._finish_search()
        self.finished = True

    # --- engine and searches ------------------------------------------------------------------
    def _ensure_engine(self, warm: bool = False):
        """Build the engine the options ask for (again only when they change).

        An engine that cannot be built (a Model that does not load, a USI_Hash that does not fit)
        is said in an ``info string`` and replaced by the alpha-beta engine, which needs no model,
        so that ``isready`` still answers ``readyok`` and every ``go`` a ``bestmove``.
        """
        kind = self.options["Engine"].lower()
        key = self._options_key()
        if self.engine is None or key != self._engine_key:
            self.engine = None
            self._engine_key = None
            self.engine = self._build_engine(kind)
            self._engine_key = key
            if warm:
                from zeroplay.games.shogi import Shogi

                self.engine.search(Shogi().initial(), depth=1, nodes=64)
                # usinewgame's table clear is a compiled call too: loading it at the first
                # usinewgame took 2.8-9.6 s, which a GUI's clock charged to the first go
                self.engine.new_game()
        if hasattr(self.engine, "playouts"):
            self.engine.playouts = self.options["Playouts"]

    def _options_key(self) -> tuple:
        """The options an engine is built from (a change builds another)."""
        return (self.options["Engine"].lower(), self.options["USI_Hash"], self.options["HandDominance"],
                self.options["Model"])

    def _build_engine(self, kind: str):
        from zeroplay.engine.shogi_engines import make_shogi_engine

        hash_mib, dominance = self.options["USI_Hash"], self.options["HandDominance"]
        try:
            return make_shogi_engine(kind, hash_mib=hash_mib, hand_dominance=dominance,
                                     playouts=self.options["Playouts"], model=self.options["Model"] or None)
        except MemoryError:
            problem = f"USI_Hash {hash_mib} MiB does not fit in memory"
        except ValueError as e:
            problem = str(e)
        for fallback_mib in dict.fromkeys((min(hash_mib, 64), 1)):
            try:
                engine = make_shogi_engine("alphabeta", hash_mib=fallback_mib, hand_dominance=dominance)
            except MemoryError:
                continue
            self._say(f"{problem}; playing with the AlphaBeta engine (needs no model, USI_Hash {fallback_mib} MiB)")
            return engine
        raise ValueError(f"{problem}; no engine fits in memory")

    def _start(self, target, go):
        self._stop = threading.Event()
        self._go = go
        self._pondering = bool(go.get("ponder"))
        self._thread = threading.Thread(target=target, args=(go, self._stop), name="usi-search", daemon=True)
        self._thread.start()

    def _finish_search(self):
        """Stop a running search and wait for its bestmove (USI wants one for every go)."""
        if self._thread is not None and self._thread.is_alive():
            self._stop.set()
            self._pondering = False
            self._thread.join()
        self._thread = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _think(self, go: dict, stop: threading.Event):
        state = self._playable("go")
        seconds = think_seconds(dict(go, ponder_now=go.get("ponder")), state.to_play, self.options["ByoyomiMargin"])
        if self.max_seconds is not None:
            seconds = min(seconds or self.max_seconds, self.max_seconds)
        depth = go.get("depth") or self.options["Depth"] or None
        started = time.perf_counter()
        said: list[str] = []

        def iteration(r) -> None:
            said[:] = [_info_line(r, started)]
            self.write(said[0])

        try:
            result = self.engine.search(state, depth=depth, nodes=go.get("nodes"), seconds=seconds, stop=stop,
                                        on_iteration=iteration)
        except Exception as e:  # a bug must not leave the GUI without a move
            self._say(f"search failed ({type(e).__name__}: {e}); playing the first legal move")
            from zeroplay.engine.shogi_alphabeta import AlphaBetaResult

            legal = state.legal_moves()
            first = state.move_text(int(legal[0])) if len(legal) else "resign"
            result = AlphaBetaResult(first, pv=[first] if len(legal) else [])
        # infinite and ponder searches answer only after stop (or ponderhit)
        while (go.get("infinite") or self._pondering) and not stop.is_set():
            stop.wait(0.005)
        final = _info_line(result, started)
        if not said or _without_time(final) != _without_time(said[0]):  # not the last line again
            self.write(final)
        best = result.best_move
        ponder = ""
        if self.options["USI_Ponder"] and best not in ("resign", "win") and len(result.pv) >= 2:
            ponder = f" ponder {result.pv[1]}"
        self.write(f"bestmove {best}{ponder}")

    def _playable(self, command: str):
        """The position to search: over by repetition (a draw, or a loss for perpetual check),
        the board as it stands, with an ``info string`` (the GUI declares such results; resigning
        said the side to move was mated, helper-76; ``go mate`` said there was no mate, helper-77)."""
        state = self.state
        if _over_by_repetition(state):
            fresh = _usi_game().from_sfen(state.sfen())
            if not fresh.is_terminal:
                self._say(f"{command}: the game is over by {state.termination} ({_outcome(state)}); searching "
                          "the position as it stands")
                return fresh
        return state

    def _refuse(self, go: dict, stop: threading.Event):
        """The answer to a ``go`` after a refused ``position``: ``bestmove resign`` (``checkmate
        timeout`` to ``go mate``), when a search would answer (an infinite or ponder one at stop)."""
        while (go.get("infinite") or go.get("mate") == "infinite" or self._pondering) and not stop.is_set():
            stop.wait(0.005)
        self.write("checkmate timeout" if "mate" in go else "bestmove resign")

    def _mate(self, go: dict, stop: threading.Event):
        from zeroplay.solvers.shogi_mate import MATE, NO_MATE, solve_mate

        limit = go["mate"]
        seconds = None if limit == "infinite" else max(0.02, limit / 1000)
        if self.max_seconds is not None:
            seconds = min(seconds or self.max_seconds, self.max_seconds)
        if self.state is None:
            self.state = _usi_game().initial()
        state = self._playable("go mate")
        board = state.cshogi_board()
        if state.is_terminal:
            self.write("checkmate nomate")
            return
        result = solve_mate(board, max_plies=31, seconds=seconds, stop=stop)
        if limit == "infinite":
            while not stop.is_set() and result.status != MATE:
                stop.wait(0.005)
        if result.status == MATE:
            self.write("checkmate " + " ".join(result.pv))
        elif result.status == NO_MATE:
            self.write("checkmate nomate")
        else:
            self.write("checkmate timeout")


def _outcome(state) -> str:
    """A terminal position's result in words, from the side to move's point of view."""
    if state.winner is None:
        return "a draw"
    return "a win for the side to move" if state.winner == state.to_play else "a loss for the side to move"


def _over_by_repetition(state) -> bool:
    """Whether ``state`` ended by a rule the GUI rules on (sennichite, perpetual check, the move
    limit), not by the board (checkmate, an entering-king declaration)."""
    from zeroplay.games.shogi.game import CHECKMATE, DECLARATION

    return state.is_terminal and state.termination not in (CHECKMATE, DECLARATION)


def _usi_position(args):
    """The state of a ``position`` command's arguments, for the GUI's game.

    The GUI rules on repetitions, so moves after a repetition's end are played on from the board as
    it stands (refused, the GUI's next go got a resignation; helper-77); the SFEN's move number is
    the GUI's count, not a game length (100,000 or more made every position over by the move limit).

    Raises:
        ValueError: as ``Shogi.from_usi``: malformed, or an illegal move (named).
    """
    words = list(args)
    if words[:1] == ["sfen"] and len(words) >= 5 and words[4].isdigit():
        words[4] = "1"
    at = words.index("moves") if "moves" in words else len(words)
    game = _usi_game()
    state = game.from_usi(" ".join(words[:at]))
    for move in words[at + 1:]:
        if _over_by_repetition(state):
            state = game.from_sfen(state.sfen())
        state = state.play(move)
    return state


def _usi_game():
    """The game of GUI positions: no move limit of our own (the GUI declares its draws)."""
    from zeroplay.games.shogi import Shogi

    return Shogi(max_moves=100_000)


def _parse_go(args, problems: list | None = None) -> dict:
    """The parameters of ``go``. A time below 0 (a GUI's clock that ran over) counts as 0.

    Raises:
        ValueError: a malformed or unknown parameter, when ``problems`` is None; else each one is
            appended to ``problems`` (its message) and left out, and the rest are returned.
    """
    if problems is not None:
        go: dict = {}
        i = 0
        while i < len(args):  # each parameter alone, so that one bad one drops only itself
            take = 1 if args[i] in ("infinite", "ponder") or args[i] not in (*_GO_NUMBERS, "mate") else 2
            try:
                go.update(_parse_go(args[i:i + take]))
            except ValueError as e:
                problems.append(str(e))
                if args[i] == "mate":  # still a mate search (a GUI waits for checkmate ...)
                    go["mate"] = int(DEFAULT_GO_SECONDS * 1000)
            i += take
        return _drop_zero_limits(go)
    go = {}
    i = 0
    while i < len(args):
        word = args[i]
        if word in ("infinite", "ponder"):
            go[word] = True
        elif word in _GO_NUMBERS:
            if i + 1 >= len(args):
                raise ValueError(f"go {word} needs a number")
            try:
                value = int(args[i + 1])
            except ValueError:
                raise ValueError(f"go {word} needs a whole number, got {args[i + 1][:20]!r}") from None
            if value < 0 and word not in ("nodes", "depth"):
                value = 0
            if value < 0 or value > 10**12:
                raise ValueError(f"go {word} must be in 0..10^12, got {value}")
            go[word] = value
            i += 1
        elif word == "mate":
            if i + 1 >= len(args):
                raise ValueError("go mate needs a time in ms or infinite")
            value = args[i + 1]
            if value == "infinite":
                go["mate"] = "infinite"
            else:
                try:
                    go["mate"] = int(value)
                except ValueError:
                    raise ValueError(f"go mate needs a time in ms or infinite, got {value[:20]!r}") from None
                if not 0 <= go["mate"] <= 10**12:
                    raise ValueError("go mate time must be in 0..10^12 ms")
            i += 1
        else:
            raise ValueError(f"unknown go parameter {word[:20]!r}")
        i += 1
    return _drop_zero_limits(go)


def _drop_zero_limits(go: dict) -> dict:
    if go.get("depth") == 0:
        go.pop("depth")
    if go.get("nodes") == 0:
        go.pop("nodes")
    return go


def _without_time(line: str) -> str:
    """An ``info`` line without its ``nps`` and ``time`` fields (which differ between two writes
    of the same result)."""
    return re.sub(r" (nps|time) \d+", "", line)


def _info_line(result, started: float) -> str:
    """``info depth D score cp|mate S nodes N nps R time T [hashfull H] pv ...`` of a result."""
    elapsed_ms = max(1, int((time.perf_counter() - started) * 1000))
    if result.best_move == "resign":
        score = "mate -0"
    elif result.best_move == "win":
        score = "mate +0"
    elif result.mate is not None:
        score = f"mate {result.mate:+d}"
    else:
        score = f"cp {int(result.score)}"
    pv = " ".join(result.pv) if result.pv else result.best_move
    hashfull = f" hashfull {result.hashfull}" if getattr(result, "hashfull", None) is not None else ""
    return (f"info depth {result.depth} score {score} nodes {result.nodes} nps {result.nodes * 1000 // elapsed_ms} "
            f"time {elapsed_ms}{hashfull} pv {pv}")


def run(stdin, write: Callable[[str], None], **session_options) -> int:
    """Serve USI from ``stdin`` (a text stream) until ``quit`` or end of input; returns 0."""
    session = UsiSession(write, **session_options)
    for line in stdin:
        session.handle(line)
        if session.finished:
            break
    session._stop.set()
    session._finish_search()
    return 0


def main(argv: list[str] | None = None) -> int:
    """``usi-zeroplay`` (and ``zeroplay usi``): the protocol on stdin/stdout, no arguments needed.

    File descriptor 1 is pointed at stderr so that nothing but replies (no library's print)
    reaches the GUI; replies go to a private copy of the original stdout.
    """
    import argparse

    parser = argparse.ArgumentParser(prog="usi-zeroplay", description="zeroplay as a USI shogi engine")
    parser.parse_args(argv)
    return serve_stdio()


def serve_stdio() -> int:
    sys.stdout.flush()
    reply_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    replies = os.fdopen(reply_fd, "w", encoding="ascii", errors="replace", newline="\n", buffering=1)

    def write(text: str) -> None:
        replies.write(text + "\n")
        replies.flush()

    stdin = open(sys.stdin.fileno(), encoding="utf-8", errors="replace", newline="", closefd=False)
    try:
        return run(iter(stdin.readline, ""), write)
    except (KeyboardInterrupt, BrokenPipeError):
        return 0


if __name__ == "__main__":
    sys.exit(main())
