"""GTP's count of a finished Go game (``final_score``, ``final_status_list``) against GNU Go's.

``data/gnugo-9x9-scored.jsonl``: 9x9 games of GNU Go 3.8 against itself (area scoring, komi 7.5)
with its own count, made by ``scripts/gnugo_scored_games.py 200 239``, and three games with a
seki (seed null: found with an earlier opening draw, ``--rescore`` gives GNU Go's count of it
again; 604 and 662). Before these tests, a game ended by two passes was counted with every
stone alive (a random game from an ended position plays no move), and a seki fell in the random
games: 9 of the 41 counts (seeds 200-239 and the first seki) agreed with GNU Go's; 40 do now.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from gtp_helpers import ask, gtp_session

GAMES = [json.loads(line) for line in (Path(__file__).parent / "data" / "gnugo-9x9-scored.jsonl").open()]


def _count(game: dict) -> tuple[str, list[str]]:
    """Our ``final_score`` and ``final_status_list dead`` at the end of ``game``."""
    s, out = gtp_session()
    for line in ("boardsize 9", "komi 7.5", "clear_board"):
        assert ask(s, out, line) == "=\n\n"
    for i, move in enumerate(game["moves"].split()):
        assert ask(s, out, f"play {'b' if i % 2 == 0 else 'w'} {move}") == "=\n\n"
    score = ask(s, out, "final_score")[2:].strip()
    dead = sorted(ask(s, out, "final_status_list dead")[2:].split())
    return score, dead


SEEDED = [g for g in GAMES if g["seed"] is not None and 200 <= g["seed"] <= 239]
SEKI = [g for g in GAMES if g["seki"]]


def test_the_count_agrees_with_gnu_go_on_finished_games():
    """39 of the 40 games of seeds 200-239 agree on the score and the dead stones; the one that
    does not (seed 216) ended at move 33 with a weak white group in Black's area, which the random
    games give White 60 % of the time: GNU Go calls it dead."""
    assert len(SEEDED) == 40
    agree = [g["seed"] for g in SEEDED if _count(g) == (g["final_score"], g["dead"])]
    assert len(agree) >= len(SEEDED) - 2, sorted({g["seed"] for g in SEEDED} - set(agree))


@pytest.mark.parametrize("seed, score", [
    # 20 stones in seki (a black group of 17, a white one of 3, sharing their last liberties) and
    # a dead black stone at B1: the random games filled the shared liberties and killed the
    # black group, W+60.5
    (None, "W+24.5"),
    # a white group in seki with an eye at J3: area rules count the eye White's, GNU Go counts it
    # dame (W+7.5)
    (604, "W+8.5"),
    # a black group in seki with an eye at C9 (GNU Go: dame, W+25.5), 4 dead black stones
    (662, "W+24.5"),
])
def test_a_seki_stands_in_the_count(seed, score):
    """``scripts/gnugo_scored_games.py 300 700 --seki-only`` found 604 and 662."""
    game = next(g for g in SEKI if g["seed"] == seed)
    assert _count(game) == (score, game["dead"])


@pytest.mark.parametrize("rows, point, me, expected", [
    # two rows of 5 (row 0 first); "X" Black (1), "O" White (2); a stone of ``me`` on ``point``
    ((".XX.O", "OOOOO"), 0, 1, True),    # joins two stones: one liberty left (cell 3)
    ((".XX.O", "OOOOO"), 3, 1, True),    # the same from the other side (cell 0 left)
    (("..X..", "OOOOO"), 1, 1, False),   # two stones with two liberties (cells 0 and 3)
    ((".O...", "....."), 0, 1, False),   # a lone stone in atari: allowed (a throw-in)
    (("O.O..", "XXXXX"), 1, 2, True),    # White joins three stones with one liberty (cell 3)
    (("XO.OX", "XXXXX"), 2, 1, False),   # it captures both white stones: not a self-atari
    ((".....", "....."), 2, 1, False),   # an empty board
])
def test_self_atari(rows, point, me, expected):
    from zeroplay.games.go.playout import is_self_atari

    board = np.array([{".": 0, "X": 1, "O": 2}[c] for row in rows for c in row], np.int8)
    w = len(rows[0])
    queue, mark = np.empty(board.size, np.int32), np.zeros(board.size, np.uint8)
    assert is_self_atari(board, w, point, me, queue, mark) is expected
    assert not mark.any() and board[point] == 0  # scratch and board left as they were


def test_territory_counts_dead_stones_as_prisoners():
    """Japanese counting: a dead stone is taken off as a prisoner and its point is territory.
    GNU Go (``--japanese-rules``) counts one point less per dead stone here (B+5 with A3 dead);
    we count it as the rules do: 10 points of territory + 1 prisoner - White's 5 = B+6."""
    s, out = gtp_session(8, scoring="territory")
    for line in ("boardsize 5", "clear_board", "komi 0"):
        assert ask(s, out, line) == "=\n\n"
    for b, w in zip(("C1", "C2", "C3", "C4", "C5", "pass"), ("D1", "D2", "D3", "D4", "D5", "A3")):
        assert ask(s, out, f"play b {b}") == "=\n\n" and ask(s, out, f"play w {w}") == "=\n\n"
    assert ask(s, out, "final_status_list dead") == "= A3\n\n"
    assert ask(s, out, "final_score") == "= B+6\n\n"
