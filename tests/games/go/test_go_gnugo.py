"""Differential fuzz against GNU Go in GTP mode: random games, and after every ply GNU Go's
``all_legal`` and ``list_stones`` must equal ours. Rulesets: simple ko, positional superko,
multi-stone suicide (``--allow-suicide``). Skips where GNU Go is not installed (CI installs it:
``.ci/run``). The default run plays a few 9x9 games per ruleset; ``-m slow`` the issue's 50 9x9
and 5 19x19 games per ruleset."""

from __future__ import annotations

import random
import shutil

import pytest

from zeroplay.engine.gtp_player import GtpClient
from zeroplay.games import make

GNUGO = shutil.which("gnugo") or shutil.which("gnugo", path="/usr/games")
pytestmark = pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")

RULESETS = {  # name: (our options, GNU Go's flags)
    "simple-ko": ({"ko": "simple", "suicide": "off"}, ["--simple-ko", "--forbid-suicide"]),
    "positional-superko": ({"ko": "positional", "suicide": "off"}, ["--positional-superko", "--forbid-suicide"]),
    "suicide": ({"ko": "simple", "suicide": "multi"}, ["--simple-ko", "--allow-suicide"]),
}


def _vertices(game, text):
    return sorted(game.parse_move(v) for v in text.split())


def play_and_compare(client, ruleset, size, seed, max_plies):
    """One random game; returns the number of plies compared. Asserts at the first mismatch."""
    options, _ = RULESETS[ruleset]
    game = make("go", size=size, komi=7.5, **options)
    rng = random.Random(seed)
    client.send(f"boardsize {size}")
    client.send("clear_board")
    state = game.initial()
    plies = 0
    while not state.is_terminal and plies < max_plies:
        color = "black" if state.to_play == 0 else "white"
        ours = [int(a) for a in state.legal_moves() if a != game.pass_action]
        theirs = _vertices(game, client.send(f"all_legal {color}"))
        assert ours == theirs, (f"{ruleset} seed {seed} ply {plies}: legal moves differ: ours only "
                                f"{[game.format_move(a) for a in set(ours) - set(theirs)]}, GNU Go only "
                                f"{[game.format_move(a) for a in set(theirs) - set(ours)]}\n{state}")
        # a uniformly random legal point (long games: captures, kos, suicides), a pass now and then
        action = game.pass_action if not ours or rng.random() < 0.02 else rng.choice(ours)
        client.send(f"play {color} {game.format_move(action)}")
        state = state.play(action)
        plies += 1
        for player, name in ((0, "black"), (1, "white")):
            stones = _vertices(game, client.send(f"list_stones {name}"))
            assert stones == sorted(int(c) for c in state.stones(player)), (
                f"{ruleset} seed {seed} ply {plies}: {name} stones differ after "
                f"{game.format_move(action)}\n{state}")
    return plies


def _run(ruleset, size, games, max_plies):
    client = GtpClient([GNUGO, "--mode", "gtp", *RULESETS[ruleset][1]], timeout_s=60)
    try:
        for seed in range(games):
            assert play_and_compare(client, ruleset, size, seed, max_plies) > 0
    finally:
        client.close()


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_gnugo_agrees_few_games(ruleset):
    _run(ruleset, 9, games=2, max_plies=150)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_gnugo_agrees_50_games_9x9(ruleset):
    _run(ruleset, 9, games=50, max_plies=400)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_gnugo_agrees_5_games_19x19(ruleset):
    _run(ruleset, 19, games=5, max_plies=1000)
