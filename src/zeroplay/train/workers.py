"""Self-play on all cores: worker processes, each a ``SelfPlayer`` with its own copy of the net.

Design (measured against a shared inference process, see docs/BENCHMARKS.md "Self-play"): every
worker runs its own lockstep batch of games and its own network (one torch thread), so a worker
never waits for another. Messages go over one duplex ``Pipe`` per worker (a worker killed in the
middle of a send breaks only its own pipe):

    driver -> worker   ("weights", version, safetensors bytes, seed)   new net, new games' seed
                       ("play", task, n)                                play n games
                       ("stop",)
    worker -> driver   ("ready",) once started
                       ("game", task, FinishedGame)                     as each game ends
                       ("done", task)
                       ("error", text)

A worker that dies (killed, out of memory) loses only its games in progress: the pool starts a
new one, hands it the current weights and the games still owed, and goes on.

``LocalSelfPlay`` is the same interface in the calling process (``--workers 0``).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
import traceback
from collections.abc import Callable
from dataclasses import replace
from multiprocessing.connection import wait

from zeroplay.train.selfplay import FinishedGame, SelfPlayConfig, SelfPlayer


def weights_bytes(model) -> bytes:
    """A model's weights as safetensors bytes (what travels to the workers)."""
    from safetensors.torch import save

    return save({k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()})


