"""The controller's side of GTP v2 (the Go Text Protocol, Gunnar Farnebäck's specification 2.0):
any GTP engine -- GNU Go, KataGo, zeroplay's own ``zeroplay gtp`` -- as a subprocess.

``GtpClient(command)`` sends one command at a time and returns the reply's text; ``GtpPlayer``
wraps it as an arena player (``name``, ``new_game(game)``, ``play(state) -> action``,
``close()``), built from the arena spec ``gtp:COMMAND``. A reply that breaks the protocol (a line
that does not start with ``=`` or ``?``, no reply in time, the process gone) raises
``GtpProtocolError``; a ``?`` failure reply raises ``GtpCommandError``; a ``genmove`` that is not
a legal move raises ``GtpIllegalMoveError``. An engine that answers ``resign`` raises
``Resignation`` (the arena books the game to the other side).
"""

from __future__ import annotations

import atexit
import contextlib
import queue
import re
import subprocess
import threading

from zeroplay.engine.programs import StderrTail, find_command, split_command  # noqa: F401 (find_command: re-exported)

MAX_REPLY_LINES = 10_000
"""Lines one reply may have before it counts as a protocol error (bounds a runaway engine)."""


class GtpError(RuntimeError):
    """Base of the errors a GTP engine causes."""


class GtpProtocolError(GtpError):
    """A reply that breaks GTP: not ``=``/``?`` first, too long, late, or the engine exited."""


class GtpCommandError(GtpError):
    """The engine answered ``? message`` (the message is the error's text)."""


class GtpIllegalMoveError(GtpError):
    """``genmove`` answered a move that is not legal in the position."""


class Resignation(Exception):
    """The player to move resigns; the arena books the game to the opponent."""


class GtpClient:
    """A GTP engine in a subprocess.

    Args:
        command: the command line (a string split like a shell would, or an argv list).
        timeout_s: seconds a reply may take (``genmove`` included) before it is a protocol error.
        stderr: where the engine's stderr goes (default: its last lines are kept for the error
            that says it exited, ``programs.StderrTail``).
    """

    def __init__(self, command, *, timeout_s: float = 60.0, stderr=None):
        self.argv = split_command(command, "gtp")  # a missing program: ProgramNotFoundError (ValueError)
        argv = self.argv
        self.timeout_s = float(timeout_s)
        self._lines: queue.Queue = queue.Queue()
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE if stderr is None else stderr, text=True,
                                         encoding="utf-8", errors="replace", bufsize=1)
        except OSError as e:
            raise GtpProtocolError(f"cannot start {' '.join(argv)!r}: {e}") from None
        threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True).start()
        self._stderr = StderrTail(self.proc.stderr) if stderr is None else None
        atexit.register(self.close)

    def _said(self) -> str:
        """The end of the engine's stderr, for an error that says it exited ("" when not kept)."""
        return self._stderr.said(self.proc) if self._stderr is not None else ""

    def _read(self, stream) -> None:
        for line in stream:
            self._lines.put(line.rstrip("\r\n"))
        self._lines.put(None)

    def _line(self, timeout: float) -> str:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise GtpProtocolError(f"no reply within {timeout:g} s") from None
        if line is None:
            raise GtpProtocolError(f"the engine exited{self._said()}")
        return line

    def send(self, command: str, timeout_s: float | None = None) -> str:
        """Send ``command`` (one line) and return the reply's text (after ``= ``; lines joined by
        newlines).

        Raises:
            GtpCommandError: a ``?`` reply.
            GtpProtocolError: see the module docstring.
        """
        if "\n" in command or "\r" in command:
            raise ValueError("a GTP command is one line")
        if self.proc.poll() is not None:
            raise GtpProtocolError(f"the engine exited{self._said()}")
        stdin = self.proc.stdin
        assert stdin is not None  # opened with PIPE
        try:
            stdin.write(command + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError):
            raise GtpProtocolError(f"the engine exited{self._said()}") from None
        timeout = self.timeout_s if timeout_s is None else timeout_s
        first = self._line(timeout)
        while first == "":  # blank lines between replies are allowed
            first = self._line(timeout)
        if not first or first[0] not in "=?":
            raise GtpProtocolError(f"reply to {command!r} starts with {first[:80]!r}, not '=' or '?'")
        head = re.match(r"[=?]\d*\s*(.*)", first)
        body = [head.group(1).strip() if head else ""]
        while True:
            line = self._line(timeout)
            if line == "":
                break
            body.append(line)
            if len(body) > MAX_REPLY_LINES:
                raise GtpProtocolError(f"reply to {command!r} has more than {MAX_REPLY_LINES} lines")
        text = "\n".join(body).strip("\n")
        if first[0] == "?":
            raise GtpCommandError(f"{command!r}: {text}")
        return text

    def close(self) -> None:
        """Send ``quit`` and end the process (killed if it does not exit within 5 s)."""
        proc = getattr(self, "proc", None)
        if proc is None or proc.poll() is not None:
            return
        try:
            proc.stdin.write("quit\n")
            proc.stdin.flush()
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired, ValueError):
            proc.kill()
            proc.wait()


