"""The ``zeroplay train``, ``arena`` and ``export`` subcommands (wired into ``zeroplay.cli``)."""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import signal
import sys
import threading
from pathlib import Path

from zeroplay.engine.options import at_least_0, at_least_1, whole_number_in
from zeroplay.train.bounds import MAX_ARENA_GAMES, MAX_LR, MAX_SEED, MAX_TRAIN_BATCH


def add_parsers(sub) -> None:
    """Add ``train``, ``arena``, ``export`` and ``ablate`` to the ``zeroplay`` subparsers ``sub``."""
    from zeroplay.train.ablate import add_parser as add_ablate
    from zeroplay.train.export import add_parser as add_export

    _add_train(sub)
    _add_arena(sub)
    add_export(sub)
    add_ablate(sub)


def _add_game_options(p, *, taken_from: str) -> None:
    """``--game``, ``--size``, ``--n-in-row``, ``--rule``. They default to None (the game's own
    defaults then apply), so that a command knows which were given. ``taken_from``: where options
    not given come from (train: the run being resumed; arena: the first checkpoint player), for
    the help."""
    from zeroplay.games import names

    def default(plain: str) -> str:
        return f"default: {taken_from}'s, else {plain}"

    p.add_argument("--game", choices=names(), default=None, help=f"game ({default('gomoku')})")
    p.add_argument("--size", type=int, default=None, help=f"Gomoku board width and height ({default('15')})")
    p.add_argument("--n-in-row", type=int, default=None,
                   help=f"Gomoku line length that wins ({default('4 on 6x6, 5 on other sizes')})")
    p.add_argument("--rule", choices=["freestyle", "standard", "renju"], default=None,
                   help=f"Gomoku rule ({default('freestyle')})")
    p.add_argument("--komi", type=float, default=None, help="Go: komi, points for White (default 7.5)")


def _game_options(args) -> dict | None:
    opts = {k: v for k, v in (("size", args.size), ("n_in_row", args.n_in_row), ("rule", args.rule),
                              ("komi", getattr(args, "komi", None))) if v is not None}
    return opts or None


