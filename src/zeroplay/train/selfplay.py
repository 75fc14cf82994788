"""Self-play: many games at once through the lockstep batched search, one Searcher per game.

``SelfPlayer(game, evaluator, config).play(n)`` plays ``n`` games, ``parallel_games`` at a time.
Every round, each game whose search is running queues a batch of leaves; the leaves of all games
go to the evaluator in ONE call (``zeroplay.search.evaluate_batches``), so the network sees
batches of ``parallel_games * batch_size`` positions. A game whose search has finished plays its
move at once and starts its next search in the same round (no game waits for the slowest).

Per move (after AlphaZero and KataGo):
  * search: ``playouts`` new playouts (the reused subtree's visits come on top: tree reuse), root
    Dirichlet noise on; with playout cap randomization (``full_search_prob < 1``) only that
    fraction of moves gets the full search and a policy target, the others a ``fast_playouts``
    search without noise and no target (KataGo).
  * move: for the first ``temperature_moves`` plies sampled from the visit counts with
    temperature ``temperature`` (1: proportional to visits), then the search's best move
    (``final_temperature`` 0); a proven win is always played, a proven loss never while another
    move is not proven lost.
  * policy target pi: the visit distribution of the root; one-hot on the winning move when the
    root is proven won (the search stops as soon as it finds it, so its visits say little).
  * resignation: the mover resigns when the root Q and the best move's Q (both from the mover's
    view) stay below ``resign_threshold`` for ``resign_moves`` consecutive own moves. A fraction
    ``no_resign_fraction`` of games never resigns; there the first would-be resignation is noted
    and, when the would-be resigner does not lose after all, counted as a false resignation.

The unit a worker process (or a Ray actor) wraps is ``SelfPlayer``: give it weights
(``set_evaluator``), ask for games (``play``), get ``FinishedGame`` objects back.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from zeroplay.games import Game, State
from zeroplay.games.records import GameRecord, record_of_game
from zeroplay.search import Limits, SearchConfig, Searcher, SearchResult, apply_temperature, lockstep_round
from zeroplay.train.targets import FROM_BOARD, Samples, game_samples

MAX_PARALLEL_GAMES = 1024
"""Most games one self-play worker plays at once (``SelfPlayConfig.parallel_games``)."""
MAX_BATCH_SIZE = 1024
"""Most leaves one game's search gathers per round (``SelfPlayConfig.batch_size``)."""


MAX_OPENINGS = 100_000
"""Most start positions a self-play config holds (``FileOpenings.MAX_FILE_LINES``)."""
MAX_OPENING_PLIES = 64
"""Longest start position."""


