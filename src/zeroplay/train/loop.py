"""The training loop: self-play -> replay shards -> train -> checkpoint -> arena -> metrics.

Run directory (everything a run needs to continue; nothing else is read)::

    RUN_DIR/
      config.json                     the run's settings (RunConfig), written when it starts;
                                      options given again on a resume replace the stored ones
      checkpoints/iter-000000.safetensors   the initial net; iter-N after iteration N's training
                                      (weights, optimizer state, step, and in ``extra``:
                                      iteration, games_total, samples_total, the train summary)
      evals/iter-000000.json          arena results of iteration N, the best iteration after it
                                      and the cumulative Elo (written last: an iteration is
                                      complete when its eval file exists)
      shards/shard-FIRST-LAST.npz     replay buffer (``ReplayBuffer``), game ids from 0, contiguous
      records/game-000000123.psq      every self-play game, Gomoku-family games only
      metrics.jsonl                   selfplay / train / arena records (``train.metrics``)
      plots/*.png                     ``zeroplay plot`` charts, redrawn after each iteration
      lock                            held by the ``zeroplay train`` process of the run
                                      (``train.runlock``: one process per run directory)

Iteration N: play games with net N-1 until the buffer holds ``games_total(N-1) +
games_per_iteration`` games (finished games are written in shards of ``flush_games`` games, so
a kill loses only games in progress and the ones not yet flushed); train ``steps_per_iteration``
steps from checkpoint N-1 (its optimizer state included) on batches sampled from the window with
the game's symmetries; save checkpoint N (atomic); play the arena (N vs the best so far and vs a
fixed baseline, colours alternating); write evals/iter-N.json.

Resume: the newest checkpoint that loads is the state. Training steps run after it and not yet
saved are redone (with the same seeds); self-play counts the games already in the buffer for the
iteration and plays only the rest, with fresh seeds; game ids continue from the largest id on
disk, so no game is written twice.

Elo: each evaluation gives the Elo difference of net N against the best net B so far;
``elo_cumulative(N) = elo_cumulative(B) + diff`` (iteration 0 = 0), with the difference taken from
the score (W + D/2 + 1/2) / (games + 1) so that a clean sweep stays finite. N becomes the best when
it scores above 1/2 against B.
"""

from __future__ import annotations

import copy
import json
import math
import os
import sys
import time
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from zeroplay.engine.elo import elo_from_score
from zeroplay.files.atomic import atomic_write_text
from zeroplay.games import Game, make, option_names
from zeroplay.games.records import save_record
from zeroplay.train.metrics import METRICS_FILE, MetricsLog
from zeroplay.train.replay import ReplayBuffer
from zeroplay.train.selfplay import FinishedGame, SelfPlayConfig

if TYPE_CHECKING:
    from torch import nn

    from zeroplay.nn.trainer import Trainer

CONFIG_FILE = "config.json"
CONFIG_VERSION = 1
CHECKPOINTS, EVALS, SHARDS, RECORDS, PLOTS = "checkpoints", "evals", "shards", "records", "plots"


@dataclass(frozen=True)
class LoopConfig:
    """Iteration sizes, replay window and evaluation."""

    games_per_iteration: int = 64
    """Self-play games per iteration."""
    steps_per_iteration: int = 100
    """Optimizer steps per iteration."""
    batch_size: int = 256
    """Samples per optimizer step."""
    window: int = 100_000
    """Replay window: the newest samples sampled from."""
    validation_fraction: float = 0.05
    """Share of games held out for the validation loss."""
    augment: bool = True
    """Apply a random symmetry of the game to each sampled position."""
    flush_games: int = 16
    """Finished games per replay shard (a kill loses at most these plus the games in progress)."""
    eval_games: int = 20
    """Arena games per opponent after each iteration (0: no evaluation)."""
    eval_playouts: int | None = None
    """Playouts per move of the nets in the arena (None: the self-play playouts)."""
    baseline: str | None = "auto"
    """Fixed arena opponent (``uniform:N`` / ``rollout:N`` / checkpoint path), None for none;
    "auto": ``rollout:200`` for the Gomoku family, ``uniform:200`` for other games (the rollout
    evaluator plays the Gomoku family only)."""
    records: bool = True
    """Save every self-play game as PSQ under records/ (Gomoku family)."""

    def __post_init__(self):
        if self.games_per_iteration < 1 or self.steps_per_iteration < 0 or self.batch_size < 1:
            raise ValueError("games_per_iteration and batch_size must be >= 1, steps_per_iteration >= 0")
        if self.flush_games < 1 or self.eval_games < 0:
            raise ValueError("flush_games must be >= 1 and eval_games >= 0")


