"""`zeroplay arena --record`: finished games on disk, a stopped match resumed, bad records refused."""

from __future__ import annotations

import json

import pytest

from zeroplay.cli import main
from zeroplay.games import make
from zeroplay.engine.arena import make_player, play_match, register_player_kind
from zeroplay.engine.match_record import MatchRecord, RecordedGame, RecordError, match_header

FOUR = make("gomoku", size=6, n_in_row=4)
GAME = ["--game", "gomoku", "--size", "6", "--n-in-row", "4"]


def arena(capsys, path, games, a="uniform:16", b="uniform:4", extra=()):
    code = main(["arena", a, b, "--games", str(games), *GAME, "--record", str(path), "--json", "--seed", "3",
                 "--parallel", "2", *extra])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else None), out.err


def game_lines(path):
    return [json.loads(l) for l in path.read_text().splitlines()[1:]]


def test_a_recorded_match_resumes_and_counts_its_games_once(tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    code, first, _ = arena(capsys, path, 4)
    assert code == 0 and first["resumed_games"] == 0
    lines = game_lines(path)
    assert sorted(g["game"] for g in lines) == [0, 1, 2, 3]
    assert all(g["a_is_black"] == (g["game"] % 2 == 0) for g in lines)
    first_played = max(g["seconds"] for g in lines)
    code, second, _ = arena(capsys, path, 7)  # the same match, three more games
    assert code == 0 and second["resumed_games"] == 4 and second["games"] == 7
    lines = game_lines(path)
    assert sorted(g["game"] for g in lines) == list(range(7))
    # the totals are the record's games, from A's point of view, colours included
    wins = sum((g["winner"] == 0) == g["a_is_black"] for g in lines if g["winner"] is not None)
    assert second["wins"] == wins
    assert second["a_as_black"]["wins"] + second["a_as_black"]["draws"] + second["a_as_black"]["losses"] == 4
    # the time goes on from the record's last game (the first run's total also counts its wrap-up
    # after that game, so on a fast match it can exceed the resumed total by a rounding step)
    assert second["seconds"] >= first_played
    code, third, _ = arena(capsys, path, 7)  # nothing left to play
    assert code == 0 and third["resumed_games"] == 7 and len(game_lines(path)) == 7
    assert {k: third[k] for k in ("wins", "draws", "losses")} == {k: second[k] for k in ("wins", "draws", "losses")}


def test_specs_that_mean_the_same_player_are_one_match(tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    code, first, _ = arena(capsys, path, 2, a="uniform:08", b="uniform:4")
    assert code == 0 and first["a"] == "uniform:8" and first["resumed_games"] == 0
    header = json.loads(path.read_text().splitlines()[0])
    assert (header["a"], header["a_player"]) == ("uniform:8", "uniform:8")
    code, second, _ = arena(capsys, path, 3, a="uniform:8", b="uniform:004")
    assert code == 0 and second["resumed_games"] == 2 and second["games"] == 3
    assert (second["a"], second["b"]) == ("uniform:8", "uniform:4")
    code, third, _ = arena(capsys, path, 3, a=" uniform: +8 ", b="uniform:4")
    assert code == 0 and third["resumed_games"] == 3 and len(game_lines(path)) == 3
    code = main(["arena", "uniform:08", "uniform:4", "--games", "3", *GAME, "--record", str(path), "--no-progress"])
    assert code == 0 and "uniform:8 vs uniform:4, 3 games" in capsys.readouterr().out


def test_a_record_written_before_specs_were_canonical_resumes(tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    assert arena(capsys, path, 2, a="uniform:8", b="rollout:4")[0] == 0
    header, *games = path.read_text().splitlines()
    old = json.loads(header) | {"a": "uniform:08", "a_player": "uniform:08",
                                "b": "rollout:004", "b_player": "rollout:004"}
    path.write_text("\n".join([json.dumps(old), *games]) + "\n")
    code, out, _ = arena(capsys, path, 3, a="uniform:8", b="rollout:4")
    assert code == 0 and out["resumed_games"] == 2
    assert json.loads(path.read_text().splitlines()[0]) == old  # the header is left as it was
    code, _, err = arena(capsys, path, 3, a="uniform:9", b="rollout:4")
    assert code == 2 and "player A: uniform:08 there, uniform:9 here" in err


@pytest.mark.parametrize("spec,message", [
    ("uniform:0", "uniform:N needs N >= 1, got uniform:0"),
    ("uniform:-1", "uniform:N needs N >= 1, got uniform:-1"),
    ("uniform:1e3", "uniform:N needs a whole number of playouts, got uniform:1e3"),
    ("uniform:", "uniform:N needs a whole number of playouts, got uniform:"),
    ("rollout:x", "rollout:N needs a whole number of playouts"),
    ("heuristic:0", "heuristic:N needs N >= 1"),
    ("vcf:", "vcf:PATH needs a checkpoint path"),
    ("pbrain:turn=500: ", "pbrain:COMMAND needs the engine's command line"),
])
def test_a_malformed_spec_is_a_usage_error_before_anything_is_written(tmp_path, capsys, spec, message):
    path = tmp_path / "m.jsonl"
    for a, b, side in ((spec, "uniform:4", "A"), ("uniform:4", spec, "B")):
        with pytest.raises(SystemExit) as e:
            main(["arena", a, b, "--games", "2", *GAME, "--record", str(path)])
        err = capsys.readouterr().err
        assert e.value.code == 2 and f"zeroplay arena: error: argument {side}: {message}" in err
        assert "usage:" in err and "Traceback" not in err
    assert not path.exists()


def test_another_match_or_a_broken_record_is_refused_and_the_file_kept(tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    assert arena(capsys, path, 2)[0] == 0
    before = path.read_text()
    for extra, b in (((), "uniform:8"), (("--opening-moves", "0"), "uniform:4"), (("--size", "7"), "uniform:4")):
        code, _, err = arena(capsys, path, 4, b=b, extra=extra)
        assert code == 2 and "records another match" in err and "use another --record file" in err
    assert path.read_text() == before

    header, *games = before.splitlines()
    g = json.loads(games[0])
    cases = {
        "not JSON": "garbage\n",
        "one line, not a record": "hello",
        "infinite index": f"{header}\n" + json.dumps(g).replace(f'"game": {g["game"]}', '"game": 1e400') + "\n",
        "NaN seconds": f"{header}\n" + json.dumps({**g, "seconds": float("nan")}) + "\n",
        "negative seconds": f"{header}\n" + json.dumps({**g, "seconds": -1}) + "\n",
        "float move": f"{header}\n" + json.dumps({**g, "moves": [m + 0.5 for m in g["moves"]]}) + "\n",
        "string index": f"{header}\n" + json.dumps({**g, "game": str(g["game"])}) + "\n",
        "boolean winner": f"{header}\n" + json.dumps({**g, "winner": True}) + "\n",
        "deep nesting": f"{header}\n" + "[" * 100000 + "\n",
        "foreign JSON": json.dumps({"hello": 1}) + "\n",
        "corrupt line": f"{header}\n{{\"game\": 5\n{games[1]}\n",
        "illegal move": f"{header}\n" + json.dumps({**g, "moves": g["moves"][:1] * 2}) + "\n",
        "wrong winner": f"{header}\n" + json.dumps({**g, "winner": 1 - g["winner"] if g["winner"] is not None else 0}) + "\n",
        "unfinished game": f"{header}\n" + json.dumps({**g, "moves": g["moves"][:-1]}) + "\n",
        "wrong colour": f"{header}\n" + json.dumps({**g, "a_is_black": not g["a_is_black"]}) + "\n",
        "twice": f"{header}\n{games[0]}\n{games[0]}\n",
        "bad winner": f"{header}\n" + json.dumps({**g, "winner": 2}) + "\n",
    }
    for name, text in cases.items():
        bad = tmp_path / f"{name}.jsonl"
        bad.write_text(text)
        code, _, err = arena(capsys, bad, 4)
        assert code == 2 and "zeroplay arena: error:" in err and str(bad) in err, name
        assert "Traceback" not in err
        assert bad.read_text() == text, name  # nothing rewritten
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    assert arena(capsys, binary, 2)[0] == 2
    code, _, err = arena(capsys, tmp_path, 2)  # a directory
    assert code == 2 and "--record" in err and "Traceback" not in err


def test_an_unfinished_last_line_is_dropped(tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    assert arena(capsys, path, 3)[0] == 0
    text = path.read_text()
    path.write_text(text + '{"game": 3, "a_is_bl')  # killed while writing game 3
    code, out, _ = arena(capsys, path, 4)
    assert code == 0 and out["resumed_games"] == 3 and out["games"] == 4
    assert [g["game"] for g in game_lines(path)] == [0, 1, 2, 3]


class Interrupting:
    """Plays the first legal cell; raises KeyboardInterrupt on its first move of game ``stop_at``."""

    def __init__(self, name, stop_at):
        self.name, self.stop_at, self.game_no = name, stop_at, -1

    def new_game(self, game):
        self.game_no += 1

    def play(self, state):
        if self.game_no == self.stop_at:
            raise KeyboardInterrupt
        return int(state.legal_moves()[0])


def test_ctrl_c_keeps_the_games_that_ended_and_the_command_resumes(tmp_path, capsys):
    register_player_kind("interrupt", lambda arg, game, options: Interrupting(f"interrupt:{arg}", int(arg)))
    path = tmp_path / "m.jsonl"
    code = main(["arena", "interrupt:3", "uniform:4", "--games", "6", *GAME, "--record", str(path), "--seed", "1",
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == 130 and str(path) in err and "resumes" in err
    assert [g["game"] for g in game_lines(path)] == [0, 1, 2]
    # the same match, resumed by a player that does not stop: games 3..5 only
    register_player_kind("interrupt", lambda arg, game, options: Interrupting(f"interrupt:{arg}", -1))
    code = main(["arena", "interrupt:3", "uniform:4", "--games", "6", *GAME, "--record", str(path), "--seed", "1",
                 "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["games"] == 6 and out["resumed_games"] == 3
    assert sorted(g["game"] for g in game_lines(path)) == list(range(6))


def test_play_match_books_done_games_and_plays_only_the_others():
    a, b = make_player("uniform:8", FOUR, seed=0), make_player("uniform:2", FOUR, seed=1)
    played = []
    first = play_match(FOUR, a, b, 3, parallel=2, on_game=lambda *g: played.append(g))
    assert sorted(p[0] for p in played) == [0, 1, 2]
    done = [RecordedGame(i, black, winner, tuple(moves), 1.0) for i, black, winner, moves in played]
    more = []
    m = play_match(FOUR, a, b, 5, parallel=2, done=done + [RecordedGame(9, False, None, (), 1.0)],
                   on_game=lambda *g: more.append(g))
    assert sorted(p[0] for p in more) == [3, 4]  # index 9 >= games: ignored
    assert m.played == 5
    assert sum(m.as_black) == 3 and sum(m.as_white) == 2
    # the booked games are the recorded ones, in index order
    assert [tuple(g[2]) for g in m.games[:3]] == [tuple(p[3]) for p in sorted(played)]


def test_record_api_round_trip(tmp_path):
    header = match_header("x", "y", FOUR, 100, 0)
    state = FOUR.initial().play_many([0, 6, 1, 7, 2, 8, 3])
    with MatchRecord(tmp_path / "sub" / "r.jsonl", header, FOUR) as rec:  # the directory is made
        rec.append(0, True, state.winner, state.moves, 12.34)
    with MatchRecord(tmp_path / "sub" / "r.jsonl", header, FOUR) as again:
        assert again.games[0].moves == tuple(state.moves) and again.games[0].winner == 0
        assert again.seconds() == 12.3 and again.seconds(0) == 0.0
    with pytest.raises(RecordError, match="another match"):
        MatchRecord(tmp_path / "sub" / "r.jsonl", match_header("x", "y", FOUR, 200, 0), FOUR)


def test_an_empty_file_becomes_a_record_and_a_whole_last_line_without_newline_is_kept(tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    path.write_text("")
    assert arena(capsys, path, 3)[0] == 0
    text = path.read_text()
    path.write_text(text.rstrip("\n"))  # an editor that drops the final newline
    code, out, err = arena(capsys, path, 4)
    assert code == 0 and out["resumed_games"] == 3 and "cut off" not in err
    assert [g["game"] for g in game_lines(path)] == [0, 1, 2, 3]


def test_a_record_saved_with_a_byte_order_mark_resumes(tmp_path, capsys):
    """A record hand-edited in Windows Notepad starts with a BOM: it was "line 1 is not a JSON object"."""
    path = tmp_path / "m.jsonl"
    assert arena(capsys, path, 2)[0] == 0
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    code, out, err = arena(capsys, path, 3)
    assert code == 0 and out["resumed_games"] == 2, err
    assert sorted(g["game"] for g in game_lines(path)) == [0, 1, 2]


def test_a_cut_off_line_is_dropped_with_a_note(tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    assert arena(capsys, path, 2)[0] == 0
    path.write_text(path.read_text() + '{"game": 2, "a_is')
    code, out, err = arena(capsys, path, 2)
    assert code == 0 and "cut off mid-write" in err and out["resumed_games"] == 2
    assert path.read_text().endswith("}\n")


def test_a_second_process_on_the_same_record_is_refused(tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    header = match_header("uniform:16", "uniform:4", FOUR, None, 2)
    with MatchRecord(path, header, FOUR):  # held, as by a running match
        code, _, err = arena(capsys, path, 2)
        assert code == 2 and "in use by another zeroplay arena" in err
    assert arena(capsys, path, 2)[0] == 0  # released


def test_not_a_regular_file_or_no_path_is_refused(tmp_path, capsys):
    import os

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, _, err = arena(capsys, fifo, 2)
    assert code == 2 and "not a regular file" in err
    code, _, err = arena(capsys, "", 2)
    assert code == 2 and "--record needs a file path" in err


def test_a_symlinked_record_is_written_through(tmp_path, capsys):
    real = tmp_path / "store" / "real.jsonl"
    real.parent.mkdir()
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    assert arena(capsys, link, 2)[0] == 0
    real.write_text(real.read_text() + '{"game": 2')
    assert arena(capsys, link, 3)[0] == 0
    assert link.is_symlink() and [g["game"] for g in game_lines(real)] == [0, 1, 2]


def test_playouts_only_matter_to_checkpoint_players(tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    assert arena(capsys, path, 2)[0] == 0
    code, out, _ = arena(capsys, path, 3, extra=("--playouts", "100"))
    assert code == 0 and out["resumed_games"] == 2


def test_a_checkpoint_is_known_by_its_contents_not_its_path(tmp_path, capsys, monkeypatch):
    pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")
    from zeroplay.nn import build_model, save_checkpoint

    net = tmp_path / "net.safetensors"
    save_checkpoint(net, build_model("tiny", FOUR, "basic", seed=0), game=FOUR, features="basic")
    path = tmp_path / "m.jsonl"
    common = ("--playouts", "4")
    assert arena(capsys, path, 2, a=str(net), extra=common)[0] == 0
    monkeypatch.chdir(tmp_path)
    code, out, _ = arena(capsys, path, 3, a="./net.safetensors", extra=common)  # the same file, another path
    assert code == 0 and out["resumed_games"] == 2
    save_checkpoint(net, build_model("tiny", FOUR, "basic", seed=1), game=FOUR, features="basic")
    code, _, err = arena(capsys, path, 4, a=str(net), extra=common)  # overwritten at the same path
    assert code == 2 and "player A" in err and "sha256:" in err


def test_a_failed_append_leaves_no_half_line_and_says_how_to_resume(tmp_path, capsys, monkeypatch):
    import errno

    from zeroplay.engine import match_record

    path = tmp_path / "m.jsonl"
    assert arena(capsys, path, 2)[0] == 0
    before = path.read_text()

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(match_record.os, "fsync", full)
    code, _, err = arena(capsys, path, 4)
    assert code == 2 and "No space left on device" in err and "resumes the match" in err
    assert path.read_text() == before


def test_a_write_the_disk_cuts_short_is_undone(tmp_path, capsys, monkeypatch):
    """A full disk can take part of a line without an error; the rest then fails: no half line."""
    import errno
    import os

    from zeroplay.engine import match_record

    path = tmp_path / "m.jsonl"
    assert arena(capsys, path, 2)[0] == 0
    before = path.read_text()
    real_write = os.write
    calls = []

    def short(fd, data):
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(match_record.os, "write", short)
    code, _, err = arena(capsys, path, 4)
    assert code == 2 and "No space left on device" in err
    assert path.read_text() == before and len(calls) == 2
    monkeypatch.undo()
    # a header cut short the same way: refused before any game, the file left empty, then usable
    new = tmp_path / "new.jsonl"
    calls.clear()
    monkeypatch.setattr(match_record.os, "write", short)
    code, _, err = arena(capsys, new, 2)
    assert code == 2 and "--record" in err and "No space left" in err and new.read_text() == ""
    monkeypatch.undo()
    assert arena(capsys, new, 2)[0] == 0


def test_a_header_without_its_newline_is_kept(tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    assert arena(capsys, path, 2)[0] == 0
    path.write_text(path.read_text().splitlines()[0])  # the header alone, no newline
    code, out, _ = arena(capsys, path, 2)
    assert code == 0 and out["resumed_games"] == 0
    assert [g["game"] for g in game_lines(path)] == [0, 1]
    assert arena(capsys, path, 2)[0] == 0  # and it reads back


def test_an_edited_last_line_is_refused_not_dropped(tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    assert arena(capsys, path, 2)[0] == 0
    text = path.read_text().rstrip("\n")
    bad = text[:-1] + ",}"  # a trailing comma: whole, but not JSON
    path.write_text(bad)
    code, _, err = arena(capsys, path, 2)
    assert code == 2 and "not a game record" in err and path.read_text() == bad


def test_a_header_is_compared_as_json_types(tmp_path, capsys):
    path = tmp_path / "m.jsonl"
    assert arena(capsys, path, 2)[0] == 0
    header, *games = path.read_text().splitlines()
    for change in ({"zeroplay_match": True}, {"opening_moves": 2.0}):
        edited = json.dumps({**json.loads(header), **change}) + "\n" + "\n".join(games) + "\n"
        path.write_text(edited)
        code, _, err = arena(capsys, path, 2)
        assert code == 2 and path.read_text() == edited, change


def test_a_resumed_seeded_match_plays_the_games_an_uninterrupted_one_plays(tmp_path, capsys):
    """Openings are sampled per game index: resumed games are new games, not repeats of the first."""
    whole, split = tmp_path / "whole.jsonl", tmp_path / "split.jsonl"
    assert arena(capsys, whole, 8)[0] == 0
    assert arena(capsys, split, 4)[0] == 0
    assert arena(capsys, split, 8)[0] == 0
    moves = {p: {g["game"]: g["moves"] for g in game_lines(p)} for p in (whole, split)}
    assert moves[whole] == moves[split]  # both players deterministic apart from the openings
    assert len({tuple(m) for m in moves[split].values()}) > 4


def test_paths_and_options_are_checked_before_anything_is_written(tmp_path, capsys):
    a_file = tmp_path / "plain"
    a_file.write_text("x")
    code, _, err = arena(capsys, a_file / "m.jsonl", 2)
    assert code == 2 and "is a file, not a directory" in err
    code, _, err = arena(capsys, f"{tmp_path}/dir/", 2)
    assert code == 2 and "names a directory" in err and not (tmp_path / "dir").exists()
    with pytest.raises(SystemExit):
        main(["arena", "uniform:8", "uniform:8", "--opening-moves", "-1", *GAME])
    assert "must be >= 0" in capsys.readouterr().err


def test_a_checkpoint_path_with_a_colon_is_a_checkpoint(tmp_path, capsys):
    pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")
    from zeroplay.nn import build_model, save_checkpoint

    folder = tmp_path / "x:y"
    folder.mkdir()
    net = folder / "net.ckpt"
    save_checkpoint(net, build_model("tiny", FOUR, "basic", seed=0), game=FOUR, features="basic")
    path = tmp_path / "m.jsonl"
    assert arena(capsys, path, 2, a=str(net), extra=("--playouts", "4"))[0] == 0
    header = json.loads(path.read_text().splitlines()[0])
    assert header["a_player"].startswith("sha256:") and header["playouts"] == 4
    code, _, err = arena(capsys, path, 3, a=str(net), extra=("--playouts", "8"))
    assert code == 2 and "playouts: 4 there, 8 here" in err


def test_a_record_holding_only_another_matchs_header_takes_this_match(tmp_path, capsys):
    # helper-76: a mistyped engine command left its header, and the corrected command was
    # refused as "another match" though the file held no game
    path = tmp_path / "m.jsonl"
    assert arena(capsys, path, 2, b="uniform:8")[0] == 0
    path.write_text(path.read_text().splitlines()[0] + "\n")  # the header alone: no game played
    code, out, _ = arena(capsys, path, 2)
    assert code == 0 and out["resumed_games"] == 0
    assert json.loads(path.read_text().splitlines()[0])["b"] == "uniform:4"
    assert [g["game"] for g in game_lines(path)] == [0, 1]


def test_a_header_and_a_cut_off_first_game_line_take_this_match(tmp_path, capsys):
    # helper-77: killed while writing the failed match's first game line: still "another match"
    path = tmp_path / "m.jsonl"
    assert arena(capsys, path, 2, b="uniform:8")[0] == 0
    header, first, *_ = path.read_text().splitlines()
    path.write_text(header + "\n" + first[:20])
    code, out, _ = arena(capsys, path, 2)
    assert code == 0 and out["resumed_games"] == 0
    assert [g["game"] for g in game_lines(path)] == [0, 1]
