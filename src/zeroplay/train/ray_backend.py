"""Self-play on Ray actors (``zeroplay train --backend ray``): the interface of ``WorkerPool``.

The learner stays on the driver (``TrainingRun``); only self-play moves out. Each actor wraps the
local backend's ``LocalSelfPlay`` (one ``SelfPlayer``, its lockstep batched search and its own net
with one torch thread), so both backends play games with the same code::

    driver (TrainingRun)                               actor i (one CPU, any node)
    set_weights: ray.put(safetensors bytes) once  -->  object store  (fetched once per node)
    play(n):     actor.play([ref], version, seed_i, n_i)   -> streaming generator
                 <-- one ObjectRef per finished game       FinishedGame (moves, pi, root Q,
                 ray.get, weights version checked,         result, weights version)
                 on_game(game) -> shards, records, metrics

Game ids are given by the driver when it accepts a game (``TrainingRun._flush``), so nothing an
actor does can write a game twice. The planes of the samples are made on the driver from the
moves: what comes back is the game, not its tensors (see docs/DISTRIBUTED.md for the bytes).

Failures: a stream that breaks (the actor was killed, its process or node died) loses only the
games that actor had in progress. The driver then waits for Ray to restart the actor
(``max_restarts``) or, when Ray will not (``ray.kill``, restarts used up), replaces it with a new
one, and asks it for the games still owed, with a fresh seed. ``play(n)`` therefore returns
exactly ``n`` games. An error raised by the self-play code itself is not retried: it propagates.

``--address`` omitted: a local Ray instance, loopback only (every Ray socket bound to
127.0.0.1), no dashboard, a small object store, ``num_cpus`` = the workers; it is shut down on
``close``. ``auto`` or ``HOST:PORT``: joins that cluster (``ray start``) and leaves it running.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import threading
import time
from collections.abc import Callable

from zeroplay.train.selfplay import FinishedGame, SelfPlayConfig

INSTALL_HINT = "pip install 'zeroplay[ray]'"
"""How to get the optional dependency (the ``ray`` extra of pyproject.toml)."""

MIN_RAY = (2, 9)
"""Oldest Ray with streaming generator actor methods that ``ray.wait`` accepts."""

OBJECT_STORE_BYTES = 128 * 1024 * 1024
"""Object store of a local instance: the weights (a few MB) and the games in flight fit many times."""

ACTOR_RESTARTS = 3
"""``max_restarts`` of each actor: Ray restarts a crashed actor this many times, then we replace it."""


class RayUnavailableError(ImportError):
    """Ray is not installed (or too old); the message says how to install it."""


def require_ray():
    """The ``ray`` module.

    Raises:
        RayUnavailableError: ray is missing or older than ``MIN_RAY``.
    """
    try:
        import ray
    except ImportError as e:
        raise RayUnavailableError(
            f"--backend ray needs Ray, which is not installed ({e}). Install it with: {INSTALL_HINT}") from e
    try:
        version = tuple(int(x) for x in ray.__version__.split(".")[:2])
    except ValueError:
        version = MIN_RAY
    if version < MIN_RAY:
        raise RayUnavailableError(
            f"--backend ray needs ray>={'.'.join(map(str, MIN_RAY))}, found {ray.__version__}. "
            f"Upgrade with: {INSTALL_HINT} --upgrade")
    return ray


def ray_missing_message() -> str | None:
    """None when Ray can be used, else a message saying how to install it (for the CLI)."""
    try:
        require_ray()
    except RayUnavailableError as e:
        return f"zeroplay train: error: {e}"
    return None


@contextlib.contextmanager
def _loopback_only():
    """Make a Ray instance started inside the block use 127.0.0.1 for every socket.

    Ray maps a node address of 127.0.0.1 to the machine's reachable address (and then listens on
    all interfaces) unless its "no cluster" switch is set, as it is on macOS and Windows. The
    switch is read from the environment (for the processes Ray starts) and from a module constant
    (for this process); both are restored afterwards, so a later ``ray.init(address=...)`` in
    this process joins real clusters normally.
    """
    from ray._private import ray_constants

    name = getattr(ray_constants, "ENABLE_RAY_CLUSTERS_ENV_VAR", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER")
    saved_env = {k: os.environ.get(k) for k in (name, "RAY_USAGE_STATS_ENABLED")}
    saved_flag = getattr(ray_constants, "ENABLE_RAY_CLUSTER", None)
    os.environ[name] = "0"
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # a local run reports nothing anywhere
    if saved_flag is not None:
        ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        if saved_flag is not None:
            ray_constants.ENABLE_RAY_CLUSTER = saved_flag
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def connect(address: str | None = None, *, num_cpus: int | None = None,
            object_store_bytes: int = OBJECT_STORE_BYTES) -> bool:
    """Connect this process to Ray; returns True when this call connected it (and so the caller
    should ``ray.shutdown()`` at the end: that ends a local instance it started, and only
    disconnects from a joined cluster), False when it was connected already.

    Args:
        address: None starts a local instance (loopback only, no dashboard, ``num_cpus`` CPUs,
            ``object_store_bytes`` of object store); ``"auto"`` or ``"HOST:PORT"`` joins a running
            cluster. Ignored when this process is already connected (``ray.is_initialized()``).
        num_cpus: CPUs of a local instance (default: the cores available to this process).
    """
    ray = require_ray()
    if ray.is_initialized():
        return False
    if address is None:
        from zeroplay.train.workers import default_workers

        with _loopback_only():
            ray.init(address="local", num_cpus=num_cpus or default_workers(), include_dashboard=False,
                     object_store_memory=int(object_store_bytes), _node_ip_address="127.0.0.1",
                     namespace="zeroplay")
    else:
        check_reachable(address)
        ray.init(address=address, namespace="zeroplay")
    return True


def check_reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast on a cluster address nothing listens at: Ray itself retries for minutes.

    ``address`` is ``"auto"`` (what Ray makes of it, ``auto_address``, is checked in its place;
    none: no running cluster found), ``"HOST:PORT"`` (the head's GCS port, 6379 by default) or
    ``"ray://HOST:PORT"`` (Ray Client, 10001 by default).

    Both ports serve gRPC, so beyond the TCP connection the check opens an HTTP/2 connection (RFC
    9113, section 3.4: the client preface, answered by the server's SETTINGS frame): a port where
    something else listens (a web server, a database) is refused as well, where Ray would wait on
    its own retries.

    Raises:
        ConnectionError: no TCP connection to HOST:PORT within ``timeout`` seconds, or what answers
            there does not speak HTTP/2 (not a Ray head).
        ValueError: the address is not of those forms.
    """
    import socket

    if address == "auto":
        found = auto_address()
        if found is None:
            raise ConnectionError("--address auto: no running Ray cluster found (none started with `ray start` "
                                  "on this machine, RAY_ADDRESS not set); start one with `ray start --head`, "
                                  "or leave --address out for a local one")
        if found != "auto":
            try:
                check_reachable(found, timeout)
            except ConnectionError as e:
                raise ConnectionError(f"--address auto: {e}") from None
            except ValueError:  # a RAY_ADDRESS of another form: Ray's to judge
                pass
        return
    rest = address[len("ray://"):] if address.startswith("ray://") else address
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f"--address must be auto, HOST:PORT or ray://HOST:PORT, got {address!r}")
    if not 0 < int(port) < 65536:
        raise ValueError(f"--address {address}: port {int(port)} is out of range (1..65535)")
    hint = "start one with `ray start --head` there, or leave --address out for a local one"
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout) as conn:
            conn.settimeout(min(timeout, 2.0))  # a gRPC server answers the preface at once
            answer = _http2_settings(conn)
    except OSError as e:
        raise ConnectionError(f"no Ray cluster reachable at {address} ({e.strerror or e}); {hint}") from None
    if answer is None:
        raise ConnectionError(f"no Ray cluster at {address}: something accepts connections there but does not "
                              f"answer (a Ray head's gRPC port answers at once); {hint}")
    if not answer:
        raise ConnectionError(f"no Ray cluster at {address}: something listens there, but it does not speak "
                              f"gRPC as a Ray head does; {hint}")


