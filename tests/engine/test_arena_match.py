"""Arena: W/D/L bookkeeping, colour alternation, player specs, the Player hook, the CLI."""

from __future__ import annotations

import json

import pytest

from zeroplay.cli import main
from zeroplay.games import make
from zeroplay.engine.arena import (
    MatchResult,
    SearchPlayer,
    make_player,
    play_match,
    register_player_kind,
    search_config,
)
from zeroplay.search import UniformEvaluator

FOUR = make("gomoku", size=6, n_in_row=4)


class Scripted:
    """Plays the first legal move in a fixed preference order; records the colours it got."""

    def __init__(self, name, order):
        self.name, self.order, self.colours, self.games = name, order, [], 0

    def new_game(self, game):
        self.games += 1

    def play(self, state):
        if state.ply < 2:
            self.colours.append(state.to_play)
        legal = set(state.legal_moves().tolist())
        return next(m for m in self.order if m in legal)


def test_book_keeping_from_the_first_players_view():
    m = MatchResult("a", "b")
    m.add(True, 0, [])  # A Black, Black wins: A wins
    m.add(False, 0, [])  # A White, Black wins: A loses
    m.add(False, 1, [])  # A White, White wins: A wins
    m.add(True, None, [])  # draw
    assert (m.wins, m.draws, m.losses) == (2, 1, 1)
    assert m.as_black == [1, 1, 0] and m.as_white == [1, 0, 1]
    assert m.score == pytest.approx(2.5 / 4)
    d = m.to_dict()
    assert d["games"] == 4 and d["a_as_black"] == {"wins": 1, "draws": 1, "losses": 0}
    # 4 games: a wide but finite interval around +89 (the score interval of zeroplay.engine.elo)
    assert d["elo_low"] < 0 < d["elo"] < d["elo_high"] < 1000


def test_sequential_players_alternate_colours_and_results_add_up():
    # column-major fill on 6x6 four-in-row: both play down the first columns; Black wins each time
    order_a = list(range(36))
    order_b = [c * 6 + r for r in range(6) for c in range(6)][::-1]
    a, b = Scripted("A", order_a), Scripted("B", order_b)
    m = play_match(FOUR, a, b, 6)
    assert m.played == 6 and a.games == 6 and b.games == 6
    assert [colour for colour in a.colours] == [0, 1, 0, 1, 0, 1]
    assert [g[0] for g in m.games] == [True, False] * 3  # A is Black in even games
    for a_black, winner, moves in m.games:
        final = FOUR.initial().play_many(moves)
        assert final.is_terminal and final.winner == winner
    assert m.wins + m.draws + m.losses == 6
    assert m.as_black[0] + m.as_white[2] + m.as_black[2] + m.as_white[0] + m.draws == 6


def test_lockstep_search_players_alternate_colours():
    a = SearchPlayer(UniformEvaluator(), 48, name="strong", seed=1)
    b = SearchPlayer(UniformEvaluator(), 4, name="weak", seed=2)
    m = play_match(FOUR, a, b, 8, parallel=3)
    assert m.played == 8 and sum(m.as_black) == 4 and sum(m.as_white) == 4
    assert [g[0] for g in m.games].count(True) == 4
    for a_black, winner, moves in m.games:
        final = FOUR.initial().play_many(moves)
        assert final.is_terminal and final.winner == winner
    assert m.score > 0.5  # 48 playouts beat 4


def test_opening_moves_vary_the_games():
    a = SearchPlayer(UniformEvaluator(), 16, name="a", seed=1, opening_moves=2)
    b = SearchPlayer(UniformEvaluator(), 16, name="b", seed=2, opening_moves=2)
    m = play_match(FOUR, a, b, 6)
    assert len({tuple(g[2][:2]) for g in m.games}) > 1


def test_player_specs_and_errors(tmp_path):
    assert make_player("uniform:10", FOUR).name == "uniform:10"
    assert make_player("rollout:5", FOUR).playouts == 5
    for bad in ("uniform:x", "rollout:0", "nosuch:3", str(tmp_path / "missing.safetensors")):
        with pytest.raises(ValueError):
            make_player(bad, FOUR)