def _add_train(sub) -> None:
    p = sub.add_parser(
        "train", help="train a net by self-play (resumable: rerun the same command to continue)",
        description="Self-play -> replay buffer -> training -> arena, iteration after iteration, in "
        "RUN_DIR. Rerunning the command on the same RUN_DIR continues where it stopped (also after "
        "kill -9). Options not given on a resume keep the run's stored values (config.json), except "
        "--workers, --threads, --backend, --address, --iterations and --hours, which are per call. One "
        "process per RUN_DIR (a lock file).")
    p.add_argument("--run-dir", required=True, help="run directory (created; reused to resume)")
    _add_game_options(p, taken_from="the run")
    p.add_argument("--net", default=None, help="network: tiny (default) or bNcM, e.g. b6c64")
    p.add_argument("--global-pooling", action="store_true",
                   help="KataGo's global pooling blocks in the bNcM net (every third block; part of the net, "
                   "fixed when the run starts: the stored net name gets -gpool) (default off)")
    p.add_argument("--opp-reply-head", action="store_true",
                   help="KataGo's auxiliary opponent-reply policy head on the bNcM net (fixed when the run "
                   "starts: the stored net name gets -opp) (default off)")
    p.add_argument("--ownership-head", action="store_true",
                   help="KataGo's auxiliary final-ownership and score heads on the bNcM net, trained on games "
                   "played to the end (Go; fixed when the run starts: the stored net name gets -own) (default off)")
    p.add_argument("--features", choices=["basic", "alphazero-gomoku", "go"], default=None,
                   help="input planes (default: the game's own: go for Go, else basic)")
    p.add_argument("--threat-planes", action="store_true",
                   help="Gomoku: eight threat input planes after the basic ones (for each side the cells that "
                   "make five, an open four, a four, an open three; fixed when the run starts: the stored "
                   "feature set becomes basic+threats) (default off)")
    p.add_argument("--iterations", type=int, default=None,
                   help="the run's total iterations: stop once it has this many (default: no limit)")
    p.add_argument("--hours", type=float, default=None,
                   help="stop starting iterations after this many hours of this call")
    p.add_argument("--workers", type=int, default=None,
                   help="self-play processes (default: all cores; at most 4 a core; 0: in this process; not "
                   "stored: give it on every call); with --backend "
                   "ray: actors (default: the cores here, or every CPU of the cluster with --address)")
    p.add_argument("--backend", choices=["local", "ray"], default="local",
                   help="where self-play runs: local processes (default) or Ray actors, on a local Ray "
                   "instance or a cluster (needs pip install 'zeroplay[ray]'; docs/DISTRIBUTED.md)")
    p.add_argument("--address", default=None,
                   help="with --backend ray: 'auto' or HOST:PORT of a running Ray cluster (default: "
                   "start a local Ray instance on 127.0.0.1)")
    p.add_argument("--threads", type=int, default=None,
                   help="torch threads for training and the arena (default: half the cores; not stored)")
    p.add_argument("--seed", type=int, default=None, help="run seed (default 0)")
    p.add_argument("--max-moves", type=int, default=None,
                   help="shogi (the Python loop): moves after which a self-play game is a draw, 1..100000; "
                   "refused for other games (default 512)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars (shown only where stderr is a terminal)")
    g = p.add_argument_group("self-play")
    g.add_argument("--playouts", type=int, default=None, help="playouts per move (default 400)")
    g.add_argument("--parallel-games", type=int, default=None,
                   help="games per worker played at once, batched together (default 8)")
    g.add_argument("--search-batch", type=int, default=None, help="leaves per game per round (default 16)")
    g.add_argument("--temperature-moves", type=int, default=None,
                   help="opening plies sampled from the visits with tau 1 (default 8)")
    g.add_argument("--selfplay-openings", metavar="FILE", default=None,
                   help="start each self-play game after one of FILE's openings, drawn at random (one a line, "
                   "moves in the game's notation, as zeroplay arena --openings reads them; the plies get no "
                   "search and no sample); stored in the run; 'none' goes back to the empty board (default none)")
    g.add_argument("--resign-threshold", type=float, default=None,
                   help="resign below this root and best-move Q, in [-1, 1] (default -0.9; "
                   "below -1 never resigns)")
    g.add_argument("--no-resign-fraction", type=float, default=None,
                   help="share of games that never resign, to measure false resignations (default 0.1)")
    g.add_argument("--full-search-prob", type=float, default=None,
                   help="playout cap randomization: share of moves with the full search (default 1: off)")
    g.add_argument("--fast-playouts", type=int, default=None,
                   help="playouts of the other moves under playout cap randomization (default 64)")
    g.add_argument("--root-policy", choices=["puct", "gumbel"], default=None,
                   help="root search: puct (Dirichlet noise, visit targets) or gumbel (Gumbel-top-k + sequential "
                   "halving, improved-policy targets; Danihelka et al. 2022) (default puct)")
    g.add_argument("--gumbel-m", type=int, default=None,
                   help="with --root-policy gumbel: root candidates m, a count of moves (default 16)")
    g.add_argument("--forced-playouts", type=float, default=None, metavar="K",
                   help="KataGo's forced playouts + policy target pruning at the PUCT root: k of "
                   "sqrt(k * P * sum N), a dimensionless factor (default 0: off; KataGo 2)")
    g.add_argument("--threat-solver", action=argparse.BooleanOptionalAction, default=None,
                   help="Gomoku: VCF threat solver in the self-play and arena searches (default off)")
    g.add_argument("--precision", choices=["auto", "fp32", "bf16"], default=None,
                   help="self-play inference precision (default auto: bf16 where the CPU has it)")
    g = p.add_argument_group("training")
    g.add_argument("--games-per-iteration", type=int, default=None, help="self-play games per iteration (default 64)")
    g.add_argument("--steps", type=int, default=None, help="optimizer steps per iteration (default 100)")
    g.add_argument("--batch-size", type=int, default=None, help="samples per step (default 256)")
    g.add_argument("--window", type=int, default=None, help="replay window in samples (default 100000)")
    g.add_argument("--flush-games", type=int, default=None,
                   help="finished games per replay shard; a kill loses at most these (default 16)")
    g.add_argument("--lr", type=float, default=None, help="learning rate (default 2e-3, Adam)")
    g.add_argument("--l2", type=float, default=None, help="c of the c*||theta||^2 weight decay (default 1e-4)")
    g.add_argument("--opp-reply-weight", type=float, default=None,
                   help="weight of the opponent-reply head's cross-entropy in the loss, dimensionless "
                   "(default 0.15, KataGo's; only nets with --opp-reply-head)")
    g.add_argument("--ownership-weight", type=float, default=None,
                   help="weight of the ownership head's cross-entropy (mean over cells) in the loss "
                   "(default 1.5, KataGo's; only nets with --ownership-head)")
    g.add_argument("--score-weight", type=float, default=None,
                   help="weight of the score head's squared error (margin in board-area units) in the loss "
                   "(default 0.5; only nets with --ownership-head)")
    g = p.add_argument_group("evaluation")
    g.add_argument("--eval-games", type=int, default=None,
                   help="arena games per opponent after each iteration (default 20; 0: none)")
    g.add_argument("--eval-playouts", type=int, default=None, help="playouts per move in the arena (default: --playouts)")
    g.add_argument("--baseline", default=None,
                   help="fixed arena opponent, e.g. rollout:200 or uniform:800; 'none' for none (default "
                   "auto: rollout:200 for Gomoku-family games, uniform:200 for others)")
    p.set_defaults(func=_cmd_train)


def _overrides(args) -> dict:
    def pick(**names):
        return {field: getattr(args, arg) for field, arg in names.items() if getattr(args, arg) is not None}

    selfplay = pick(playouts="playouts", parallel_games="parallel_games", batch_size="search_batch",
                    temperature_moves="temperature_moves", no_resign_fraction="no_resign_fraction",
                    full_search_prob="full_search_prob", fast_playouts="fast_playouts", precision="precision",
                    threat_solver="threat_solver", root_policy="root_policy", gumbel_m="gumbel_m",
                    forced_playouts_k="forced_playouts")
    if args.resign_threshold is not None:
        selfplay["resign_threshold"] = None if args.resign_threshold < -1 else args.resign_threshold
    loop = pick(games_per_iteration="games_per_iteration", steps_per_iteration="steps", batch_size="batch_size",
                window="window", eval_games="eval_games", eval_playouts="eval_playouts",
                flush_games="flush_games")
    if args.baseline is not None:
        from zeroplay.engine.arena import canonical_spec

        # the canonical form, so that evals and plots name the baseline the way arena results do
        spec = args.baseline.strip()
        try:
            loop["baseline"] = None if spec.lower() == "none" else _absolute_checkpoint(canonical_spec(spec))
        except ValueError as e:
            raise ValueError(f"--baseline {spec}: {e}") from None
    train = pick(lr="lr", l2="l2", opp_reply_weight="opp_reply_weight", ownership_weight="ownership_weight",
                 score_weight="score_weight")
    return {"seed": args.seed, "selfplay": selfplay, "loop": loop, "train": train}