def auto_address() -> str | None:
    """The cluster that Ray's ``address="auto"`` joins, as Ray finds it, without connecting: the
    ``RAY_ADDRESS`` environment variable, else the cluster last started with ``ray start`` on this
    machine (``ray_current_cluster`` in Ray's temp dir: ``$RAY_TMPDIR/ray``, default ``/tmp/ray``),
    else a Ray head process running here. None when there is none (``ray.init`` would fail with
    its own message), ``"auto"`` when this Ray has no such lookup (then ``ray.init`` decides).
    """
    require_ray()
    try:
        from ray._private.services import get_ray_address_from_environment
    except ImportError:
        return "auto"
    try:
        return get_ray_address_from_environment("auto", None)
    except ConnectionError:
        return None
    except TypeError:  # another signature in another Ray version
        return "auto"


_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
_EMPTY_SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"  # length 0, type 4 (SETTINGS), flags 0, stream 0


def _http2_settings(conn) -> bool | None:
    """Send the HTTP/2 client preface on ``conn``: True when the first frame back is SETTINGS,
    False for another answer (or a hang-up), None for no answer within the socket's timeout."""
    conn.sendall(_HTTP2_PREFACE + _EMPTY_SETTINGS)
    head = b""
    try:
        while len(head) < 9:
            chunk = conn.recv(9 - len(head))
            if not chunk:
                return False
            head += chunk
    except TimeoutError:
        return None if not head else False
    # a frame header: 24-bit length, 8-bit type, flags, 31-bit stream id (0 for connection frames)
    return head[3] == 0x04 and int.from_bytes(head[5:9], "big") & 0x7FFFFFFF == 0


