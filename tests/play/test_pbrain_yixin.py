"""The Gomocup engine as analysis GUIs drive it (issue 23): searching soon after START, and the
Yixin/Gomocup extensions, each as a protocol transcript."""

from __future__ import annotations

import io
import time

import numpy as np
import pytest
from play_helpers import Engine


def _engine(**options) -> tuple[Engine, io.StringIO]:
    log = io.StringIO()
    return Engine(log=log, **options), log


@pytest.mark.slow  # loads torch and the 15x15 model for real: 20 s on a loaded 2-core machine
def test_the_first_moves_are_searched_while_the_model_still_loads(warm, monkeypatch):
    import zeroplay.engine.factory as engine_module

    real = engine_module.make_engine

    def slow_model(game, model=None, *, use_shipped=True, **options):
        if use_shipped or model is not None:
            time.sleep(4)  # torch's import on a loaded machine
        return real(game, model, use_shipped=use_shipped, **options)

    monkeypatch.setattr(engine_module, "make_engine", slow_model)
    e, log = _engine(warm_up=True)
    t0 = time.monotonic()
    assert e.send("INFO timeout_turn 5000", "START 15") == ["OK"]
    assert e.engine._ready.wait(30) and not e.engine._model_ready.is_set()
    moves = [r for r in e.send("BEGIN") if not r.startswith("MESSAGE")]
    assert len(moves) == 1 and moves[0].count(",") == 1
    text = log.getvalue()
    assert "quick heuristic move" not in text and "search-only engine plays until" in text and "playout" in text
    assert e.engine._model_ready.wait(60)
    e.send("TURN 8,8")
    assert "engine: model gomoku-15x15-freestyle" in log.getvalue()  # the model took over
    assert time.monotonic() - t0 < 90


def test_a_short_turn_while_the_model_loads_gets_the_heuristic_move(warm, monkeypatch):
    e, log = _engine()
    e.engine._ready.set()  # the search is compiled, the model not yet loaded
    e.send("INFO timeout_turn 1000", "START 15")
    assert len(e.send("BEGIN")) == 1
    assert "the model is still loading and the turn (0.70 s) is under 3 s" in log.getvalue()


def test_the_stand_in_says_the_model_is_loading_and_only_a_real_absence_says_none():
    """The stand-in's note was make_engine's "no trained model for gomoku 15x15 yet" while the
    shipped 15x15 model was loading."""
    from zeroplay.engine.factory import MODELS_DIR
    from zeroplay.games import make

    e, log = _engine()
    e.engine._ready.set()  # the search is compiled, the model not yet loaded
    stand_in = e.engine._engine(make("gomoku", width=15, height=15, rule="freestyle"))
    assert stand_in.model_path is None and "no trained model" not in stand_in.note
    assert stand_in.note.startswith("a stand-in while the model gomoku-15x15-freestyle loads")
    assert "the model gomoku-15x15-freestyle is still loading" in log.getvalue()
    # exactly five (INFO rule 1): no model plays it, during the warm-up or after it
    none = e.engine._engine(make("gomoku", width=15, height=15, rule="standard"))
    assert none.note.startswith("no trained model for gomoku 15x15")
    assert "no model plays this game: the search-only engine plays" in log.getvalue()
    # --model: the stand-in names it
    given, _ = _engine(model=str(MODELS_DIR / "gomoku-6x6-4-freestyle.safetensors"))
    given.engine._ready.set()
    note = given.engine._engine(make("gomoku", width=6, height=6, n_in_row=4)).note
    assert note.startswith("a stand-in while the model gomoku-6x6-4-freestyle loads")


# --- Yixin extensions: transcripts ------------------------------------------------------------
FIVE_SOON = ["YXBOARD", "5,5,1", "6,5,1", "7,5,1", "8,5,1", "5,6,2", "6,6,2", "7,6,2", "DONE"]