@dataclass(frozen=True)
class RunConfig:
    """Everything that defines a run (``config.json``).

    ``game``, ``game_options``, ``net`` and ``features`` fix the shape of the data and the net:
    they cannot change on a resume. The sections (``selfplay``, ``train``, ``loop``) can.
    """

    game: str = "gomoku"
    game_options: dict = field(default_factory=dict)
    net: str = "tiny"
    features: str = "basic"
    seed: int = 0
    selfplay: SelfPlayConfig = SelfPlayConfig()
    train: object = None  # TrainConfig (zeroplay.nn; imported lazily to keep this module light)
    loop: LoopConfig = LoopConfig()

    STRUCTURAL = ("game", "game_options", "net", "features")

    def make_game(self) -> Game:
        return make(self.game, **self.game_options)

    def to_dict(self) -> dict:
        return {"version": CONFIG_VERSION, "game": self.game, "game_options": dict(self.game_options),
                "net": self.net, "features": self.features, "seed": self.seed,
                "selfplay": self.selfplay.to_dict(), "train": _train_config(self.train).to_dict(),
                "loop": asdict(self.loop)}

    @classmethod
    def from_dict(cls, d: dict) -> RunConfig:
        from zeroplay.nn import TrainConfig

        if d.get("version") != CONFIG_VERSION:
            raise ValueError(f"run config version {d.get('version')!r}; this zeroplay reads {CONFIG_VERSION}")
        return cls(game=d["game"], game_options=dict(d.get("game_options", {})), net=d["net"],
                   features=d["features"], seed=int(d.get("seed", 0)),
                   selfplay=_section(SelfPlayConfig, d.get("selfplay", {})),
                   train=_section(TrainConfig, d.get("train", {})),
                   loop=_section(LoopConfig, d.get("loop", {})))

    def with_overrides(self, overrides: dict) -> RunConfig:
        """A copy with ``{"seed": .., "selfplay": {...}, "train": {...}, "loop": {...}}`` applied."""
        out = self
        for key, value in overrides.items():
            if key in ("selfplay", "train", "loop"):
                section = getattr(out, key) if key != "train" else _train_config(out.train)
                if value:
                    out = replace(out, **{key: _section(type(section), {**_asdict(section), **value})})
            elif value is not None:
                out = replace(out, **{key: value})
        return out


def _asdict(section) -> dict:
    return section.to_dict() if hasattr(section, "to_dict") else asdict(section)


def _section(cls, values: dict):
    known = {f.name for f in fields(cls)}
    unknown = set(values) - known
    if unknown:
        raise ValueError(f"unknown {cls.__name__} settings: {', '.join(sorted(unknown))}")
    return cls(**values)


def _train_config(train):
    if train is None:
        from zeroplay.nn import TrainConfig

        return TrainConfig()
    return train


def open_run(run_dir: str | os.PathLike, structural: dict, overrides: dict) -> RunConfig:
    """The config of the run in ``run_dir`` (``resolve_run``), checked (``check_run_config``) and
    written back; the directory is created only once everything checked out.

    Raises:
        ValueError: see ``resolve_run`` and ``check_run_config``; the run directory is unchanged.
    """
    run_dir = Path(run_dir)
    config = resolve_run(run_dir, structural, overrides)
    check_run_config(config)
    from zeroplay.train.runlock import make_run_dir

    make_run_dir(run_dir)
    path = run_dir / CONFIG_FILE
    text = json.dumps(config.to_dict(), indent=2, sort_keys=True) + "\n"
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        atomic_write_text(path, text)
    return config


def read_run_config(run_dir: str | os.PathLike) -> RunConfig | None:
    """The stored config of the run in ``run_dir``; None when it has no config.json.

    Raises:
        ValueError: config.json cannot be read or parsed (the message names the file and what to do).
    """
    from zeroplay.train.runlock import check_run_dir_path

    check_run_dir_path(run_dir)
    path = Path(run_dir) / CONFIG_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        # a run's other files without its config: starting afresh would overwrite the run with
        # default settings (and then fail on its shards)
        found = [d for d in ("checkpoints", "shards", "evals") if any((Path(run_dir) / d).glob("*"))]
        if found:
            raise ValueError(f"{path} is missing, but {run_dir} holds a run ({', '.join(found)}): restore "
                             "config.json (from a copy or git); nothing was changed") from None
        return None
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{path} cannot be read: {getattr(e, 'strerror', None) or e}") from None
    try:
        return RunConfig.from_dict(json.loads(text))
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        detail = f"missing setting {e}" if isinstance(e, KeyError) else str(e)
        # (it offered "move it away and rerun with the original settings", which the missing-config
        # check then refused: helper-79)
        raise ValueError(f"{path} is damaged ({detail}): restore it (from a copy or git), or mend it by hand "
                         "(the run cannot go on without its settings); nothing was changed") from None


# game options as the user gives them: option of ``make`` -> (command-line flag, keys of game.options)
_GAME_FLAGS = {"size": ("--size", ("width", "height")), "width": ("--size", ("width",)),
               "height": ("--size", ("height",)), "n_in_row": ("--n-in-row", ("n_in_row",)),
               "rule": ("--rule", ("rule",))}