def _with_openings(args, structural, overrides: dict) -> dict:
    """``overrides`` with ``--selfplay-openings``' lines as the self-play openings (actions), read
    for the run's game (stored game options on a resume); unchanged without the option.

    Raises:
        ValueError: the file does not read or a line does not play (``FileOpenings``' message).
    """
    path = getattr(args, "selfplay_openings", None)
    if path is None:
        return overrides
    openings: tuple = ()
    if not path.strip():
        raise ValueError("--selfplay-openings needs a file (or none)")
    if path.strip().lower() != "none":
        loaded = getattr(args, "_selfplay_openings_loaded", None)
        if loaded is not None and loaded[0] == path:  # the check before the run read it already
            openings = loaded[1]
        else:
            from zeroplay.engine.arena_openings import FileOpenings
            from zeroplay.train.loop import resolve_run

            game = resolve_run(args.run_dir, structural, overrides).make_game()
            openings = tuple(tuple(line) for line in FileOpenings(path, game).lines)
            args._selfplay_openings_loaded = (path, openings)
    return {**overrides, "selfplay": {**overrides["selfplay"], "openings": openings}}


def _absolute_checkpoint(spec: str) -> str:
    """``spec`` with a checkpoint file given by a relative path made absolute: the run stores its
    baseline, and a resume from another directory looked for the file there (helper-79)."""
    from zeroplay.engine.arena import checkpoint_file

    path = checkpoint_file(spec)
    if path is None or os.path.isabs(path) or not os.path.isfile(path) or not spec.endswith(path):
        return spec  # (a shipped model's name resolves to its absolute file in the package)
    return spec[: -len(path)] + os.path.abspath(path)


# (option, attribute, smallest allowed value, whether the bound is strict)
_TRAIN_BOUNDS = (("--iterations", "iterations", 0, False), ("--hours", "hours", 0, False),
                 ("--workers", "workers", 0, False), ("--threads", "threads", 1, False),
                 ("--seed", "seed", 0, False), ("--playouts", "playouts", 1, False),
                 ("--parallel-games", "parallel_games", 1, False), ("--search-batch", "search_batch", 1, False),
                 ("--temperature-moves", "temperature_moves", 0, False),
                 ("--no-resign-fraction", "no_resign_fraction", 0, False),
                 ("--full-search-prob", "full_search_prob", 0, True), ("--fast-playouts", "fast_playouts", 1, False),
                 ("--gumbel-m", "gumbel_m", 1, False), ("--forced-playouts", "forced_playouts", 0, False),
                 ("--opp-reply-weight", "opp_reply_weight", 0, False),
                 ("--ownership-weight", "ownership_weight", 0, False), ("--score-weight", "score_weight", 0, False),
                 ("--games-per-iteration", "games_per_iteration", 1, False), ("--steps", "steps", 1, False),
                 ("--batch-size", "batch_size", 1, False), ("--window", "window", 1, False),
                 ("--flush-games", "flush_games", 1, False), ("--lr", "lr", 0, True), ("--l2", "l2", 0, False),
                 ("--eval-games", "eval_games", 0, False), ("--eval-playouts", "eval_playouts", 1, False),
                 ("--size", "size", 1, False), ("--n-in-row", "n_in_row", 1, False))
# (option, attribute, largest allowed value); --workers and --threads are bounded by the cores
_TRAIN_MAXIMA = (("--batch-size", "batch_size", MAX_TRAIN_BATCH), ("--lr", "lr", MAX_LR),
                 ("--eval-games", "eval_games", MAX_ARENA_GAMES), ("--seed", "seed", MAX_SEED))
_AT_MOST_1 = (("--no-resign-fraction", "no_resign_fraction"), ("--full-search-prob", "full_search_prob"),
              ("--resign-threshold", "resign_threshold"))
MAX_SHOGI_MOVES = 100_000
"""Most ``--max-moves``: the bound of ``games.shogi.game.Shogi``'s ``max_moves``."""