@dataclass(frozen=True)
class SelfPlayConfig:
    """Self-play settings (defaults: AlphaZero / KataGo habits scaled to small boards)."""

    # --- search -----------------------------------------------------------------------------
    playouts: int = 400
    """New playouts per full search (reused visits come on top)."""
    batch_size: int = 16
    """Leaves each game queues per round under virtual loss."""
    parallel_games: int = 8
    """Games played at once; their leaves share one evaluator call per round (8 x 16 leaves:
    the tiny net's best measured positions per CPU-second; see docs/BENCHMARKS.md)."""
    one_ply_proofs: bool = True
    """The search's one-ply proofs (win now / block now): keeps young nets from missing fives."""
    threat_solver: bool = False
    """Gomoku: the search's VCF threat solver (``SearchConfig.threat_solver``: at the root and at
    every new node), so that forced wins by fours are played and their positions get proven
    values; it also plays in the training run's arena. Ignored for other games."""
    c_puct: float = 1.25
    """PUCT exploration constant (AlphaZero pseudocode: 1.25)."""
    dirichlet_total_alpha: float = 10.0
    """Root noise concentration summed over the legal moves (KataGo: 10.83)."""
    dirichlet_epsilon: float = 0.25
    """Root noise weight (AlphaZero: 0.25)."""

    # --- root policy (search/gumbel.py) ----------------------------------------------------
    root_policy: str = "puct"
    """"puct" (Dirichlet noise, visit-count targets, moves sampled with ``temperature``) or
    "gumbel" (Danihelka et al. 2022: Gumbel-top-k + sequential halving at the root; the move
    played is the Gumbel search's choice, with its noise as the exploration, and the target is
    the improved policy). ``SearchConfig.root_policy``."""
    gumbel_m: int = 16
    """Gumbel root candidates m (mctx: 16)."""

    # --- forced playouts + policy target pruning (KataGo; search/forced.py) -----------------
    forced_playouts_k: float = 0.0
    """k of n_forced(c) = sqrt(k * P(c) * sum_b N(b)) at the root of full (noised) searches, and
    the pruning of those playouts from the policy target; 0 turns it off (KataGo: 2). PUCT root
    only."""

    # --- playout cap randomization (KataGo) ------------------------------------------------
    full_search_prob: float = 1.0
    """Share of moves searched with ``playouts`` and kept as policy targets; 1 turns it off."""
    fast_playouts: int = 64
    """Playouts of the other (fast, noise-free, no target) searches."""

    # --- move choice --------------------------------------------------------------------------
    openings: tuple = ()
    """Start positions: each game first plays one of these action sequences (tuples of actions
    from the initial position, each leaving the game open; ``FileOpenings`` checks a file's),
    drawn uniformly; those plies get no search and give no training sample. Empty: every game
    starts from the initial position. For a first-player-win game such as free-style Gomoku,
    openings the net rates near even keep White's games from being mostly lost (Gomocup's
    balanced openings; docs/TRAINING.md, "The 15x15 run after iteration 83")."""
    temperature_moves: int = 8
    """Plies (from the start, opening plies included) whose move is sampled with ``temperature``."""
    temperature: float = 1.0
    """tau of the opening plies: P(a) ~ N(a)^(1/tau)."""
    final_temperature: float = 0.0
    """tau afterwards; 0 plays the search's best move."""

    # --- resignation ----------------------------------------------------------------------------
    resign_threshold: float | None = -0.9
    """Resign when root Q and best-move Q (mover's view, in [-1, 1]) are below this; None: never."""
    resign_moves: int = 2
    """... for this many consecutive own moves."""
    no_resign_fraction: float = 0.1
    """Share of games that never resign (their would-be resignations measure false resignations)."""

    # --- network ------------------------------------------------------------------------------
    precision: str = "auto"
    """Inference precision of the net in self-play workers: "fp32", "bf16" (about 1.7x the
    positions/s on CPUs with bf16 units, measured; priors and values to ~3 digits), or "auto"
    (bf16 where the CPU has native bf16 support, else fp32). Training stays in fp32."""

    seed: int | None = None
    """Seed of everything random in self-play (noise, sampling, which games resign); None: fresh."""

    def __post_init__(self):
        # config.json and worker processes hand the openings over as lists
        object.__setattr__(self, "openings", tuple(tuple(int(a) for a in line) for line in self.openings))
        if len(self.openings) > MAX_OPENINGS:
            raise ValueError(f"--selfplay-openings: {len(self.openings):,} openings, at most {MAX_OPENINGS:,}")
        for number, line in enumerate(self.openings, start=1):
            if not 0 < len(line) <= MAX_OPENING_PLIES:
                raise ValueError(f"--selfplay-openings: opening {number} has {len(line)} plies, "
                                 f"1..{MAX_OPENING_PLIES} allowed")
        if self.playouts < 1 or self.fast_playouts < 1 or self.batch_size < 1 or self.parallel_games < 1:
            raise ValueError("playouts, fast_playouts, batch_size and parallel_games must be >= 1")
        # each game holds a search tree and a batch of leaves, so these two size the memory: a
        # new user's --search-batch 2000000 grew past 5 GB in 7 s before anything refused it
        if self.parallel_games > MAX_PARALLEL_GAMES or self.batch_size > MAX_BATCH_SIZE:
            raise ValueError(f"parallel_games must be <= {MAX_PARALLEL_GAMES} and batch_size <= {MAX_BATCH_SIZE}, "
                             f"got {self.parallel_games} and {self.batch_size}")
        if not 0.0 < self.full_search_prob <= 1.0:
            raise ValueError(f"full_search_prob must be in (0, 1], got {self.full_search_prob}")
        if not 0.0 <= self.no_resign_fraction <= 1.0:
            raise ValueError(f"no_resign_fraction must be in [0, 1], got {self.no_resign_fraction}")
        if self.temperature < 0 or self.final_temperature < 0 or self.temperature_moves < 0:
            raise ValueError("temperatures and temperature_moves must be >= 0")
        if self.resign_moves < 1:
            raise ValueError("resign_moves must be >= 1")
        if self.root_policy not in ("puct", "gumbel"):
            raise ValueError(f"root_policy must be 'puct' or 'gumbel', got {self.root_policy!r}")
        if self.gumbel_m < 1 or not self.forced_playouts_k >= 0:
            raise ValueError("gumbel_m must be >= 1 and forced_playouts_k >= 0")
        if self.forced_playouts_k > 0 and self.root_policy == "gumbel":
            raise ValueError("forced playouts are a PUCT root's; the Gumbel root plans its own visits")
        if self.precision not in ("auto", "fp32", "bf16"):
            raise ValueError(f"precision must be 'auto', 'fp32' or 'bf16', got {self.precision!r}")

    def to_dict(self) -> dict:
        return asdict(self)

    def search_config(self, *, noise: bool, seed: int | None, game) -> SearchConfig:
        """The SearchConfig of one game's searcher, sized for ``playouts`` per move plus reuse
        by the search's rule (``SearchConfig.for_playouts``)."""
        return SearchConfig.for_playouts(
            self.playouts, game,
            c_puct=self.c_puct, batch_size=self.batch_size, noise=noise,
            dirichlet_total_alpha=self.dirichlet_total_alpha, dirichlet_epsilon=self.dirichlet_epsilon,
            eval_cache_size=1 << 13,
            one_ply_proofs=self.one_ply_proofs, threat_solver=self.threat_solver, seed=seed,
            root_policy=self.root_policy, gumbel_m=self.gumbel_m,
            forced_playouts_k=self.forced_playouts_k,  # the search forces only when noised
        )