def _user_value(options: dict, keys: tuple[str, ...]):
    values = [options.get(k) for k in keys]
    return values[0] if len(set(map(repr, values))) == 1 else "x".join(map(str, values))


def resolve_run(run_dir: str | os.PathLike, structural: dict, overrides: dict) -> RunConfig:
    """The config of the run in ``run_dir`` without writing anything: stored + ``overrides`` when
    it exists (structural options given must match), else a new one from ``structural`` +
    ``overrides``.

    Args:
        structural: ``game``, ``game_options`` (as given to ``make``, e.g. ``{"size": 8}``; only
            the given ones), ``net``, ``features`` (None = not given).
        overrides: as ``RunConfig.with_overrides``.

    Raises:
        ValueError: a structural option that differs from the stored run (named as its
            command-line flag), a damaged config.json, or a bad setting.
    """
    run_dir = Path(run_dir)
    stored = read_run_config(run_dir)
    given_options = dict(structural.get("game_options") or {})
    if stored is None:
        base = RunConfig(**{k: v for k, v in structural.items() if v is not None and k != "game_options"})
        if structural.get("features") is None:  # the game's own default (Go: its "go" planes)
            base = replace(base, features=make(base.game).feature_sets[0])
        if "n_in_row" in option_names(base.game) and "size" in given_options and "n_in_row" not in given_options:
            from zeroplay.games.gomoku import default_n_in_row

            given_options["n_in_row"] = default_n_in_row(given_options["size"])  # as zeroplay play
        # options as the game reports them (defaults filled in), so a resume compares like with like
        base = replace(base, game_options=dict(make(base.game, **given_options).options))
        return base.with_overrides(overrides)
    diffs = []
    if structural.get("game") is not None and structural["game"] != stored.game:
        diffs.append(f"--game: run has {stored.game}, command gives {structural['game']}")
    elif given_options:
        have = stored.game_options
        given_keys = [k for name in given_options for k in _GAME_FLAGS.get(name, ("", (name,)))[1]]
        merged = {k: v for k, v in have.items() if k not in given_keys}
        wanted = dict(make(stored.game, **merged, **given_options).options)
        for name in given_options:
            flag, keys = _GAME_FLAGS.get(name, (f"--{name.replace('_', '-')}", (name,)))
            if any(wanted.get(k) != have.get(k) for k in keys):
                diffs.append(f"{flag}: run has {_user_value(have, keys)}, command gives {_user_value(wanted, keys)}")
    for key, flag in (("net", "--net"), ("features", "--features")):
        given = structural.get(key)
        if given is not None and given != getattr(stored, key):
            diffs.append(f"{flag}: run has {getattr(stored, key)}, command gives {given}")
    if diffs:
        raise ValueError(f"{run_dir} is a run of another setting ({'; '.join(diffs)}); "
                         "drop these options to continue it, or use a new --run-dir")
    return stored.with_overrides(overrides)


def baseline_spec(config: RunConfig, game: Game | None = None) -> str | None:
    """The run's fixed arena opponent as a player spec ("auto" resolved), None for none."""
    baseline = config.loop.baseline
    if baseline == "auto":
        game = game or config.make_game()
        baseline = "rollout:200" if game.num_actions == game.cells else "uniform:200"
    return baseline or None


def check_run_config(config: RunConfig) -> None:
    """Everything that can be checked before a run starts: the game, the net architecture and
    features, the threat solver's game, the self-play openings (each plays and leaves the game
    open), the arena baseline (a checkpoint must exist and load for the game).

    Raises:
        ValueError: what is wrong, in terms of the command-line options.
    """
    from zeroplay.games.planes import check_features
    from zeroplay.nn.arch import arch_spec
    from zeroplay.train.bounds import MAX_ARENA_GAMES, MAX_LR, MAX_SEED, MAX_TRAIN_BATCH

    # a hand-edited config.json past the options' bounds (helper-81: lr 1e30 gave a torch
    # traceback, batch_size 1e8 ran out of memory)
    for key, value, high in (("loop.batch_size", config.loop.batch_size, MAX_TRAIN_BATCH),
                             ("train.lr", getattr(config.train, "lr", None), MAX_LR),
                             ("loop.eval_games", config.loop.eval_games, MAX_ARENA_GAMES),
                             ("seed", config.seed, MAX_SEED)):
        if value is not None and value > high:
            raise ValueError(f"{CONFIG_FILE}: {key} must be <= {high:,}, got {value:,} (give the option with a "
                             "smaller value, or mend the file)")
    game = config.make_game()
    try:
        check_features(game, config.features)
        arch_spec(config.net, game, config.features)
    except ValueError as e:
        raise ValueError(f"--net/--features: {e}") from None
    if config.selfplay.threat_solver and not dict(game.play_search_options).get("threat_solver", False):
        raise ValueError(f"the threat solver is for Gomoku; this run plays {config.game} (drop --threat-solver)")
    for number, line in enumerate(config.selfplay.openings, start=1):
        state = game.initial()
        try:
            for action in line:
                state = state.play(action)
        except ValueError as e:
            raise ValueError(f"--selfplay-openings: opening {number} does not play on {config.game}: {e}") from None
        if state.is_terminal:
            raise ValueError(f"--selfplay-openings: opening {number} ends the game")
    baseline = baseline_spec(config, game)
    if baseline and config.loop.eval_games > 0:
        from zeroplay.engine.arena import make_player

        playouts = config.loop.eval_playouts or config.selfplay.playouts
        try:
            make_player(baseline, game, playouts=playouts, seed=0)
        except ValueError as e:
            # (named as the run's setting: a resume that did not give --baseline was told of it)
            raise ValueError(f"--baseline {baseline} (the run's baseline): {e}") from None


