"""Shogi arena players: any USI engine (``usi:COMMAND``), our two engines, a random mover.

All have the arena's ``Player`` interface (``name``, ``new_game(game)``, ``play(state) -> label``)
and play ``ShogiState``s. Specs (registered by ``zeroplay.engine.arena``):

* ``usi:COMMAND`` -- a USI engine in a subprocess (``usi``/``isready`` handshake, ``usinewgame``
  per game, ``position ...`` + ``go btime 0 wtime 0 byoyomi B`` per move, B = 1,000 ms unless
  the spec ends in ``@B``, e.g. ``usi:usi-zeroplay@300``). A reply that is not a legal move, or
  none within byoyomi + 30 s (``grace_s``), raises ``UsiError``. ``bestmove resign`` is booked in
  ``resignations`` and a random legal move is played for it (the arena plays games to their
  rules' end); ``bestmove win`` cannot happen, since such a position is already over by our rules.
* ``alphabeta:NODES`` -- the alpha-beta engine with a node budget per move.
* ``shogimcts:PLAYOUTS[@MODEL]`` -- the MCTS engine (material stand-in without a model).
* ``random:SEED`` -- uniformly random legal moves.
"""

from __future__ import annotations

import atexit
import queue
import subprocess
import threading
import time

import numpy as np

from zeroplay.engine.programs import StderrTail, split_command


class UsiError(RuntimeError):
    """The USI engine answered an illegal or unparsable move, nothing in time, or died."""


class UsiPlayer:
    """A USI engine in a subprocess, as an arena player (see the module docstring)."""

    def __init__(self, command, *, byoyomi_ms: int = 1000, name: str | None = None, options: dict | None = None,
                 startup_s: float = 120.0, grace_s: float = 30.0):
        self.argv = split_command(command, "usi")  # a missing program: ProgramNotFoundError (ValueError)
        if not 1 <= byoyomi_ms <= 3_600_000:
            raise ValueError(f"usi: byoyomi must be 1..3600000 ms, got {byoyomi_ms}")
        self.name = name or " ".join(self.argv)
        self.byoyomi_ms = byoyomi_ms
        self.options = options or {}
        self.startup_s = startup_s
        self.grace_s = grace_s
        self.proc = None
        self._stderr: StderrTail | None = None
        self._lines: queue.Queue = queue.Queue()
        self.resignations = 0
        self.infos: list[str] = []
        self.rng = np.random.default_rng(0)

    def _start(self):
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, encoding="utf-8", errors="replace", bufsize=1)
        # (the locale's strict decoding: a Shift-JIS "info string", common from Japanese engines,
        # killed the reader thread and the match waited out its bestmove; helper-77)
        threading.Thread(target=self._read, daemon=True).start()
        self._stderr = StderrTail(self.proc.stderr)
        atexit.register(self.close)
        self._send("usi")
        self._wait("usiok", self.startup_s)
        for key, value in self.options.items():
            self._send(f"setoption name {key} value {value}")
        self._send("isready")
        self._wait("readyok", self.startup_s)

    def _said(self) -> str:
        return self._stderr.said(self.proc) if self._stderr is not None else ""

    def _read(self):
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def _send(self, line: str):
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise UsiError(f"{self.name}: the engine exited{self._said()}") from None

    def _wait(self, prefix: str, seconds: float) -> str:
        end = time.monotonic() + seconds
        while True:
            try:
                line = self._lines.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                raise UsiError(f"{self.name}: no {prefix!r} within {seconds:.0f} s") from None
            if line is None:
                raise UsiError(f"{self.name}: the engine exited before {prefix!r}{self._said()}")
            if line.startswith("info"):
                self.infos.append(line)
                del self.infos[:-50]
            if line.split(" ", 1)[0] == prefix:
                return line

    def new_game(self, game) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        self._send("usinewgame")

    def play(self, state) -> int:
        if self.proc is None:
            self.new_game(state.game)
        self._send("position " + state.usi_position())
        self._send(f"go btime 0 wtime 0 byoyomi {self.byoyomi_ms}")
        reply = self._wait("bestmove", self.byoyomi_ms / 1000 + self.grace_s).split()
        move = reply[1] if len(reply) > 1 else ""
        if move == "resign":
            self.resignations += 1
            legal = state.legal_moves()
            return int(legal[self.rng.integers(len(legal))])
        try:
            return state.parse_move(move)
        except ValueError as e:
            raise UsiError(f"{self.name}: {e}") from None

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                self._send("quit")
                self.proc.wait(timeout=5)
            except (UsiError, subprocess.TimeoutExpired):
                self.proc.kill()