@dataclass
class FinishedGame:
    """One self-play game.

    Attributes:
        moves: actions played, Black first.
        policies: per move, the policy target float32 (A,) of the position before it, or None
            (a fast search under playout cap randomization).
        root_q: per move, the root Q of its search from the mover's view.
        winner: 0 / 1, or None for a draw.
        resigned: the loser resigned (the position is not finished).
        resign_disabled: a no-resign game.
        would_resign: in a no-resign game, the player who would have resigned first, else None.
        playouts: playouts run over the whole game.
        seconds: wall time from its first search to its last move.
        weights_version: version of the weights that played it (``SelfPlayer.set_evaluator``).
    """

    moves: list[int]
    policies: list[np.ndarray | None]
    root_q: list[float]
    winner: int | None
    resigned: bool = False
    resign_disabled: bool = False
    would_resign: int | None = None
    playouts: int = 0
    seconds: float = 0.0
    weights_version: int = 0

    @property
    def false_resignation(self) -> bool | None:
        """True when a would-be resigner did not lose; None when no resignation was checked."""
        if self.would_resign is None:
            return None
        return self.winner != 1 - self.would_resign

    @property
    def targets(self) -> int:
        """Moves with a policy target (the samples this game gives)."""
        return sum(p is not None for p in self.policies)

    def samples(self, game: Game, features: str) -> Samples:
        """(planes, pi, z) of the moves with a policy target, z from the side to move."""
        winner = self.winner if self.resigned else FROM_BOARD
        return game_samples(game, self.moves, self.policies, features, winner=winner)

    def record(self, game: Game, *, black: str = "zeroplay", white: str = "zeroplay") -> GameRecord:
        """A PSQ/SGF record (Gomoku family: actions are cells)."""
        return record_of_game(game, self.moves, black=black, white=white,
                              winner=self.winner if self.resigned else "from-board", resigned=self.resigned,
                              comment=f"self-play, weights version {self.weights_version}")


@dataclass
class _Slot:
    """One game in progress (a row of the lockstep batch)."""

    searcher: Searcher
    configs: tuple[SearchConfig, SearchConfig]  # the searcher's: (noisy for a full search, quiet)
    state: State | None = None
    moves: list = field(default_factory=list)
    policies: list = field(default_factory=list)
    root_q: list = field(default_factory=list)
    full: bool = True
    resign_disabled: bool = False
    would_resign: int | None = None
    below: list = field(default_factory=lambda: [0, 0])
    playouts: int = 0
    started: float = 0.0


GC_YOUNG_THRESHOLD = 100_000
"""Allocations between two young-generation collections of Python's cyclic GC during self-play
(CPython's default is 700 in 3.11-3.13). Each round makes thousands of short-lived objects (torch
tensors, numpy views), none of them in cycles, and the default made the collector run every few
rounds: about 2 % of 9x9 Go self-play's time, 0.6 % at this threshold (docs/BENCHMARKS.md)."""


