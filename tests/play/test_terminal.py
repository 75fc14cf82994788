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
from zeroplay.play.engine import make_engine
from zeroplay.play.terminal import TerminalGame

PLAY = [sys.executable, "-m", "zeroplay", "play"]


def play(stdin: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(PLAY + list(args), input=stdin, capture_output=True, text=True, timeout=timeout)


def test_piped_game_with_every_command(warm):
    proc = play("h8\nzz\nh8\nq99\nhint\nundo\n7,7\nnew white\nquit\n", "--size", "9", "--playouts", "50")
    out = proc.stdout
    assert proc.returncode == 0 and "Traceback" not in out + proc.stderr
    assert "Note: no trained model for gomoku 9x9 freestyle" in out and "Pass --model PATH" in out
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
    assert proc.returncode == 2 and "zeroplay play: --size must be an integer in 5..25" in proc.stderr
    proc = play("", "--playouts", "0")
    assert proc.returncode == 2 and "--playouts must be >= 1" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_ctrl_c_exits_cleanly(warm):
    proc = subprocess.Popen(PLAY + ["--size", "9", "--playouts", "20"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
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
    assert "Commands: undo, hint" in s.lines[-1]
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
    assert any(x in s.text() for x in ("Draw.", "You win!", "zeroplay wins."))
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
    g = make(game) if game == "tictactoe" else make("gomoku", width=15, height=15)
    engine = make_engine(g)
    assert engine.model_path is None and "no trained model" in engine.note
    assert engine.new_searcher().config.threat_solver == (game == "gomoku")


def test_choosing_a_shipped_model_does_not_import_torch():
    import subprocess
    import sys

    code = ("import sys; from zeroplay.games import make; from zeroplay.play.engine import find_model; "
            "find_model(make('gomoku', size=9, n_in_row=5)); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_n_in_row_option_plays_the_shipped_6x6_model(warm):
    proc = play("c3\nquit\n", "--size", "6", "--n-in-row", "4", "--playouts", "30")
    assert proc.returncode == 0 and "Traceback" not in proc.stdout + proc.stderr
    assert "gomoku 6x6 freestyle, 4 in a row" in proc.stdout
    assert "model gomoku-6x6-4-freestyle.safetensors (shipped" in proc.stdout
    bad = play("quit\n", "--size", "6", "--n-in-row", "9")
    assert bad.returncode == 2 and "zeroplay play: --n-in-row must be in 3..6" in bad.stderr
    # without --n-in-row, 6x6 is the shipped model's game (as on the web board); other sizes: 5
    default = play("quit\n", "--size", "6", "--playouts", "30")
    assert "gomoku 6x6 freestyle, 4 in a row" in default.stdout
    five = play("quit\n", "--size", "6", "--n-in-row", "5", "--playouts", "30")
    assert "gomoku 6x6 freestyle." in five.stdout and "no trained model" in five.stdout
    assert "in a row" not in play("quit\n", "--size", "7", "--playouts", "30").stdout.splitlines()[0]
    assert play("quit\n", "--game", "tictactoe", "--n-in-row", "4").returncode == 2


@pytest.mark.parametrize("size", [15, 9])
def test_the_engine_opens_in_the_centre(warm, size):
    from zeroplay.play.heuristic import quick_move

    game = make("gomoku", size=size)
    centre = (size // 2) * size + size // 2
    searcher = make_engine(game).new_searcher()
    assert int(searcher.search(game.initial(), playouts=400).best_move) == centre
    assert quick_move(np.zeros(size * size, np.int8), size, size, 1) == centre


def test_ctrl_c_while_the_engine_thinks_plays_the_best_move_so_far(warm):
    proc = subprocess.Popen(PLAY + ["--size", "9", "--playouts", "100000000"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
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


def test_gomoku_options_are_refused_for_other_games():
    proc = play("quit\n", "--game", "tictactoe", "--size", "9", "--rule", "standard")
    assert proc.returncode == 2 and "--size, --rule: Gomoku options; tictactoe has none" in proc.stderr