class GtpPlayer:
    """A GTP engine as an arena player for Go (``game.rules``, ``game.pass_action``).

    Each ``play`` sends the moves since the engine's last position (``play b D4``), or
    ``clear_board`` and the whole game when the position is not a continuation, then
    ``genmove``. Board size and komi go at each new game.

    Args:
        command: the engine's command line, e.g. ``"gnugo --mode gtp --level 1 --chinese-rules
            --capture-all-dead"`` (games ended by two passes are counted Tromp-Taylor, so an
            engine must capture dead stones before it passes: ``arena.gnugo_notes``).
        timeout_s: seconds per reply.
        first_genmove_timeout_s: seconds the first ``genmove`` of each engine process may take
            (at least ``timeout_s``): an engine may load or compile then -- ``zeroplay gtp`` on a
            cold numba cache took over 120 s on a busy 2-core machine, and each match that timed
            it out killed the compile before numba could cache it, so the next one timed out too.
        name: shown in results (default ``gtp:COMMAND``).
    """

    def __init__(self, command, *, timeout_s: float = 120.0, first_genmove_timeout_s: float = 900.0,
                 name: str | None = None, stderr=None):
        self.command = split_command(command, "gtp")  # checked now, not when the first game starts
        self.name = name or f"gtp:{command if isinstance(command, str) else ' '.join(command)}"
        self.timeout_s = timeout_s
        self.first_genmove_timeout_s = max(first_genmove_timeout_s, timeout_s)
        self._genmoved = False  # whether this engine process has answered a genmove yet
        self.stderr = stderr
        self.client: GtpClient | None = None
        self._game = None
        self._known: tuple[int, ...] = ()

    def new_game(self, game) -> None:
        with self._named_errors():
            self._new_game(game)

    @contextlib.contextmanager
    def _named_errors(self):
        """Name this player in its engine's errors: a match has two, and "no reply within 120 s"
        alone does not say whose."""
        try:
            yield
        except GtpError as e:
            if str(e).startswith(f"{self.name}: "):
                raise
            raise type(e)(f"{self.name}: {e}") from None

    def _new_game(self, game) -> None:
        if not hasattr(game, "rules") or not hasattr(game, "pass_action"):
            raise ValueError(f"gtp: players play Go; {game.name} is not")
        if self.client is None:
            self.client = GtpClient(self.command, timeout_s=self.timeout_s, stderr=self.stderr)
            self._genmoved = False
        if game.width != game.height:
            raise ValueError("gtp: GTP boards are square")
        client = self.client
        client.send(f"boardsize {game.width}")
        client.send("clear_board")
        client.send(f"komi {game.rules.komi:g}")
        self._game = game
        self._known = ()

    def _sync(self, state) -> None:
        game = state.game
        assert self.client is not None  # new_game started it
        moves = tuple(state.moves)
        if moves[: len(self._known)] != self._known:
            self.client.send("clear_board")
            self._known = ()
        for i in range(len(self._known), len(moves)):
            color = "b" if i % 2 == 0 else "w"
            self.client.send(f"play {color} {game.format_move(moves[i])}")
        self._known = moves

    def play(self, state) -> int:
        """The engine's move in ``state`` (a position reached from ``game.initial()``).

        Raises:
            Resignation: the engine resigned.
            GtpError: the engine broke the protocol, answered ``?`` or an illegal move; the
                message starts with this player's name.
        """
        with self._named_errors():
            return self._play(state)

    def _play(self, state) -> int:
        if self._game != state.game:
            self._new_game(state.game)
        if state.ply != len(state.moves):
            raise ValueError("gtp: the player needs positions played from the start")
        self._sync(state)
        color = "b" if state.to_play == 0 else "w"
        assert self.client is not None
        reply = self.client.send(f"genmove {color}",
                                 None if self._genmoved else self.first_genmove_timeout_s).strip()
        self._genmoved = True
        if reply.lower() == "resign":
            raise Resignation(self.name)
        try:
            action = state.game.parse_move(reply)
        except ValueError:
            raise GtpProtocolError(f"genmove answered {reply!r}, not a vertex") from None
        if action not in set(int(a) for a in state.legal_moves()):
            raise GtpIllegalMoveError(f"genmove answered {reply}, illegal here")
        self._known = tuple(state.moves) + (action,)
        return action

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
            self.client = None
