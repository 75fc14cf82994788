"""The ``zeroplay`` command line: play, serve, pbrain, usi, analyze, train, arena, export, plot, solve, bench,
random-game, gtp."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

from zeroplay import __version__


def _cmd_random_game(args) -> int:
    import numpy as np

    from zeroplay.games import make
    from zeroplay.games.gomoku import Gomoku, default_n_in_row

    # the defaults of zeroplay play, serve and arena: 4 in a row on 6x6, else 5
    n_in_row = default_n_in_row(args.size) if args.n_in_row is None else args.n_in_row
    game = make("gomoku", width=args.size, height=args.size, n_in_row=n_in_row, rule=args.rule)
    assert isinstance(game, Gomoku)
    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    rng = np.random.default_rng(args.seed)
    state = game.initial()
    while not state.is_terminal:
        legal = state.legal_moves()
        state = state.play(int(legal[rng.integers(len(legal))]))
    print(f"gomoku {game.width}x{game.height}, {game.n_in_row} in a row, {game.rule}")
    print(state)
    print("moves:", " ".join(game.format_move(m) for m in state.moves))
    return 0


def _cmd_bench(args) -> int:
    from zeroplay.bench.selfplay import BenchProcessDied

    try:
        result = _bench_module(args.what).run(args)
    except BenchProcessDied as e:
        raise ValueError(str(e)) from None
    if args.json:
        print(json.dumps(result))
    else:
        _print_figures(result)
    return 0


def _cmd_plot(args) -> int:
    from zeroplay.train.plot import plot_run

    try:
        paths = plot_run(args.run_dir, args.out)
    except (OSError, RuntimeError) as e:  # no metrics.jsonl, cannot write; matplotlib missing
        raise ValueError(str(e)) from None
    for path in paths:
        print(path)
    if not paths:
        print("no metrics to plot yet", file=sys.stderr)
    return 0


# --- solve: one exact solver per game, chosen by the GAME argument ------------------------------
@contextlib.contextmanager
def _interrupt_ends_process():
    """Within the block, Ctrl-C (SIGINT) ends the process at once, as it does a C solver.

    A compiled (numba) search never returns to the interpreter until it is done, and Python's
    SIGINT handler only sets a flag that the interpreter checks between bytecodes: the
    KeyboardInterrupt would come when the search returns, minutes later for the empty Connect
    Four board. So the OS default action is restored for the block (the shell then shows exit
    status 130, no traceback) and Python's handler afterwards. Left alone: a SIGINT that is
    ignored (a background job) or handled by someone else, and any thread but the main one.
    For the ``solve`` commands only; library calls keep their KeyboardInterrupt.
    """
    import signal
    import threading

    swap = (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    if swap:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        yield
    finally:
        if swap:
            signal.signal(signal.SIGINT, signal.default_int_handler)


def _add_solve_parsers(sub) -> None:
    p = sub.add_parser("solve", help="solve positions exactly (connect4: Pascal Pons' scores; gomoku: VCF/VCT)")
    games = p.add_subparsers(dest="game", metavar="GAME", required=True)

    sp = games.add_parser(
        "connect4",
        help="exact score and a best move of a Connect Four position",
        description="Exact score in Pascal Pons' convention, side to move's view: a win scores 22 - "
        "the winner's stones at the end, a loss the winner's stones - 22, a draw 0.",
    )
    sp.add_argument("moves", metavar="MOVES", nargs="?", default=None,
                    help="the game so far as column digits 1..7 (leftmost = 1), e.g. 4453; '' is the "
                    "empty board. Omitted: read one position per line from standard input (the first "
                    "word of each line, so test-set lines '<moves> <score>' work) and print "
                    "'<moves> <score>' per line, keeping the compiled code and table warm")
    sp.add_argument("--json", action="store_true", help="print JSON (one object per position)")
    sp.add_argument("--table-mib", type=float, default=None,
                    help="alpha-beta table size in MiB, at most half of the machine's memory (default 16)")
    sp.set_defaults(func=_cmd_solve_connect4)

    sp = games.add_parser("gomoku", help="forced win by fours (VCF) or threats (VCT) for the side to move")
    sp.add_argument("--moves", default="", help="the game so far, moves separated by spaces: h8 notation "
                    "(column letter, row from the bottom) or Gomocup x,y; Black first (default: empty board)")
    sp.add_argument("--size", type=int, default=15, help="board width and height (default 15)")
    sp.add_argument("--n-in-row", type=int, default=None,
                    help="stones in a row that win (default 5, and 4 on 6x6 as in zeroplay play: the "
                    "shipped 6x6 model's game)")
    sp.add_argument("--rule", choices=["freestyle", "standard", "renju"], default="freestyle",
                    help="freestyle: five or more wins; standard: exactly five; renju: RIF rules, Black's "
                    "forbidden points (default freestyle)")
    sp.add_argument("--vct", action="store_true",
                    help="allow threats (threes) besides fours; implied by --method and --threats")
    sp.add_argument("--method", choices=["ab", "pns"], default=None,
                    help="VCT search: ab = depth-first alpha-beta, pns = proof-number search "
                    "(docs/THREATS.md); implies --vct (default ab)")
    sp.add_argument("--threats", type=int, default=None,
                    help="VCT: non-four threats per line, 1..255; implies --vct (default 2 with ab, 4 with pns)")
    sp.add_argument("--nodes", type=int, default=200_000, help="node budget, >= 1 (default 200000)")
    sp.add_argument("--shortest", action="store_true",
                    help="VCF only: iterative deepening, a shortest line (refused with the VCT options)")
    sp.add_argument("--json", action="store_true", help="print one JSON object")
    sp.set_defaults(func=_cmd_solve_gomoku)


def _cmd_solve_gomoku(args) -> int:
    from zeroplay.games.gomoku import default_n_in_row
    from zeroplay.solvers.commands import solve_gomoku_command

    if getattr(args, "n_in_row", None) is None:  # as zeroplay play: 4 on 6x6
        args.n_in_row = default_n_in_row(args.size)

    with _interrupt_ends_process():
        return solve_gomoku_command(args)


def _cmd_solve_connect4(args) -> int:
    from zeroplay.solvers.commands import solve_connect4_command

    with _interrupt_ends_process():
        return solve_connect4_command(args)


def _print_figures(result: dict, indent: int = 0) -> None:
    for k, v in result.items():
        if isinstance(v, dict):
            print(" " * indent + f"{k}:")
            _print_figures(v, indent + 2)
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            print(" " * indent + f"{k}: {v:,}")
        else:
            print(" " * indent + f"{k}: {v}")


def _bench_names() -> list[str]:
    import pkgutil

    import zeroplay.bench

    return sorted(m.name for m in pkgutil.iter_modules(zeroplay.bench.__path__) if not m.name.startswith("_"))


def _bench_module(name: str):
    import importlib

    return importlib.import_module(f"zeroplay.bench.{name}")


COMMAND_ORDER = ("play", "serve", "pbrain", "usi", "analyze", "train", "arena", "export", "plot", "solve", "bench",
                 "random-game", "gtp")
"""The order ``zeroplay --help``'s description names the commands in; a command not listed here
comes after them, so none is left out."""


def _description(sub) -> str:
    """``zeroplay --help``'s description: plain text (no reST markup) naming every command."""
    names = [n for n in COMMAND_ORDER if n in sub.choices] + [n for n in sub.choices if n not in COMMAND_ORDER]
    return f"The zeroplay command line: {', '.join(names)}."


