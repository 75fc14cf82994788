"""Go random playouts (9x9 by default): compiled moves per CPU-second by ko rule, vs the State API."""

from __future__ import annotations

import time

import numpy as np

from zeroplay.engine.options import at_least_0
from zeroplay.games import make
from zeroplay.games.go.playout import light_random_game, random_game
from zeroplay.games.gomoku.kernels import random_playouts


def add_arguments(parser) -> None:
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement, s (default 2)")
    parser.add_argument("--seed", type=at_least_0, default=0, help="random seed, >= 0 (default 0)")


def run(args) -> dict:
    """Figures for ``zeroplay bench go`` (see ``measure``)."""
    return measure(size=args.size, seconds=args.seconds, seed=args.seed)


def _compiled(game, seconds: float, seed: int) -> tuple[float, float]:
    start = game.initial()
    pos = start.fast()
    random_game(game.params, game.zkeys, pos.board, pos.info, pos.stack, pos.aux, seed)  # compile / warm up
    moves = games = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        for _ in range(50):
            pos = start.fast()
            moves += random_game(game.params, game.zkeys, pos.board, pos.info, pos.stack, pos.aux, seed + games)
            games += 1
    return moves / (time.process_time() - t0), moves / games


def _light(game, seconds: float, seed: int) -> float:
    start = game.initial()
    pos = start.fast()
    light_random_game(game.params, pos.board, pos.info, seed)  # compile / warm up
    moves = games = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        for _ in range(50):
            pos = start.fast()
            moves += light_random_game(game.params, pos.board, pos.info, seed + games)
            games += 1
    return moves / (time.process_time() - t0)


def measure(size: int = 9, seconds: float = 2.0, seed: int = 0) -> dict:
    """Moves per CPU-second of random games (no own-eye filling, pass when nothing else; to two
    passes or the ply cap), one core, area scoring, komi 7.5, all in this one run:

    ``simple_ko_moves_per_s``: the compiled path (``games.go.playout.random_game``: legality,
    captures, Zobrist key, history row per move) under simple ko; ``positional_superko_moves_per_s``
    and ``situational_superko_moves_per_s``: the same with the exact superko check of every move;
    ``rollout_moves_per_s``: the search's rollouts (``light_random_game``: the same games under
    simple ko without key, history row and stack per move) and ``ratio_rollout_vs_simple_ko``;
    ``state_api_moves_per_s``: ``State.play`` of uniformly random legal moves from Python;
    ``ratio_compiled_vs_api``; ``gomoku_15x15_moves_per_s``: Gomoku's compiled random games
    (``zeroplay bench rules``' first figure), a yardstick of the machine's speed during this run.
    """
    if not seconds > 0:
        raise ValueError(f"--seconds must be > 0, got {seconds}")
    out: dict[str, object] = {"board": f"{size}x{size}"}
    simple_rate = 0.0
    for ko in ("simple", "positional", "situational"):
        rate, length = _compiled(make("go", size=size, ko=ko), seconds / 4, seed)
        key = "simple_ko" if ko == "simple" else f"{ko}_superko"
        out[f"{key}_moves_per_s"] = round(rate)
        out[f"{key}_mean_game_length"] = round(length, 1)
        if ko == "simple":
            simple_rate = rate
            light = _light(make("go", size=size), seconds / 4, seed)
            out["rollout_moves_per_s"] = round(light)
            out["ratio_rollout_vs_simple_ko"] = round(light / rate, 2)
    game = make("go", size=size)
    rng = np.random.default_rng(seed)
    t0 = time.process_time()
    api_moves = 0
    while time.process_time() - t0 < seconds / 4:
        s = game.initial()
        while not s.is_terminal:
            legal = s.legal_moves()
            s = s.play(int(legal[rng.integers(len(legal))]))
            api_moves += 1
    api = api_moves / (time.process_time() - t0)
    out["state_api_moves_per_s"] = round(api)
    out["ratio_compiled_vs_api"] = round(round(simple_rate) / api, 1)
    gomoku = make("gomoku", width=15, height=15)
    pos = gomoku.initial().fast()
    random_playouts(gomoku.params, gomoku.zkeys, pos.board, pos.info, 2, seed)  # compile / warm up
    t0 = time.process_time()
    moves, _ = random_playouts(gomoku.params, gomoku.zkeys, pos.board, pos.info, 2000, seed)
    out["gomoku_15x15_moves_per_s"] = round(moves / (time.process_time() - t0))
    return out