def test_yxboard_sets_the_position_without_a_move_and_yxnbest_lists_the_best_moves(warm):
    e, log = _engine()
    e.engine._ready.set()
    e.engine._model_ready.set()
    assert e.send("INFO timeout_turn 3000", "START 15") == ["OK"]
    assert e.send(*FIVE_SOON) == []  # a position, no move
    assert int(e.engine.board.sum()) == 4 * 1 + 3 * 2
    replies = e.send("YXNBEST 3")
    messages = [r for r in replies if r.startswith("MESSAGE nbest")]
    assert 1 <= len(messages) <= 3 and messages[0].startswith("MESSAGE nbest 1 ")
    assert replies[-1] in ("4,5", "9,5")  # the five
    assert messages[0].split()[3] == replies[-1]
    assert any(r.startswith("MESSAGE depth ") and "| pv " in r for r in replies)
    assert int(e.engine.board.sum()) == 4 * 1 + 3 * 2  # an analysis: the stone is not placed
    assert e.send("YXNBEST 0")[0].startswith("ERROR YXNBEST expects a number of moves 1..10")
    assert e.send("YXNBEST x")[0].startswith("ERROR")


def test_yxshowforbid_has_no_forbidden_points_outside_renju():
    e, _ = _engine(search=False)
    assert e.send("START 15", "YXSHOWFORBID") == ["OK", "FORBID ."]
    from zeroplay.play.yixin import forbid_line

    assert forbid_line([7 * 15 + 7, 1 * 15 + 12], 15) == "FORBID 07071201."


# Black f8 g8 h10 h9 (ours: we are Black, the counts are equal), White fillers on row 1
DOUBLE_THREE = ["YXBOARD", "5,7,1", "6,7,1", "7,5,1", "7,6,1", "0,14,2", "2,14,2", "4,14,2", "6,14,2", "DONE"]


def test_yxshowforbid_lists_blacks_forbidden_points_under_renju():
    e, _ = _engine(search=False)
    assert e.send("INFO rule 4", "START 15") == ["OK"]
    assert e.send(*DOUBLE_THREE) == []
    assert e.send("YXSHOWFORBID") == ["FORBID 0707."]  # h8: x 7, y 7
    # White (the opponent) blocks the row at e8: one three only, nothing forbidden
    assert e.send("YXBOARD", *DOUBLE_THREE[1:-1], "4,7,2", "8,14,1", "DONE") == []
    assert e.send("YXSHOWFORBID") == ["FORBID ."]
    # the same stones under free-style: no forbidden points
    assert e.send("INFO rule 0", *DOUBLE_THREE, "YXSHOWFORBID") == ["FORBID ."]


def test_renju_moves_never_take_a_forbidden_point():
    """White's d8..g8 (c8 is ours) threatens five at h8 only, and h8 is a double-three point for
    us (Black: h9 h10, i9 j10): the block is forbidden, so the move is elsewhere; in free-style
    the heuristic blocks at h8."""
    own = ["2,7,1", "7,6,1", "7,5,1", "8,6,1", "9,5,1"]
    opponent = ["3,7,2", "4,7,2", "5,7,2", "6,7,2", "0,14,2"]
    for rule, blocks in (("4", False), ("0", True)):
        e, _ = _engine(search=False)
        assert e.send(f"INFO rule {rule}", "START 15") == ["OK"]
        (reply,) = e.send("BOARD", *own, *opponent, "DONE")
        assert (reply == "7,7") is blocks


def test_about_names_the_model():
    e, _ = _engine(search=False)
    (about,) = e.send("ABOUT")
    assert about.startswith('name="zeroplay"') and 'model="gomoku-15x15-freestyle"' in about
    e.send("START 9")
    assert 'model="search-only"' in e.send("ABOUT")[0]