class EnginePlayer:
    """One of our shogi engines with fixed limits per move, as an arena player."""

    def __init__(self, engine, *, name: str, nodes: int | None = None, seconds: float | None = None):
        self.engine, self.name, self.nodes, self.seconds = engine, name, nodes, seconds

    def new_game(self, game) -> None:
        self.engine.new_game()

    def play(self, state) -> int:
        result = self.engine.search(state, nodes=self.nodes, seconds=self.seconds)
        return state.parse_move(result.best_move)


class RandomPlayer:
    """Uniformly random legal moves (seeded)."""

    def __init__(self, seed: int = 0, name: str = "random"):
        self.rng = np.random.default_rng(seed)
        self.name = name

    def new_game(self, game) -> None:
        pass

    def play(self, state) -> int:
        legal = state.legal_moves()
        return int(legal[self.rng.integers(len(legal))])


def _require_shogi(kind, game):
    if not getattr(game, "has_hands", False) or getattr(game, "kernels", None) is not None:
        raise ValueError(f"{kind}: plays shogi, not {game.name}")


def usi_player(arg: str, game, options: dict) -> UsiPlayer:
    """``usi:COMMAND[@BYOYOMI_MS]``."""
    command, at, byoyomi = arg.rpartition("@") if "@" in arg else (arg, "", "")
    if not command.strip():
        raise ValueError("usi:COMMAND needs a command (e.g. usi:usi-zeroplay)")
    try:
        byoyomi_ms = int(byoyomi) if at else 1000
    except ValueError:
        raise ValueError(f"usi:COMMAND@MS needs whole milliseconds after @, got {byoyomi!r}") from None
    return UsiPlayer(command, byoyomi_ms=byoyomi_ms, name=f"usi:{arg}")


def _count(kind: str, arg: str, low: int = 1) -> int:
    try:
        n = int(arg)
    except ValueError:
        raise ValueError(f"{kind}:N needs a whole number, got {kind}:{arg}") from None
    if not low <= n <= 10**9:
        raise ValueError(f"{kind}:N needs {low} <= N <= 10^9, got {kind}:{arg}")
    return n


def alphabeta_player(arg: str, game, options: dict) -> EnginePlayer:
    """``alphabeta:NODES``."""
    _require_shogi("alphabeta", game)
    from zeroplay.engine.shogi_alphabeta import AlphaBetaConfig, AlphaBetaEngine

    return EnginePlayer(AlphaBetaEngine(AlphaBetaConfig(hash_mib=32)), name=f"alphabeta:{arg}",
                        nodes=_count("alphabeta", arg))


def shogi_mcts_player(arg: str, game, options: dict) -> EnginePlayer:
    """``shogimcts:PLAYOUTS`` (material stand-in) or ``shogimcts:PLAYOUTS@MODEL`` (a
    ``zeroplay.nn.shogi_net`` checkpoint; one torch thread)."""
    _require_shogi("shogimcts", game)
    from zeroplay.engine.shogi_mcts import MctsEngine

    count, at, model = arg.partition("@")
    if at and not model:
        raise ValueError("shogimcts:PLAYOUTS@MODEL needs a checkpoint path after @")
    n = _count("shogimcts", count)
    engine = MctsEngine(playouts=n, model=model or None)
    if model:
        engine.evaluator.threads = 1
    return EnginePlayer(engine, name=f"shogimcts:{arg}", nodes=n)


def random_player(arg: str, game, options: dict) -> RandomPlayer:
    """``random:SEED``."""
    return RandomPlayer(_count("random", arg, low=0) if arg else 0, name=f"random:{arg}")
