"""Which engine plays: the shipped model for a game and size, or the search-only fallback.

Trained models ship inside the package under ``zeroplay/models/`` (``*.safetensors``
checkpoints, see ``zeroplay.nn.checkpoint``). ``make_engine(game)`` uses the one ``DEFAULT_MODELS``
names for the game's setting (the measured ones: docs/STRENGTH.md); without one it falls back to
the search-only engine: the same PUCT search guided by the window-count heuristic that
``game.heuristic`` names (``zeroplay.engine.heuristic``: over cells for Gomoku, through columns
for Connect Four) or by uniform priors (other games), with one-ply proofs (it always takes a win
in one and blocks a loss in one), and says so in ``Engine.note``. Engines search with the
game's ``play_search_options``: Gomoku's turn the VCF threat solver on
(``SearchConfig.threat_solver``): it proves wins by fours at the root and at new nodes, which
both kinds of evaluator miss at play-time playouts (docs/THREATS.md, docs/STRENGTH.md).

The compiled search needs about 20 s of numba compilation the first time in a new environment
(cached on disk afterwards); ``warm_up()`` does it on a tiny board.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from zeroplay.games import Game
from zeroplay.games.gomoku import default_n_in_row  # noqa: F401 (re-exported: play and the web board use it)

# the shipped models' folder, name -> file and names live in the nn room (the arena uses them too)
from zeroplay.nn.shipped import MODELS_DIR, model_files, resolve_model, shipped_names  # noqa: F401 (re-exported)

PLAY_PLAYOUTS = 800
"""Default playouts per engine move of ``zeroplay play`` and of the web board (``zeroplay serve``,
its API and its page): one number, so that both play equally strong by default."""


@dataclass
class Engine:
    """A game's evaluator and how to search with it.

    Attributes:
        game: the Game it plays.
        evaluator: the search's Evaluator (network or heuristic).
        name: one line for people, e.g. ``"model gomoku-15.safetensors"`` or
            ``"search only (heuristic priors)"``.
        note: a caveat for people, else None: why the search-only engine plays (no default
            model), or, for a shipped model named outside the settings it is the default of, that
            it is weaker than the search-only engine there or was not measured there.
        model_path: the checkpoint file, or None.
        config_overrides: SearchConfig fields every searcher of this engine gets
            (the game's ``play_search_options``).
    """

    game: Game
    evaluator: object
    name: str
    note: str | None = None
    model_path: Path | None = None
    config_overrides: dict = field(default_factory=dict)

    def new_searcher(self, *, playouts: int | None = None, memory_bytes: int | None = None, **config):
        """A fresh ``Searcher`` (tree reuse across moves) with play-mode config plus ``config``,
        its tables sized by the search's rule: ``SearchConfig.for_memory(memory_bytes)`` when
        given, else ``SearchConfig.for_playouts(playouts)``, else the SearchConfig defaults."""
        from zeroplay.search import SearchConfig, Searcher

        merged = {**self.config_overrides, **config}
        if memory_bytes is not None:
            cfg = SearchConfig.for_memory(memory_bytes, self.game, **merged)
        elif playouts is not None:
            cfg = SearchConfig.for_playouts(playouts, self.game, **merged)
        else:
            cfg = SearchConfig(**merged)
        return Searcher(self.game, self.evaluator, cfg)

    def warm_up(self, playouts: int = 16) -> None:
        """Compile (or load from numba's disk cache) the kernels this engine's searches use.

        ``warm_up()`` compiles the search for Gomoku with the heuristic evaluator; a search over
        another game's rules (Othello, Connect Four, Go) or with a network's priors specialises
        other kernels, which the first move would otherwise compile silently (Othello's first
        move took over 4 minutes on a loaded 2-core machine, reported as its search time). Two
        tiny searches -- the opening position, then after the best move (tree reuse) -- on
        tables sized for them by the search's rule; the engine's own searchers are untouched.
        """
        searcher = self.new_searcher(playouts=playouts)
        state = self.game.initial()
        result = searcher.search(state, playouts=playouts)
        if result.best_move is not None and not state.play(int(result.best_move)).is_terminal:
            searcher.search(state.play(int(result.best_move)), playouts=max(1, playouts // 2))


DEFAULT_MODELS = {
    ("gomoku", 6, 6, 4, "freestyle"): "gomoku-6x6-4-freestyle.safetensors",
    ("gomoku", 8, 8, 5, "freestyle"): "gomoku-8x8-5-freestyle.safetensors",
    ("gomoku", 15, 15, 5, "freestyle"): "gomoku-15x15-freestyle.safetensors",
    # the fully convolutional 15x15 net (iteration 83), measured on 11x11 in docs/STRENGTH.md
    ("gomoku", 11, 11, 5, "freestyle"): "gomoku-15x15-freestyle.safetensors",
    # 9x9 Go at any komi (a value-only option) with area scoring; territory scoring does not load it
    ("go", 9, 9, None, None): "go-9x9.safetensors",
}
"""(game, width, height, n_in_row, rule) -> the shipped file that plays it by default.

Only the settings measured in docs/STRENGTH.md, where the model at least matched the
search-only engine (docs/TRAINING.md, "Shipping rule"). A fully convolutional net loads on any
board size, but on an unmeasured one (9x9, 13x13) nobody knows whether it beats the heuristic, so
those keep the search-only engine. A shipped file on a board where it is not the default plays
when named: ``--model gomoku-8x8-5-freestyle`` on 9x9."""


def _key(game: Game) -> tuple:
    options = getattr(game, "options", {}) or {}
    return (game.name, game.width, game.height, options.get("n_in_row"), options.get("rule"))


def find_model(game: Game, models_dir: Path | None = None) -> Path | None:
    """The shipped model that plays ``game`` by default (``DEFAULT_MODELS``), or None.

    The file must be in the package and load for ``game`` (checked from its header; a damaged or
    foreign file gives None, so the search-only engine plays). docs/STRENGTH.md lists the shipped
    files and their strength.
    """
    name = DEFAULT_MODELS.get(_key(game))
    folder = Path(models_dir) if models_dir is not None else MODELS_DIR
    if name is None or not (folder / name).is_file():
        return None
    path = folder / name
    return path if _fits(path, game) else None


def _fits(path: Path, game: Game) -> bool:
    """Whether the checkpoint at ``path`` loads for ``game``, from its header alone (no torch import;
    the weights' hash is checked at load). A damaged or foreign file does not fit."""
    from zeroplay.nn.record import CheckpointError, checkpoint_differences

    try:
        return not checkpoint_differences(path, game=game)
    except CheckpointError:
        return False


def check_model(model: str | os.PathLike, game: Game | None = None) -> str:
    """``--model`` (a path or a shipped model's name) -> its checkpoint path, checked from the file
    alone (no torch import). The one wording of a bad ``--model``: ``make_engine`` (``zeroplay play``)
    and the Gomocup engine (``zeroplay pbrain``, at start-up and at each START) both check with it.

    Raises:
        zeroplay.nn.CheckpointError: no such file (the message lists the shipped models' names),
            a file that cannot be read (permissions, I/O error), a file that is not a whole
            zeroplay checkpoint, or, with ``game``, one made for another game, rule or board
            (``CheckpointMismatchError``, naming each difference). The weights' hash is checked
            only when ``load_model`` loads them.
    """
    from zeroplay.nn.record import CheckpointError, CheckpointMismatchError, checkpoint_differences, read_checkpoint_meta

    path = resolve_model(os.fspath(model))
    if not os.path.exists(path):
        raise CheckpointError(f"no checkpoint at {path} (give a path, or a shipped model's name: "
                              f"{', '.join(shipped_names()) or 'none ship'})")
    try:
        # the whole file, as load_checkpoint reads it: a header-only read words a garbage file tersely
        read_checkpoint_meta(path)
        diffs = checkpoint_differences(path, game=game) if game is not None else []
    except OSError as e:
        raise unreadable(path, e) from None
    if diffs:
        raise CheckpointMismatchError(path, diffs)
    return path


INFERENCE_BACKENDS = ("torch", "numpy")
"""How a model's net runs in play: ``"torch"`` (``nn.NetEvaluator``: torch's convolutions, about
1.3x the playouts of a loaded-machine pbrain turn, and what training uses) or ``"numpy"``
(``nn.numpy_net``: no torch import, about 190 MiB less resident memory and seconds less start-up;
docs/BENCHMARKS.md, "Torch-free inference")."""


def load_model(path: str | os.PathLike, game: Game | None = None, *, inference: str = "torch"):
    """``load_checkpoint(path, game=game)`` (a ``Checkpoint``; imports torch), or with
    ``inference="numpy"`` ``load_numpy_net(path, game=game)`` (a ``NumpyNet``; no torch), the
    weights' hash checked, with an unreadable file worded as ``check_model`` words it.

    Raises:
        zeroplay.nn.CheckpointError: as ``load_checkpoint``: a file that does not fit ``game``, or
            whose weights are damaged (``... is corrupt: tensor data does not match its checksum``);
            or one that cannot be read.
        ValueError: an ``inference`` not in ``INFERENCE_BACKENDS``.
    """
    if inference not in INFERENCE_BACKENDS:
        raise ValueError(f"unknown inference backend {inference!r}; one of {INFERENCE_BACKENDS}")
    try:
        if inference == "numpy":
            from zeroplay.nn.numpy_net import load_numpy_net

            return load_numpy_net(path, game=game)
        from zeroplay.nn import load_checkpoint

        return load_checkpoint(path, game=game)
    except OSError as e:
        raise unreadable(path, e) from None


def unreadable(path: str | os.PathLike, error: OSError):
    """The ``CheckpointError`` for a checkpoint file the system will not read (permission denied,
    I/O error): one line with the system's reason, not an OSError's traceback."""
    from zeroplay.nn.record import CheckpointError

    return CheckpointError(f"cannot read checkpoint {os.fspath(path)}: {error.strerror or error}")


def fitting_models(game: Game, models_dir: Path | None = None) -> list[str]:
    """Names of the shipped models that load for ``game`` (whether or not they are its default),
    the one trained on the game's board size first."""
    tag = f"{game.name}-{game.width}x{game.height}-"
    ordered = sorted(model_files(models_dir), key=lambda p: (not p.name.startswith(tag), p.name))
    return [path.stem for path in ordered if _fits(path, game)]


def search_only_evaluator(game: Game):
    """The engine without a model: ``(evaluator, name)``.

    Connect Four: ``ColumnHeuristicEvaluator`` (window counts at each column's landing cell);
    the Gomoku family (tic-tac-toe too): ``HeuristicEvaluator`` (window counts over cells); Go:
    ``GoPriorEvaluator`` (local-knowledge priors, random-rollout values); other
    compiled games: ``RolloutEvaluator`` (uniform priors, the value of a random game to the end:
    every compiled game has a rollout kernel); games without kernels: uniform priors.
    """
    from zeroplay.engine.heuristic import heuristic_evaluator

    evaluator = heuristic_evaluator(game)  # game.heuristic: over cells, or columns
    if evaluator is not None:  # an evaluator may describe itself (Go's priors)
        name = getattr(evaluator, "description", "search only (window-count heuristic priors and values")
        return evaluator, name + ", one-ply proofs)"
    from zeroplay.search import RolloutEvaluator, UniformEvaluator

    if game.kernels is not None:
        return RolloutEvaluator(), "search only (uniform priors, random-rollout values, one-ply proofs)"

    return UniformEvaluator(), "search only (uniform priors, one-ply proofs)"


def make_engine(game: Game, model: str | os.PathLike | None = None, *, use_shipped: bool = True,
                inference: str = "torch") -> Engine:
    """The engine for ``game``: ``model`` (a path or a shipped model's name) when given, else the
    default shipped model (``find_model``), else search only. ``inference`` is how the model's
    net runs (``INFERENCE_BACKENDS``: ``"numpy"`` never imports torch).

    Raises:
        zeroplay.nn.CheckpointError: ``model`` was given and does not load for ``game`` (worded
            by ``check_model``; the message names each difference), cannot be read, or its weights
            are damaged (``load_model``). A ``ValueError``.
    """
    if model is None and use_shipped:
        model = find_model(game)
        shipped = True
    else:
        shipped = False
    overrides = dict(game.play_search_options)
    if model is not None:
        model = check_model(model, game)  # before torch is imported: a bad --model is told at once
        # a shipped file chosen by name is as shipped as the default one
        shipped = shipped or Path(model).resolve().parent == MODELS_DIR.resolve()
        evaluator, meta = _net_evaluator(model, game, inference)
        path = Path(model)
        notes = []
        if shipped and DEFAULT_MODELS.get(_key(game)) != path.name:
            notes.append(f"{_why_not_default(path.stem, game)} (docs/STRENGTH.md).")
        notes += _value_option_notes(meta, game)
        if not shipped:  # a shipped one off its board already has its _why_not_default note
            notes += _board_notes(meta, game)
        # one line of sentences: each after the first starts with a capital
        note = " ".join(n if i == 0 else n[:1].upper() + n[1:] for i, n in enumerate(notes)) or None
        return Engine(game, evaluator, f"model {path.name}" + _status_note(meta, shipped=shipped),
                      note, path, overrides)
    evaluator, name = search_only_evaluator(game)
    if overrides.get("threat_solver"):
        name = name.replace("one-ply proofs)", "one-ply proofs, VCF/VCT threat solver, defence)")
    fits = fitting_models(game) if use_shipped else []
    if fits:
        verbs = ("loads", "is") if len(fits) == 1 else ("load", "are")
        why = "; ".join(_why_not_default(fit, game) for fit in fits)
        note = (f"no default model for {describe(game)}: the shipped {' and '.join(fits)} {verbs[0]} here but "
                f"{verbs[1]} not its default ({why}: docs/STRENGTH.md); playing with the {name}.")
    else:
        here, shipped = _rules_differ(game)
        note = f"no trained model for {describe(game)}{here} yet{shipped}: playing with the {name}."
    return Engine(game, evaluator, name, note, None, overrides)


def _rules_differ(game: Game) -> tuple[str, str]:
    """``(" with scoring 'territory'", " (the shipped go-9x9 plays scoring 'area')")`` where a
    shipped model of this game and board does not load only because of its rules, so that "no
    trained model for go 9x9" does not read as if none shipped for the board; else ``("", "")``."""
    from zeroplay.nn.record import CheckpointError, option_differences

    defaults = {name for key, name in DEFAULT_MODELS.items() if key[:3] == (game.name, game.width, game.height)}
    # this board's default first: another board's file may sort before it
    for path in sorted(model_files(), key=lambda p: (p.name not in defaults, p.name)):
        if path.name not in defaults and not path.stem.startswith(f"{game.name}-{game.width}x{game.height}"):
            continue  # (a board's default may be another board's file: 11x11's is a 15x15 net)
        try:
            found = option_differences(path, game)
        except CheckpointError:
            continue
        if found:
            named = describe(game).replace(",", " ").split()  # "gomoku 15x15 renju" names its rule
            here = " and ".join(f"{k} {wanted!r}" for k, (_, wanted) in found.items() if str(wanted) not in named)
            there = " and ".join(f"{k} {theirs!r}" for k, (theirs, _) in found.items())
            return (f" with {here}" if here else ""), f" (the shipped {path.stem} plays {there})"
    return "", ""


def _net_evaluator(path: str, game: Game, inference: str):
    """``(evaluator, the checkpoint's record)`` of the model at ``path``, its net run by ``inference``,
    at the play-time thread limit (``nn.numpy_net.inference_threads``)."""
    from zeroplay.nn.numpy_net import inference_threads

    threads = inference_threads()
    net = load_model(path, game, inference=inference)
    if inference == "numpy":
        from zeroplay.nn.numpy_net import NumpyNetEvaluator

        return NumpyNetEvaluator(net, net.meta["features"], threads=threads), net.meta
    from zeroplay.nn import NetEvaluator

    # the limit is held in the searching thread too (NetEvaluator re-applies it there)
    return NetEvaluator(net.model, net.features, threads=threads), net.meta


def _value_option_notes(meta: dict, game: Game) -> list[str]:
    """One note per ``game.value_only_options`` option (Go's komi) the model was trained under
    another value of: it plays, but its win rates lean by the difference."""
    trained = (meta.get("game") or {}).get("options") or {}
    notes = []
    for option in getattr(game, "value_only_options", ()):
        if option in trained and trained[option] != game.options.get(option):
            notes.append(f"the model was trained with {option} {trained[option]:g} and plays {option} "
                         f"{game.options.get(option):g}: its win rates lean by the difference.")
    return notes


def _board_notes(meta: dict, game: Game) -> list[str]:
    """A note when the model was trained on another board size than ``game``'s: a convolutional net
    plays there, but how well was never measured."""
    trained = (meta.get("game") or {}).get("options") or {}
    width, height = trained.get("width"), trained.get("height")
    if width is None or height is None or (width, height) == (game.width, game.height):
        return []
    return [f"the model was trained on {width}x{height} and plays {game.width}x{game.height}: "
            "its strength there was not measured."]


def _why_not_default(name: str, game: Game) -> str:
    """Why the shipped model ``name``, which loads for ``game``, does not play it by default: on its
    own board a newer model replaced it, or it was measured weaker than the search-only engine; on
    another board it was not measured."""
    from zeroplay.nn.record import CheckpointError, checkpoint_game

    try:
        options = checkpoint_game(MODELS_DIR / f"{name}.safetensors")[1]
    except (CheckpointError, OSError):
        return f"{name}: not measured here"
    width, height = options.get("width"), options.get("height")
    if (width, height) == (game.width, game.height):
        default = DEFAULT_MODELS.get(_key(game))
        if default is not None and default != f"{name}.safetensors":
            return f"{name}: an earlier model; {Path(default).stem} replaced it as this board's default"
        return f"{name}: weaker than the search-only engine on this board"
    return f"{name}: trained on {width}x{height}, not measured on {game.width}x{game.height}"


def _status_note(meta: dict, *, shipped: bool) -> str:
    """The model's status from its record's ``extra.shipped`` (written by
    ``training/export_model.py``): `` (shipped, intermediate: iteration 40, 2,100 self-play games)``
    for a shipped model, `` (run gomoku-8x8-5, intermediate: ...)`` for one given with ``--model``;
    `` (shipped)`` for a shipped file without it, and nothing for a plain checkpoint."""
    info = (meta.get("extra") or {}).get("shipped") or {}
    if not isinstance(info, dict) or not info:
        return " (shipped)" if shipped else ""
    origin = "shipped" if shipped else (f"run {info['run']}" if info.get("run") else "exported")
    games = info.get("selfplay_games")
    games = f"{games:,}" if isinstance(games, int) else games
    return (f" ({origin}, {info.get('status', 'final')}: iteration {info.get('iteration')}, "
            f"{games} self-play games)")


def describe(game: Game) -> str:
    """``"gomoku 15x15 freestyle"``, ``"gomoku 6x6 freestyle, 4 in a row"`` and the like: the
    line length is named where it is not 5, and on boards whose default is another
    (``default_n_in_row``: 6x6 with 5 in a row)."""
    return game.describe()


_MODEL_STAGE = "search with the 15x15 model"


def warm_up_stages(*, solvers: bool = False, model: bool = False) -> list[str]:
    """The names of ``warm_up``'s stages for these options, in order."""
    from zeroplay.games import make

    stages = ["rules", "search"] + (["VCT solver (alpha-beta)", "VCT solver (proof-number)"] if solvers else [])
    if model and find_model(make("gomoku", width=15, height=15, rule="freestyle")) is not None:
        stages.append(_MODEL_STAGE)
    return stages


def warm_up(progress: Callable[[str], None] | None = None, *, solvers: bool = False, model: bool = False,
            more_stages: int = 0) -> float:
    """Compile (or load from the on-disk cache) the rules and search kernels; returns seconds.

    The first time in a new environment this is minutes of CPU (``make venv`` on a fresh clone:
    225 CPU-s for the rules, the search and the alpha-beta VCT solver, 30 min of wall time beside
    other jobs on a busy 2-core machine); well under 2 s after. ``progress`` gets one line per
    stage as it starts and ends (``make`` runs this at set-up with ``print``, so the set-up shows
    what it compiles instead of a silent wait); ``solvers`` also compiles the threat solvers' VCT
    kernels of ``zeroplay solve gomoku --vct`` (alpha-beta and proof-number). ``model`` also searches with
    the shipped 15x15 model (its net in numpy), whose priors specialise kernels of their own
    (189 s to compile on a loaded 2-core machine), so that the Gomocup engine's first search with
    it loads them from the cache; skipped when that model is not shipped. ``more_stages``: stages
    the caller runs after these, counted in the lines' "i/n" (the terminal's engine warm-up).
    """
    import time

    say = progress or (lambda line: None)
    t0 = time.perf_counter()
    from zeroplay.games import make

    game15 = make("gomoku", width=15, height=15, rule="freestyle")
    stages = warm_up_stages(solvers=solvers, model=model)
    with_model = stages[-1] == _MODEL_STAGE

    def stage(i: int, name: str, work) -> None:
        started = time.perf_counter()
        # (the same lines when the cache is warm but the machine is slow to load it: say both)
        n = len(stages) + more_stages
        say(f"compiling or loading {i}/{n}: {name} (compiled on the first run, loaded from the cache after) ...")
        work()
        say(f"compiling or loading {i}/{n}: {name} done in {time.perf_counter() - started:.1f} s")

    game = make("gomoku", width=7, height=7, rule="standard")
    position = {}

    def rules():
        position["state"] = state = game.from_stones([24], [25]).play(17)
        state.winning_moves()
        state.legal_moves()

    def search():
        from zeroplay.engine.heuristic import HeuristicEvaluator
        from zeroplay.search import SearchConfig, Searcher

        searcher = Searcher(game, HeuristicEvaluator(), SearchConfig.for_playouts(40, game,
                                                                                       threat_solver=True))
        state = position["state"]
        searcher.search(state, playouts=40)
        searcher.search(state.play(int(searcher.result().best_move)), playouts=8)

    def vct(method: str):
        def work():
            from zeroplay.solvers.threat_solver import ThreatSolver

            ThreatSolver(game).vct(position["state"], nodes=1, method=method)
        return work

    def model_search():
        make_engine(game15, inference="numpy").warm_up()

    works = [rules, search] + ([vct("ab"), vct("pns")] if solvers else []) + ([model_search] if with_model else [])
    for i, (name, work) in enumerate(zip(stages, works), start=1):
        stage(i, name, work)
    return time.perf_counter() - t0