@pytest.mark.alone  # times itself
def test_a_long_search_prints_message_lines_and_yxstop_ends_it(warm):
    import threading

    from zeroplay.play.pbrain import run

    class SlowInput:
        """stdin whose YXSTOP comes 2.5 s into a search of 30 s."""

        def __iter__(self):
            yield "INFO timeout_turn 30000\n"
            yield "START 15\n"
            yield "BEGIN\n"
            started.wait(60)
            time.sleep(2.5)
            yield "YXSTOP\n"
            yield "END\n"

    replies: list[str] = []
    started = threading.Event()

    def write(line: str) -> None:
        replies.append(line)
        if line == "OK":
            started.set()

    t0 = time.monotonic()
    run(SlowInput(), write, playouts=10**8, warm_up=True, log=io.StringIO())
    seconds = time.monotonic() - t0
    progress = [r for r in replies if r.startswith("MESSAGE depth ")]
    assert len(progress) >= 2 and all("| n " in r and "| tm " in r for r in progress)
    assert replies[-1].count(",") == 1 and seconds < 25, (seconds, replies[-3:])



def test_yixin_boards_hash_clear_and_show_info_are_answered_with_silence():
    """Yixin-Board sends YXHASHCLEAR (its "hash autoclear") and YXSHOWINFO; both got ``UNKNOWN``
    (an audit's finding). Neither has an answer in other engines: the next command's answer comes
    next, and YXHASHCLEAR makes the next search start from an empty tree."""
    e, _ = _engine(search=False)
    assert e.send("START 15") == ["OK"]
    e.engine._fresh_tree = False
    assert e.send("YXHASHCLEAR", "yxshowinfo", "YXSHOWINFO 1", "ABOUT")[0].startswith('name="zeroplay"')
    assert e.engine._fresh_tree


def test_the_vct_guards_trade_is_a_message_line_and_marked_in_nbest():
    from zeroplay.play import yixin
    from zeroplay.search.result import MoveStats, SearchResult

    moves = (MoveStats(52, 275, 0.31, 0.2, 0.2), MoveStats(54, 27, 0.34, 0.1, 0.2), MoveStats(67, 20, 0.07, 0.1, 0.0))
    note = ("VCT guard: h12 and j12 lose to a forced win by threats (VCT: ...); h11 instead",)
    traded = SearchResult(best_move=67, moves=moves, vct_lost=(52, 54), notes=note)
    assert yixin.guard_line(traded, 15) == ("MESSAGE VCT guard: 7,3 9,3 lose to a forced win by threats (VCT); "
                                            "7,4 instead")
    nbest = yixin.nbest_lines(traded, 15, 3)
    # helper-64: the rejected moves led the list and the move answered came third (or was missing);
    # helper-65: listed last, they were cut off and never shown, so they keep their visits' place
    assert [line.endswith("| loses to a VCT") for line in nbest] == [False, True, True]
    assert nbest[0].startswith("MESSAGE nbest 1 7,4 | visits 20 ")
    assert yixin.nbest_lines(traded, 15, 2)[1].startswith("MESSAGE nbest 2 7,3 | visits 275 ")
    # a loss the guard's memory holds from an earlier search is marked too
    marked = yixin.nbest_lines(SearchResult(best_move=67, moves=moves), 15, 3, lost={54})
    assert [line.endswith("| loses to a VCT") for line in marked] == [False, False, True]
    cut = SearchResult(best_move=67, moves=moves, vct_lost=(52, 54),
                       notes=(note[0] + " (checked in part: the time was up)",))
    assert yixin.guard_line(cut, 15).endswith("; 7,4 instead (checked in part: the time was up)")
    kept = SearchResult(best_move=52, moves=moves, vct_lost=(52, 54, 67), notes=("VCT guard: ...; h12 stays",))
    assert yixin.guard_line(kept, 15).endswith("every move checked loses, 7,3 stays")
    own = SearchResult(best_move=52, moves=moves, notes=("VCT guard: h12 not checked: the time was up",))
    assert yixin.guard_line(own, 15) == "MESSAGE VCT guard: 7,3 not checked: the time was up"
    assert yixin.guard_line(SearchResult(best_move=52, moves=moves), 15) is None