# --- actor side -------------------------------------------------------------------------------------
_DONE = object()


class _Failure:
    def __init__(self, error: BaseException):
        self.error = error


class SelfPlayActor:
    """Body of a self-play actor (made a Ray actor by ``RaySelfPlay``): a ``LocalSelfPlay``.

    Args:
        game_name, game_options: the game, rebuilt here.
        arch: ``ArchSpec.to_dict()`` of the net.
        features: input feature set.
        config: ``SelfPlayConfig.to_dict()`` (its ``parallel_games`` are this actor's).
    """

    def __init__(self, game_name: str, game_options: dict, arch: dict, features: str, config: dict):
        import torch

        torch.set_num_threads(1)
        from zeroplay.games import make
        from zeroplay.train.workers import LocalSelfPlay

        self.local = LocalSelfPlay(make(game_name, **game_options), arch, features, SelfPlayConfig(**config))
        self._key: tuple | None = None

    def where(self) -> dict:
        """Where this actor runs: ``{"node_id", "node_ip", "pid"}``."""
        import ray

        return {"node_id": ray.get_runtime_context().get_node_id(), "node_ip": ray.util.get_node_ip_address(),
                "pid": os.getpid()}

    def play(self, weights: list, version: int, seed: int, n_games: int):
        """Generator: play ``n_games`` games with the weights in ``weights[0]`` (an ObjectRef of
        safetensors bytes, wrapped in a list so that Ray hands over the reference, and the bytes
        are fetched only when the version or seed is new); yields each ``FinishedGame`` as it ends.
        """
        import ray

        if self._key != (version, seed):
            self.local.set_weights(ray.get(weights[0]), version, seed)
            self._key = (version, seed)
        # LocalSelfPlay reports games through a callback; a thread turns that into this stream
        games: queue.SimpleQueue = queue.SimpleQueue()

        def body():
            try:
                import torch

                torch.set_num_threads(1)
                self.local.play(n_games, games.put)
                games.put(_DONE)
            except BaseException as e:  # handed to the stream, which raises it on the driver
                games.put(_Failure(e))

        thread = threading.Thread(target=body, name="zeroplay-selfplay", daemon=True)
        thread.start()
        while True:
            item = games.get()
            if item is _DONE:
                break
            if isinstance(item, _Failure):
                raise item.error
            yield item
        thread.join()