def checkpoint_path(run_dir, iteration: int) -> Path:
    return Path(run_dir) / CHECKPOINTS / f"iter-{iteration:06d}.safetensors"


def eval_path(run_dir, iteration: int) -> Path:
    return Path(run_dir) / EVALS / f"iter-{iteration:06d}.json"


def _checkpoint_iterations(run_dir) -> list[int]:
    out = []
    for p in (Path(run_dir) / CHECKPOINTS).glob("iter-*.safetensors"):
        try:
            out.append(int(p.stem.split("-")[1]))
        except (IndexError, ValueError):
            continue
    return sorted(out)


def _tqdm(enabled: bool, **kwargs):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    # disable=None: no bars where stderr is not a terminal (a log file), which they would fill
    return tqdm(mininterval=1.0, dynamic_ncols=True, disable=None, **kwargs)



def loss_text(summary: dict) -> str:
    """``; loss policy P value V [opp-reply R ownership O score S] total T`` of an iteration's
    training summary ('' without one): the means over its steps, the auxiliary heads' losses
    unweighted where the net has them; total is the weighted sum plus the weight-decay term."""
    if not summary or "loss" not in summary:
        return ""
    aux = "".join(f" {label} {summary[key]:.3f}" for key, label in
                  (("opp_reply_loss", "opp-reply"), ("ownership_loss", "ownership"), ("score_loss", "score"))
                  if key in summary)
    return (f"; loss policy {summary.get('policy_loss', float('nan')):.3f} "
            f"value {summary.get('value_loss', float('nan')):.3f}{aux} total {summary['loss']:.3f}")


def format_duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``3.4 h`` or ``2.1 d``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"