def test_nbest_after_a_stop_at_once_lists_the_moves_by_prior():
    # helper-63: YXNBEST stopped after 0-1 playouts printed no nbest line at all
    from dataclasses import replace

    from zeroplay.play import yixin
    from zeroplay.search.result import MoveStats, SearchResult

    moves = (MoveStats(40, 1, -0.2, 0.1, float("-inf")), MoveStats(52, 0, 0.0, 0.05, float("-inf")),
             MoveStats(54, 0, 0.0, 0.6, float("-inf")), MoveStats(67, 0, 0.0, 0.2, float("-inf")))
    lines = yixin.nbest_lines(SearchResult(best_move=40, moves=moves), 15, 3)
    assert lines == ["MESSAGE nbest 1 10,2 | visits 1 | winrate 40.0% | prior 10.0%",
                     "MESSAGE nbest 2 9,3 | visits 0 | prior 60.0%",
                     "MESSAGE nbest 3 7,4 | visits 0 | prior 20.0%"]
    # a win the threat search proved with no playout: its first move leads, whatever its prior
    proven = SearchResult(best_move=52, moves=tuple(replace(m, visits=0) for m in moves), proven="win")
    assert yixin.nbest_lines(proven, 15, 2)[0] == "MESSAGE nbest 1 7,3 | visits 0 | prior 5.0%"


@pytest.mark.slow  # loads torch and the 15x15 model for real
def test_a_turn_the_guard_changes_says_so_and_keeps_to_timeout_turn(warm):
    # helper-61: at timeout_turn 500 the reply came at 661 ms (a check bounded by work, not time),
    # and nothing the engine printed said why it did not play its most visited move
    from zeroplay.games import make

    game = make("gomoku", width=15, height=15)
    state = game.initial().play_many(
        "g8 f8 f9 h7 h9 f7 g9 i9 i7 g10 j8 h8 j10 h6 j9 j11 i5 f6 j6 j7 h4 k7 f5 e6 g6 g7 e5 e9 d10 e7 d7".split())
    black, white = state.board.reshape(-1) == 1, state.board.reshape(-1) == 2  # White (own) to move
    cells = [(int(c), 1) for c in np.flatnonzero(white)] + [(int(c), 2) for c in np.flatnonzero(black)]
    board = [f"{c % 15},{c // 15},{f}" for c, f in cells]
    e, log = _engine()
    e.engine._ready.set()
    e.engine._model_ready.set()
    for turn_ms, margin in ((3000, 0.3), (500, 0.15)):
        e.send(f"INFO timeout_turn {turn_ms}", "START 15")
        started = time.perf_counter()
        replies = e.send("BOARD", *board, "DONE")
        took = time.perf_counter() - started
        d8 = game.parse_move("d8")
        assert replies[-1] != f"{d8 % 15},{d8 // 15}" or turn_ms < 1000  # shown to lose at 3 s
        assert took < turn_ms / 1000 + margin, (turn_ms, took)  # on time (a loaded machine's slack)
        if turn_ms == 3000:
            guard = [r for r in replies if r.startswith("MESSAGE VCT guard: ")]
            assert guard and f"; {replies[-1]} instead" in guard[0], replies
            assert "VCT guard: d8" in log.getvalue()


def test_yxstop_with_words_after_it_stops_a_running_search(monkeypatch):
    # helper-63: "YXSTOP now" was taken as YXSTOP when idle (the dispatch reads the first word)
    # but stopped no search: the reader thread matched only the bare word
    from zeroplay.play import pbrain
    from zeroplay.play.pbrain_engine import PbrainEngine

    interrupts: list[str] = []
    monkeypatch.setattr(PbrainEngine, "interrupt_search", lambda self: interrupts.append("stop"))
    lines = ["START 9\n", "YXSTOP\n", " yxstop now\r\n", "YXSTOP 1 2\n", "YXSTOPPED\n", "INFO yxstop 1\n", "END\n"]
    replies: list[str] = []
    pbrain.run(iter(lines), replies.append, search=False, warm_up=False, log=io.StringIO())
    assert len(interrupts) == 3 and replies[0] == "OK" and replies[1].startswith("UNKNOWN")


