"""`zeroplay arena` with shipped models by name (also after vcf:), and the game taken from the first
checkpoint player when no game option is given (as `zeroplay play --model` does)."""

from __future__ import annotations

import hashlib
import json

import pytest

from zeroplay.cli import main
from zeroplay.games import make
from zeroplay.nn.shipped import MODELS_DIR
from zeroplay.engine.arena import checkpoint_file, make_player

NAME = "gomoku-6x6-4-freestyle"
SIX = MODELS_DIR / f"{NAME}.safetensors"
FOUR = make("gomoku", size=6, n_in_row=4)
GAME = ["--game", "gomoku", "--size", "6", "--n-in-row", "4"]
NOTE = f"game from {NAME}: gomoku 6x6, 4 in a row, freestyle"

pytestmark = pytest.mark.skipif(not SIX.exists(), reason="the shipped 6x6 model is not in this checkout (src/zeroplay/models/)")


def arena(capsys, a, b="uniform:4", games=2, extra=()):
    code = main(["arena", a, b, "--games", str(games), "--playouts", "4", "--json", "--seed", "3",
                 "--parallel", "2", *extra])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else None), out.err


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_name_is_its_file_in_the_package():
    assert checkpoint_file(NAME) == str(SIX) == checkpoint_file(f"{NAME}.safetensors")
    assert checkpoint_file(f"vcf:{NAME}") == str(SIX)
    assert checkpoint_file("no-such-model") is None and checkpoint_file("uniform:8") is None
    p = make_player(NAME, FOUR, playouts=4, seed=0)
    assert p.name == NAME and not p.config.threat_solver
    v = make_player(f"vcf:{NAME}", FOUR, playouts=4, seed=0)
    assert v.name == f"vcf:{NAME}" and v.config.threat_solver
    with pytest.raises(ValueError, match="neither a checkpoint file nor one of .* shipped model: .*" + NAME):
        make_player("gomoku-6x6-nosuch", FOUR)
    with pytest.raises(ValueError, match="no checkpoint at gomoku-6x6-nosuch .*" + NAME):
        make_player("vcf:gomoku-6x6-nosuch", FOUR)


def test_a_file_of_that_name_here_wins(tmp_path, monkeypatch):
    pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")
    from zeroplay.nn import build_model, save_checkpoint

    monkeypatch.chdir(tmp_path)
    save_checkpoint(tmp_path / NAME, build_model("tiny", FOUR, "basic", seed=5), game=FOUR, features="basic")
    assert checkpoint_file(NAME) == NAME and checkpoint_file(f"vcf:{NAME}") == NAME


def test_a_shipped_name_plays_on_its_board(capsys):
    code, out, err = arena(capsys, NAME, extra=GAME)
    assert code == 0 and out["a"] == NAME and out["games"] == 2 and out["playouts"] == 4
    assert out["options"] == {"width": 6, "height": 6, "n_in_row": 4, "rule": "freestyle"}
    assert "game from" not in err  # every option was given


def test_vcf_with_a_shipped_name(capsys):
    code, out, err = arena(capsys, "uniform:4", f"vcf:{NAME}")
    assert code == 0 and out["b"] == f"vcf:{NAME}" and out["options"]["n_in_row"] == 4
    assert err.count(f"game from vcf:{NAME}: gomoku 6x6, 4 in a row, freestyle") == 1


def test_the_game_comes_from_the_first_checkpoint_player(capsys):
    code, out, err = arena(capsys, NAME)  # no game option: 6x6 four in a row, not 15x15
    assert code == 0 and out["options"] == {"width": 6, "height": 6, "n_in_row": 4, "rule": "freestyle"}
    assert err.count(NOTE) == 1 and err.count("game from") == 1
    code, out, err = arena(capsys, "uniform:4", str(SIX))  # B when A is not a checkpoint
    assert code == 0 and out["options"]["width"] == 6 and f"game from {SIX}: gomoku 6x6" in err
    # options given win; the ones not given still come from the checkpoint (4 in a row on 6x6)
    code, out, err = arena(capsys, NAME, extra=("--size", "6"))
    assert code == 0 and out["options"]["n_in_row"] == 4
    assert f"--n-in-row, --rule from {NAME}: gomoku 6x6, 4 in a row, freestyle" in err
    assert main(["arena", NAME, "uniform:4", "--games", "2", "--playouts", "4", "--seed", "3", "--no-progress"]) == 0
    text = capsys.readouterr()
    assert "2 games of gomoku 6x6, 4 in a row, freestyle" in text.out and text.err.count(NOTE) == 1


