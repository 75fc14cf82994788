"""The ``zeroplay play``, ``zeroplay usi``, ``zeroplay pbrain``, ``zeroplay serve`` and ``zeroplay analyze`` subcommands.

Only argparse set-up at import time: the heavy modules load when a command runs. This module
calls the others of ``play``; none of them imports it (no import circle).
"""

from __future__ import annotations

from zeroplay.engine.factory import PLAY_PLAYOUTS
from zeroplay.engine.options import at_least_0, at_least_1, model_argument


def add_play_commands(sub) -> None:
    """Add ``play``, ``usi``, ``pbrain``, ``serve`` and ``analyze`` to the ``zeroplay`` subparsers ``sub``."""
    p = sub.add_parser("play", help="play against the engine in the terminal")
    from zeroplay.games import names

    p.add_argument("--game", choices=names(), default=None,
                   help="game (default: --model's game, else gomoku); connect4: moves are column digits 1..7; "
                        "shogi: USI moves against the alpha-beta engine (--seconds per move, default 2)")
    p.add_argument("--size", type=int, default=None,
                   help="board width and height, for the games that take a size: Gomoku 5..25 (default: "
                        "--model's board, else 15); other games: their own range and default")
    p.add_argument("--n-in-row", type=int, default=None,
                   help="Gomoku: stones in a row that win (default: --model's, else 5, and 4 on 6x6: the shipped "
                        "6x6 model's game)")
    p.add_argument("--rule", choices=["freestyle", "standard", "renju"], default=None,
                   help="Gomoku: freestyle: five or more wins; standard: exactly five; renju: RIF rules, Black "
                        "may not play a double-three, double-four or overline (marked !) (default: --model's, "
                        "else freestyle)")
    p.add_argument("--komi", type=float, default=None,
                   help="Go: points for White, in half points (default 7.5; the shipped 9x9 model was "
                        "trained at 7 and plays any komi)")
    p.add_argument("--color", "--colour", choices=["black", "white"], default="black",
                   help="your colour; Black moves first (Connect Four: black is X) (default black)")
    p.add_argument("--playouts", type=int, default=None,
                   help=f"engine playouts per move (default {PLAY_PLAYOUTS} when --seconds is not given); the search's tables "
                        "are sized for them up to 2 GiB (an opening move on 15x15: 550,000 playouts); a search that fills them "
                        "recycles its least visited nodes and goes on, and says so once per game")
    p.add_argument("--seconds", type=float, default=None,
                   help="engine seconds per move (default: no time limit); with --seconds alone the search's tables get a "
                        "1 GiB budget, recycled as they fill")
    p.add_argument("--model", default=None, type=model_argument,
                   help="checkpoint (.safetensors) or shipped model name (e.g. gomoku-8x8-5-freestyle) to "
                        "play with (default: the shipped model for the game and size; without one, the "
                        "search-only engine)")
    variety = p.add_mutually_exclusive_group()
    variety.add_argument("--deterministic", action="store_true",
                   help="always play the most visited move (default: over the game's first 6 plies, the "
                        "engine draws among the moves its search rates about as good, so a won game cannot "
                        "be won again by replaying it)")
    variety.add_argument("--seed", type=at_least_0, default=None,
                   help="seed (>= 0) of that draw, for a game that can be replayed (default: fresh)")
    p.add_argument("--no-resign", dest="resign", action="store_false",
                   help="Go: the engine plays a lost game to its end (default: it resigns once its win rate "
                        "has been under 3%% for 3 of its moves, as KataGo does)")
    p.set_defaults(func=_cmd_play)

    p = sub.add_parser("usi", help="USI shogi engine protocol on stdin/stdout (= usi-zeroplay)")
    p.set_defaults(func=_cmd_usi)

    from zeroplay.play.pbrain import add_pbrain_arguments

    p = sub.add_parser("pbrain", help="Gomocup (Piskvork) engine protocol on stdin/stdout")
    add_pbrain_arguments(p)
    p.set_defaults(func=_cmd_pbrain)

    p = sub.add_parser("serve", help="web board: play and analyse in the browser")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; the board has no authentication: another "
                        "address lets anyone who reaches it play, and is warned about)")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    p.add_argument("--model", default=None, type=model_argument,
                   help="checkpoint (.safetensors) or shipped model name (e.g. gomoku-8x8-5-freestyle) that plays "
                        "every game, as in zeroplay play; the board's default settings are its game's, and "
                        "settings it cannot play are refused (default: the shipped model for each game and "
                        "size; without one, the search-only engine)")
    p.add_argument("--playouts", type=at_least_1, default=PLAY_PLAYOUTS,
                   help=f"engine playouts per move, the board's default strength (default {PLAY_PLAYOUTS}, as "
                        f"zeroplay play); a game may choose its own")
    p.add_argument("--max-games", type=at_least_1, default=None,
                   help="games kept at once; a new one evicts the least recently used idle game (default 100)")
    p.add_argument("--max-memory", type=at_least_1, default=None, metavar="MIB",
                   help="MiB for all games' searches together, 27-38 MiB a game by board size; a new game "
                        "evicts the least recently used idle ones until it fits (default 1024, at least 40; the server's "
                        "own ~500 MiB come on top)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="a Host name the board answers to besides this machine's and --host (repeatable); "
                        "others are refused (DNS rebinding)")
    p.set_defaults(func=_cmd_serve)

    p = sub.add_parser("analyze", help="JSON-lines analysis engine on stdin/stdout (KataGo's manner)",
                       description="One JSON query per line (id, moves, size, n_in_row, rule, playouts, top), one "
                                   "JSON answer per line (top moves with visits, win rate, prior, PV); the format "
                                   "is in zeroplay.play.analyze's docstring and the README.")
    p.add_argument("--model", default=None, type=model_argument,
                   help="checkpoint or shipped model name for every setting it fits (default: the shipped model "
                        "per setting, else the search-only engine)")
    p.add_argument("--max-playouts", type=at_least_1, default=None,
                   help="most playouts a query may ask for (default 100000); a query without playouts gets "
                        "800, or this when it is less")
    p.set_defaults(func=_cmd_analyze)