def test_timeout_turn_0_bounds_the_search_in_seconds_too(warm, monkeypatch):
    # with playouts alone the threat searches ran to their work budgets: 1.7-2.1 s for an answer
    # "as fast as possible" on game 79 (scripts/pbrain_reply_times.py 0)
    from zeroplay.play.pbrain_turn import FAST_PLAYOUTS, FAST_SECONDS, search_seconds
    from zeroplay.search import Searcher

    calls: list[dict] = []
    real = Searcher.search

    def spy(self, state, **limits):
        calls.append(limits)
        return real(self, state, **limits)

    monkeypatch.setattr(Searcher, "search", spy)
    e, _ = _engine()
    e.engine._ready.set()
    e.engine._model_ready.set()
    assert e.send("INFO timeout_turn 0", "START 8", "BEGIN")[0] == "OK"
    assert e.replies[-1].count(",") == 1
    assert calls and calls[-1]["playouts"] == FAST_PLAYOUTS
    # the playouts get FAST_SECONDS (less the command's time so far), the VCT guard its time beside
    searcher = e.engine._searcher
    assert calls[-1]["seconds"] <= search_seconds(searcher, FAST_SECONDS) <= FAST_SECONDS + searcher.config.vct_guard_min_seconds
    assert calls[-1]["seconds"] >= search_seconds(searcher, FAST_SECONDS - 0.1)


def test_what_the_vct_guard_showed_outlives_a_new_searcher(warm):
    # helper-64: after INFO max_memory (or a rule's round trip) pbrain built a new searcher, whose
    # guard had forgotten that d6 loses, and a stopped analysis played it again
    e, _ = _engine()
    e.engine._ready.set()
    e.engine._model_ready.set()
    e.send("START 15")
    game = e.engine._state().game
    first = e.engine._get_searcher(game)
    e.send("INFO max_memory 500000000")
    second = e.engine._get_searcher(game)
    assert second is not first and second.root_guard.memory is first.root_guard.memory


def test_an_unsupported_rule_is_an_error_for_the_analysis_commands_too():
    # helper-64: after INFO rule 2, YXNBEST analysed the last position under the last rule and
    # YXSHOWFORBID printed renju's points; a broken YXBOARD block was called BOARD
    e, _ = _engine(search=False)
    assert e.send("INFO rule 4", "START 15") == ["OK"]
    e.send("INFO rule 2")
    for command in ("YXNBEST 2", "YXSHOWFORBID"):
        (reply,) = e.send(command)
        assert reply.startswith("ERROR rule 2"), reply
    e.send("INFO rule 0")
    replies = e.send("YXBOARD", "7,7,1", "ABOUT")
    assert replies[0].startswith("ERROR YXBOARD expects x,y,field lines then DONE, got 'ABOUT'")


# helper-80: Black (the opponent) has an overline point at d3 (3,2) and a five at k10 (10,9); we
# are White, with a double-three shape of our own around h8 (7,7) and i8 (8,7)
WHITE_TO_MOVE = ["BOARD", "0,2,2", "1,2,2", "2,2,2", "4,2,2", "5,2,2", "10,5,2", "10,6,2", "10,7,2", "10,8,2",
                 "10,4,1", "5,7,1", "6,7,1", "7,5,1", "7,6,1", "6,2,1", "0,14,1", "14,14,1", "DONE"]


def test_renju_as_white_blocks_blacks_five_not_its_overline_and_forbid_names_blacks_points():
    # helper-80: the quick move blocked d3, which is no win for Black under renju; after our
    # reply YXSHOWFORBID took our White stones for Black's ("FORBID 07070807.")
    e, _ = _engine(search=False)
    assert e.send("INFO rule 4", "START 15") == ["OK"]
    assert e.send(*WHITE_TO_MOVE) == ["10,9"]
    assert e.send("YXSHOWFORBID") == ["FORBID 0302."]


def test_after_a_takeback_of_our_stone_it_is_our_turn_again():
    e, _ = _engine(search=False)
    assert e.send("INFO rule 4", "START 15") == ["OK"]
    assert e.send(*WHITE_TO_MOVE) == ["10,9"]
    assert e.send("TAKEBACK 10,9") == ["OK"]
    assert e.engine.opponent_to_move is False and e.engine._black_stone() == 2