def _summary(doc: str | None) -> str:
    """A docstring's first paragraph on one line: a summary may wrap, and its first line alone
    stops mid-sentence ("... by where its")."""
    paragraph = (doc or "").strip().split("\n\n")[0]
    return " ".join(paragraph.split())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="zeroplay",
                                     epilog="Run 'zeroplay COMMAND --help' for a command's options.")
    parser.add_argument("--version", action="version", version=f"zeroplay {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("random-game", help="play one game of random legal moves and print it")
    p.add_argument("--size", type=int, default=15, help="board width and height (default 15)")
    p.add_argument("--n-in-row", type=int, default=None,
                   help="stones in a row that win (default as zeroplay play: 4 on 6x6, else 5)")
    p.add_argument("--rule", choices=["freestyle", "standard", "renju"], default="freestyle",
                   help="freestyle: n or more wins; standard: exactly n; renju: RIF rules, five in a row, Black's "
                   "forbidden points (default freestyle)")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: fresh)")
    p.set_defaults(func=_cmd_random_game)

    p = sub.add_parser("bench", help="benchmarks; figures go in docs/BENCHMARKS.md")
    bench_sub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    for name in _bench_names():
        module = _bench_module(name)
        bp = bench_sub.add_parser(name, help=_summary(module.__doc__).replace("%", "%%"))
        bp.add_argument("--json", action="store_true", help="print one JSON object")
        module.add_arguments(bp)
        bp.set_defaults(func=_cmd_bench)

    p = sub.add_parser("plot", help="write PNG charts (losses, Elo, games/hour) of a training run")
    p.add_argument("run_dir", metavar="RUN_DIR", help="training run directory (holds metrics.jsonl)")
    p.add_argument("--out", default=None, help="directory for the PNGs (default: RUN_DIR/plots, where training writes them)")
    p.set_defaults(func=_cmd_plot)

    from zeroplay.train.commands import add_parsers as add_train_parsers  # train, arena

    add_train_parsers(sub)

    _add_solve_parsers(sub)

    from zeroplay.play.commands import add_play_commands  # play, pbrain, serve

    add_play_commands(sub)

    from zeroplay.play.gtp import add_gtp_arguments  # argparse only; the engine loads when it runs

    p = sub.add_parser("gtp", help="Go engine speaking GTP v2 on stdin/stdout (Sabaki, GoGui, Lizzie, GNU Go matches)")
    add_gtp_arguments(p)
    p.set_defaults(func=_cmd_gtp)

    parser.description = _description(sub)  # once every command is there
    return parser


