"""The manager's side of the Gomocup protocol: any pbrain engine as an arena player.

``PbrainPlayer("pbrain-zeroplay --playouts 200")`` runs the command as a subprocess and speaks
the protocol to it (``zeroplay.play.pbrain`` documents the commands). It has the arena's
``Player`` interface: ``name``, ``new_game(game)`` and ``play(state) -> action``, plus
``close()`` (also run at exit). The arena builds one from the spec ``pbrain:COMMAND``;
``play_game`` runs one game between two players of that interface.

Each ``play`` sends the smallest update: ``BEGIN`` on an empty board, ``TURN x,y`` when the
position is the engine's last one plus one opponent move, otherwise the whole position with
``BOARD`` (1 = the engine's stones, 2 = the opponent's). ``DEBUG`` and ``MESSAGE`` lines are
collected in ``messages``; a reply that is not a legal move, or none within the time
limit, raises ``PbrainError``.
"""

from __future__ import annotations

import atexit
import queue
import subprocess
import threading
import time

from zeroplay.engine.programs import StderrTail, split_command
from zeroplay.games import Game, State


class PbrainError(RuntimeError):
    """The engine answered ERROR, something unparsable, an illegal move, or nothing in time."""


class PbrainPlayer:
    """A Gomocup engine in a subprocess, as an arena player.

    Args:
        command: the command line (a string, split like a shell would, or an argv list).
        timeout_turn_ms: ``INFO timeout_turn`` sent at each new game.
        timeout_match_ms: ``INFO timeout_match`` (0 = no limit); with a limit, ``INFO time_left``
            (the match time less this game's thinking so far) goes before each move request.
        reply_grace_s: seconds granted beyond the turn time before a reply counts as missing.
        startup_grace_s: extra seconds for the first reply of the process (start-up).
        name: shown in results (default: the command).
        stderr: where the engine's stderr goes (default: its last lines are kept for the error
            that says it exited, ``programs.StderrTail``).
    """

    def __init__(self, command, *, timeout_turn_ms: int = 1000, timeout_match_ms: int = 0,
                 reply_grace_s: float = 5.0, startup_grace_s: float = 60.0, name: str | None = None,
                 stderr=None):
        self.argv = split_command(command, "pbrain")  # a missing program: ProgramNotFoundError (ValueError)
        self.name = name or (command if isinstance(command, str) else " ".join(command))
        self.timeout_turn_ms = int(timeout_turn_ms)
        self.timeout_match_ms = int(timeout_match_ms)
        self.reply_grace_s = reply_grace_s
        self.startup_grace_s = startup_grace_s
        self.stderr = stderr
        self.messages: list[str] = []
        self.proc: subprocess.Popen | None = None
        self._stderr: StderrTail | None = None
        self._lines: queue.Queue = queue.Queue()
        self._known: tuple[int, ...] | None = None  # moves of the position the engine holds
        self._game: Game | None = None
        self._first_reply = True
        self.used_ms = 0

    # --- process --------------------------------------------------------------------------
    def _start(self) -> None:
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE if self.stderr is None else self.stderr, text=True,
                                         encoding="utf-8", errors="replace", bufsize=1)
        except OSError as e:
            raise PbrainError(f"cannot start {self.name!r}: {e}") from None
        threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True).start()
        self._stderr = StderrTail(self.proc.stderr) if self.stderr is None else None
        self._first_reply = True
        atexit.register(self.close)

    def _read(self, stream) -> None:
        for line in stream:
            self._lines.put(line.rstrip("\r\n"))
        self._lines.put(None)

    def send(self, line: str) -> None:
        if self.proc is None or self.proc.poll() is not None:
            raise PbrainError(f"{self.name}: the engine is not running")
        assert self.proc.stdin is not None  # started with stdin=PIPE
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise PbrainError(f"{self.name}: cannot write to the engine: {e}") from None

    def reply(self, timeout_s: float) -> str:
        """The next line that is not DEBUG/MESSAGE; raises PbrainError on timeout or exit."""
        if self._first_reply:
            timeout_s += self.startup_grace_s
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(left, 0.0))
            except queue.Empty:
                raise PbrainError(f"{self.name}: no reply within {timeout_s:.1f} s") from None
            if line is None:
                said = self._stderr.said(self.proc) if self._stderr is not None else ""
                raise PbrainError(f"{self.name}: the engine exited{said}")
            word = line.split(" ", 1)[0].upper()
            if word in ("DEBUG", "MESSAGE"):
                self.messages.append(line)
                continue
            self._first_reply = False
            return line

    def _expect_ok(self, command: str) -> None:
        self.send(command)
        answer = self.reply(self.reply_grace_s)
        if answer.strip().upper() != "OK":
            raise PbrainError(f"{self.name}: {command} -> {answer!r}")

    # --- Player interface -------------------------------------------------------------------
    def new_game(self, game: Game) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        rule = getattr(game, "rule", "freestyle")
        self.send(f"INFO timeout_turn {self.timeout_turn_ms}")
        self.send(f"INFO timeout_match {self.timeout_match_ms}")
        self.send(f"INFO rule {1 if rule == 'standard' else 0}")
        if game.width == game.height:
            self._expect_ok(f"START {game.width}")
        else:
            self._expect_ok(f"RECTSTART {game.width},{game.height}")
        self._game = game
        self._known = ()
        self.used_ms = 0  # thinking time this game, for INFO time_left in timed matches

    def play(self, state: State) -> int:
        game = state.game
        if self._game != game:
            self.new_game(game)
        moves = tuple(int(m) for m in state.moves)
        if self.timeout_match_ms > 0:
            self.send(f"INFO time_left {max(self.timeout_match_ms - self.used_ms, 0)}")
        started = time.monotonic()
        if not moves and state.ply == 0:
            self.send("BEGIN")
        elif self._known is not None and moves[:-1] == self._known and len(moves) == len(self._known) + 1:
            self.send(f"TURN {game.format_move(moves[-1], 'gomocup')}")
        else:
            self.send("BOARD")
            me = state.to_play
            for p in (me, 1 - me):
                for cell in state.stones(p):
                    self.send(f"{game.format_move(int(cell), 'gomocup')},{1 if p == me else 2}")
            self.send("DONE")
        answer = self.reply(self.timeout_turn_ms / 1000.0 + self.reply_grace_s)
        self.used_ms += int(1000 * (time.monotonic() - started))
        try:
            move = game.parse_move(answer) if "," in answer else None
        except ValueError:
            move = None
        if move is None:
            raise PbrainError(f"{self.name}: expected a move x,y, got {answer!r}")
        if int(state.board.reshape(-1)[move]) != 0:
            raise PbrainError(f"{self.name}: played {answer} on an occupied cell")
        self._known = moves + (move,) if moves or state.ply == 0 else None
        return move

    def close(self, timeout_s: float = 5.0) -> None:
        """Send END and wait for the process; kill it if it does not exit in time."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        assert proc.stdin is not None  # started with stdin=PIPE
        try:
            if proc.poll() is None:
                proc.stdin.write("END\n")
                proc.stdin.flush()
                proc.stdin.close()
            proc.wait(timeout=timeout_s)
        except (OSError, subprocess.TimeoutExpired, ValueError):
            proc.kill()
            proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def play_game(game: Game, black, white, *, max_plies: int | None = None) -> State:
    """One game between two players (``new_game`` / ``play``); returns the final State."""
    for p in (black, white):
        p.new_game(game)
    state = game.initial()
    limit = max_plies if max_plies is not None else game.num_actions
    while not state.is_terminal and state.ply < limit:
        player = black if state.to_play == 0 else white
        state = state.play(player.play(state))
    return state