def inference_model(model, precision: str = "fp32"):
    """The module a ``NetEvaluator`` should run: ``model`` itself (``"fp32"``) or a bfloat16 copy
    (``"bf16"``: inputs cast to bfloat16, outputs back to float32; uses the CPU's bf16 units where
    it has them). Weights loaded into ``model`` later do not reach a bf16 copy: make a new one."""
    if precision == "auto":
        precision = "bf16" if native_bf16() else "fp32"
    if precision == "fp32":
        return model
    if precision != "bf16":
        raise ValueError(f"precision must be 'fp32' or 'bf16', got {precision!r}")
    import copy

    import torch

    class Bf16(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = copy.deepcopy(inner).to(torch.bfloat16).eval()

        def forward(self, planes):
            logits, values = self.inner(planes.to(torch.bfloat16))
            return logits.float(), values.float()

    return Bf16(model)


def native_bf16() -> bool:
    """True when torch's CPU kernels have native bfloat16 support here (AVX512-BF16, AMX)."""
    try:
        import torch

        return bool(torch.backends.mkldnn.is_available() and torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


def _load_weights(model, data: bytes) -> None:
    from safetensors.torch import load

    model.load_state_dict(load(data), strict=True)
    model.eval()


def _evaluator(game, arch: dict, features: str, data: bytes | None, model=None, precision: str = "fp32"):
    from zeroplay.nn import NetEvaluator
    from zeroplay.nn.arch import ArchSpec
    from zeroplay.nn.models import model_from_spec

    if model is None:
        model = model_from_spec(ArchSpec.from_dict(arch))
    if data is not None:
        _load_weights(model, data)
    return NetEvaluator(inference_model(model, precision), features), model


class LocalSelfPlay:
    """Self-play in this process (no workers): the interface of ``WorkerPool``."""

    def __init__(self, game, arch: dict, features: str, config: SelfPlayConfig):
        self.game, self.arch, self.features, self.config = game, arch, features, config
        self._player: SelfPlayer | None = None
        self._model = None

    def set_weights(self, data: bytes, version: int, seed: int) -> None:
        evaluator, self._model = _evaluator(self.game, self.arch, self.features, data, self._model,
                                            self.config.precision)
        self._player = SelfPlayer(self.game, evaluator, replace(self.config, seed=seed), weights_version=version)

    def play(self, n_games: int, on_game: Callable[[FinishedGame], None]) -> None:
        assert self._player is not None  # set_weights comes first
        self._player.play(n_games, on_game=on_game)

    def close(self) -> None:
        pass


PARENT_CHECK_S = 1.0
"""How often a worker checks that the trainer that started it is still alive (seconds)."""


def _exit_with_parent(parent_pid: int) -> None:
    """Run in a worker's daemon thread: end the worker once its trainer is gone.

    A trainer killed with SIGKILL runs no clean-up, and a worker in the middle of a batch of games
    would only notice at its next send, a whole game later, perhaps minutes (issue 23). Once the
    parent dies the worker is re-parented, so ``getppid`` changes; ``PR_SET_PDEATHSIG`` is not used
    because it fires when the *thread* that started the worker ends, not the process."""
    import threading

    def watch():
        while os.getppid() == parent_pid:
            time.sleep(PARENT_CHECK_S)
        os._exit(0)

    threading.Thread(target=watch, name="zeroplay-parent-watch", daemon=True).start()


def _worker_main(conn, game_name: str, game_options: dict, arch: dict, features: str, config: dict,
                 parent_pid: int | None = None) -> None:
    """Body of a worker process; it ends when ``parent_pid`` (the trainer) does."""
    if parent_pid is not None:
        _exit_with_parent(parent_pid)
    try:
        import torch

        torch.set_num_threads(1)
        from zeroplay.games import make

        game = make(game_name, **game_options)
        model = None
        player: SelfPlayer | None = None
        conn.send(("ready",))
        while True:
            msg = conn.recv()
            if msg[0] == "stop":
                return
            if msg[0] == "weights":
                _, version, data, seed = msg
                evaluator, model = _evaluator(game, arch, features, data, model, config.get("precision", "fp32"))
                player = SelfPlayer(game, evaluator, SelfPlayConfig(**{**config, "seed": seed}),
                                    weights_version=version)
            elif msg[0] == "play":
                _, task, n = msg
                assert player is not None  # the trainer sends weights before play

                def send_game(g: FinishedGame, task=task) -> None:
                    conn.send(("game", task, g))

                player.play(n, on_game=send_game)
                conn.send(("done", task))
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        return
    except BaseException:
        try:
            conn.send(("error", traceback.format_exc()))
        except Exception:
            pass


class WorkerPool:
    """``workers`` self-play processes (context ``spawn``: safe with torch and numba threads).

    Args:
        game: the Game (rebuilt in each worker from its name and options).
        arch: ``ArchSpec.to_dict()`` of the network.
        features: input feature set.
        config: SelfPlayConfig (its ``parallel_games`` is per worker).
        workers: number of processes.
    """

    START_TIMEOUT = 300.0

    def __init__(self, game, arch: dict, features: str, config: SelfPlayConfig, workers: int,
                 context: str = "spawn"):
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.game, self.arch, self.features, self.config = game, arch, features, config
        self.ctx = mp.get_context(context)
        self._weights: tuple | None = None
        self.restarts = 0
        self._procs: list = [None] * workers
        self._conns: list = [None] * workers
        for i in range(workers):
            self._start(i)

    @property
    def size(self) -> int:
        return len(self._procs)

    def _start(self, i: int) -> None:
        parent, child = self.ctx.Pipe(duplex=True)
        # (typeshed's BaseContext, what get_context(str) returns, declares no Process; each start method's has one)
        p = self.ctx.Process(target=_worker_main, name=f"zeroplay-selfplay-{i}", daemon=True,  # type: ignore[attr-defined]
                             args=(child, self.game.name, dict(self.game.options), self.arch, self.features,
                                   self.config.to_dict(), os.getpid()))
        p.start()
        child.close()
        self._procs[i], self._conns[i] = p, parent
        if self._weights is not None:
            version, data, seed = self._weights
            parent.send(("weights", version, data, seed + 7919 * (i + 1) + 104729 * self.restarts))

    def _kill(self, i: int) -> None:
        p = self._procs[i]
        if p is not None and p.is_alive():
            p.kill()
        if p is not None:
            p.join(5)
        try:
            self._conns[i].close()
        except Exception:
            pass

    def set_weights(self, data: bytes, version: int, seed: int) -> None:
        """Send new weights to every worker (each gets its own seed derived from ``seed``)."""
        self._weights = (version, data, seed)
        for i, conn in enumerate(self._conns):
            try:
                conn.send(("weights", version, data, seed + 7919 * (i + 1)))
            except (BrokenPipeError, OSError):
                self._restart(i)

    def _restart(self, i: int) -> None:
        self._kill(i)
        self.restarts += 1
        self._start(i)

    def play(self, n_games: int, on_game: Callable[[FinishedGame], None]) -> None:
        """Play ``n_games`` games across the workers; ``on_game`` gets each as it ends.

        A worker that dies loses its games in progress; the games it still owed go to its
        replacement, so exactly ``n_games`` games come back.
        """
        owed = [n_games // self.size + (i < n_games % self.size) for i in range(self.size)]
        task = [0] * self.size
        busy = [False] * self.size
        for i in range(self.size):
            if owed[i]:
                self._send_play(i, owed[i], task)
                busy[i] = True
        while any(busy):
            by_conn = {self._conns[i]: i for i in range(self.size) if busy[i]}
            by_sentinel = {self._procs[i].sentinel: i for i in range(self.size) if busy[i]}
            ready = wait(list(by_conn) + list(by_sentinel), timeout=5.0)
            dead = set()
            for r in ready:
                if r in by_sentinel:
                    i = by_sentinel[r]
                    if not self._conns[i].poll():
                        dead.add(i)
                    continue
                i = by_conn[r]
                try:
                    msg = self._conns[i].recv()  # (r itself: wait's stub types it Connection | socket | int)
                except (EOFError, OSError, Exception):
                    dead.add(i)
                    continue
                if msg[0] == "game" and msg[1] == task[i]:
                    owed[i] -= 1
                    on_game(msg[2])
                elif msg[0] == "done" and msg[1] == task[i]:
                    busy[i] = owed[i] > 0
                    if busy[i]:  # should not happen: ask again for what is missing
                        self._send_play(i, owed[i], task)
                elif msg[0] == "error":
                    raise RuntimeError(f"self-play worker {i} failed:\n{msg[1]}")
            for i in dead:
                self._restart(i)
                if owed[i] > 0:
                    self._send_play(i, owed[i], task)

    def _send_play(self, i: int, n: int, task: list) -> None:
        task[i] += 1
        try:
            self._conns[i].send(("play", task[i], n))
        except (BrokenPipeError, OSError):
            self._restart(i)
            self._conns[i].send(("play", task[i], n))

    def pids(self) -> list[int]:
        return [p.pid for p in self._procs]

    def close(self) -> None:
        for conn in self._conns:
            try:
                conn.send(("stop",))
            except Exception:
                pass
        deadline = time.monotonic() + 5.0
        for i, p in enumerate(self._procs):
            p.join(max(0.0, deadline - time.monotonic()))
            self._kill(i)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def default_workers() -> int:
    """Cores available to this process."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


MAX_WORKERS_PER_CORE = 4
"""Most self-play processes a core of this machine: more only share the cores and cost memory."""


def check_local_workers(flag: str, workers: int | None) -> None:
    """Refuse more self-play processes on this machine than ``MAX_WORKERS_PER_CORE`` a core.

    Each is a Python process with torch and the compiled search (70-400 MB), so an unbounded count
    is unbounded memory: ``--workers 1000`` on 2 cores started processes until the machine could
    fork no more, which stopped other programs there too (helper-79).

    Raises:
        ValueError: one line naming ``flag``, the count and the most this machine takes.
    """
    most = MAX_WORKERS_PER_CORE * default_workers()
    if workers is not None and workers > most:
        raise ValueError(f"{flag} must be <= {most} on this machine ({MAX_WORKERS_PER_CORE} a core of its "
                         f"{default_workers()}), got {workers}; more only share the cores")
