"""A scripted match between two zeroplay engines through the Gomocup protocol."""

from __future__ import annotations

from play_helpers import PBRAIN
from zeroplay.games import make
from zeroplay.engine.pbrain_player import PbrainPlayer, play_game


def test_two_pbrain_engines_play_a_game_through_the_protocol(warm):
    game = make("gomoku", width=9, height=9, rule="standard")
    cmd = PBRAIN + ["--playouts", "80"]
    with PbrainPlayer(cmd, timeout_turn_ms=500, name="A") as a, PbrainPlayer(cmd, timeout_turn_ms=500, name="B") as b:
        final = play_game(game, a, b)
        assert final.is_terminal
        assert final.ply >= 9  # a real game: at least five stones of the winner
        # a second game, colours swapped, in the same processes (START again)
        final2 = play_game(game, b, a)
        assert final2.is_terminal
        procs = (a.proc, b.proc)
    assert all(p is None for p in (a.proc, b.proc))
    assert all(p.returncode == 0 for p in procs)  # END -> exit status 0


def test_board_is_sent_when_the_position_does_not_follow(warm):
    """A position set up with from_stones goes over as BOARD ... DONE."""
    game = make("gomoku", width=15, height=15, rule="standard")
    state = game.from_stones(["d10", "e10", "f10", "g10", "i10"], ["a1", "c1", "e1", "g1", "i1"], to_play=0)
    with PbrainPlayer(PBRAIN + ["--playouts", "50"], timeout_turn_ms=1000) as p:
        p.new_game(game)
        assert game.format_move(p.play(state), "gomocup") == "2,5"


def test_arena_runs_a_pbrain_match(warm):
    from zeroplay.engine.arena import make_player, play_match

    game = make("gomoku", width=7, height=7)
    spec = "pbrain:turn=300,match=60000:" + " ".join(PBRAIN) + " --playouts 40"
    a = make_player(spec, game)
    assert (a.timeout_turn_ms, a.timeout_match_ms) == (300, 60000)
    b = make_player("uniform:40", game)
    try:
        result = play_match(game, a, b, 2)
    finally:
        a.close()
    assert result.played == 2
