"""SWAP2 (Gomocup ``SWAP2BOARD``): the decisions of ``play/swap2.py`` from given values, and the
protocol transcripts of ``pbrain-zeroplay`` answering each stage (issue 23)."""

from __future__ import annotations

import re

import pytest
from play_helpers import Engine

from zeroplay.games import make
from zeroplay.play import swap2

GAME = make("gomoku")
THREE = [GAME.parse_move(m) for m in ("g8", "h9", "i7")]  # Black, White, Black
FIVE = THREE + [GAME.parse_move(m) for m in ("f9", "f7")]


def fixed(values: list[float]):
    """An evaluator returning ``values`` in turn (Q for the side to move) and the first empty
    cell near the centre as the best move; records the positions it saw."""
    seen = []

    def evaluate(state, searches_left):
        seen.append((state, searches_left))
        empty = [c for c in (112, 113, 127, 97, 98) if state.board.reshape(-1)[c] == 0]
        return values[len(seen) - 1], empty[0]

    evaluate.seen = seen
    return evaluate


def test_the_opener_places_the_most_even_of_its_candidates():
    n = len(swap2.opening_candidates(GAME))
    values = [0.6, -0.4, 0.05, -0.3, 0.5, 0.2][:n]
    ev = fixed(values)
    answer = swap2.decide(GAME, [], ev)
    chosen = swap2.opening_candidates(GAME)[2]
    assert answer.stones == chosen.moves and answer.we_play_black
    assert re.fullmatch(r"\d+,\d+ \d+,\d+ \d+,\d+", answer.text)
    assert [left for _, left in ev.seen] == list(range(n, 0, -1))  # the time is shared out
    assert all(s.to_play == 1 and s.ply == 3 for s, _ in ev.seen)


@pytest.mark.parametrize(("q", "text", "black"), [(-0.5, "SWAP", True), (0.5, "7,7", False)])
def test_the_second_player_swaps_or_plays_white(q, text, black):
    answer = swap2.decide(GAME, THREE, fixed([q]))
    assert (answer.text, answer.we_play_black) == (text, black)


def test_an_even_position_gets_two_more_stones():
    ev = fixed([0.05, 0.1])
    answer = swap2.decide(GAME, THREE, ev)
    assert answer.text == "7,7 8,7" and answer.stones == (112, 113)  # White's move, then Black's
    assert ev.seen[1][0].to_play == 0 and ev.seen[1][0].moves[-1] == 112
    assert answer.values == (0.05, -0.1)  # White's view throughout


@pytest.mark.parametrize(("q", "text"), [(0.2, "7,7"), (0.0, "7,7"), (-0.2, "SWAP")])
def test_the_opener_chooses_a_colour_at_five_stones(q, text):
    assert swap2.decide(GAME, FIVE, fixed([q])).text == text


@pytest.mark.parametrize(("stones", "message"), [
    (THREE[:2], "0, 3 or 5 stones"), ([112, 112, 113], "occupied"),
])
def test_bad_openings_raise(stones, message):
    with pytest.raises(ValueError, match=message):
        swap2.decide(GAME, stones, fixed([0.0]))


# --- transcripts ------------------------------------------------------------------------------
def _stone_lines(cells):
    return [GAME.format_move(c, "gomocup") for c in cells]


def test_transcript_of_each_stage_without_a_search():
    """Without a search (``search=False``) every position counts as even: the engine opens with
    its first candidate, places two stones at three and plays White at five."""
    e = Engine(search=False)
    assert e.send("START 15") == ["OK"]
    (opening,) = e.send("SWAP2BOARD", "DONE")
    assert opening == swap2.gomocup_text(GAME, swap2.opening_candidates(GAME)[0].moves)
    assert (e.engine.board == 1).sum() == 2 and (e.engine.board == 2).sum() == 1  # we are Black

    (two,) = e.send("SWAP2BOARD", *_stone_lines(THREE), "DONE")
    assert re.fullmatch(r"\d+,\d+ \d+,\d+", two)
    assert (e.engine.board == 1).sum() == 2 and (e.engine.board == 2).sum() == 3  # White: ours

    (sixth,) = e.send("SWAP2BOARD", *_stone_lines(FIVE), "DONE")
    assert re.fullmatch(r"\d+,\d+", sixth)
    assert (e.engine.board == 1).sum() == 3 and (e.engine.board == 2).sum() == 3  # White: ours
    # the game goes on: Black's seventh stone, our reply
    (reply,) = e.send("TURN 0,0")
    assert re.fullmatch(r"\d+,\d+", reply) and int(e.engine.board.sum()) == 4 * 1 + 4 * 2


def test_swap2board_errors_leave_the_board():
    e = Engine(search=False)
    assert e.send("SWAP2BOARD", "DONE") == ["ERROR no game: send START first"]
    e.send("START 15")
    assert e.send("SWAP2BOARD", "7,7", "7,7", "8,8", "DONE")[0].startswith("ERROR")
    assert e.send("SWAP2BOARD", "7,7", "x", "DONE") == [
        "ERROR SWAP2BOARD expects x,y lines then DONE, got 'x'"]
    assert e.send("SWAP2BOARD", "7,7", "30,8", "8,8", "DONE") == [
        "ERROR SWAP2BOARD 30,8 is off the 15x15 board"]
    assert not e.engine.board.any()


def test_transcript_with_the_search_uses_its_values(warm):
    e = Engine()
    e.engine._model_ready.set()
    assert e.send("INFO timeout_turn 1500", "START 15") == ["OK"]
    replies = [r for r in e.send("SWAP2BOARD", *_stone_lines(FIVE), "DONE") if not r.startswith("MESSAGE")]
    assert len(replies) == 1 and (replies[0] == "SWAP" or re.fullmatch(r"\d+,\d+", replies[0]))


def test_yxstop_ends_the_swap2_searches(warm):
    # helper-65: YXSTOP stopped TURN and YXNBEST searches, not SWAP2BOARD's (60 s here)
    import time

    e = Engine()
    e.engine._model_ready.set()
    assert e.send("INFO timeout_turn 60000", "START 15") == ["OK"]
    e.engine.stop_requested.set()  # as pbrain's reader thread does when YXSTOP arrives
    t0 = time.perf_counter()
    replies = [r for r in e.send("SWAP2BOARD", "DONE") if not r.startswith("MESSAGE")]
    assert time.perf_counter() - t0 < 20
    assert len(replies) == 1 and re.fullmatch(r"\d+,\d+ \d+,\d+ \d+,\d+", replies[0]), replies