def _cmd_gtp(args) -> int:
    from zeroplay.play.gtp import run

    return run(args)


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except KeyboardInterrupt:
        # Ctrl-C before a command handles it itself (while the modules load, the arguments are
        # parsed) or in one that does not: one line and status 130, as `zeroplay train` does
        print("interrupted", file=sys.stderr)
        return 130


def _innermost(parser: argparse.ArgumentParser, args) -> argparse.ArgumentParser:
    """The (sub)parser of the command ``args`` names, following nested subcommands (``bench WHAT``)."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        name = getattr(args, subs[0].dest, None) if subs else None
        if name is None or name not in subs[0].choices:
            return parser
        parser = subs[0].choices[name]


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["ablate"]:
        from zeroplay.train.ablate import glue_option_strings

        argv = glue_option_strings(argv)
    args, extras = parser.parse_known_args(argv)
    if extras:  # said by the subcommand that got them, with its own usage (not the top-level one)
        _innermost(parser, args).error(f"unrecognized arguments: {' '.join(extras)}")
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return args.func(args)
    except BrokenPipeError:
        # the reader went away (`zeroplay ... | head`): no traceback, and none at exit either
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except MemoryError as e:
        # an absurd --playouts or --batch-size: numpy says how much it wanted; the options named
        # are train's, where this happens (other commands said to lower options they do not have)
        hint = ("--playouts, --parallel-games, --batch-size, --eval-games, --workers, --threads; a resumed run "
                "takes the new values"
                if args.command == "train" else "the sizes, counts and memory options given")
        print(f"{_innermost(parser, args).prog}: error: out of memory ({e or 'MemoryError'}): lower what was asked for "
              f"({hint})", file=sys.stderr)
        return 2
    except Exception as e:
        from zeroplay.engine.gtp_player import GtpError
        from zeroplay.engine.pbrain_player import PbrainError
        from zeroplay.engine.shogi_players import UsiError

        if not isinstance(e, (ValueError, PbrainError, GtpError, UsiError)):  # an engine's fault, not ours
            raise  # a bug: keep its traceback
        from zeroplay.engine.options import option_words

        # named as argparse names its own errors: "zeroplay bench vcf", not "zeroplay bench"
        print(f"{_innermost(parser, args).prog}: error: {option_words(str(e))}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
