"""``zeroplay play``: piped stdin through the real command, and the session object directly."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.engine.factory import MODELS_DIR, Engine, make_engine
from zeroplay.play.terminal import TerminalGame

PLAY = [sys.executable, "-m", "zeroplay", "play"]


def default_sigint() -> None:
    """``preexec_fn`` of a child that the test interrupts: SIGINT back to its default action.
    An ignored signal stays ignored across exec, so under ``make test &`` or a CI runner that
    ignores SIGINT the child would never see the test's Ctrl-C (issue 23)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def play(stdin: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """The real ``zeroplay play`` command in a subprocess, ``stdin`` piped in."""
    return subprocess.run(PLAY + list(args), input=stdin, capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def play_here(capsys, monkeypatch):
    """``play_here(stdin, *args)``: ``zeroplay play ARGS`` through ``zeroplay.cli.main`` in this process,
    ``stdin`` as its input; a CompletedProcess as ``play`` returns. For the tests of which options
    are taken or refused: the same code as the command's, without a new interpreter, numba cache
    load and model load per call (1-2 CPU s each); ``play`` keeps the tests of the real process."""
    import io

    from zeroplay.cli import main

    def run(stdin: str, *args: str) -> subprocess.CompletedProcess:
        capsys.readouterr()
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        try:
            code = main(["play", *args])
        except SystemExit as e:  # argparse's refusals
            code = e.code if isinstance(e.code, int) else 1
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["zeroplay", "play", *args], code, out, err)

    return run


def test_piped_game_with_every_command(warm):
    proc = play("h8\nzz\nh8\nq99\nhint\nundo\n7,7\nnew white\nquit\n", "--size", "9", "--playouts", "50")
    out = proc.stdout
    assert proc.returncode == 0 and "Traceback" not in out + proc.stderr
    # the 15x15 net loads on 9x9 but plays by default only where it was measured
    assert "model for gomoku 9x9 freestyle" in out and "Pass --model PATH" in out
    assert "   a b c d e f g h i" in out and " 9 " in out  # coordinates
    assert "Illegal: move 'zz'" in out
    assert "cell h8 is occupied" in out
    assert "off the 9x9 board" in out
    assert "zeroplay plays" in out and "playouts in" in out and "win rate" in out and "best line" in out
    assert "Hint:" in out and "Took back h8" in out
    assert "New game: you play White (O)." in out
    assert out.rstrip().endswith("Bye.")


def test_end_of_input_exits_cleanly(warm):
    proc = play("e5\n", "--size", "9", "--playouts", "20")
    assert proc.returncode == 0 and "Traceback" not in proc.stdout + proc.stderr
    assert proc.stdout.rstrip().endswith("Bye.")


def test_engine_moves_first_for_white_and_seconds_limit(warm):
    proc = play("quit\n", "--size", "9", "--color", "white", "--seconds", "0.2")
    assert proc.returncode == 0 and "zeroplay plays" in proc.stdout


def test_bad_options_are_explained():
    proc = play("", "--size", "3")
    assert proc.returncode == 2 and "zeroplay play: error: --size must be an integer in 5..25" in proc.stderr
    proc = play("", "--playouts", "0")
    assert proc.returncode == 2 and "--playouts must be >= 1" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_ctrl_c_exits_cleanly(warm):
    proc = subprocess.Popen(PLAY + ["--size", "9", "--playouts", "20"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=default_sigint)
    try:
        deadline = time.monotonic() + 120
        buf = b""
        while b"to move>" not in buf and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 0.2)
            if ready:
                buf += os.read(proc.stdout.fileno(), 65536)
        assert b"to move>" in buf
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    assert b"Traceback" not in err and b"KeyboardInterrupt" not in err
    assert (buf + out).rstrip().endswith(b"Bye.")


class Session:
    def __init__(self, game, human=0, playouts=30):
        self.lines: list[str] = []
        self.t = TerminalGame(game, make_engine(game), human, playouts=playouts, out=self.lines.append)

    def text(self) -> str:
        return "\n".join(self.lines)


def test_session_functions(warm):
    game = make("gomoku", width=9, height=9, rule="standard")
    s = Session(game)
    s.t.start()
    assert s.t.prompt() == "Black (X) to move> "
    s.t.handle("e5")
    assert s.t.state.ply == 2 and s.t.state.to_play == 0
    s.t.handle("")
    s.t.handle("help")
    assert "\n  hint " in s.lines[-1]
    s.t.handle("new purple")
    assert "new takes black or white" in s.lines[-1]
    s.t.handle("undo")
    assert s.t.state.ply == 0
    s.t.handle("undo")
    assert s.lines[-1] == "Nothing to undo."
    s.t.handle("quit")
    assert s.t.quit