def test_an_explicit_option_that_does_not_fit_is_still_refused(capsys):
    code, _, err = arena(capsys, NAME, extra=("--size", "8"))
    assert code == 2 and "does not fit" in err and "wanted 8x8" in err and "game from" not in err
    code, _, err = arena(capsys, NAME, extra=("--size", "6", "--n-in-row", "5"))
    assert code == 2 and "n_in_row: checkpoint 4, wanted 5" in err
    code, _, err = arena(capsys, NAME, extra=("--game", "tictactoe"))
    assert code == 2 and "does not fit" in err


def test_the_game_of_another_kind_of_checkpoint(tmp_path, capsys):
    pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")
    from zeroplay.nn import build_model, save_checkpoint

    ttt = make("tictactoe")
    net = tmp_path / "ttt.safetensors"
    save_checkpoint(net, build_model("tiny", ttt, "basic", seed=0), game=ttt, features="basic")
    code, out, err = arena(capsys, str(net), "uniform:4")
    assert code == 0 and out["game"] == "tictactoe" and f"game from {net}: tictactoe 3x3" in err
    code, _, err = arena(capsys, str(net), "uniform:4", extra=("--size", "6"))  # Gomoku options mean Gomoku
    assert code == 2 and "does not fit" in err


def test_without_checkpoint_players_the_defaults_stay():
    from zeroplay.cli import build_parser
    from zeroplay.train.commands import _arena_game

    args = build_parser().parse_args(["arena", "uniform:4", "rollout:4"])
    assert args.game is None and args.size is None
    game, note = _arena_game(args)
    assert game == make("gomoku", size=15, n_in_row=5, rule="freestyle") and note is None
    train = build_parser().parse_args(["train", "--run-dir", "x"])  # train's options are unchanged
    assert (train.game, train.size, train.n_in_row, train.rule) == (None, None, None, None)


def test_a_name_and_its_path_resume_one_record(tmp_path, capsys):
    record = tmp_path / "m.jsonl"
    code, first, _ = arena(capsys, NAME, extra=("--record", str(record)))
    assert code == 0 and first["resumed_games"] == 0
    header = json.loads(record.read_text().splitlines()[0])
    assert header["a"] == NAME and header["a_player"] == f"sha256:{sha256(SIX)}"
    assert header["options"]["n_in_row"] == 4
    code, second, _ = arena(capsys, str(SIX), games=3, extra=("--record", str(record)))
    assert code == 0 and second["resumed_games"] == 2 and second["games"] == 3
    code, third, _ = arena(capsys, f"{NAME}.safetensors", games=3, extra=(*GAME, "--record", str(record)))
    assert code == 0 and third["resumed_games"] == 3
    # the threat solver makes another player: vcf:NAME is not NAME, but is vcf:PATH
    code, _, err = arena(capsys, f"vcf:{NAME}", games=3, extra=("--record", str(record)))
    assert code == 2 and "player A" in err and f"vcf:sha256:{sha256(SIX)}" in err
    vcf_record = tmp_path / "v.jsonl"
    assert arena(capsys, f"vcf:{NAME}", extra=("--record", str(vcf_record)))[0] == 0
    code, out, _ = arena(capsys, f"vcf:{SIX}", games=3, extra=("--record", str(vcf_record)))
    assert code == 0 and out["resumed_games"] == 2


def test_the_playouts_help_names_every_kind_that_keeps_its_own(capsys):
    with pytest.raises(SystemExit):
        main(["arena", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "uniform:N, rollout:N, heuristic:N, heuristic-plain:N and pbrain: players keep their own" in text
    assert "shipped model's name" in text


def test_six_by_six_means_four_in_a_row_as_in_zeroplay_play(tmp_path):
    """``zeroplay arena rollout:10 rollout:10 --size 6`` played five in a row on 6x6 while
    ``zeroplay play --size 6`` plays four; ``zeroplay train --size 6`` started a five-in-row run."""
    from zeroplay.cli import build_parser
    from zeroplay.train.commands import _arena_game
    from zeroplay.train.loop import resolve_run

    parse = build_parser().parse_args
    assert _arena_game(parse(["arena", "uniform:4", "rollout:4", "--size", "6"]))[0] == make(
        "gomoku", size=6, n_in_row=4, rule="freestyle")
    assert _arena_game(parse(["arena", "uniform:4", "rollout:4", "--size", "6", "--n-in-row", "5"]))[0] == make(
        "gomoku", size=6, n_in_row=5, rule="freestyle")
    assert _arena_game(parse(["arena", "uniform:4", "rollout:4", "--size", "7"]))[0].options["n_in_row"] == 5
    new = resolve_run(tmp_path / "new", {"game": None, "game_options": {"size": 6}}, {})
    assert new.game_options["n_in_row"] == 4
    given = resolve_run(tmp_path / "new", {"game": None, "game_options": {"size": 6, "n_in_row": 5}}, {})
    assert given.game_options["n_in_row"] == 5