@contextlib.contextmanager
def fewer_collections():
    """Raise the GC's young-generation threshold to ``GC_YOUNG_THRESHOLD`` inside the block and
    restore the thresholds after (nothing changes where they are already higher)."""
    old = gc.get_threshold()
    if old[0] == 0 or old[0] >= GC_YOUNG_THRESHOLD:  # (0: the collector is switched off)
        yield
        return
    gc.set_threshold(GC_YOUNG_THRESHOLD, *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


class SelfPlayer:
    """Plays self-play games with one evaluator, ``config.parallel_games`` at a time.

    Args:
        game: the Game.
        evaluator: the search's evaluator (a ``NetEvaluator``; ``UniformEvaluator`` in tests).
        config: SelfPlayConfig.
        weights_version: recorded in each game (e.g. the training iteration of the weights).

    Attributes:
        playouts: playouts run since construction; moves: moves played since construction.
    """

    def __init__(self, game: Game, evaluator, config: SelfPlayConfig = SelfPlayConfig(), *,
                 weights_version: int = 0):
        self.game = game
        self.config = config
        self.rng = np.random.default_rng(config.seed)
        self._searchers: list[tuple[Searcher, tuple[SearchConfig, SearchConfig]]] = []
        self.playouts = 0
        self.moves = 0
        self.set_evaluator(evaluator, weights_version)

    def set_evaluator(self, evaluator, weights_version: int = 0) -> None:
        """New weights: later searches use ``evaluator``; trees and evaluation caches are dropped."""
        self.evaluator = evaluator
        self.weights_version = int(weights_version)
        self._searchers = []  # rebuilt lazily: their caches and trees hold the old net's outputs

    def _searcher(self, i: int) -> tuple[Searcher, tuple[SearchConfig, SearchConfig]]:
        """The ``i``-th searcher, with its configs: (noisy for a full search, quiet for a fast one)."""
        while len(self._searchers) <= i:
            seed = int(self.rng.integers(1 << 62))
            cfg = self.config.search_config(noise=True, seed=seed, game=self.game)
            s = Searcher(self.game, self.evaluator, cfg)
            self._searchers.append((s, (cfg, cfg.replace(noise=False))))
        return self._searchers[i]

    # --- one game's steps ----------------------------------------------------------------------
    def _new_game(self, slot: _Slot) -> None:
        slot.searcher.reset()
        slot.state = self.game.initial()
        slot.moves, slot.policies, slot.root_q = [], [], []
        if self.config.openings:
            opening = self.config.openings[int(self.rng.integers(len(self.config.openings)))]
            for action in opening:
                slot.state = slot.state.play(action)
                slot.moves.append(action)
                slot.policies.append(None)  # not searched: no sample
                slot.root_q.append(0.0)
        slot.resign_disabled = self.config.resign_threshold is None or \
            bool(self.rng.random() < self.config.no_resign_fraction)
        slot.would_resign = None
        slot.below = [0, 0]
        slot.playouts = 0
        slot.started = time.perf_counter()

    def _start_search(self, slot: _Slot) -> None:
        cfg = self.config
        slot.full = cfg.full_search_prob >= 1.0 or bool(self.rng.random() < cfg.full_search_prob)
        noisy, quiet = slot.configs
        # SearchConfig.noise is read when the root priors are prepared: switching the config
        # object between searches turns the noise off for fast searches (nothing else differs)
        slot.searcher.config = noisy if slot.full else quiet
        playouts = cfg.playouts if slot.full else cfg.fast_playouts
        assert slot.state is not None  # _new_game set it
        slot.searcher.start(slot.state, Limits(playouts=playouts))

    def _choose(self, slot: _Slot, result: SearchResult) -> int:
        ply = len(slot.moves)
        tau = self.config.temperature if ply < self.config.temperature_moves else self.config.final_temperature
        if tau <= 0 or result.proven == "win" or self.config.root_policy == "gumbel":
            assert result.best_move is not None  # the position is not over: the search has a move
            return int(result.best_move)  # a Gumbel search's choice is already a sample
        stats = [s for s in result.moves if s.proven != "loss"] or list(result.moves)
        visits = np.array([s.visits for s in stats], np.float64)
        if visits.sum() <= 0:
            assert result.best_move is not None  # the position is not over: the search has a move
            return int(result.best_move)
        p = apply_temperature(visits, tau)
        return int(stats[int(self.rng.choice(len(stats), p=p))].move)

    def _target(self, result: SearchResult, searcher: Searcher) -> np.ndarray:
        pi = result.policy
        if result.proven == "win" or pi is None or pi.sum() <= 0:
            pi = np.zeros(self.game.num_actions, np.float32)
            assert result.best_move is not None  # the position is not over: the search has a move
            pi[int(result.best_move)] = 1.0
        elif self.config.forced_playouts_k > 0:
            pi = self._pruned_target(result, searcher)
        return pi.astype(np.float32)

    def _pruned_target(self, result: SearchResult, searcher: Searcher) -> np.ndarray:
        """The visit distribution without the forced playouts (KataGo's policy target pruning)."""
        from zeroplay.search.forced import prune_policy_target

        moves = np.array([s.move for s in result.moves], np.int64)
        used = searcher.root_priors()[moves]  # the noised priors the root searched with
        cfg = searcher.config
        c_root = cfg.c_puct + cfg.c_puct_log * np.log((result.root_visits + cfg.c_puct_base) / cfg.c_puct_base)
        pruned = prune_policy_target(np.array([s.visits for s in result.moves]), np.array([s.q for s in result.moves]),
                                     used, k=self.config.forced_playouts_k, c_puct=float(c_root))
        pi = np.zeros(self.game.num_actions, np.float32)
        pi[moves] = pruned
        return pi

    def _resigns(self, slot: _Slot, result: SearchResult, mover: int) -> bool:
        """Update the mover's run of hopeless moves; True when the mover resigns now."""
        thr = self.config.resign_threshold
        if thr is None:
            return False
        best_q = next((s.q for s in result.moves if s.move == result.best_move), result.root_q)
        slot.below[mover] = slot.below[mover] + 1 if (result.root_q < thr and best_q < thr) else 0
        if slot.below[mover] < self.config.resign_moves:
            return False
        if slot.resign_disabled:
            if slot.would_resign is None:
                slot.would_resign = mover
            return False
        return True

    def _after_search(self, slot: _Slot) -> FinishedGame | None:
        """Play the searched move; returns the game when it ended (else starts the next search)."""
        assert slot.state is not None  # _new_game set it
        mover = slot.state.to_play
        result = slot.searcher.result()
        slot.playouts += result.playouts
        self.playouts += result.playouts
        move = self._choose(slot, result)
        slot.policies.append(self._target(result, slot.searcher) if slot.full else None)
        slot.root_q.append(float(result.root_q))
        resign = self._resigns(slot, result, mover)
        if resign:
            # no move follows the resigning position: it gives no sample
            slot.policies.pop()
            slot.root_q.pop()
            return self._finished(slot, winner=1 - mover, resigned=True)
        slot.moves.append(move)
        self.moves += 1
        slot.state = slot.state.play(move)
        if slot.state.is_terminal:
            return self._finished(slot, winner=slot.state.winner, resigned=False)
        return None

    def _finished(self, slot: _Slot, winner: int | None, resigned: bool) -> FinishedGame:
        return FinishedGame(
            moves=list(slot.moves), policies=list(slot.policies), root_q=list(slot.root_q),
            winner=winner, resigned=resigned, resign_disabled=slot.resign_disabled,
            would_resign=slot.would_resign, playouts=slot.playouts,
            seconds=time.perf_counter() - slot.started, weights_version=self.weights_version,
        )

    # --- many games ------------------------------------------------------------------------------
    def play(self, n_games: int, on_game: Callable[[FinishedGame], None] | None = None,
             progress=None, stop: Callable[[], bool] | None = None) -> list[FinishedGame]:
        """Play ``n_games`` games; returns them in the order they finished.

        Args:
            on_game: called with each game as soon as it ends (a worker streams them back).
            progress: optional tqdm-like object; ``update(1)`` per finished game.
            stop: checked once per round; when it returns True, ``play`` returns at once and the
                games in progress are dropped (time-limited runs, benchmarks).
        """
        with fewer_collections():
            return self._play(n_games, on_game, progress, stop)

    def _play(self, n_games, on_game, progress, stop) -> list[FinishedGame]:
        started, done = 0, []
        slots: list[_Slot] = []
        slot: _Slot | None  # None: the game ended and no new one starts in its row
        for i in range(min(self.config.parallel_games, n_games)):
            slots.append(_Slot(*self._searcher(i)))
        active: list[_Slot] = []
        for slot in slots:
            self._new_game(slot)
            self._start_search(slot)
            started += 1
            active.append(slot)
        while active:
            if stop is not None and stop():
                self.playouts += sum(s.searcher.playouts for s in active)  # the dropped searches'
                break
            # a game whose search is done plays its move (maybe several: a reused tree can be
            # proven already) and starts its next search, or ends and makes room for a new game
            still = []
            for slot in active:
                while slot.searcher.done:
                    game = self._after_search(slot)
                    if game is None:
                        self._start_search(slot)
                        continue
                    done.append(game)
                    if on_game is not None:
                        on_game(game)
                    if progress is not None:
                        progress.update(1)
                    if started >= n_games:
                        slot = None
                        break
                    self._new_game(slot)
                    self._start_search(slot)
                    started += 1
                if slot is not None:
                    still.append(slot)
            active = still
            lockstep_round([s.searcher for s in active])
        return done