def test_canonical_specs():
    from zeroplay.engine.arena import canonical_spec

    for spec, canonical in (("uniform:08", "uniform:8"), (" uniform: 8 ", "uniform:8"), ("uniform:+8", "uniform:8"),
                            ("rollout:0100", "rollout:100"), ("heuristic:0800", "heuristic:800"),
                            ("heuristic-plain:07", "heuristic-plain:7"),
                            ("vcf:dir/net.safetensors", "vcf:dir/net.safetensors"),
                            ("dir/net.safetensors", "dir/net.safetensors"),
                            ("pbrain: cmd --x 1 ", "pbrain:cmd --x 1"),
                            ("pbrain:turn=1000,match=0:cmd", "pbrain:cmd"),
                            ("pbrain: match=60000 , turn=0300 :cmd", "pbrain:turn=300,match=60000:cmd"),
                            ("pbrain:turn=1000:turn=5:cmd", "pbrain:turn=1000,match=0:turn=5:cmd"),
                            ("Uniform:8", "Uniform:8")):  # not a kind: make_player refuses it
        assert canonical_spec(spec) == canonical and canonical_spec(canonical) == canonical
    assert make_player("uniform:08", FOUR).name == "uniform:8"
    assert make_player("heuristic-plain:030", FOUR).playouts == 30
    with pytest.raises(ValueError, match="neither a checkpoint file nor one of"):
        make_player("Uniform:8", FOUR)
    for bad in ("uniform:0", "uniform:-1", "uniform:1e3", "uniform:", "vcf:", "pbrain:"):
        with pytest.raises(ValueError):
            canonical_spec(bad)
    # more playouts than a node table can hold: said so, not a capacity error from deep inside
    with pytest.raises(ValueError, match="at most 134,217,728 playouts"):
        canonical_spec("uniform:99999999999999999999999")
    with pytest.raises(ValueError, match="at most 134,217,728 playouts"):
        search_config(1 << 28, game=FOUR)


def test_registered_kinds_plug_in():
    register_player_kind("scripted", lambda arg, game, options: Scripted(f"scripted:{arg}", range(game.num_actions)))
    p = make_player("scripted:x", FOUR)
    assert p.name == "scripted:x"
    register_player_kind("scripted-up", lambda arg, game, options: Scripted(f"scripted-up:{arg}", range(9)),
                         canonical=str.upper)
    assert make_player("scripted-up:x", FOUR).name == "scripted-up:X"
    m = play_match(FOUR, p, make_player("uniform:8", FOUR, seed=0), 2)
    assert m.played == 2


def test_checkpoint_players(tmp_path):
    pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")
    from zeroplay.nn import build_model, save_checkpoint

    path = tmp_path / "net.safetensors"
    save_checkpoint(path, build_model("tiny", FOUR, "basic", seed=0), game=FOUR, features="basic")
    p = make_player(str(path), FOUR, playouts=8, seed=0)
    m = play_match(FOUR, p, make_player("uniform:8", FOUR, seed=1), 2)
    assert m.played == 2
    from zeroplay.nn import CheckpointMismatchError

    with pytest.raises(CheckpointMismatchError):
        make_player(str(path), make("gomoku", size=7, n_in_row=4))