def _positive(args) -> None:
    if args.playouts is not None and args.playouts < 1:
        raise ValueError(f"--playouts must be >= 1, got {args.playouts}")
    if args.seconds is not None and not 0 < args.seconds < float("inf"):
        raise ValueError(f"--seconds must be a number of seconds > 0, got {args.seconds}")


def _cmd_play(args) -> int:
    _positive(args)
    if args.game is not None:
        from zeroplay.games import make

        if getattr(make(args.game), "has_hands", False):  # shogi: its own text session
            from zeroplay.play.shogi_terminal import run as run_text_game

            # refused, not ignored, as for Connect Four (terminal.run): the board options were
            # silently dropped, and --playouts without --model changed nothing
            given = [flag for flag, value in (("--size", args.size), ("--n-in-row", args.n_in_row),
                                              ("--rule", args.rule)) if value is not None]
            if given:
                raise ValueError(f"{', '.join(given)}: Gomoku options; {args.game} has none")
            if args.komi is not None:
                raise ValueError(f"--komi: a Go option; {args.game} has none")
            if args.playouts is not None and args.model is None:
                raise ValueError(f"--playouts: {args.game}'s alpha-beta engine is limited by --seconds "
                                 "(--playouts is for --model's MCTS engine)")

            return run_text_game(args)
    from zeroplay.play.terminal import run

    return run(args)


def _cmd_pbrain(args) -> int:
    from zeroplay.play.pbrain import run_from_args

    return run_from_args(args)


def _cmd_usi(args) -> int:
    from zeroplay.play.usi import serve_stdio

    return serve_stdio()


def _cmd_analyze(args) -> int:
    from zeroplay.play.analyze import DEFAULT_MAX_PLAYOUTS
    from zeroplay.play.analyze_session import main

    args.max_playouts = args.max_playouts or DEFAULT_MAX_PLAYOUTS
    return main(args)


def _cmd_serve(args) -> int:
    from zeroplay.play.server import serve
    from zeroplay.play.webgame import DEFAULT_MAX_GAMES, DEFAULT_MAX_MEMORY

    max_memory = DEFAULT_MAX_MEMORY if args.max_memory is None else args.max_memory << 20
    return serve(args.host, args.port, model=args.model, playouts=args.playouts,
                 max_games=args.max_games or DEFAULT_MAX_GAMES, max_memory=max_memory,
                 allow_hosts=tuple(args.allow_host))