class TrainingRun:
    """One run directory, driven iteration by iteration (see the module docstring).

    Args:
        run_dir: the run directory (its config.json must exist: ``open_run``).
        config: the run's RunConfig.
        workers: self-play processes; 0 plays in this process. With ``backend="ray"``: Ray actors
            (0: one per CPU of the Ray instance or cluster).
        backend: ``"local"`` (processes on this machine) or ``"ray"`` (``train.ray_backend``).
        address: with ``backend="ray"``: None starts a local Ray instance, ``"auto"`` or
            ``"HOST:PORT"`` joins a running cluster.
        progress: show progress bars (tqdm) on self-play, training and the arena.
        log: where one-line progress messages go (default: stderr).
        threads: torch threads of this process (training, arena); default half the cores. One
            thread measured 3x faster than two per step on a busy 2-core machine (tiny net, 6x6).
    """

    def __init__(self, run_dir, config: RunConfig, *, workers: int = 0, progress: bool = False,
                 log=None, threads: int | None = None, backend: str = "local", address: str | None = None):
        import torch

        from zeroplay.train.workers import default_workers

        torch.set_num_threads(threads or max(1, default_workers() // 2))

        self.dir = Path(run_dir)
        self.config = config
        self.game = config.make_game()
        self.workers = int(workers)
        if backend not in ("local", "ray"):
            raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
        self.backend, self.address = backend, address
        self.progress = progress
        self.log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
        for sub in (CHECKPOINTS, EVALS, SHARDS, RECORDS, PLOTS):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        from zeroplay.train.tensorboard import EventMirror

        self.metrics = MetricsLog(self.dir / METRICS_FILE, mirror=EventMirror(self.dir, self.log))
        lc = config.loop
        self.buffer = ReplayBuffer(self.dir / SHARDS, self.game, config.features, window=lc.window,
                                   validation_fraction=lc.validation_fraction, log=self.log)
        self._source = None
        self.model: nn.Module | None = None  # set by _load_latest (run)
        self.trainer: Trainer | None = None
        self.iteration = -1
        self.meta: dict = {}
        self._target_iterations: int | None = None  # run(): what the ETA counts down to
        self._deadline: float | None = None
        self._iteration_seconds: list[float] = []

    # --- state on disk ------------------------------------------------------------------------
    def _load_latest(self) -> None:
        """Load the newest checkpoint that loads (creating iteration 0 on a new run)."""
        from zeroplay.nn import CheckpointError, Trainer, build_model, load_checkpoint, save_checkpoint

        cfg = self.config
        for it in reversed(_checkpoint_iterations(self.dir)):
            try:
                ck = load_checkpoint(checkpoint_path(self.dir, it), game=self.game, features=cfg.features,
                                     arch=cfg.net)
            except CheckpointError as e:
                self.log(f"skipping checkpoint iteration {it}: {e}")
                continue
            self.model, self.meta, self.iteration = ck.model, ck.meta, it
            self.trainer = Trainer(self.model, _train_config(cfg.train), step=ck.step)
            if ck.optimizer is not None:
                self.trainer.load_optimizer_state(*ck.optimizer)
            if it > 0:
                games = (ck.meta.get("extra") or {}).get("games_total")
                self.log(f"resuming after iteration {it} (step {ck.step}"
                         + (f", {games:,} self-play games" if isinstance(games, int) else "")
                         + f"; {self.buffer.total_games:,} games in the replay shards)")
            return
        skipped = _checkpoint_iterations(self.dir)
        # (said "no checkpoint" when config.json's net had been edited; helper-79)
        if skipped and (self.buffer.total_games or max(skipped) > 0):
            raise ValueError(f"{self.dir / CHECKPOINTS} holds {len(skipped)} checkpoint{'s' if len(skipped) > 1 else ''} "
                             f"but none loads for the run's settings in {CONFIG_FILE} (net {cfg.net}, features "
                             f"{cfg.features}; the lines above say why): restore the file or the checkpoints")
        if self.buffer.total_games:
            raise ValueError(f"{self.dir} holds replay shards but no checkpoint: not a run this zeroplay wrote")
        self.model = build_model(cfg.net, self.game, cfg.features, seed=cfg.seed)
        self.trainer = Trainer(self.model, _train_config(cfg.train), step=0)
        extra = {"iteration": 0, "games_total": 0, "samples_total": 0}
        save_checkpoint(checkpoint_path(self.dir, 0), self.model, game=self.game, features=cfg.features,
                        step=0, elo=0.0, optimizer=self.trainer.optimizer_state(), extra=extra)
        self.iteration, self.meta = 0, {"step": 0, "elo": 0.0, "extra": extra}
        self._write_eval(0, {"iteration": 0, "best_after": 0, "elo_cumulative": 0.0, "matches": {}})

    def _put_right(self) -> None:
        """Before continuing: the temp files of killed saves go, and shards that a kill left out of
        metrics.jsonl get their selfplay records (``train.reconcile``)."""
        from zeroplay.train.reconcile import reconcile_selfplay_metrics, remove_stale_temps

        remove_stale_temps([self.dir, *(self.dir / d for d in (CHECKPOINTS, EVALS, SHARDS, RECORDS, PLOTS))],
                           self.log)
        done = int(self.meta.get("extra", {}).get("games_total", 0))
        reconcile_selfplay_metrics(self.buffer.shard_paths, self.game, self.config.features, self.metrics,
                                   lambda first: self.iteration + 1 if first >= done else None, self.log)

    def _eval_record(self, iteration: int) -> dict | None:
        path = eval_path(self.dir, iteration)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None

    def _write_eval(self, iteration: int, record: dict) -> None:
        atomic_write_text(eval_path(self.dir, iteration), json.dumps(record, indent=2, sort_keys=True) + "\n")

    # --- the loop ------------------------------------------------------------------------------
    def run(self, iterations: int | None = None, hours: float | None = None) -> dict:
        """Continue the run until it has ``iterations`` iterations or ``hours`` of wall time
        have passed in this call (checked before each iteration), whichever comes first.

        Returns:
            ``{"iteration", "step", "games_total", "games_in_shards", "samples_total", "best",
            "elo_cumulative", "checkpoint"}``: ``games_total`` counts every self-play game of the run,
            ``games_in_shards`` those in the readable shards on disk.
        """
        deadline = None if hours is None else time.monotonic() + hours * 3600.0
        self._target_iterations, self._deadline, self._iteration_seconds = iterations, deadline, []
        self._load_latest()
        self._put_right()
        if self._eval_record(self.iteration) is None:
            t0 = time.monotonic()
            self._evaluate(self.iteration)
            if self.iteration > 0:  # (a redone arena printed its matches and no line after them; helper-79)
                self.log(f"iteration {self.iteration} done (its arena, cut short before, played on this resume "
                         f"with --eval-games {self.config.loop.eval_games}): arena {time.monotonic() - t0:.0f} s, "
                         f"{self._elo_text(self.iteration)}")
        if iterations is None or self.iteration < iterations:
            self._check_best_loads()
        if iterations is not None and self.iteration >= iterations:
            self.log(f"the run has {self.iteration} iteration{'' if self.iteration == 1 else 's'} already "
                     f"(--iterations {iterations}): nothing to do")
        try:
            while iterations is None or self.iteration < iterations:
                if deadline is not None and time.monotonic() >= deadline:
                    self.log(f"stopping: {hours} h of wall time reached")
                    break
                self._one_iteration(self.iteration + 1)
        finally:
            self.close()
        return self.summary()

    def summary(self) -> dict:
        ev = self._eval_record(self.iteration) or {}
        return {"iteration": self.iteration, "step": self.trainer.step if self.trainer else 0,
                "games_total": self._next_game_id(), "games_in_shards": self.buffer.total_games,
                "samples_total": self.buffer.total_samples, "best": ev.get("best_after"), "elo_cumulative": ev.get("elo_cumulative"),
                "checkpoint": os.fspath(checkpoint_path(self.dir, self.iteration))}

    def close(self) -> None:
        if self.metrics.mirror is not None:
            self.metrics.mirror.close()
        if self._source is not None:
            self._source.close()
            self._source = None

    def _one_iteration(self, it: int) -> None:
        t0 = time.monotonic()
        self._selfplay(it)
        t1 = time.monotonic()
        train_summary = self._train(it)
        t2 = time.monotonic()
        self._save(it, train_summary)
        self._evaluate(it)
        t3 = time.monotonic()
        assert self.trainer is not None  # _load_latest made it
        try:
            from zeroplay.train.plot import plot_run

            plot_run(self.dir, self.dir / PLOTS)
        except Exception as e:  # plots are a convenience: never stop training for them
            self.log(f"plots not written: {e}")
        self.log(f"iteration {it} done: self-play {t1 - t0:.0f} s, train {t2 - t1:.0f} s, "
                 f"arena {t3 - t2:.0f} s; games {self._next_game_id()}, step {self.trainer.step}, {self._elo_text(it)}"
                 + loss_text(train_summary) + self._eta_text(it, time.monotonic() - t0))

    def _elo_text(self, it: int) -> str:
        """The ``done`` line's Elo: the cumulative value of iteration ``it``'s record, or no arena."""
        elo = (self._eval_record(it) or {}).get("elo_cumulative")
        return "no arena (--eval-games 0)" if elo is None else f"Elo {elo:+.1f} (cumulative, iteration 0 = 0)"

    def _eta_text(self, it: int, seconds: float) -> str:
        """``; run ETA ...`` for the whole run (``--iterations`` or ``--hours``, whichever ends
        first), from the mean time of the iterations done in this call; '' without a target."""
        self._iteration_seconds.append(seconds)
        mean = sum(self._iteration_seconds) / len(self._iteration_seconds)
        left = []
        if self._target_iterations is not None:
            left.append(max(0, self._target_iterations - it) * mean)
        if self._deadline is not None:
            # an iteration starts only before the deadline, so the last one may end after it
            left.append(max(0.0, self._deadline - time.monotonic()) + mean)
        if not left:
            return ""
        eta = min(left)
        if eta <= 0:
            return "; run done"
        return f"; run ETA {format_duration(eta)} (mean iteration {format_duration(mean)})"

    # --- self-play -------------------------------------------------------------------------------
    def _self_play_source(self):
        if self._source is None:
            from zeroplay.nn.arch import arch_spec
            from zeroplay.train.workers import LocalSelfPlay, WorkerPool

            arch = arch_spec(self.config.net, self.game, self.config.features).to_dict()
            if self.backend == "ray":
                from zeroplay.train.ray_backend import RaySelfPlay

                self._source = RaySelfPlay(self.game, arch, self.config.features, self.config.selfplay,
                                           self.workers or None, address=self.address, log=self.log)
            elif self.workers > 0:
                self._source = WorkerPool(self.game, arch, self.config.features, self.config.selfplay,
                                          self.workers)
            else:
                self._source = LocalSelfPlay(self.game, arch, self.config.features, self.config.selfplay)
        return self._source

    def _selfplay(self, it: int) -> None:
        from zeroplay.train.workers import weights_bytes

        self.buffer.refresh()
        target = int(self.meta["extra"]["games_total"]) + self.config.loop.games_per_iteration
        need = target - self._next_game_id()
        if need <= 0:
            return
        source = self._self_play_source()
        seed = int(np.random.SeedSequence([self.config.seed, it, self._next_game_id()]).generate_state(1)[0])
        source.set_weights(weights_bytes(self.model), it - 1, seed)
        pending: list[FinishedGame] = []
        clock = {"start": time.monotonic()}
        bar = _tqdm(self.progress, total=need, desc=f"iteration {it} self-play", unit="game")

        def on_game(g: FinishedGame) -> None:
            pending.append(g)
            if bar is not None:
                bar.update(1)
            if len(pending) >= self.config.loop.flush_games:
                self._flush(it, pending, clock)

        try:
            source.play(need, on_game)
            if pending:
                self._flush(it, pending, clock)
        finally:
            if bar is not None:
                bar.close()

    def _next_game_id(self) -> int:
        """The id the next self-play game gets: ids are handed out contiguously, so one past the
        largest on disk counts every game written, also when old shards have been deleted (the
        shards' total counts only those on disk); and never below the newest checkpoint's
        ``games_total``, since the newest shards may be gone too (with every shard deleted, the next
        iteration replayed every game of the run and wrote over its kept records; helper-79)."""
        return max(self.buffer.next_game_id, int(self.meta.get("extra", {}).get("games_total", 0)))

    def _flush(self, it: int, games: list[FinishedGame], clock: dict) -> None:
        """Write finished games' records, then the games as one shard (ids continue from disk),
        then their metrics line.

        In that order because a stop can fall between any two: records before their shard may
        be left for games no shard kept, whose ids the next games take (their records are
        written over); a shard without its metrics line is reconciled on resume. A shard before
        its records lost the records for good (a Ctrl-C between the two, seen 1 time in 7)."""
        samples = [g.samples(self.game, self.config.features) for g in games]
        first = self._next_game_id()
        if self.config.loop.records and self.game.num_actions == self.game.cells:
            for k, g in enumerate(games):
                try:
                    save_record(self.dir / RECORDS / f"game-{first + k:09d}.psq", g.record(self.game))
                except ValueError:
                    pass
        self.buffer.add_games(samples, list(range(first, first + len(games))))
        now = time.monotonic()
        checked = [g for g in games if g.would_resign is not None]
        self.metrics.append(
            "selfplay", iteration=it, games=len(games), moves=sum(len(g.moves) for g in games),
            samples=sum(len(s) for s in samples), seconds=round(now - clock["start"], 3),
            first_id=first, last_id=first + len(games) - 1,
            black_wins=sum(g.winner == 0 for g in games), white_wins=sum(g.winner == 1 for g in games),
            draws=sum(g.winner is None for g in games), resigned=sum(g.resigned for g in games),
            resign_checked=len(checked), false_resignations=sum(bool(g.false_resignation) for g in checked),
            playouts=sum(g.playouts for g in games), weights_version=games[0].weights_version,
        )
        clock["start"] = now
        games.clear()

    # --- training --------------------------------------------------------------------------------
    def _train(self, it: int) -> dict:
        import torch

        assert self.trainer is not None  # _load_latest made it
        lc = self.config.loop
        steps = lc.steps_per_iteration
        if steps == 0 or self.buffer.num_samples("train") == 0:
            return {}
        rng = np.random.default_rng([self.config.seed, it, 1])
        torch.manual_seed(int(rng.integers(1 << 62)))
        bar = _tqdm(self.progress, total=steps, desc=f"iteration {it} train", unit="step")
        sums: dict[str, float] = {}
        try:
            for _ in range(steps):
                b = self.buffer.sample(lc.batch_size, rng, augment=lc.augment)
                out = self.trainer.train_step(b.planes, b.pi, b.z, b.legal, b.reply,
                                              (b.ownership, b.score, b.has_final))
                for k, v in out.items():
                    sums[k] = sums.get(k, 0.0) + v
                if bar is not None:
                    bar.update(1)
        finally:
            if bar is not None:
                bar.close()
        summary = {k: v / steps for k, v in sums.items()}
        summary["lr"] = out["lr"]
        bad = sorted(k for k, v in summary.items() if not math.isfinite(v))
        if bad:  # a NaN net would be saved, become best and play every later game (helper-79: --lr 1e308)
            raise ValueError(f"iteration {it}: the training diverged ({', '.join(bad)} not finite at learning "
                             f"rate {out['lr']:g}); its checkpoint is not written: rerun with a lower --lr")
        if self.buffer.num_samples("validation"):
            vs, n = {"value_loss": 0.0, "policy_loss": 0.0}, 0
            for vb in self.buffer.iter_split("validation", batch_size=1024):
                out = self.trainer.validation_loss(vb.planes, vb.pi, vb.z, vb.legal)
                for k in vs:
                    vs[k] += out[k] * len(vb)
                n += len(vb)
                if n >= 8192:
                    break
            summary["val_value_loss"] = vs["value_loss"] / n
            summary["val_policy_loss"] = vs["policy_loss"] / n
        return summary

    def _save(self, it: int, train_summary: dict) -> None:
        from zeroplay.nn import save_checkpoint

        assert self.trainer is not None  # _load_latest made it
        extra = {"iteration": it, "games_total": self._next_game_id(),
                 "samples_total": self.buffer.total_samples, "train": train_summary}
        save_checkpoint(checkpoint_path(self.dir, it), self.model, game=self.game, features=self.config.features,
                        step=self.trainer.step, optimizer=self.trainer.optimizer_state(), extra=extra)
        self.iteration = it
        self.meta = {"step": self.trainer.step, "extra": extra}
        if train_summary:
            self.metrics.append("train", iteration=it, step=self.trainer.step, **train_summary)

    # --- evaluation ------------------------------------------------------------------------------
    def _check_best_loads(self) -> None:
        """Before any self-play: the net the next arena plays against must load, or the iteration's
        work would be lost at its end, on every rerun.

        Raises:
            ValueError: the best net's checkpoint is missing or damaged (a clone keeps only some
                checkpoints: training/README.md); the message says which and what to do.
        """
        from zeroplay.nn import CheckpointError, load_checkpoint

        if self.config.loop.eval_games == 0:
            return
        best = (self._eval_record(self.iteration) or {}).get("best_after")
        if best is not None and not isinstance(best, int):
            raise ValueError(f"{eval_path(self.dir, self.iteration)} is damaged (best_after {best!r}): "
                             "restore it (from a copy or git)")
        if best is None or best == self.iteration:
            return  # the newest checkpoint, which just loaded
        path = checkpoint_path(self.dir, best)
        try:
            load_checkpoint(path, game=self.game, features=self.config.features)
        except (CheckpointError, ValueError, OSError) as e:
            raise ValueError(
                f"the arena's best net, iteration {best} (evals/iter-{self.iteration:06d}.json), does not load: {e}. "
                "Restore that file (from a copy or git); no iteration was played") from None

    def _chain_elo(self, best: int) -> float:
        """The cumulative Elo of net ``best``: its record's, or, for a net that became best
        without an arena (``--eval-games 0``), that of the best it replaced, and so on back (the
        chain restarted at 0 after such an iteration; helper-79)."""
        seen: set[int] = set()
        while best not in seen:
            seen.add(best)
            record = self._eval_record(best) or {}
            if record.get("elo_cumulative") is not None:
                return float(record["elo_cumulative"])
            if not isinstance(record.get("best_before"), int):
                break
            best = record["best_before"]
        return 0.0

    def _evaluate(self, it: int) -> None:
        from zeroplay.engine.arena import Player, SearchPlayer, make_player, play_match, search_config
        from zeroplay.nn import NetEvaluator, load_checkpoint

        lc = self.config.loop
        prev = self._eval_record(it - 1) if it > 0 else None
        best = prev["best_after"] if prev else 0
        base_elo = self._chain_elo(best)
        record: dict[str, Any] = {"iteration": it, "best_before": best, "best_after": it, "elo_cumulative": None, "matches": {}}
        if lc.eval_games == 0 or it == 0:
            self._write_eval(it, {**record, "best_after": it if it == 0 or lc.eval_games == 0 else best})
            return
        playouts = lc.eval_playouts or self.config.selfplay.playouts
        seed = int(np.random.SeedSequence([self.config.seed, it, 2]).generate_state(1)[0])
        assert self.model is not None  # _load_latest made it
        model = copy.deepcopy(self.model).eval()
        # the nets play as self-play plays them (threat solver included); baselines as they are
        cfg = search_config(playouts, game=self.game, threat_solver=self.config.selfplay.threat_solver)
        me = SearchPlayer(NetEvaluator(model, self.config.features), playouts, name=f"iteration {it}", seed=seed,
                          config=cfg)
        opponents: list[tuple[str, Player]] = []
        ck = load_checkpoint(checkpoint_path(self.dir, best), game=self.game, features=self.config.features)
        opponents.append(("previous best", SearchPlayer(NetEvaluator(ck.model, ck.features), playouts,
                                                        name=f"iteration {best}", seed=seed + 1, config=cfg)))
        baseline = baseline_spec(self.config, self.game)
        if baseline:
            opponents.append((baseline, make_player(baseline, self.game, playouts=playouts, seed=seed + 2)))
        for label, opponent in opponents:
            bar = _tqdm(self.progress, total=lc.eval_games, desc=f"iteration {it} vs {label}", unit="game")
            try:
                match = play_match(self.game, me, opponent, lc.eval_games, progress=bar)
            finally:
                if bar is not None:
                    bar.close()
            record["matches"][label] = {**match.to_dict(), "opponent_iteration": best if label == "previous best" else None}
            named = label if opponent.name == label else f"{label} ({opponent.name})"  # not "rollout:200 (rollout:200)"
            self.log(f"iteration {it} vs {named}: {match.elo()}")
        vs_best = record["matches"]["previous best"]
        n = vs_best["games"]
        smoothed = (vs_best["wins"] + 0.5 * vs_best["draws"] + 0.5) / (n + 1)
        diff = elo_from_score(smoothed)
        record["elo_cumulative"] = round(base_elo + diff, 1)
        record["best_after"] = it if vs_best["score"] > 0.5 else best
        self._write_eval(it, record)
        for label, m in record["matches"].items():
            self.metrics.append("arena", iteration=it, opponent=label, elo=m["elo"], elo_low=m["elo_low"],
                                elo_high=m["elo_high"], wins=m["wins"], draws=m["draws"], losses=m["losses"],
                                score=m["score"])
        # the rising curve: Elo relative to the initial net, with the interval of the last match
        half = 1.96 * math.sqrt(max(smoothed * (1 - smoothed), 1e-9) / (n + 1)) * 400 / math.log(10) \
            / max(smoothed * (1 - smoothed), 1e-9)
        self.metrics.append("arena", iteration=it, opponent="cumulative (iteration 0 = 0)",
                            elo=record["elo_cumulative"], elo_low=record["elo_cumulative"] - half,
                            elo_high=record["elo_cumulative"] + half)