def test_cli_json(capsys):
    code = main(["arena", "uniform:16", "uniform:2", "--games", "4", "--game", "gomoku", "--size", "6",
                 "--n-in-row", "4", "--json", "--seed", "1"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 4 and out["wins"] + out["draws"] + out["losses"] == 4
    assert out["a"] == "uniform:16" and out["options"]["width"] == 6
    assert {"score", "elo", "elo_low", "elo_high", "a_as_black", "a_as_white"} <= set(out)


def test_cli_text_and_errors(capsys):
    assert main(["arena", "uniform:8", "uniform:8", "--games", "2", "--game", "tictactoe", "--no-progress"]) == 0
    assert "Elo difference" in capsys.readouterr().out
    assert main(["arena", "bogus", "uniform:8", "--games", "2", "--game", "tictactoe"]) == 2
    capsys.readouterr()
    for flag in ("--games", "--playouts", "--parallel"):  # refused before any game (no progress bar)
        with pytest.raises(SystemExit) as e:
            main(["arena", "uniform:8", "uniform:8", flag, "0", "--game", "tictactoe"])
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert f"argument {flag}: must be >= 1, got 0" in err and "game/s" not in err


def test_vcf_player_kind_turns_the_threat_solver_on(tmp_path):
    pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")
    from zeroplay.nn import build_model, save_checkpoint

    path = tmp_path / "net.safetensors"
    save_checkpoint(path, build_model("tiny", FOUR, "basic", seed=0), game=FOUR, features="basic")
    p = make_player(f"vcf:{path}", FOUR, playouts=8, seed=0)
    assert p.config.threat_solver and p.name == f"vcf:{path}"
    assert not make_player(str(path), FOUR, playouts=8).config.threat_solver
    assert play_match(FOUR, p, make_player("uniform:8", FOUR, seed=1), 2).played == 2
    with pytest.raises(ValueError, match="vcf:PATH"):
        make_player("vcf:", FOUR)


def test_threat_solver_is_refused_outside_gomoku(tmp_path):
    pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")
    from zeroplay.nn import build_model, save_checkpoint
    from zeroplay.train.loop import open_run

    ttt = make("tictactoe")
    path = tmp_path / "ttt.safetensors"
    save_checkpoint(path, build_model("tiny", ttt, "basic", seed=0), game=ttt, features="basic")
    with pytest.raises(ValueError, match="Gomoku threat solver; this match plays tictactoe"):
        make_player(f"vcf:{path}", ttt)
    with pytest.raises(ValueError, match="the threat solver is for Gomoku"):
        open_run(tmp_path / "run", {"game": "connect4", "net": "tiny", "features": None, "game_options": None},
                 {"seed": None, "selfplay": {"threat_solver": True}, "loop": {}, "train": {}})
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("game_args,spec", [
    (["--game", "gomoku", "--size", "6", "--n-in-row", "4"], "heuristic:30"),
    (["--game", "gomoku", "--size", "6", "--n-in-row", "4"], "heuristic-plain:30"),
    (["--game", "connect4"], "heuristic:30"),
    (["--game", "tictactoe"], "heuristic:30"),
])
def test_heuristic_player_is_a_plain_arena_kind(capsys, game_args, spec):
    """``heuristic:N`` (the search-only engine of zeroplay play) plays in ``zeroplay arena`` itself
    (it used to exist only in training/arena.py, the arena could not import the play room) and
    beats uniform priors at equal playouts where the game has room for it."""
    assert main(["arena", spec, "uniform:30", "--games", "4", *game_args, "--json", "--seed", "3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["a"] == spec and out["games"] == 4
    if game_args[1] != "tictactoe":
        assert out["score"] >= 0.5


def test_heuristic_player_refuses_other_games_and_bad_counts():
    from zeroplay.engine.arena import make_player

    with pytest.raises(ValueError, match="heuristic:N needs N >= 1"):
        make_player("heuristic:0", make("gomoku", size=6, n_in_row=4))


@pytest.mark.parametrize("spec", ["heuristic:30", "heuristic-nodefence:30", "heuristic-plain:30"])
def test_heuristic_players_keep_the_match_seed_and_opening_plies(spec):
    """Regression: the heuristic kinds read seed and opening plies from the game's search options
    (which hold neither), so ``arena --seed`` and ``--opening-moves`` did not reach them."""
    from zeroplay.engine.arena import make_player

    a = make_player(spec, FOUR, seed=11, opening_moves=0)
    b = make_player(spec, FOUR, seed=11, opening_moves=0)
    assert a.opening_moves == 0 and a.seed == b.seed
    assert make_player(spec, FOUR, seed=12).seed != a.seed


def test_a_match_of_more_games_than_it_can_list_is_refused(capsys):
    # helper-79: --games 1000000000000 grew to 10.8 GB in 60 s listing the games, none played
    with pytest.raises(SystemExit) as e:
        main(["arena", "uniform:8", "uniform:8", "--games", "1000000000000", "--game", "tictactoe"])
    assert e.value.code == 2
    assert "argument --games: must be <= 1000000, got 1000000000000" in capsys.readouterr().err


def test_a_checkpoint_whose_game_cannot_be_made_is_named_not_an_option_nobody_gave(capsys, monkeypatch):
    # helper-79: an edited header (width 20000) said "--size must be ..." with no --size given
    import zeroplay.nn.record as record

    monkeypatch.setattr(record, "checkpoint_game", lambda path: ("gomoku", {"width": 20000, "height": 20000,
                                                                            "n_in_row": 5, "rule": "freestyle"}))
    assert main(["arena", "gomoku-6x6-4-freestyle", "uniform:8", "--games", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "--size must be an integer in 5..25, got 20000 (--game, --size, --n-in-row, --rule taken from " \
        "gomoku-6x6-4-freestyle)" in err, err


def test_a_bad_option_beside_a_checkpoints_game_is_the_users(capsys):
    # helper-81: the user's own --size 30 was blamed on the checkpoint
    assert main(["arena", "gomoku-6x6-4-freestyle", "uniform:8", "--size", "30", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "--size must be an integer in 5..25, got 30" in err, err
    assert main(["arena", "gomoku-6x6-4-freestyle", "uniform:8", "--n-in-row", "9", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "--n-in-row must be in 3..6, got 9 (--game, --size, --rule taken from gomoku-6x6-4-freestyle)" in err, err
