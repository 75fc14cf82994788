"""Arena openings: deterministic players get distinct games, each opening with both colour orders."""

from __future__ import annotations

import json

import pytest

from zeroplay.engine.arena import play_match
from zeroplay.engine.arena_openings import FileOpenings, RandomOpenings
from zeroplay.games import make


class _Fixed:
    """A deterministic player: always the first (or last) legal move."""

    def __init__(self, name, last=False):
        self.name, self.last = name, last

    def new_game(self, game):
        pass

    def play(self, state):
        legal = state.legal_moves()
        return int(legal[-1] if self.last else legal[0])


def _distinct(match):
    return len({tuple(moves) for _, _, moves in match.games})


def test_deterministic_players_repeat_two_games_without_openings_and_differ_with_them():
    game = make("connect4")
    a, b = _Fixed("first"), _Fixed("last", last=True)
    assert _distinct(play_match(game, a, b, 8)) == 2  # the defect the openings fix
    match = play_match(game, a, b, 8, openings=RandomOpenings(3, seed=5))
    assert _distinct(match) == 8 and match.played == 8


def test_each_opening_is_played_with_both_colour_orders():
    game = make("connect4")
    openings = RandomOpenings(4, seed=1)
    match = play_match(game, _Fixed("first"), _Fixed("last", last=True), 6, openings=openings)
    for k in range(3):
        (black0, _, m0), (black1, _, m1) = match.games[2 * k], match.games[2 * k + 1]
        assert black0 and not black1  # A is Black in the first game of the pair, White in the second
        assert m0[:4] == m1[:4] == openings.actions(game, 2 * k) == openings.actions(game, 2 * k + 1)
    firsts = {tuple(openings.actions(game, 2 * k)) for k in range(3)}
    assert len(firsts) == 3
    # a rerun draws the same openings (a resumed match replays them); another seed others
    assert RandomOpenings(4, seed=1).actions(game, 4) == openings.actions(game, 4)
    assert any(RandomOpenings(4, seed=2).actions(game, 2 * k) != openings.actions(game, 2 * k) for k in range(3))


def test_search_players_in_lockstep_start_from_the_openings():
    from zeroplay.engine.arena import make_player

    game = make("connect4")
    a = make_player("uniform:4", game, seed=1, opening_moves=0)
    b = make_player("uniform:6", game, seed=2, opening_moves=0)
    openings = RandomOpenings(2, seed=3)
    match = play_match(game, a, b, 4, openings=openings)
    for index, (_, _, moves) in enumerate(match.games):
        assert moves[:2] == openings.actions(game, index)


def test_random_opening_bounds():
    with pytest.raises(ValueError, match="1..64"):
        RandomOpenings(0)
    with pytest.raises(ValueError, match="1..64"):
        RandomOpenings(65)


def test_file_openings_shogi_and_their_errors(tmp_path):
    game = make("shogi")
    path = tmp_path / "open.txt"
    path.write_text("# two openings\n7g7f 3c3d\n\n2g2f 8c8d 2f2e  # Ibisha\n")
    openings = FileOpenings(path, game)
    assert openings.describe()["count"] == 2
    s = game.initial()
    assert openings.actions(game, 0) == openings.actions(game, 1) == [s.parse_move("7g7f"), s.play("7g7f").parse_move("3c3d")]
    assert len(openings.actions(game, 2)) == 3 and openings.actions(game, 4) == openings.actions(game, 0)
    assert openings.start(game, 3).ply == 3
    path.write_text("7g7f 3c3d\n7g7f 7g7f\n")
    with pytest.raises(ValueError, match="line 2, ply 2"):
        FileOpenings(path, game)
    path.write_text("# nothing\n")
    with pytest.raises(ValueError, match="no opening"):
        FileOpenings(path, game)
    with pytest.raises(ValueError, match="openings file"):
        FileOpenings(tmp_path / "missing.txt", game)
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(ValueError, match="UTF-8"):
        FileOpenings(path, game)


def test_cli_records_the_openings_and_resumes_with_them(tmp_path, capsys):
    from zeroplay.cli import main

    record = tmp_path / "m.jsonl"
    args = ["arena", "uniform:3", "uniform:5", "--game", "connect4", "--opening-moves", "0", "--random-opening-plies",
            "3", "--opening-seed", "7", "--record", str(record), "--json", "--no-progress"]
    assert main([*args, "--games", "4"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["openings"] == {"random_plies": 3, "seed": 7}
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert lines[0]["openings"] == {"random_plies": 3, "seed": 7}
    games = lines[1:]
    assert [g["opening"] for g in games] == [3] * 4
    by_index = {g["game"]: g["moves"] for g in games}
    assert by_index[0][:3] == by_index[1][:3] and by_index[2][:3] == by_index[3][:3]
    assert len({tuple(m) for m in by_index.values()}) == 4
    assert main([*args, "--games", "6"]) == 0  # resumes: the 4 recorded games count
    assert json.loads(capsys.readouterr().out)["resumed_games"] == 4
    # another opening seed is another match
    assert main([*args[:-6], "--opening-seed", "8", "--record", str(record), "--json", "--no-progress",
                 "--games", "6"]) != 0
    assert "openings" in capsys.readouterr().err


def test_file_openings_accept_a_utf8_byte_order_mark(tmp_path):
    """Windows Notepad saves UTF-8 with a BOM: the first move read as '\\ufeff4' was refused."""
    game = make("connect4")
    path = tmp_path / "open.txt"
    path.write_bytes("\ufeff4 4\r\n3 5\r\n".encode("utf-8"))
    openings = FileOpenings(path, game)
    plain = tmp_path / "plain.txt"
    plain.write_text("4 4\n3 5\n")
    assert openings.lines == FileOpenings(plain, game).lines
    assert len(openings.lines) == 2 and len(openings.lines[0]) == 2


def test_cli_opening_seed_needs_random_opening_plies(tmp_path, capsys):
    """``--opening-seed`` alone was silently ignored; a negative one got numpy's wording."""
    from zeroplay.cli import main

    args = ["arena", "uniform:2", "uniform:2", "--game", "connect4", "--games", "2", "--json", "--no-progress"]
    assert main([*args, "--opening-seed", "5"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("zeroplay arena: error: --opening-seed seeds --random-opening-plies") and err.count("\n") == 1
    openings = tmp_path / "open.txt"
    openings.write_text("4 4\n")
    assert main([*args, "--openings", str(openings), "--opening-seed", "5"]) == 2
    assert "--openings FILE plays the file's openings in order" in capsys.readouterr().err
    for flag in ("--opening-seed", "--seed"):
        with pytest.raises(SystemExit) as exit_info:
            main([*args, "--random-opening-plies", "2", flag, "-1"])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert f"argument {flag}: must be >= 0, got -1" in err and "Seed must be" not in err