def check_train_args(args) -> None:
    """Refuse bad ``zeroplay train`` options before anything is read or written.

    Raises:
        ValueError: one line naming the option, its value and the allowed range.
    """
    import math

    from zeroplay.train.runlock import check_run_dir_path

    check_run_dir_path(args.run_dir)  # before a Path("") turns an empty one into "."
    for flag, attr, low, strict in _TRAIN_BOUNDS:
        value = getattr(args, attr, None)
        if value is None:
            continue
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{flag} must be a finite number, got {value}")
        if value < low or (strict and value == low):
            raise ValueError(f"{flag} must be {'>' if strict else '>='} {low}, got {value}")
    from zeroplay.search.limits import MAX_PLAYOUTS

    # the search's tables are sized from the playouts: a huge value failed deep inside, after
    # the run directory stored it
    for flag, attr in (("--playouts", "playouts"), ("--fast-playouts", "fast_playouts"),
                       ("--eval-playouts", "eval_playouts")):
        value = getattr(args, attr, None)
        if value is not None and value > MAX_PLAYOUTS:
            raise ValueError(f"{flag} must be <= {MAX_PLAYOUTS:,}, got {value:,}")
    for flag, attr in _AT_MOST_1:
        value = getattr(args, attr, None)
        if value is None:
            continue
        if not math.isfinite(value) and not (attr == "resign_threshold" and value == -math.inf):
            raise ValueError(f"{flag} must be a finite number, got {value}")
        if value > 1:
            what = ("a root value Q in [-1, 1] (below -1: never resign)" if attr == "resign_threshold"
                    else "a share in [0, 1]")
            raise ValueError(f"{flag} must be {what}, got {value}")
    max_moves = getattr(args, "max_moves", None)
    if max_moves is not None and not 1 <= max_moves <= MAX_SHOGI_MOVES:
        raise ValueError(f"--max-moves must be in 1..{MAX_SHOGI_MOVES}, got {max_moves}")
    for flag, attr, high in _TRAIN_MAXIMA:
        value = getattr(args, attr, None)
        if value is not None and value > high:
            raise ValueError(f"{flag} must be <= {high:,}, got {value:,}")
    from zeroplay.train.workers import check_local_workers

    if args.address is None:  # (a cluster's actors run on its machines: it bounds them itself)
        check_local_workers("--workers", args.workers)
    # torch's thread pool: 100000 threads crashed in libgomp (helper-79)
    check_local_workers("--threads", getattr(args, "threads", None))
    if args.address is not None and args.backend != "ray":
        raise ValueError("--address is for --backend ray (a Ray cluster to join); add --backend ray or drop --address")
    if args.baseline is not None and not args.baseline.strip():
        raise ValueError("--baseline is empty: give a player (e.g. rollout:200) or 'none'")


def net_name(args) -> str | None:
    """``--net`` with the net options ``--global-pooling`` (``-gpool``), ``--opp-reply-head``
    (``-opp``) and ``--ownership-head`` (``-own``) appended; None when none is given (a resume
    keeps the stored net).

    A net option without ``--net`` on a run that exists applies to the stored net, so the command
    that started a run (less ``--net``) resumes it, and one that would change the net is refused
    by ``resolve_run`` naming both nets.

    Raises:
        ValueError: a net option without ``--net`` for a run that does not exist yet (the options
            change the net's shape, which is fixed when a run starts), or a damaged config.json.
    """
    from zeroplay.nn.arch import OPTION_GPOOL, OPTION_OPP, OPTION_OWN
    from zeroplay.train.loop import read_run_config

    options = ((OPTION_GPOOL, getattr(args, "global_pooling", False)),
               (OPTION_OPP, getattr(args, "opp_reply_head", False)),
               (OPTION_OWN, getattr(args, "ownership_head", False)))
    if not any(given for _, given in options):
        return args.net
    net = args.net
    if net is None:
        stored = read_run_config(args.run_dir) if args.run_dir is not None else None
        if stored is None:
            raise ValueError("--global-pooling, --opp-reply-head and --ownership-head need --net bNcM to start "
                             "a run (they are part of the net, whose shape is fixed when the run starts)")
        net = stored.net
    base = net
    for option, _ in options:
        base = base.replace(option, "")
    return base + "".join(option for option, given in options if given or option in net)


def check_head_weights(args, net: str) -> None:
    """Refuse a loss weight given for a head the run's net does not have: it would be stored and
    never used.

    Raises:
        ValueError: ``--opp-reply-weight`` for a net without ``-opp``, ``--ownership-weight`` or
            ``--score-weight`` for one without ``-own``.
    """
    from zeroplay.nn.arch import OPTION_OPP, OPTION_OWN

    for flag, attr, option, head in (("--opp-reply-weight", "opp_reply_weight", OPTION_OPP, "--opp-reply-head"),
                                     ("--ownership-weight", "ownership_weight", OPTION_OWN, "--ownership-head"),
                                     ("--score-weight", "score_weight", OPTION_OWN, "--ownership-head")):
        if getattr(args, attr, None) is not None and option not in net:
            raise ValueError(f"{flag} weighs a head the net {net} does not have: add {head} when the run starts "
                             f"(its net gets {option}), or drop {flag}")


def features_name(args) -> str | None:
    """``--features`` with ``--threat-planes`` appended (``basic+threats``); None when neither is
    given (a resume keeps the stored feature set).

    Raises:
        ValueError: ``--threat-planes`` with ``--features alphazero-gomoku`` (not offered: the
            search keys the last move for that set alone, ``games.planes.THREATS_SUFFIX``).
    """
    from zeroplay.games.planes import THREATS_SUFFIX

    if not getattr(args, "threat_planes", False):
        return args.features
    base = args.features or "basic"
    if base != "basic":
        raise ValueError(f"--threat-planes goes with --features basic (the default), not {base}")
    return base + THREATS_SUFFIX


def check_train_command(args) -> None:
    """Every check ``zeroplay train`` makes before it writes anything, with no side effect: the
    options' ranges, the game and its options, the net and features, the run directory's stored
    settings when it exists (``resolve_run``), the run config and head weights. ``zeroplay
    ablate`` runs it on each side's options before its first chunk.

    Raises:
        ValueError: one line naming what is refused (an option's value, a game option out of
            range, a net name, a setting that differs from the stored run).
    """
    from zeroplay.train.loop import check_run_config, resolve_run

    check_train_args(args)
    if _python_loop(args):
        return  # shogi's Python loop checks its own options (train_command)
    structural = {"game": args.game, "net": net_name(args), "features": features_name(args),
                  "game_options": _game_options(args)}
    overrides = _with_openings(args, structural, _overrides(args))
    resolved = resolve_run(args.run_dir, structural, overrides)
    if getattr(args, "max_moves", None) is not None:  # shogi's Python loop took it above
        raise ValueError(f"--max-moves is for shogi (moves before a self-play game is a draw); this run plays "
                         f"{resolved.game}: drop --max-moves")
    check_run_config(resolved)
    check_head_weights(args, resolved.net)