def test_the_engine_takes_a_win_and_the_game_ends(warm):
    game = make("tictactoe")
    s = Session(game, human=0, playouts=200)
    s.t.start()
    for move in ("a1", "b1", "a3", "c3", "c1", "b3", "a2", "c2", "b2"):
        if s.t.state.is_terminal:
            break
        if s.t.state.board.reshape(-1)[game.parse_move(move)] == 0:
            s.t.handle(move)
    assert s.t.state.is_terminal
    # one line says who won, by colour and name; the board's own status line
    # ("Black (player 0) wins") is not printed besides it
    ends = [line for line in s.lines if line.endswith("Type new for another game, undo, or quit.")]
    assert len(ends) == 1, s.text()
    assert ends[0] in ("Draw. Type new for another game, undo, or quit.",
                       "Black (you) wins. Type new for another game, undo, or quit.",
                       "White (zeroplay) wins. Type new for another game, undo, or quit.")
    assert "(player 0) wins" not in s.text() and "(player 1) wins" not in s.text()
    s.t.handle("e5")
    assert "The game is over" in s.lines[-1]
    s.t.handle("new")
    assert s.t.state.ply == 0


def test_perfect_play_draws_tictactoe(warm):
    """The search with one-ply proofs never loses tic-tac-toe against itself."""
    game = make("tictactoe")
    engine = make_engine(game)
    searcher = engine.new_searcher()
    state = game.initial()
    while not state.is_terminal:
        state = state.play(int(searcher.search(state, playouts=400).best_move))
    assert state.winner is None


@pytest.mark.parametrize("game", ["gomoku", "tictactoe"])
def test_make_engine_notes_the_missing_model(game):
    g = make(game) if game == "tictactoe" else make("gomoku", width=9, height=9)
    engine = make_engine(g)
    assert engine.model_path is None and ("no trained model" in engine.note or "no default model" in engine.note)
    assert engine.new_searcher().config.threat_solver == (game == "gomoku")


