"""Random playouts with win checks (15x15 by default): compiled path vs State API."""

from __future__ import annotations

import time

import numpy as np

from zeroplay.engine.options import at_least_0
from zeroplay.games import make
from zeroplay.games.gomoku.kernels import legal_moves, play_sequence_tracked, random_playouts


def _tracked_moves(game, start, games: int, rng) -> int:
    total = 0
    for _ in range(games):
        pos = start.fast()
        order = rng.permutation(start.legal_moves())
        total += play_sequence_tracked(game.params, game.zkeys, pos.board, pos.info, pos.stack, pos.aux, order)
    return total


def add_arguments(parser) -> None:
    parser.add_argument("--size", type=int, default=15, help="board width and height (default 15)")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement, s (default 2)")
    parser.add_argument("--seed", type=at_least_0, default=0, help="random seed, >= 0 (default 0)")
    parser.add_argument("--renju", action="store_true",
                        help="measure Black's legal moves under renju (forbidden-point tests) against "
                             "free-style on the same positions instead")


def run(args) -> dict:
    """Figures for ``zeroplay bench rules`` (see ``measure`` and ``measure_renju``)."""
    if getattr(args, "renju", False):
        return measure_renju(size=args.size, seconds=args.seconds, seed=args.seed)
    return measure(size=args.size, seconds=args.seconds, seed=args.seed)


def measure_renju(size: int = 15, seconds: float = 2.0, seed: int = 0, positions: int = 200) -> dict:
    """Black's legal-move generation per CPU-second, renju (every empty cell tested for a
    forbidden point) against free-style (empty cells only), on the same ``positions`` mid-game
    positions (20-60 random stones near the centre, Black to move), one core, one run.

    Returns a dict: ``freestyle_calls_per_s``, ``renju_calls_per_s``, ``ratio_freestyle_vs_renju``,
    and ``forbidden_per_position`` (mean count: how often the slow path finds something).
    """
    if not seconds > 0:
        raise ValueError(f"--seconds must be > 0, got {seconds}")
    rng = np.random.default_rng(seed)
    games = {rule: make("gomoku", width=size, height=size, rule=rule) for rule in ("freestyle", "renju")}
    boards = []
    lo, hi = max(size // 2 - 5, 0), min(size // 2 + 6, size)
    for _ in range(positions):
        board = np.zeros(size * size, dtype=np.int8)
        stones = 2 * int(rng.integers(10, 31))
        cells = rng.choice([y * size + x for y in range(lo, hi) for x in range(lo, hi)], size=stones, replace=False)
        board[cells[::2]] = 1
        board[cells[1::2]] = 2
        boards.append(board)
    out = np.empty(size * size, dtype=np.int64)
    figures = {}
    forbidden = 0
    for rule, game in games.items():
        info = game.initial().fast().info.copy()  # Black to move, not over
        for b in boards[:2]:
            legal_moves(game.params, b, info, out)  # compile / warm up
        calls = 0
        t0 = time.process_time()
        while time.process_time() - t0 < seconds / 2:
            for b in boards:
                k = legal_moves(game.params, b, info, out)
                if rule == "renju" and calls < positions:
                    forbidden += int((b == 0).sum()) - k
                calls += 1
        figures[rule] = calls / (time.process_time() - t0)
    return {
        "board": f"{size}x{size}",
        "positions": positions,
        "forbidden_per_position": round(forbidden / positions, 2),
        "freestyle_calls_per_s": round(figures["freestyle"]),
        "renju_calls_per_s": round(figures["renju"]),
        "ratio_freestyle_vs_renju": round(figures["freestyle"] / figures["renju"], 1),
    }


def measure(size: int = 15, seconds: float = 2.0, seed: int = 0) -> dict:
    """Measure moves per CPU-second of random games on a size x size freestyle board, one core.

    Returns a dict: ``compiled_moves_per_s`` (numba: stone, Zobrist update, win check),
    ``tracked_moves_per_s`` (the same plus the incremental winning-move masks; includes a
    Python-side shuffle per game), ``state_api_moves_per_s`` (``State.play`` from Python), and
    ``ratio_compiled_vs_api``, all measured in this one run.
    """
    if not seconds > 0:
        raise ValueError(f"--seconds must be > 0, got {seconds}")
    game = make("gomoku", width=size, height=size)
    start = game.initial()
    pos = start.fast()
    rng = np.random.default_rng(seed)
    random_playouts(game.params, game.zkeys, pos.board, pos.info, 2, seed)  # compile / warm up
    _tracked_moves(game, start, 2, rng)

    games = 64
    while True:
        t0 = time.process_time()
        moves, black_wins = random_playouts(game.params, game.zkeys, pos.board, pos.info, games, seed)
        dt = time.process_time() - t0
        if dt >= seconds / 2 or games >= 1 << 26:
            break
        games *= 4
    compiled = moves / dt

    t0 = time.process_time()
    tracked_moves = 0
    while time.process_time() - t0 < seconds / 4:
        tracked_moves += _tracked_moves(game, start, 50, rng)
    tracked = tracked_moves / (time.process_time() - t0)

    t0 = time.process_time()
    api_moves = 0
    while time.process_time() - t0 < seconds / 4:
        s = start
        while not s.is_terminal:
            legal = s.legal_moves()
            s = s.play(int(legal[rng.integers(len(legal))]))
            api_moves += 1
    api = api_moves / (time.process_time() - t0)
    return {
        "board": f"{size}x{size} freestyle",
        "games": int(games),
        "black_win_rate": round(black_wins / games, 4),
        "mean_game_length": round(moves / games, 2),
        "compiled_moves_per_s": round(compiled),
        "tracked_moves_per_s": round(tracked),
        "state_api_moves_per_s": round(api),
        "ratio_compiled_vs_api": round(compiled / api, 1),
    }