def _cmd_train(args) -> int:
    from zeroplay.train.workers import default_workers

    check_train_args(args)
    if _python_loop(args):
        from zeroplay.train.shogi_selfplay import train_command

        return train_command(args)
    if args.backend == "ray":
        from zeroplay.train.ray_backend import ray_missing_message

        if (missing := ray_missing_message()) is not None:
            print(missing, file=sys.stderr)
            return 2
    structural = {"game": args.game, "net": net_name(args), "features": features_name(args),
                  "game_options": _game_options(args)}
    # everything is checked before the run directory is created or changed: a typo costs nothing
    check_train_command(args)
    overrides = _with_openings(args, structural, _overrides(args))
    workers = default_workers() if args.workers is None else args.workers
    workers_note = "" if args.workers is not None else " (--workers not given: all cores; it is not stored in the run)"
    if args.backend == "ray" and args.workers is None and args.address is not None:
        workers = 0  # one Ray actor per CPU of the cluster
        workers_note = " (one Ray actor per CPU of the cluster)"
    owns_ray = _join_cluster(args)  # before the run directory is touched
    try:
        return _train_locked(args, structural, overrides, workers, workers_note)
    finally:
        if owns_ray:
            import ray

            ray.shutdown()


def _python_loop(args) -> bool:
    """True for a game whose rules have no compiled kernels (``game.kernels is None``: shogi on
    cshogi), which the compiled self-play pipeline cannot drive, or a run directory such a game
    started: those train with the Python loop (``zeroplay.train.shogi_selfplay``)."""
    from zeroplay.games import make
    from zeroplay.train.shogi_selfplay import is_python_loop_run

    if args.game is None:
        return is_python_loop_run(args.run_dir)
    python_loop = getattr(make(args.game, **(_game_options(args) or {})), "kernels", ()) is None
    run_dir = Path(args.run_dir)
    # one run directory holds one run: another game's metrics and checkpoints beside its own
    # would make plot and export mix the two
    if not python_loop and (is_python_loop_run(run_dir) or any(run_dir.glob("net-[0-9][0-9][0-9][0-9].safetensors"))):
        raise ValueError(f"{run_dir} holds a shogi run (python-loop.json, net-NNNN.safetensors); --game {args.game} "
                         "cannot train in it: give another --run-dir")
    if python_loop and ((run_dir / "config.json").exists() or (run_dir / "checkpoints").is_dir()):
        raise ValueError(f"{run_dir} holds a run of the compiled pipeline (config.json, checkpoints/); --game {args.game} "
                         "cannot train in it: give another --run-dir")
    return python_loop


def _join_cluster(args) -> bool:
    """``--address``: join the Ray cluster now, so that a wrong address fails before anything is
    written (Ray alone retries a dead HOST:PORT for minutes). True when this call connected."""
    if args.backend != "ray" or args.address is None:
        return False
    from zeroplay.train.ray_backend import connect

    try:
        return connect(args.address)
    except (ConnectionError, TimeoutError) as e:
        raise ValueError(str(e).strip().splitlines()[0] if str(e).strip() else
                         f"no Ray cluster reachable at {args.address}") from None


def _check_new_run_dir(run_dir: Path) -> None:
    """Refuse to start a run in a directory that holds other files (``--run-dir runs/a/checkpoints``
    wrote a new run among another run's checkpoints; helper-79).

    Raises:
        ValueError: names the directory and up to three of its entries.
    """
    from zeroplay.train.loop import CHECKPOINTS, CONFIG_FILE, EVALS, PLOTS, RECORDS, SHARDS
    from zeroplay.train.metrics import METRICS_FILE
    from zeroplay.train.runlock import LOCK_FILE

    if not run_dir.is_dir() or (run_dir / CONFIG_FILE).exists():
        return
    ours = {CHECKPOINTS, EVALS, PLOTS, RECORDS, SHARDS, METRICS_FILE, LOCK_FILE, "KEEP"}
    others = sorted(p.name for p in run_dir.iterdir() if p.name not in ours and not p.name.startswith("."))
    if others:
        shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
        raise ValueError(f"--run-dir {run_dir} holds no run ({CONFIG_FILE}) but other files ({shown}): give a new or "
                         "empty directory to start a run, or the directory of the run to continue")