# --- driver side ------------------------------------------------------------------------------------
class RaySelfPlay:
    """Self-play games from Ray actors, one CPU each.

    Args:
        game: the Game (rebuilt on each actor from its name and options).
        arch: ``ArchSpec.to_dict()`` of the network.
        features: input feature set.
        config: SelfPlayConfig (its ``parallel_games`` is per actor).
        workers: actors; None or 0: one per CPU (of the local instance: the cores here; of a
            joined cluster: all its CPUs).
        address: None (start a local instance), ``"auto"`` or ``"HOST:PORT"`` (join a cluster).
        log: one-line messages (placement, failures, bytes per iteration); default: none.
        max_restarts: Ray's ``max_restarts`` per actor.

    Attributes:
        actors: the actor handles, by slot.
        last_slot: the slot whose actor played the game being handed to ``on_game``.
        stats: counters: ``weights_puts``, ``weights_bytes`` (last put), ``games``,
            ``game_bytes`` (pickled FinishedGame bytes accepted), ``stream_failures``,
            ``restarted`` (Ray restarted the actor), ``replaced`` (a new actor took the slot),
            ``stale_games`` (games of older weights, dropped).
    """

    START_TIMEOUT = 300.0
    """Seconds to wait for a restarted actor before replacing it."""

    def __init__(self, game, arch: dict, features: str, config: SelfPlayConfig, workers: int | None = None,
                 *, address: str | None = None, log: Callable[[str], None] | None = None,
                 max_restarts: int = ACTOR_RESTARTS):
        ray = require_ray()
        self.game, self.arch, self.features, self.config = game, arch, features, config
        self.log = log or (lambda msg: None)
        self._owns_ray = connect(address, num_cpus=workers or None)
        if not workers:
            workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._actor_class = ray.remote(SelfPlayActor).options(
            num_cpus=1, max_restarts=max_restarts, max_task_retries=0, scheduling_strategy="SPREAD")
        self.stats = {"weights_puts": 0, "weights_bytes": 0, "games": 0, "game_bytes": 0, "stream_failures": 0,
                      "restarted": 0, "replaced": 0, "stale_games": 0}
        self._weights: list | None = None
        self._version, self._seed = 0, 0
        self._placed = False
        self.last_slot = -1
        self.actors = [self._new_actor() for _ in range(int(workers))]

    @property
    def size(self) -> int:
        return len(self.actors)

    def _new_actor(self):
        return self._actor_class.remote(self.game.name, dict(self.game.options), self.arch, self.features,
                                        self.config.to_dict())

    def placement(self, timeout: float | None = None) -> list[dict | None]:
        """Per actor, ``SelfPlayActor.where()`` (None for an actor not running within ``timeout``)."""
        import ray

        refs = [a.where.remote() for a in self.actors]
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=timeout)
        done = set(ready)
        out = []
        for r in refs:
            try:
                out.append(ray.get(r) if r in done else None)
            except ray.exceptions.RayError:
                out.append(None)
        return out

    def set_weights(self, data: bytes, version: int, seed: int) -> None:
        """New weights for the games played from now on: one ``ray.put`` for all actors."""
        import ray

        self._weights = [ray.put(data)]
        self._version, self._seed = int(version), int(seed)
        self.stats["weights_puts"] += 1
        self.stats["weights_bytes"] = len(data)

    def _seed_of(self, slot: int, attempt: int) -> int:
        # as WorkerPool: per-slot seeds, and another one for each reissue of the slot's games
        return (self._seed + 7919 * (slot + 1) + 104729 * attempt) % (1 << 63)

    def play(self, n_games: int, on_game: Callable[[FinishedGame], None]) -> None:
        """Play ``n_games`` games across the actors; ``on_game`` gets each as it arrives.

        A broken stream (actor killed, node lost) drops the games that actor had in progress; its
        remaining games go to the restarted or replacing actor, so exactly ``n_games`` come back.
        """
        import ray
        from ray.exceptions import NodeDiedError, ObjectLostError, RayActorError, RayTaskError, WorkerCrashedError

        if self._weights is None:
            raise RuntimeError("set_weights first")
        if not self._placed:
            self._log_placement()
        owed = [n_games // self.size + (i < n_games % self.size) for i in range(self.size)]
        attempts = [0] * self.size
        streams: dict = {}
        for i in range(self.size):
            if owed[i]:
                streams[self._issue(i, owed[i], attempts)] = i
        failures, bytes_before = 0, self.stats["game_bytes"]
        while streams:
            ready: list  # streaming generators (ObjectRefGenerator), which ray.wait's annotation calls ObjectRefs
            ready, _ = ray.wait(list(streams), num_returns=1, timeout=30.0)
            for stream in ready:
                i = streams[stream]
                try:
                    game = ray.get(next(stream))
                except StopIteration:
                    del streams[stream]
                    if owed[i] > 0:  # a stream that ended early: ask again for what is missing
                        streams[self._issue(i, owed[i], attempts)] = i
                    continue
                except RayTaskError as e:  # the self-play code raised: a bug, not a lost machine
                    raise RuntimeError(f"self-play actor {i} failed:\n{e}") from e
                except (RayActorError, ObjectLostError, WorkerCrashedError, NodeDiedError) as e:
                    del streams[stream]
                    failures += 1
                    self.stats["stream_failures"] += 1
                    if failures > 10 * self.size + 10:
                        raise RuntimeError(f"self-play actors failed {failures} times in one call; giving up") from e
                    how = self._recover(i)
                    self.log(f"self-play actor {i} lost ({type(e).__name__}): its games in progress are "
                             f"dropped; {how}; {owed[i]} game(s) still owed")
                    if owed[i] > 0:
                        streams[self._issue(i, owed[i], attempts)] = i
                    continue
                if game.weights_version != self._version:
                    self.stats["stale_games"] += 1
                    continue
                owed[i] -= 1
                self.stats["games"] += 1
                self.stats["game_bytes"] += len(pickle.dumps(game, protocol=5))
                self.last_slot = i
                on_game(game)
        self.log(f"ray: weights {self.stats['weights_bytes']} bytes put once for {self.size} actor(s); "
                 f"{n_games} game(s), {self.stats['game_bytes'] - bytes_before} bytes back")

    def _issue(self, i: int, n: int, attempts: list):
        stream = self.actors[i].play.remote(self._weights, self._version, self._seed_of(i, attempts[i]), n)
        attempts[i] += 1
        return stream

    def _recover(self, i: int) -> str:
        """Make slot ``i`` usable again: the restarted actor, or a new one. Returns what happened."""
        import ray

        actor = self.actors[i]
        # recent Ray fails calls to a restarting actor at once with this error; older versions queue them
        restarting = getattr(ray.exceptions, "ActorUnavailableError", ())
        deadline = time.monotonic() + self.START_TIMEOUT
        while True:
            try:
                ray.get(actor.where.remote(), timeout=max(1.0, deadline - time.monotonic()))
                self.stats["restarted"] += 1
                return "actor restarted by Ray"
            except restarting:  # calls fail until it is up again
                if time.monotonic() >= deadline:
                    break
                time.sleep(0.5)
            except (ray.exceptions.RayError, TimeoutError):  # dead for good (ray.kill, restarts used up)
                break
        with contextlib.suppress(Exception):
            ray.kill(actor, no_restart=True)
        self.actors[i] = self._new_actor()
        self.stats["replaced"] += 1
        return "new actor started"

    def _log_placement(self) -> None:
        t0 = time.monotonic()
        where = self.placement(timeout=self.START_TIMEOUT)
        placed = [w for w in where if w is not None]
        nodes = sorted({w["node_ip"] + " " + w["node_id"][:8] for w in placed})
        self.log(f"self-play on Ray: {len(placed)}/{self.size} actor(s) up in {time.monotonic() - t0:.0f} s "
                 f"on {len(nodes)} node(s): {', '.join(nodes)}")
        self._placed = True

    def close(self) -> None:
        """Stop the actors; disconnect from Ray when this object connected (a local instance it
        started ends with it; a joined cluster keeps running)."""
        try:
            import ray
        except ImportError:
            return
        if not ray.is_initialized():
            return
        for actor in self.actors:
            with contextlib.suppress(Exception):
                ray.kill(actor, no_restart=True)
        self.actors = []
        if self._owns_ray:
            ray.shutdown()
            self._owns_ray = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