def test_choosing_a_shipped_model_does_not_import_torch():
    import subprocess
    import sys

    code = ("import sys; from zeroplay.games import make; from zeroplay.engine.factory import find_model; "
            "find_model(make('gomoku', size=9, n_in_row=5)); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_n_in_row_option_plays_the_shipped_6x6_model(warm, play_here):
    proc = play_here("c3\nquit\n", "--size", "6", "--n-in-row", "4", "--playouts", "30")
    assert proc.returncode == 0 and "Traceback" not in proc.stdout + proc.stderr
    assert "gomoku 6x6 freestyle, 4 in a row" in proc.stdout
    assert "model gomoku-6x6-4-freestyle.safetensors (shipped" in proc.stdout
    bad = play_here("quit\n", "--size", "6", "--n-in-row", "9")
    assert bad.returncode == 2 and "zeroplay play: error: --n-in-row must be in 3..6" in bad.stderr
    # without --n-in-row, 6x6 is the shipped model's game (as on the web board); other sizes: 5
    default = play_here("quit\n", "--size", "6", "--playouts", "30")
    assert "gomoku 6x6 freestyle, 4 in a row" in default.stdout
    five = play_here("quit\n", "--size", "6", "--n-in-row", "5", "--playouts", "30")
    assert "gomoku 6x6 freestyle, 5 in a row." in five.stdout
    assert "model for gomoku 6x6 freestyle, 5 in a row" in five.stdout
    assert "in a row" not in play_here("quit\n", "--size", "7", "--playouts", "30").stdout.splitlines()[0]
    assert play_here("quit\n", "--game", "tictactoe", "--n-in-row", "4").returncode == 2
    inf = play_here("quit\n", "--size", "7", "--seconds", "inf")  # never moving is no time limit
    assert inf.returncode == 2 and "--seconds must be a number of seconds > 0, got inf" in inf.stderr


def test_a_shipped_model_that_is_not_the_default_plays_by_name(warm, play_here):
    """9x9 keeps the search-only engine (no model measured there: docs/STRENGTH.md); the note names
    the shipped models that load, and --model takes such a name. 8x8 plays its model by default."""
    path = MODELS_DIR / "gomoku-8x8-5-freestyle.safetensors"
    if not path.exists():
        pytest.skip("the shipped 8x8 model is not in this checkout (src/zeroplay/models/)")
    plain = play_here("quit\n", "--size", "9", "--playouts", "30")
    assert "no default model for gomoku 9x9 freestyle" in plain.stdout and "gomoku-8x8-5-freestyle" in plain.stdout
    named = play_here("e5\nquit\n", "--size", "9", "--model", "gomoku-8x8-5-freestyle", "--playouts", "30")
    assert named.returncode == 0 and "Traceback" not in named.stdout + named.stderr
    assert "model gomoku-8x8-5-freestyle.safetensors (shipped, intermediate: iteration" in named.stdout
    assert "not measured on 9x9" in named.stdout
    eight = play_here("quit\n", "--size", "8", "--playouts", "30")
    assert "Engine: model gomoku-8x8-5-freestyle.safetensors (shipped" in eight.stdout
    # the model's own board: no --size needed (the size is the checkpoint's)
    bare = play_here("quit\n", "--model", "gomoku-8x8-5-freestyle", "--playouts", "30")
    assert bare.returncode == 0 and "gomoku 8x8 freestyle. " in bare.stdout


def test_options_not_given_come_from_the_model(tmp_path, play_here):
    """--model names its game: size, line length and rule default to the checkpoint's."""
    from zeroplay.play.terminal import _model_game

    six = _model_game("gomoku-6x6-4-freestyle")
    assert six == {"name": "gomoku", "options": {"width": 6, "height": 6, "n_in_row": 4, "rule": "freestyle"}}
    assert _model_game(None) is None and _model_game(tmp_path / "missing.safetensors") is None
    proc = play_here("quit\n", "--model", "gomoku-6x6-4-freestyle", "--playouts", "30")
    assert "gomoku 6x6 freestyle, 4 in a row" in proc.stdout
    # given options win; a misfit is still refused with the reason
    misfit = play_here("quit\n", "--model", "gomoku-6x6-4-freestyle", "--n-in-row", "5")
    assert misfit.returncode == 2 and "n_in_row: checkpoint 4, wanted 5" in misfit.stderr
    missing = play_here("quit\n", "--size", "8", "--model", "gomoku-no-such-model")
    assert missing.returncode == 2 and "Traceback" not in missing.stderr


@pytest.mark.parametrize("size", [15, 9])
def test_the_search_only_engine_opens_in_the_centre(warm, size):
    from zeroplay.engine.heuristic import quick_move

    game = make("gomoku", size=size)
    centre = (size // 2) * size + size // 2
    searcher = make_engine(game, use_shipped=False).new_searcher()  # the search-only engine
    assert int(searcher.search(game.initial(), playouts=400).best_move) == centre
    assert quick_move(np.zeros(size * size, np.int8), size, size, 1) == centre


def test_ctrl_c_while_the_engine_thinks_plays_the_best_move_so_far(warm):
    proc = subprocess.Popen(PLAY + ["--size", "9", "--playouts", "100000000"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=default_sigint)
    try:
        buf = b""

        def read_until(token: bytes, seconds: float) -> None:
            nonlocal buf
            deadline = time.monotonic() + seconds
            while token not in buf and time.monotonic() < deadline:
                ready, _, _ = select.select([proc.stdout], [], [], 0.2)
                if ready:
                    buf += os.read(proc.stdout.fileno(), 65536)
            assert token in buf, buf[-500:]

        read_until(b"to move>", 120)
        proc.stdin.write(b"e5\n")
        proc.stdin.flush()
        time.sleep(2)  # the engine is searching 10^8 playouts
        proc.send_signal(signal.SIGINT)
        read_until(b"zeroplay plays", 30)
        assert b"search stopped by Ctrl-C" in buf
        proc.stdin.write(b"quit\n")
        proc.stdin.flush()
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and b"Traceback" not in err
    assert (buf + out).rstrip().endswith(b"Bye.")


def test_gomoku_options_are_refused_for_other_games(play_here):
    proc = play_here("quit\n", "--game", "tictactoe", "--size", "9", "--rule", "standard")
    assert proc.returncode == 2 and "--size, --rule: Gomoku options; tictactoe has none" in proc.stderr


# --- Connect Four ----------------------------------------------------------------------------------
def _boards(out: str) -> list[list[str]]:
    """The Connect Four boards printed in ``out``: each the 6 rows between the coordinate lines, top first."""
    lines, boards = out.splitlines(), []
    for i, line in enumerate(lines):
        if line.strip() == "1 2 3 4 5 6 7" and i + 7 < len(lines) and lines[i + 7].strip() == "1 2 3 4 5 6 7":
            boards.append(lines[i + 1:i + 7])
    return boards


def test_connect4_short_game(warm):
    proc = play("1\n" * 8, "--game", "connect4", "--playouts", "100")
    out = proc.stdout
    assert proc.returncode == 0 and "Traceback" not in out + proc.stderr
    assert "zeroplay -- connect4 7x6. You play X (first)." in out
    assert "Note: no trained model for connect4 7x6" in out and "window-count heuristic" in out
    assert "Type a move as a column digit, 1 (left) .. 7 (right)" in out
    boards = _boards(out)
    assert boards[0] == [" . . . . . . ."] * 6  # empty board
    # row 1 at the bottom: your first stone lies on the last printed row, in column 1
    assert boards[1][-1].startswith(" X") and all(row.startswith(" .") for row in boards[1][:-1])
    assert "You play 1." in out and "zeroplay plays " in out and "playouts in" in out
    assert any(end in out for end in ("O (zeroplay) wins.", "X (you) wins.", "Draw.")), out[-2000:]
    assert "(player 1) wins" not in out and "(player 0) wins" not in out  # said once, with the name
    assert out.rstrip().endswith("Bye.")


def test_connect4_illegal_and_full_column_hint_undo_new(warm):
    # the engine answers 4 twice, then plays 3: column 4 is full after your fourth 4
    # (--deterministic: its early replies would otherwise be drawn among near-equal moves)
    proc = play("8\n0\nd1\n4\n4\n4\n4\n4\nhint\nundo\nhelp\nnew white\nquit\n",
                "--game", "connect4", "--playouts", "100", "--deterministic")
    out = proc.stdout
    assert proc.returncode == 0 and "Traceback" not in out + proc.stderr
    assert "Illegal: move '8': expected a column digit '1'..'7'" in out
    assert "Illegal: move '0'" in out and "Illegal: move 'd1'" in out
    assert "column 4 is full" in out
    assert out.count("You play 4.") == 4
    assert "Hint: " in out and "Top moves (visits, your win rate): " in out
    assert "Took back 4 3." in out
    assert "Black is X and moves first." in out
    assert "New game: you play O (second)." in out
    assert out.rstrip().endswith("Bye.")


def test_connect4_refuses_gomoku_options(play_here):
    for flags, named in ((["--size", "9"], "--size"), (["--n-in-row", "5"], "--n-in-row"),
                         (["--rule", "standard"], "--rule")):
        proc = play_here("quit\n", "--game", "connect4", *flags)
        assert proc.returncode == 2 and f"{named}: Gomoku options; connect4 has none" in proc.stderr
        assert "Traceback" not in proc.stderr


def test_connect4_search_only_engine():
    from zeroplay.engine.heuristic import ColumnHeuristicEvaluator
    from zeroplay.search import UniformEvaluator
    from zeroplay.search.evaluator import LeafBatch

    game = make("connect4")
    engine = make_engine(game)
    assert isinstance(engine.evaluator, ColumnHeuristicEvaluator) and "no trained model" in engine.note
    assert not engine.new_searcher().config.threat_solver
    # priors: a distribution over the open columns, the centre first on the empty board
    full = game.initial().play_many([0, 0, 0, 0, 0, 0, 3])  # column 1 full
    states = [game.initial(), full]
    fast = [s.fast() for s in states]
    legal = np.zeros((2, game.num_actions), dtype=np.bool_)
    for i, s in enumerate(states):
        legal[i, s.legal_moves()] = True
    batch = LeafBatch(game, np.stack([f.board for f in fast]), np.stack([f.info for f in fast]), legal)
    priors, values = engine.evaluator.evaluate(batch)
    assert priors.shape == (2, 7) and np.allclose(priors.sum(axis=1), 1.0)
    assert int(np.argmax(priors[0])) == 3 and priors[1, 0] == 0.0
    assert values.shape == (2,) and np.all(np.abs(values) < 1)
    # it beats the uniform-prior search with either colour
    uniform = Engine(game, UniformEvaluator(), "uniform")
    for heuristic_side in (0, 1):
        searchers = {heuristic_side: engine.new_searcher(), 1 - heuristic_side: uniform.new_searcher()}
        state = game.initial()
        while not state.is_terminal:
            state = state.play(int(searchers[state.to_play].search(state, playouts=200).best_move))
        assert state.winner == heuristic_side, game.format_moves(state.moves)


def test_connect4_model_and_its_exported_status(warm, tmp_path, play_here):
    """``--model`` takes a Connect Four checkpoint; its ``extra.shipped`` record (export_model.py)
    is printed, a plain checkpoint gets nothing extra, a checkpoint of another game is refused."""
    from zeroplay.nn import build_model, save_checkpoint

    game = make("connect4")
    net = build_model("tiny", game, "basic", seed=0)
    exported, plain = tmp_path / "c4-exported.safetensors", tmp_path / "c4-plain.safetensors"
    save_checkpoint(exported, net, game=game, features="basic", step=12, extra={"shipped": {
        "run": "connect4-test", "status": "intermediate", "iteration": 7, "selfplay_games": 1234}})
    save_checkpoint(plain, net, game=game, features="basic", step=12, extra={"iteration": 7})
    proc = play_here("4\nquit\n", "--game", "connect4", "--model", str(exported), "--playouts", "30")
    assert proc.returncode == 0 and "Traceback" not in proc.stdout + proc.stderr
    assert ("Engine: model c4-exported.safetensors (run connect4-test, intermediate: iteration 7, "
            "1,234 self-play games), 30 playouts per move.") in proc.stdout
    assert "zeroplay plays" in proc.stdout and "Note: no trained model" not in proc.stdout
    proc = play_here("quit\n", "--game", "connect4", "--model", str(plain), "--playouts", "30")
    assert "Engine: model c4-plain.safetensors, 30 playouts per move." in proc.stdout
    proc = play_here("quit\n", "--size", "9", "--model", str(plain))
    assert proc.returncode == 2 and proc.stderr.startswith("zeroplay play: error: ")
    assert "Traceback" not in proc.stderr


# --- the search's tables and their notes -------------------------------------------------------------
def test_search_tables_are_sized_by_the_search_rule():
    from zeroplay.play import terminal
    from zeroplay.search import SearchConfig

    assert terminal.search_memory(None, 30.0) == terminal.MEMORY_BYTES == 1 << 30  # --seconds alone
    assert terminal.search_memory(800, None) is None and terminal.search_memory(800, 5.0) is None
    g15 = make("gomoku", size=15)
    sized = SearchConfig.for_memory(terminal.MEMORY_BYTES, g15, threat_solver=True)
    assert sized.memory_bytes == 1 << 30 and sized.node_capacity * sized.max_load > 1_000_000


def test_full_tables_are_recycled_and_said_once_per_game(warm, monkeypatch):
    from zeroplay.play import terminal

    # a tiny budget: the tables fill after a few hundred of the 3,000 playouts, and recycle
    monkeypatch.setattr(terminal, "search_memory", lambda playouts, seconds: 3_400_000)
    game = make("gomoku", size=9)
    s = Session(game, playouts=3000)
    assert s.t.searcher.config.memory_bytes == 3_400_000
    s.t.start()
    s.t.handle("e5")
    notes = [line for line in s.lines if "recycled" in line]
    assert len(notes) == 1, s.text()[-2000:]
    assert s.t.searcher.recycled > 0 and s.t.searcher.playouts == 3000
    s.t.handle("d4")
    s.t.handle("hint")
    assert sum("recycled" in line for line in s.lines) == 1
    s.t.handle("new")
    s.t.handle("e5")
    assert sum("recycled" in line for line in s.lines) == 2


def test_connect4_plays_the_exact_solver_from_the_middle_game(warm):
    """From SOLVE_FROM_PLY stones on, the search-only Connect Four engine plays the solver's
    move and says the exact result; the hint does the same for the person. Checked against the
    solver itself (Pons' scores): the engine's move keeps the score (positions from Pons' sets)."""
    from zeroplay.engine.factory import make_engine
    from zeroplay.play.terminal import SOLVE_FROM_PLY, TerminalGame
    from zeroplay.solvers.connect4_solver import Connect4Solver

    game = make("connect4")
    lines: list[str] = []
    t = TerminalGame(game, make_engine(game), human=0, playouts=50, out=lines.append)
    t.state = game.initial().play_many("5654767662")  # 10 stones: the search plays
    t.engine_move()
    assert "playouts" in lines[0] and "solved exactly" not in lines[0]
    assert SOLVE_FROM_PLY <= 12
    moves = "243335424257"  # 12 stones, X to move: the person's hint is solved
    t.state = game.initial().play_many(moves)
    lines.clear()
    t.hint()
    assert lines[0].startswith("Hint: ") and "solved exactly: you wins" not in lines[0]
    assert "solved exactly" in lines[0] and "best play" in lines[0]
    moves = "5512243243536"  # 13 stones, O (the engine) to move; Pons: score 13
    t.state = game.initial().play_many(moves)
    lines.clear()
    move = t.engine_move()
    assert lines[0].startswith("zeroplay plays ") and "solved exactly" in lines[0]
    assert "zeroplay wins in" in lines[0]  # a positive score: a forced win
    score = Connect4Solver().solve(moves).score
    assert score == 13 and -Connect4Solver().solve(moves + game.format_move(move)).score == score


def test_hint_names_the_recommended_move_first(warm):
    """In a lost position the search recommends the longest proven loss, not the most visited
    move: the hint's list starts with the move it recommends (it used to show c2 second)."""
    from types import SimpleNamespace

    from zeroplay.engine.factory import make_engine
    from zeroplay.play.terminal import TerminalGame

    game = make("gomoku", size=6, n_in_row=4)
    lines: list[str] = []
    t = TerminalGame(game, make_engine(game, use_shipped=False), human=0, playouts=10, out=lines.append)
    stats = [SimpleNamespace(move=game.parse_move(m), visits=v, q=-1.0) for m, v in (("f5", 78), ("c2", 76), ("b1", 36))]
    fake = SimpleNamespace(moves=stats, best_move=game.parse_move("c2"), pv=[game.parse_move("c2")], notes=(),
                           stopped_by="playouts", playouts=190)
    t._search = lambda state, searcher=None: fake
    t.hint()
    assert lines[-1].startswith("Hint: c2. Top moves (visits, your win rate): c2 (76 visits, 0%), f5 (78 visits, 0%), b1")


# --- the end of a game and the help's example move ---------------------------------------------------
def test_the_result_is_one_line_naming_colour_and_who():
    from zeroplay.play.terminal import result_text

    gomoku, c4 = make("gomoku", width=9, height=9), make("connect4")
    assert result_text(gomoku, 1, human=0) == "White (zeroplay) wins."
    assert result_text(gomoku, 0, human=0) == "Black (you) wins."
    assert result_text(gomoku, 0, human=1) == "Black (zeroplay) wins."
    assert result_text(gomoku, None, human=0) == "Draw."
    assert result_text(c4, 1, human=0) == "O (zeroplay) wins."  # as the board names them
    assert result_text(make("tictactoe"), 1, human=1) == "White (you) wins."


def test_a_finished_game_says_the_result_once(warm):
    """The engine finishes the game (a five it completes): the board, then one line; the board's
    own "White (player 1) wins" used to come first and "zeroplay wins." after it."""
    game = make("gomoku", width=9, height=9)
    lines: list[str] = []
    t = TerminalGame(game, make_engine(game, use_shipped=False), 0, playouts=10, out=lines.append)
    t.state = game.initial().play_many([game.parse_move(m) for m in
                                        ("a1", "e5", "a3", "e6", "a5", "e7", "a7", "e8", "i1")])

    class Result:  # what the search would say: play e9, the fifth stone
        best_move, playouts, seconds, win_rate, proven, proven_distance = game.parse_move("e9"), 10, 0.0, 1.0, None, 0
        pv, notes, stopped_by, moves = [game.parse_move("e9")], [], "playouts", []

    t._search = lambda state: Result()
    t.engine_move()
    assert t.state.is_terminal and t.state.winner == 1
    text = "\n".join(lines)
    assert lines[-1] == "White (zeroplay) wins. Type new for another game, undo, or quit."
    assert "zeroplay wins." not in text and "(player 1) wins" not in text
    assert lines[-2].startswith("   a b c d e f g h i")  # the board's last line: its coordinates


@pytest.mark.parametrize("kind,size,cell,xy", [("gomoku", 15, "h8", "7,7"), ("gomoku", 6, "d3", "3,3"),
                                               ("gomoku", 9, "e5", "4,4"), ("gomoku", 8, "e4", "4,4"),
                                               ("tictactoe", 3, "b2", "1,1")])
def test_the_help_example_is_a_cell_of_the_board(kind, size, cell, xy):
    """"Type a move as h8" was said on every board, also 6x6 and 3x3 where h8 is off it: the
    example is the centre, in both notations."""
    from zeroplay.play.terminal import help_text

    game = make(kind) if kind == "tictactoe" else make(kind, width=size, height=size)
    text = help_text(game)
    assert text.startswith(f"Type a move as {cell} (column letter, row from the bottom) or {xy} (column, row from the top")
    if game.name == "gomoku":  # helper-67 took the last-move mark for a stray character
        assert "the last stone played has a ) after it" in text
    assert game.parse_move(cell) == game.parse_move(xy)
    assert game.initial().play(cell).ply == 1  # on the board


def test_play_and_the_web_board_default_to_the_same_playouts(warm):
    import argparse

    from zeroplay.engine.factory import PLAY_PLAYOUTS
    from zeroplay.play.commands import add_play_commands
    from zeroplay.play.webgame import Options

    game = make("gomoku", width=9, height=9)
    t = TerminalGame(game, make_engine(game, use_shipped=False), 0, out=lambda _: None)
    assert t.playouts == PLAY_PLAYOUTS == 800
    assert TerminalGame(game, make_engine(game, use_shipped=False), 0, playouts=None, out=lambda _: None).playouts == PLAY_PLAYOUTS
    parser = argparse.ArgumentParser(prog="zeroplay")
    add_play_commands(parser.add_subparsers(dest="command"))
    assert parser.parse_args(["serve"]).playouts == PLAY_PLAYOUTS
    assert Options().playouts == PLAY_PLAYOUTS


def test_go_shows_prisoners_takes_passes_and_scores_the_end():
    game = make("go", size=5, komi=0.5)
    s = Session(game, human=0, playouts=20)
    s.t.start()
    assert "prisoners: Black 0, White 0" in s.text()
    # Black has walled off the left, White the right; White has just passed
    s.t.state = game.initial().play_many("C1 D1 C2 D2 C3 D3 C4 D4 C5 D5 A1 pass".split())
    s.t.handle("pass")
    assert s.t.state.is_terminal
    text = s.text()
    # area: 11 - 10 - 0.5 (issue 22's hand case)
    assert "Score B+4.5. Black (you) wins. Type new for another game, undo, or quit." in text
    assert "Count (stones + territory): Black 15, White 10 + komi 0.5." in text


def test_go_says_what_a_move_captured():
    game = make("go", size=5, komi=0.5)
    s = Session(game, human=0, playouts=8)
    # White C3 is in atari (Black B3, D3, C4): Black C2 takes it
    s.t.state = game.initial().play_many("B3 C3 D3 A1 C4 A2".split())
    s.t.handle("C2")
    assert "You play C2 (captures 1)." in s.text()
    assert "prisoners: Black 1, White 0" in s.text()


def test_a_proven_move_reads_as_certain_and_names_the_threat_search():
    # seen by a fresh user: "0 playouts in 4.0 s, win rate 82% for zeroplay, proven win in 17 plies"
    from zeroplay.search.result import SearchResult

    game = make("gomoku", size=15)
    t = TerminalGame(game, make_engine(game, use_shipped=False), 0, playouts=10, out=lambda _: None)
    move = game.parse_move("l11")
    solved = SearchResult(best_move=move, root_q=0.64, pv=(move,), proven="win", proven_distance=17,
                          playouts=0, seconds=4.0)
    # the main line's length, not a bound: a threat proof leaves out the defender's delaying fours
    assert t.summary(solved) == ("threat search in 4.0 s, win rate 100% for zeroplay, proven win (main "
                                 "line 17 plies), best line l11")
    searched = SearchResult(best_move=move, root_q=0.5, pv=(move,), playouts=800, seconds=2.0)
    assert t.summary(searched).startswith("800 playouts in 2.0 s, win rate 75% for zeroplay, best")


def test_help_explains_every_command_and_the_game(warm):
    """``help`` only repeated the two usage lines printed at the start (a new user's remark): it
    names the game and the engine's limit, and says what each command does."""
    game = make("gomoku", width=9, height=9)
    s = Session(game, playouts=30)
    s.t.handle("help")
    text = s.text()
    assert text.startswith(f"Playing {game.describe()}; the engine thinks 30 playouts per move.")
    for command in ("undo ", "hint ", "new [black|white] ", "help, ? ", "quit, exit, q "):
        assert any(line.startswith(f"  {command}") for line in text.splitlines()), command
    assert "Ctrl-C" in text and game.move_help() in text and s.t.state.ply == 0
    s.lines.clear()
    s.t.handle("?")
    assert s.text() == text


def test_hints_every_move_do_not_fill_the_tables_sized_for_the_playouts(warm):
    """``play --game connect4 --playouts 100`` with a hint before each move said "search tables
    filled" by the fifth move: hint and reply shared one tree, reused one ply at a time."""
    from zeroplay.engine.factory import make_engine
    from zeroplay.play.terminal import TerminalGame

    game = make("connect4")
    lines: list[str] = []
    t = TerminalGame(game, make_engine(game), human=0, playouts=100, out=lines.append)
    for _ in range(5):  # the person plays each hinted move (the engine's tree then reuses most)
        t.handle("hint")
        t.handle(next(line for line in reversed(lines) if line.startswith("Hint: ")).split()[1].rstrip("."))
    assert t.state.ply == 10 and not t.state.is_terminal
    assert t.searcher.recycled_total == 0 and t.hint_searcher().recycled_total == 0
    assert not any("filled" in line or "full" in line for line in lines), "\n".join(lines)


def test_the_players_winning_move_is_echoed(warm):
    # a fresh player's winning move went unechoed: straight to the board and "Black (you) wins"
    game = make("tictactoe")
    s = Session(game, human=0, playouts=200)
    s.t.start()
    s.t.state = game.from_stones([game.parse_move(m) for m in ("a1", "a2")],
                                 [game.parse_move(m) for m in ("c1", "c2")])
    s.t.handle("a3")
    assert s.t.state.is_terminal
    text = s.text()
    assert "You play a3." in text and text.index("You play a3.") < text.index("Black (you) wins.")


def test_early_replies_vary_unless_deterministic(play_here, warm):
    """A replayed game does not replay the engine (issue 20): over the first plies it draws among
    near-equal moves; ``--seed`` repeats a draw, ``--deterministic`` always plays the most visited."""
    import re

    picks = []

    def reply(*args):
        proc = play_here("e5\nquit\n", "--size", "9", "--playouts", "64", *args)
        assert proc.returncode == 0, proc.stderr
        line = re.search(r"zeroplay plays ([a-i]\d).*best line ([a-i]\d)(.*)", proc.stdout)
        move, first, rest = line.groups()
        # the line printed is the move played's (helper-66 read the best move's line as this
        # one's), and a pick other than the search's best says so and names it
        assert first == move, line.group(0)
        best = re.search(r"opening pick.*search's best, ([a-i]\d)\)", rest)
        assert best is None or best.group(1) != move, line.group(0)
        picks.append(best is not None)
        return move

    assert len({reply("--seed", str(seed)) for seed in range(8)}) >= 2 and any(picks)
    assert reply("--seed", "3") == reply("--seed", "3")
    assert len({reply("--deterministic") for _ in range(3)}) == 1
    assert play_here("", "--seed", "-1").returncode == 2
    assert play_here("", "--seed", "1", "--deterministic").returncode == 2  # one or the other


def test_go_takes_a_komi_and_other_games_refuse_it(play_here):
    proc = play_here("quit\n", "--game", "go", "--size", "5", "--komi", "0.5", "--playouts", "8")
    assert proc.returncode == 0, proc.stderr
    assert "komi 0.5" in proc.stdout
    bad = play_here("quit\n", "--game", "go", "--size", "5", "--komi", "0.3")
    assert bad.returncode == 2 and "komi" in bad.stderr
    other = play_here("quit\n", "--size", "9", "--komi", "6.5")
    assert other.returncode == 2 and "--komi: a Go option; gomoku has none" in other.stderr


def _hopeless(t, win_rate=0.01):
    """The session's searcher answers every search with a lost root (its first legal move)."""
    from zeroplay.search.result import SearchResult

    def search(state, **_):
        move = int(state.legal_moves()[0])
        return SearchResult(best_move=move, root_q=2 * win_rate - 1, pv=(move,), playouts=800, seconds=0.1)

    t.searcher.search = search


def test_go_engine_resigns_a_lost_game_after_three_hopeless_moves_and_undo_takes_it_back():
    """A losing Go engine filled its own eyes until every stone was captured (issue 22's GNU Go
    games): it resigns instead, as KataGo does, after 3 moves under 3 %."""
    game = make("go", size=5, komi=0.5)
    s = Session(game, human=0, playouts=800)
    _hopeless(s.t)
    for move in ("C3", "B2", "D4"):
        assert not s.t.over
        s.t.handle(move)
    assert s.t.resigned == 1 and s.t.over and not s.t.state.is_terminal
    assert s.t.state.ply == 5  # two engine moves, then the resignation instead of a third
    assert "zeroplay resigns: its win rate has been under 3% for 3 moves" in s.lines[-1]
    assert "Black (you) wins." in s.lines[-1]
    assert s.t.prompt() == "game over: new, undo or quit> "
    s.t.handle("B4")
    assert s.lines[-1].startswith("The game is over")
    board = [i for i, line in enumerate(s.lines) if "D4" in line and "You play" in line][-1]
    assert any("prisoners" in line for line in s.lines[board:-1])  # the board with your D4, then the resignation
    s.t.handle("undo")  # your D4 goes, and the resignation that answered it
    assert s.t.resigned is None and s.t.state.ply == 4 and not s.t.over
    assert sorted(s.t.engine_rates) == [1, 3]
    s.t.handle("D4")  # the same move again: the two earlier hopeless searches still count
    assert s.t.resigned == 1 and s.t.state.ply == 5
    s.t.handle("new")
    assert s.t.resigned is None and s.t.engine_rates == {}


def test_the_person_resigns_and_takes_it_back():
    game = make("go", size=5, komi=0.5)
    s = Session(game, human=0, playouts=8)
    s.t.handle("resign")
    assert s.t.resigned == 0 and "You resign. White (zeroplay) wins." in s.lines[-1]
    assert "undo to take back the resignation" in s.lines[-1]
    s.t.handle("resign")
    assert s.lines[-1].startswith("The game is over")
    s.t.handle("undo")
    assert s.lines[-1] == "Took back your resignation." and not s.t.over
    s.t.handle("help")
    assert "\n  resign " in s.lines[-1]


def test_no_resign_and_games_without_resignation_play_on():
    go = make("go", size=5, komi=0.5)
    t = TerminalGame(go, make_engine(go, use_shipped=False), 0, playouts=800, out=lambda _: None, resign=False)
    _hopeless(t)
    for move in ("C3", "B2", "D4", "B4"):
        t.handle(move)
    assert t.resigned is None and t.state.ply == 8
    gomoku = make("gomoku", width=9, height=9)
    t = TerminalGame(gomoku, make_engine(gomoku, use_shipped=False), 0, playouts=800, out=lambda _: None)
    _hopeless(t)
    for move in ("e5", "f6", "c3", "d7"):
        t.handle(move)
    assert t.resigned is None and t.state.ply == 8


def test_a_very_long_bad_line_is_not_echoed_back_in_full():
    """A new user's 100,000-character line came back as a 100,171-character message."""
    game = make("go", size=9, komi=7)
    lines: list[str] = []
    t = TerminalGame(game, make_engine(game, use_shipped=False), 0, playouts=8, out=lines.append)
    t.handle("E5" * 50_000)
    assert lines[-1].startswith("Illegal: ") and len(lines[-1]) < 300 and "..." in lines[-1]


@pytest.mark.parametrize("seed", [3, 5])
def test_the_opening_variety_never_plays_a_move_the_vct_guard_rejected(warm, play_here, seed):
    # helper-61: "zeroplay plays a6 ... (an opening pick ...)" then "Note: VCT guard: a6 loses to a
    # VCT (...); e6 instead", and the player won by that VCT; 7 of 10 seeds played a losing move
    proc = play_here("d6\nb6\nquit\n", "--size", "6", "--seed", str(seed), "--playouts", "200")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Note: VCT guard:"):
            played = next(x for x in reversed(lines[:i]) if x.startswith("zeroplay plays ")).split()[2].rstrip(":")
            lost = line.split(": ", 1)[1].split(" to a forced win")[0].split(" lose")[0].replace(" and ", ", ").split(", ")
            assert played not in lost
            if "instead" in line:
                assert line.rstrip(".").split("; ")[-1].split()[0] == played


def test_help_explains_the_vct_guard_where_it_plays():
    from zeroplay.play.terminal import full_help

    assert "VCT guard" in full_help(make("gomoku", width=15, height=15), "800 playouts")
    # helper-67 read "proven win (main line 7 plies)" as a count to the end; its game went 20 more
    assert "not a count to the end" in full_help(make("gomoku", width=15, height=15), "800 playouts")
    assert "VCT" not in full_help(make("connect4"), "800 playouts")