@contextlib.contextmanager
def _stop_signals_interrupt():
    """SIGTERM and SIGHUP (a batch scheduler's stop, a closed terminal) end the run as Ctrl-C
    does: workers closed and the "rerun" line said (they ended it without a word; helper-79). The
    KeyboardInterrupt raised carries the signal's name and number; the handlers before are put
    back on the way out. Only in the main thread, where Python runs signal handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise KeyboardInterrupt(signal.Signals(signum).name, signum)

    wanted = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    before = {signum: signal.signal(signum, stop) for signum in wanted}
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def _train_locked(args, structural, overrides, workers, workers_note) -> int:
    from zeroplay.train.loop import CONFIG_FILE, TrainingRun, open_run
    from zeroplay.train.runlock import RunLock

    _check_new_run_dir(Path(args.run_dir))
    new = not (Path(args.run_dir) / CONFIG_FILE).exists()
    with RunLock(args.run_dir):
        config = open_run(args.run_dir, structural, overrides)
        # a mistyped --run-dir on a resume started a default run without a word (helper-79)
        head = f"new run {args.run_dir} (no run was there)" if new else f"run {args.run_dir}"
        print(f"{head}: {config.game}{' ' + str(config.game_options) if config.game_options else ''}, "
              f"net {config.net}, "
              f"{config.selfplay.playouts} playouts, threat solver {'on' if config.selfplay.threat_solver else 'off'}, "
              f"{workers} worker(s){workers_note}"
              f"{f', {len(config.selfplay.openings):,} self-play openings' if config.selfplay.openings else ''}",
              file=sys.stderr, flush=True)
        run = TrainingRun(args.run_dir, config, workers=workers, progress=not args.no_progress, threads=args.threads,
                          backend=args.backend, address=args.address)
        try:
            with _stop_signals_interrupt():
                summary = run.run(iterations=args.iterations, hours=args.hours)
        except KeyboardInterrupt as e:
            run.close()
            print(f"interrupted{f' ({e.args[0]})' if e.args else ''}: rerun the same command to continue",
                  file=sys.stderr)
            return 128 + (e.args[1] if len(e.args) > 1 else signal.SIGINT)
        except OSError as e:
            if e.errno not in DISK_ERRNOS:
                raise
            run.close()
            print(disk_error_line(e, args.run_dir), file=sys.stderr)
            return 1
    print(json.dumps(summary))
    return 0


DISK_ERRNOS = frozenset(getattr(errno, name) for name in ("ENOSPC", "EDQUOT", "EFBIG", "EROFS", "EIO")
                        if hasattr(errno, name))
"""Errors of the disk, not of zeroplay: a full disk or quota, a file too large, a read-only or
failing file system. ``zeroplay train`` says them in one line; any other OSError keeps its
traceback (a bug)."""


def disk_error_line(e: OSError, run_dir) -> str:
    """One line for a disk error during training: what, where, and that the run resumes (every
    save is atomic, so the files on disk are whole; the temp file of the failed save is gone)."""
    where = e.filename or run_dir
    return (f"zeroplay train: error: {e.strerror or (os.strerror(e.errno) if e.errno is not None else e)} while writing {where}; "
            f"free some space, then rerun the same command to continue from the last whole checkpoint")


def player_spec(text: str) -> str:
    """argparse type: an arena player in its canonical form (``arena.canonical_spec``: ``uniform:08``
    is ``uniform:8``), so that a malformed ``uniform:0`` is refused as a usage error; checkpoint
    files are checked when the player is made."""
    from zeroplay.engine.arena import canonical_spec

    try:
        return canonical_spec(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _add_arena(sub) -> None:
    p = sub.add_parser(
        "arena", help="play a match between two players: W/D/L, score and Elo with 95%% interval",
        description="A player is a checkpoint path or a shipped model's name (e.g. gomoku-8x8-5-freestyle; "
        "a file of that name here wins), vcf:CHECKPOINT (that checkpoint or shipped model with the Gomoku "
        "threat solver, defence, root VCT and VCT guard of zeroplay play on; vcf-noguard:CHECKPOINT: the "
        "VCT guard off), gumbel:CHECKPOINT (that net with the Gumbel root search), uniform:N or "
        "rollout:N (N playouts per move), heuristic:N (the search-only engine of zeroplay play, threat "
        "solver on; heuristic-plain:N: off; heuristic-nodefence:N: solver on, no defence pruning), "
        "pbrain:COMMAND (a Gomocup engine), gtp:COMMAND (a GTP engine for Go), random:SEED (uniformly random "
        "legal moves); shogi: usi:COMMAND[@BYOYOMI_MS] (a USI engine), alphabeta:NODES, shogimcts:PLAYOUTS "
        "(material values) or shogimcts:PLAYOUTS@CHECKPOINT (a net zeroplay train --game shogi wrote). "
        "Game options not given come from the first checkpoint player's game, as zeroplay play --model "
        "takes them, else gomoku 15x15 free-style five in a row (four on 6x6, as in zeroplay play). "
        "Colours alternate; draws count 1/2.")
    p.add_argument("a", metavar="A", type=player_spec, help="first player")
    p.add_argument("b", metavar="B", type=player_spec, help="second player")
    p.add_argument("--games", type=whole_number_in(1, MAX_ARENA_GAMES), default=100,
                   help=f"games, 1..{MAX_ARENA_GAMES:,} (default 100)")
    _add_game_options(p, taken_from="the first checkpoint player")
    p.add_argument("--playouts", type=at_least_1, default=400,
                   help="playouts per move of checkpoint players (by path or name, and vcf:) (default 400); "
                        "uniform:N, rollout:N, heuristic:N, heuristic-plain:N and pbrain: players keep their own")
    p.add_argument("--opening-moves", type=at_least_0, default=2,
                   help="plies sampled from the visit counts at the start of each game (default 2)")
    p.add_argument("--parallel", type=at_least_1, default=64,
                   help="games played at once when both players search (default 64)")
    p.add_argument("--seed", type=at_least_0, default=None, help="seed, >= 0 (default: fresh)")
    openings = p.add_mutually_exclusive_group()
    openings.add_argument("--random-opening-plies", metavar="K", type=at_least_1, default=None,
                          help="start each pair of games (one with each colour order) after K uniformly random "
                               "legal plies, drawn from --opening-seed and the pair's number: distinct games "
                               "for deterministic players (engines, alpha-beta)")
    openings.add_argument("--openings", metavar="FILE", default=None,
                          help="start each pair of games (one with each colour order) after an opening of FILE: "
                               "one a line, moves in the game's notation separated by spaces (# comments), "
                               "pair k plays line k mod lines")
    p.add_argument("--opening-seed", metavar="S", type=at_least_0, default=None,
                   help="seed of --random-opening-plies, >= 0; only with it (default 0: the same openings on "
                        "every run)")
    p.add_argument("--record", metavar="PATH", default=None,
                   help="append each finished game to PATH (JSON lines: colours, moves, result). If PATH "
                        "already holds games of the same match (players, game, playouts, opening moves), "
                        "they count and only the rest are played: rerun a stopped match to resume it")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object: wins, draws, losses (of A), score, elo, elo_low, elo_high, "
                   "a_as_black, a_as_white, seconds, ...; an infinite Elo (a sweep) is null: its sign is "
                   "that of score - 0.5")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (shown only where stderr is a terminal)")
    p.set_defaults(func=_cmd_arena)


def _open_record(args, game, openings=None):
    """The ``--record`` file of this match (``MatchRecord``), or None without ``--record``."""
    if args.record is None:
        return None
    if not args.record.strip():
        raise ValueError("--record needs a file path, got an empty one")
    if args.record.endswith(("/", os.sep)):
        raise ValueError(f"--record {args.record} names a directory; give a file path")
    from zeroplay.engine.match_record import MatchRecord, match_header

    try:
        uses_playouts = any(_is_checkpoint(spec) for spec in (args.a, args.b))
        header = match_header(args.a, args.b, game, args.playouts if uses_playouts else None, args.opening_moves,
                              openings=None if openings is None else openings.describe())
        record = MatchRecord(args.record, header, game)
    except OSError as e:
        raise ValueError(f"--record {args.record}: {e.strerror or e}") from None
    if record.dropped_tail is not None:
        print(f"note: {args.record} ended in a line cut off mid-write (a stop while a game was being "
              "recorded); dropped it", file=sys.stderr)
    return record


def _arena_openings(args, game):
    """The match's ``arena_openings.Openings`` (``--random-opening-plies`` / ``--openings``), or None.

    Raises:
        ValueError: a bad openings file or plies count (the message says which line, which move).
    """
    from zeroplay.engine.arena_openings import FileOpenings, RandomOpenings

    if getattr(args, "openings", None) is not None:
        return FileOpenings(args.openings, game)
    if getattr(args, "random_opening_plies", None) is not None:
        seed = getattr(args, "opening_seed", None)
        return RandomOpenings(args.random_opening_plies, 0 if seed is None else seed)
    return None


def _is_checkpoint(spec: str) -> bool:
    from zeroplay.engine.arena import checkpoint_file

    return checkpoint_file(spec) is not None


def _cmd_arena(args) -> int:
    if getattr(args, "opening_seed", None) is not None and getattr(args, "random_opening_plies", None) is None:
        # it seeds the random openings only: silently ignored, it looked like a match of its own
        raise ValueError("--opening-seed seeds --random-opening-plies K and does nothing without it"
                         + (" (--openings FILE plays the file's openings in order)" if args.openings else "")
                         + "; add --random-opening-plies, or drop --opening-seed")
    try:
        return _arena(args)
    except KeyboardInterrupt:  # Ctrl-C: one line, as `zeroplay train` does, not a traceback
        print("interrupted: the match was not finished, no result", file=sys.stderr)
        return 130


def _arena_game(args):
    """The match's game and, where some of it came from a checkpoint player, the line that says so.

    Options given on the command line win; the others come from the first checkpoint player's game
    (its file's header, as ``zeroplay play --model`` takes them), all of them when none is given:
    ``zeroplay arena gomoku-6x6-4-freestyle rollout:50`` plays 6x6 four in a row. Without a
    checkpoint player (or one whose file does not read: making the player then says why), the
    defaults of ``zeroplay play``: gomoku 15x15 free-style, five in a row (four on 6x6:
    ``zeroplay.games.gomoku.default_n_in_row``). A checkpoint that does not fit the game so made
    is refused by ``make_player``, naming each difference.
    """
    from zeroplay.engine.arena import checkpoint_file
    from zeroplay.games import make, option_names

    given = _game_options(args) or {}
    name, options, taken = args.game, dict(given), []
    source = next((spec for spec in (args.a, args.b) if _is_checkpoint(spec)), None)
    if source is not None:
        from zeroplay.nn.record import CheckpointError, checkpoint_game

        try:
            ck_name, ck_options = checkpoint_game(checkpoint_file(source))
        except (CheckpointError, OSError):
            ck_name, ck_options = None, {}
        if name is None and ck_name is not None and (not given or "size" in option_names(ck_name)):
            name = ck_name  # Gomoku options alone mean Gomoku
            taken.append("--game")
        if name == ck_name:
            board = ("width", "height", "size")
            for key, value in ck_options.items():
                flag = "--size" if key in board else "--" + key.replace("_", "-")
                if (flag == "--size" and "size" in given) or (flag != "--size" and key in given):
                    continue
                options[key] = value
                if flag not in taken:
                    taken.append(flag)
    if "n_in_row" in option_names(name or "gomoku") and "size" in options and "n_in_row" not in options:
        from zeroplay.games.gomoku import default_n_in_row

        options["n_in_row"] = default_n_in_row(options["size"])  # as zeroplay play: 4 on 6x6
    try:
        game = make(name or "gomoku", **options)
    except (ValueError, TypeError) as e:
        if not taken:
            raise
        from zeroplay.engine.options import option_words

        # say which options came from the file: "--size must be ..." alone blamed an option nobody
        # gave (helper-79: a header edited to width 20000), and blaming the file alone hid the
        # user's own bad --size (helper-81)
        raise ValueError(f"{option_words(str(e))} ({', '.join(taken)} taken from {source})") from None
    if not taken:
        return game, None
    what = "game" if "--game" in taken and not given else ", ".join(f for f in taken if f != "--game")
    return game, f"{what} from {source}: {_describe_game(game)}"


def _describe_game(game) -> str:
    """``gomoku 6x6, 4 in a row, freestyle``; ``go 9x9, komi 7, ko simple, scoring area, suicide
    off``; ``connect4 7x6`` for games without options."""
    options = dict(getattr(game, "options", {}) or {})
    text = f"{game.name} {game.width}x{game.height}"
    if "n_in_row" in options:
        text += f", {options['n_in_row']} in a row"
    if "rule" in options:
        text += f", {options['rule']}"
    # the other games' options by name (Go: komi 7, ko simple, scoring area, suicide off)
    for key, value in options.items():
        if key not in ("width", "height", "n_in_row", "rule"):
            text += f", {key.replace('_', ' ')} {value:g}" if isinstance(value, float) else f", {key} {value}"
    return text


def _arena(args) -> int:
    import numpy as np

    from zeroplay.engine.arena import gnugo_notes, make_player

    game, taken = _arena_game(args)
    openings = _arena_openings(args, game)  # a bad file is refused before any engine starts
    if any(_is_checkpoint(spec) for spec in (args.a, args.b)):
        from zeroplay.nn.evaluator import limit_inference_threads

        limit_inference_threads()
    seeds = np.random.SeedSequence(args.seed).generate_state(2)
    a = make_player(args.a, game, playouts=args.playouts, seed=int(seeds[0]), opening_moves=args.opening_moves)
    b = make_player(args.b, game, playouts=args.playouts, seed=int(seeds[1]), opening_moves=args.opening_moves)
    if taken is not None:
        print(taken, file=sys.stderr, flush=True)  # once, before the match; never on --json's stdout
    for note in gnugo_notes(a, game) + gnugo_notes(b, game):
        print(f"note: {note}", file=sys.stderr, flush=True)
    record = _open_record(args, game, openings)
    try:
        return _arena_match(args, game, a, b, record, openings)
    except KeyboardInterrupt:
        if record is None:
            raise
        print(f"interrupted: the match was not finished; its {len(record.games)} finished games are in "
              f"{args.record}, and the same command resumes it", file=sys.stderr)
        return 130
    finally:
        if record is not None:
            record.close()


def _arena_match(args, game, a, b, record, openings=None) -> int:
    import time

    from zeroplay.engine.arena import play_match
    from zeroplay.engine.elo import format_elo
    from zeroplay.train.loop import _tqdm

    done = [] if record is None else [g for g in record.games.values() if g.index < args.games]
    before = 0.0 if record is None else record.seconds(args.games)
    t0 = time.perf_counter()

    def on_game(index, a_is_black, winner, moves):
        try:
            record.append(index, a_is_black, winner, moves, before + time.perf_counter() - t0,
                          0 if openings is None else len(openings.actions(game, index)))
        except OSError as e:
            raise ValueError(f"could not append game {index} to {args.record}: {e.strerror or e}; the games "
                             "recorded before it are kept, and the same command resumes the match once the "
                             "file can be written") from None

    resumed = len(done)
    bar = _tqdm(not args.no_progress and not args.json, total=args.games, initial=resumed, desc="arena",
                unit="game")
    try:
        match = play_match(game, a, b, args.games, parallel=args.parallel, progress=bar, done=done,
                           on_game=None if record is None else on_game, openings=openings)
    finally:
        if bar is not None:
            bar.close()
    playouts = args.playouts if any(_is_checkpoint(spec) for spec in (args.a, args.b)) else None
    out = {**match.to_dict(), "game": game.name, "options": dict(game.options), "playouts": playouts,
           "seconds": round(before + time.perf_counter() - t0, 1),
           "openings": None if openings is None else openings.describe()}
    for key in ("elo", "elo_low", "elo_high"):  # 0.1 Elo; + 0.0 turns -0.0 into 0.0 (None: infinite)
        if out.get(key) is not None:
            out[key] = round(out[key], 1) + 0.0
    if record is not None:
        out["resumed_games"] = resumed
    if args.json:
        print(json.dumps(out))
    else:
        e = match.elo()
        print(f"{a.name} vs {b.name}, {match.played} games of {_describe_game(game)}"
              + (f" ({resumed} of them from {args.record})" if record is not None and resumed else ""))
        print(f"  {a.name}: +{match.wins} ={match.draws} -{match.losses}  score {match.score:.3f}")
        print(f"  as Black +{match.as_black[0]} ={match.as_black[1]} -{match.as_black[2]}, "
              f"as White +{match.as_white[0]} ={match.as_white[1]} -{match.as_white[2]}")
        print(f"  Elo difference {format_elo(e.elo)}, 95% interval [{format_elo(e.elo_low)}, "
              f"{format_elo(e.elo_high)}]")
    return 0
