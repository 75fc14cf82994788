"""``zeroplay gtp --model``: a Go network's priors and values in the GTP engine (issue 22), a komi
the net was not trained with (it plays, with a note), and a bad ``--model`` refused at start."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from gtp_helpers import ask, gtp_session, own_net_session, stop_after_infos

from zeroplay.engine.factory import MODELS_DIR
from zeroplay.games import make
from zeroplay.nn import build_model, save_checkpoint


@pytest.fixture(scope="module")
def go_model(tmp_path_factory):
    """A b1c8 Go net trained for nothing, at komi 7 (the shipped run's komi)."""
    game = make("go", size=5, komi=7.0)
    path = tmp_path_factory.mktemp("gomodel") / "go-tiny.safetensors"
    save_checkpoint(path, build_model("b1c8-gpool", game, "go", seed=0), game=game, features="go", step=0)
    return str(path)


def test_the_network_plays_and_is_named(go_model, capsys):
    session, out = gtp_session(playouts=16, size=5, komi=7.5, model=go_model)
    assert "go-tiny.safetensors" in ask(session, out, "version")
    move = ask(session, out, "genmove b")
    assert move.startswith("= ") and move.endswith("\n\n")
    vertex = move[2:].strip().lower()
    assert vertex != "resign"
    # the net's evaluator searched (not the Go priors), and the komi difference was told on stderr
    assert type(session.engine._searcher.evaluator).__name__ in ("NetEvaluator", "NumpyNetEvaluator")
    assert "trained with komi 7 and plays komi 7.5" in capsys.readouterr().err
    assert ask(session, out, "play w c3" if vertex != "c3" else "play w b2").startswith("=")


def test_another_board_size_plays_with_a_note(go_model, capsys):
    session, out = gtp_session(playouts=8, size=5, komi=7.0, model=go_model)
    capsys.readouterr()
    assert ask(session, out, "boardsize 7").startswith("=")
    assert ask(session, out, "genmove b").startswith("= ")
    err = capsys.readouterr().err
    assert "trained on 5x5 and plays 7x7" in err and "komi" not in err
    assert ask(session, out, "boardsize 5").startswith("=")
    assert ask(session, out, "genmove b").startswith("= ")
    assert "trained on" not in capsys.readouterr().err  # its own board: no note


def test_a_model_fits_go_at_another_komi_but_not_another_game(go_model):
    from zeroplay.engine.factory import check_model
    from zeroplay.nn.record import CheckpointError

    assert check_model(go_model, make("go", size=9, komi=6.5)) == go_model  # fully convolutional, komi free
    with pytest.raises(CheckpointError, match="scoring"):
        check_model(go_model, make("go", size=9, scoring="territory"))
    with pytest.raises(CheckpointError, match="game"):
        check_model(go_model, make("gomoku", size=9))


def _gtp(*args):
    return subprocess.run([sys.executable, "-m", "zeroplay.cli", "gtp", *args], input="quit\n",
                          capture_output=True, text=True, timeout=120)


def test_a_bad_model_is_refused_at_start(tmp_path):
    missing = _gtp("--model", str(tmp_path / "nothing.safetensors"))
    assert missing.returncode == 2 and missing.stdout == ""
    assert "zeroplay gtp: error: --model:" in missing.stderr and "no checkpoint" in missing.stderr
    gomoku = tmp_path / "gomoku.safetensors"
    game = make("gomoku", size=7)
    save_checkpoint(gomoku, build_model("b1c8", game, "basic", seed=0), game=game, features="basic", step=0)
    wrong = _gtp("--model", str(gomoku))
    assert wrong.returncode == 2 and "game" in wrong.stderr


def test_flat_takes_no_model(go_model):
    flat = _gtp("--engine", "flat", "--model", go_model)
    assert flat.returncode == 2 and "--engine search" in flat.stderr


def test_start_model_none_and_default(go_model):
    import argparse

    from zeroplay.play.gtp import _start_model, add_gtp_arguments

    parser = argparse.ArgumentParser()
    add_gtp_arguments(parser)
    assert _start_model(parser.parse_args(["--model", "none"])) is None
    from zeroplay.engine.factory import MODELS_DIR

    shipped = MODELS_DIR / "go-9x9.safetensors"  # the default of 9x9 (issue 22), when it ships
    assert _start_model(parser.parse_args([])) == (str(shipped) if shipped.exists() else None)
    assert _start_model(parser.parse_args(["--size", "13"])) is None  # not measured there: the Go priors
    assert _start_model(parser.parse_args(["--scoring", "territory"])) is None  # not its scoring
    assert _start_model(parser.parse_args(["--model", go_model, "--komi", "6.5"])) == go_model


def test_a_bad_start_board_is_not_blamed_on_the_model():
    bad = _gtp("--komi", "nan")
    assert bad.returncode == 2 and bad.stderr.startswith("zeroplay gtp: error: ") and "--model" not in bad.stderr


def test_a_setting_without_a_model_says_so_at_start():
    """A new user's finding: --scoring territory dropped the 9x9 model without a word."""
    territory = _gtp("--scoring", "territory")
    assert territory.returncode == 0 and territory.stdout == "=\n\n"
    assert "no Go model is the default for 9x9 with territory scoring" in territory.stderr
    named = _gtp("--model", "none")
    assert "no Go model" not in named.stderr  # asked for none: nothing to explain


@pytest.mark.skipif(not (MODELS_DIR / "go-9x9.safetensors").exists(), reason="the 9x9 Go model does not ship")
def test_boardsize_picks_the_default_of_the_new_board_as_a_start_on_it_would(capsys):
    """A session started on 9x9 kept the 9x9 model after ``boardsize 13`` (with a "trained on
    9x9" note), while ``zeroplay gtp --size 13`` plays 13x13 with the Go priors: the two agreed on
    nothing. Now each board gets its setting's default, whichever way the session got there."""
    session, out = gtp_session(playouts=8, size=9, komi=7.0, shipped_default=True)
    assert "go-9x9.safetensors" in ask(session, out, "version")
    assert ask(session, out, "genmove b").startswith("= ")
    assert type(session.engine._searcher.evaluator).__name__ in ("NetEvaluator", "NumpyNetEvaluator")
    capsys.readouterr()
    assert ask(session, out, "boardsize 13") == "=\n\n"
    # told at boardsize (not at the next genmove), and version names the board's engine at once
    err = capsys.readouterr().err
    assert "no Go model is the default for 13x13 with area scoring" in err
    assert "--model go-9x9 plays it anyway" in err and "trained on" not in err
    assert "Go priors" in ask(session, out, "version")
    assert ask(session, out, "genmove b").startswith("= ")
    assert type(session.engine._searcher.evaluator).__name__ == "GoPriorEvaluator"
    assert ask(session, out, "clear_board") == "=\n\n"
    assert ask(session, out, "genmove w").startswith("= ")
    assert "no Go model" not in capsys.readouterr().err  # said once per setting
    assert ask(session, out, "boardsize 9") == "=\n\n"
    assert "the shipped go-9x9 plays this board" in capsys.readouterr().err
    assert "go-9x9.safetensors" in ask(session, out, "version")
    assert ask(session, out, "genmove b").startswith("= ")
    assert type(session.engine._searcher.evaluator).__name__ in ("NetEvaluator", "NumpyNetEvaluator")


@pytest.mark.skipif(not (MODELS_DIR / "go-9x9.safetensors").exists(), reason="the 9x9 Go model does not ship")
def test_an_engine_note_is_told_once_a_session(capsys):
    """The komi note came again after time_settings (the searcher is remade for timed moves)."""
    session, out = gtp_session(playouts=8, size=9, komi=7.5, shipped_default=True)
    assert ask(session, out, "genmove b").startswith("= ")
    assert capsys.readouterr().err.count("trained with komi 7 and plays komi 7.5") == 1
    assert ask(session, out, "time_settings 5 0 0") == "=\n\n"
    assert ask(session, out, "genmove w").startswith("= ")
    assert "komi" not in capsys.readouterr().err


def test_a_named_model_stays_on_every_board_and_excludes_the_default(go_model):
    from zeroplay.engine.go_search import PuctRollout

    with pytest.raises(ValueError, match="not both"):
        PuctRollout(8, model=go_model, shipped_default=True)
    assert PuctRollout(8, model=go_model).model_for(make("go", size=13)) == go_model
    assert PuctRollout(8).model_for(make("go", size=9)) is None  # neither: the Go priors


def test_kata_ownership_comes_from_the_nets_ownership_head(tmp_path):
    import numpy as np

    session, out = _own_net_session(tmp_path, seed=2)
    reply = ask(session, out, "kata-analyze 5 ownership true")
    info = next(line for line in reply.split("\n") if line.startswith("info "))
    shown = np.array([float(v) for v in info.split(" ownership ")[1].split()])
    state = session.state
    root = session.engine.ownership(state)  # the head, White (to move)'s view
    assert root is not None and shown.shape == root.shape == (25,)
    # the map follows the search: the root's map and its most visited moves' (from White's view),
    # weighted by their visits, as this line's moves and visits give them
    moves = re.findall(r"info move (\S+) visits (\d+)", info)
    assert sum(int(n) for _, n in moves) > 0
    total, weight = root.astype(np.float64), 1.0
    for text, n in sorted(moves, key=lambda m: -int(m[1]))[:10]:
        after = state.play(state.game.parse_move(text))
        if int(n) and not after.is_terminal:
            total = total - int(n) * session.engine.ownership(after)
            weight += int(n)
    assert np.allclose(shown, total / weight, atol=1e-5) and not np.allclose(shown, root, atol=1e-3)


def test_search_ownership_weights_the_root_and_its_moves_by_visits():
    from types import SimpleNamespace as MoveStats

    import numpy as np

    from zeroplay.play.gtp_ownership import SearchOwnership

    state = make("go", size=5, komi=7.0).initial()
    calls = []

    def net(position):  # every position's mover owns the first cell
        calls.append(position)
        return np.array([1.0] + [0.0] * 24)

    own = SearchOwnership(state, np.full(25, 0.5), net)
    stats = [MoveStats(move=0, visits=3), MoveStats(move=7, visits=1), MoveStats(move=9, visits=0)]
    shown = own.at(stats)
    assert np.isclose(shown[0], (0.5 - 3 - 1) / 5) and np.isclose(shown[1], 0.5 / 5)
    own.at(stats)
    assert len(calls) == 2  # each child's map once; unvisited moves none
    assert np.array_equal(SearchOwnership(state, np.full(25, 0.5)).at(stats), np.full(25, 0.5))


def test_kata_score_fields_come_from_the_nets_score_head(tmp_path):
    # the 9x9 net has a score head, and kata-analyze printed no scoreLead
    import numpy as np

    session, out = _own_net_session(tmp_path, seed=3)
    info = next(line for line in ask(session, out, "kata-analyze 5 maxmoves 3").split("\n") if line.startswith("info "))
    state = session.state
    moves = re.findall(r"info move (\S+) visits (\d+) .*? scoreMean (\S+) scoreLead (\S+) scoreSelfplay .*? pv ([^i]+)", info)
    assert moves and len(moves) == info.count("info move ") and "scoreStdev" not in info
    for text, _, mean, lead, pv in moves:  # the lead for White (to move): the PV's last two positions'
        line = pv.split()
        assert line[0] == text
        ends = [state.play_many(line[:n]) for n in range(max(1, len(line) - 1), len(line) + 1)]
        want = np.mean([(1 if p.to_play == state.to_play else -1) * session.engine.score(p) for p in ends])
        assert np.isclose(float(lead), want, atol=1e-3) and mean == lead
    stop_after_infos(session)
    assert "scoreLead" not in ask(session, out, "lz-analyze 5")  # Leela Zero's lines have none


def _own_net_session(tmp_path, seed: int):
    return own_net_session(tmp_path, seed)


def test_score_moves_with_komi_as_white_receives_it(tmp_path):
    # the net's input says only who receives komi: at komi 20 it gave the lead of komi 7
    from zeroplay.engine.go_search import PuctRollout

    game = make("go", size=5, komi=7.0)
    path = tmp_path / "go-own.safetensors"
    save_checkpoint(path, build_model("b1c8-own", game, "go", seed=4), game=game, features="go", step=0)
    engine = PuctRollout(8, model=str(path))
    moves = ["C3", "B2"]

    def lead(komi):
        state = make("go", size=5, komi=komi).initial()
        scores = []
        for move in moves:
            scores.append(engine.score(state))
            state = state.play(state.game.parse_move(move))
        return scores  # Black to move, then White

    black7, white7 = lead(7.0)
    black20, white20 = lead(20.0)
    assert abs(black20 - (black7 - 13)) < 1e-3 and abs(white20 - (white7 + 13)) < 1e-3
    assert lead(0.0) == [None, None] and lead(-5.0) == [None, None]  # an input the net never saw


def test_a_move_that_ends_the_game_shows_its_count():
    from zeroplay.engine.go_montecarlo import MoveStats
    from zeroplay.play.gtp_ownership import ChildScores

    state = make("go", size=5, komi=7.5).initial().play(0).play(25)  # Black A5, White passes
    scores = ChildScores(state, lambda positions: [100.0] * len(positions))
    passed, played = scores.apply([MoveStats(25, 2, 1.0, 1.0, None, None), MoveStats(1, 1, 0.5, 0.5, None, None)])
    assert passed.score_mean == 25 - 7.5  # Black's pass ends it: Black owns the board, less komi
    assert played.score_mean == -100.0


def _material(position) -> float:
    """A stand-in score head: stones of the side to move less the opponent's."""
    me = position.to_play
    return float(len(position.stones(me)) - len(position.stones(1 - me)))


def _materials(positions) -> list[float]:
    return [_material(p) for p in positions]


def test_a_refuted_move_shows_the_score_after_its_refutation():
    # White's b4 stone is in atari (its last liberty a4): a Black pass lets White save it, a4 takes
    # it. At depth one the pass looks as good as a4 to a material head; along the PV it does not.
    # Each line's lead is the mean of its last two positions' (one with each side to move).
    from zeroplay.engine.go_montecarlo import MoveStats
    from zeroplay.play.gtp_ownership import ChildScores

    game = make("go", size=5, komi=0.5)
    state = game.initial().play_many(["B5", "B4", "C4", "E1", "B3", "E2"])  # Black to move
    pas, a4, a3 = game.parse_move("pass"), game.parse_move("A4"), game.parse_move("A3")
    assert state.to_play == 0
    scores = ChildScores(state, _materials)
    refuted, capture, alone = scores.apply([
        MoveStats(pas, 5, 0.2, 0.1, None, None, pv=(pas, a4)),  # White answers by saving b4
        MoveStats(a4, 9, 0.8, 0.7, None, None, pv=(a4, a3)),  # b4 taken, White plays on
        MoveStats(a3, 3, 0.5, 0.4, None, None),  # no PV: the move's own position
    ])
    # after the pass Black 3, White 3; after White's a4 Black 3, White 4 (depth one: 0)
    assert refuted.score_mean == ((3 - 3) + (3 - 4)) / 2
    # after a4 Black 4, White 2 (b4 taken); after White's a3 Black 4, White 3
    assert capture.score_mean == ((4 - 2) + (4 - 3)) / 2
    assert alone.score_mean == 4 - 3  # after a3 alone: Black b5 c4 b3 a3, White b4 e1 e2
    assert refuted.score_mean < alone.score_mean < capture.score_mean


def test_a_line_scores_the_same_whichever_side_moves_last():
    # a score head that adds 5 points for the side to move: one leaf's score would swing by 10
    # with the line's parity; the last two positions' mean does not
    from zeroplay.engine.go_montecarlo import MoveStats
    from zeroplay.play.gtp_ownership import ChildScores

    game = make("go", size=5, komi=0.5)
    moves = [game.parse_move(m) for m in ["C3", "B2", "D4", "A1", "B4"]]
    scores = ChildScores(game.initial(), lambda positions: [_material(p) + 5.0 for p in positions])
    leads = [scores.apply([MoveStats(moves[0], 9, 0.5, 0.4, None, None, pv=tuple(moves[:n]))])[0].score_mean
             for n in range(2, 6)]
    # each line's last two positions: Black one stone ahead with White to move (head 4: Black's
    # view -4), stones equal with Black to move (head 5); a single leaf would give -4 or 5
    assert leads == [0.5, 0.5, 0.5, 0.5]


def test_child_scores_keep_a_bounded_number_of_lines(monkeypatch):
    from zeroplay.engine.go_montecarlo import MoveStats
    from zeroplay.play import gtp_ownership

    monkeypatch.setattr(gtp_ownership, "MAX_LINES", 3)
    game = make("go", size=5, komi=0.5)
    scores = gtp_ownership.ChildScores(game.initial(), _materials)
    for reply in range(1, 10):  # a new PV at every report, as a long analysis gives
        (s,) = scores.apply([MoveStats(0, 4, 0.5, 0.4, None, None, pv=(0, reply))])
        assert s.score_mean == ((1 - 0) + (1 - 1)) / 2 and len(scores._lead) <= 3


def test_a_report_scores_its_new_lines_in_one_batch():
    from zeroplay.engine.go_montecarlo import MoveStats
    from zeroplay.play.gtp_ownership import ChildScores

    calls = []

    def net(positions):
        calls.append(len(positions))
        return _materials(positions)

    game = make("go", size=5, komi=0.5)
    scores = ChildScores(game.initial(), net)
    report = [MoveStats(0, 5, 0.5, 0.4, None, None, pv=(0, 1)), MoveStats(2, 3, 0.5, 0.4, None, None, pv=(2,)),
              MoveStats(4, 0, 0.5, 0.4, None, None)]
    scores.apply(report)
    assert calls == [3]  # two positions of one line, one of the other; the unvisited move none
    scores.apply(report)
    assert calls == [3]  # lines already scored
    scores.apply([MoveStats(0, 9, 0.5, 0.4, None, None, pv=(0, 1, 3))])
    assert calls == [3, 2]


def test_batched_scores_are_the_single_scores(tmp_path):
    import numpy as np

    from zeroplay.engine.go_search import PuctRollout

    game = make("go", size=5, komi=7.0)
    path = tmp_path / "go-own.safetensors"
    save_checkpoint(path, build_model("b1c8-own", game, "go", seed=4), game=game, features="go", step=0)
    engine = PuctRollout(8, model=str(path))
    for komi in (7.0, 9.5, 0.0):
        g = make("go", size=5, komi=komi)
        states = [g.initial(), g.initial().play(12), g.initial().play(12).play(7)]
        batch, single = engine.scores(states), [engine.score(s) for s in states]
        if komi == 0.0:  # an input the net never saw
            assert batch == single == [None, None, None]
        else:  # the same up to the float sums of another batch size
            assert np.allclose(batch, single, atol=1e-4)
    assert engine.scores([]) == []
