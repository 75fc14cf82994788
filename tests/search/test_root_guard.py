"""The VCT guard (search/root_guard.py): a chosen move after which the opponent wins by a VCT
is traded for the next move by visits that leaves none; a lost position keeps the choice."""

from __future__ import annotations

import time

import pytest

from zeroplay.engine.heuristic import HeuristicEvaluator
from zeroplay.games import make
from zeroplay.search import Limits, SearchConfig, Searcher
from zeroplay.search.root_guard import STOP_S, UNTIMED_DEEP_PLAYOUTS
from zeroplay.solvers.threat_solver import ThreatSolver

GAME = make("gomoku", width=15, height=15)
# Black's VCT of tests/search/test_root_vct.py (g8 h8 i9 i10) and a Black stone far away: White to
# move, and lost (every move leaves Black a VCT)
THREATENED = GAME.from_stones(["g8", "h8", "i9", "i10", "a15"], ["a1", "a3", "o15", "o13"])
# the shipped 15x15 model's game 79 against heuristic:800 (training/strength/games/gomoku-15x15-iter83),
# White to move at ply 32: the search's d8 (661 of 800 visits) lets Black win by a VCT, e10 (23) not
GAME_79 = GAME.initial().play_many(
    "g8 f8 f9 h7 h9 f7 g9 i9 i7 g10 j8 h8 j10 h6 j9 j11 i5 f6 j6 j7 h4 k7 f5 e6 g6 g7 e5 e9 d10 e7 d7".split())


def _searcher(**config) -> Searcher:
    config = {"threat_solver": True, "vct_guard_nodes": 50_000, "node_capacity": 1 << 12,
              "edge_capacity": 1 << 18, **config}
    return Searcher(GAME, HeuristicEvaluator(), SearchConfig(**config))


def _moves(text: str) -> list[int]:
    return [GAME.parse_move(m) for m in text.split()]


def test_a_move_that_loses_to_a_vct_is_traded_for_one_that_does_not():
    guard = _searcher().root_guard
    d8, e10 = _moves("d8 e10")
    assert guard.choose(GAME_79, [d8, e10]) == e10
    line = guard.lost[d8]
    end = GAME_79.play(d8).play_many(line)  # the opponent's win, replayed on real states
    assert end.is_terminal and end.winner == 0 and guard.checked == 2
    assert not ThreatSolver(GAME).vct(GAME_79.play(e10), nodes=50_000, method="pns").found


def test_the_search_plays_the_guarded_move_and_says_why():
    searcher = _searcher(vct_guard_moves=64, node_capacity=1 << 14, edge_capacity=1 << 20)
    searcher.search(GAME_79, playouts=64)
    d8 = GAME.parse_move("d8")
    stats = sorted(searcher.result().moves, key=lambda s: -s.visits)
    notes: list[str] = []
    played = searcher._guard(GAME_79, d8, stats, notes)
    assert played != d8 and d8 in searcher.root_guard.lost and played not in searcher.root_guard.lost
    assert not ThreatSolver(GAME).vct(GAME_79.play(played), nodes=50_000, method="pns").found
    assert notes and notes[0].startswith("VCT guard: d8 loses to a forced win by threats (VCT: ")
    # once per search and choice: asking again runs no check
    searcher.root_guard.checked = -1
    assert searcher._guard(GAME_79, d8, stats, []) == played and searcher.root_guard.checked == -1


def test_a_lost_position_keeps_the_choice():
    # Black's double three cannot be stopped by one White move: every move loses to a VCT
    moves = _moves("o1 i8 f8 h9")
    guard = _searcher().root_guard
    assert guard.choose(THREATENED, moves) is None and set(guard.lost) == set(moves)
    searcher = _searcher(vct_guard_moves=4)
    r = searcher.search(THREATENED, playouts=32)
    assert len(searcher.root_guard.lost) == 4 and set(r.vct_lost) == set(searcher.root_guard.lost)
    # the search's own choice is played, and the note says so
    assert r.notes == (searcher.root_guard.note(r.best_move, r.best_move),)
    assert r.notes[0].endswith(f"every move checked loses, {GAME.format_move(r.best_move)} stays")


def test_a_move_that_ends_the_game_is_taken_and_a_past_deadline_checks_nothing():
    s = GAME.from_stones(["a1", "b1", "c1", "d1"], ["a3", "b3", "c3", "d3"])  # Black to move: e1 wins
    guard = _searcher().root_guard
    e1 = GAME.parse_move("e1")
    assert guard.choose(s, [e1]) == e1 and guard.checked == 1 and guard.lost == {}
    assert guard.choose(GAME_79, _moves("d8 e10"), deadline=time.perf_counter() - 1) == GAME.parse_move("d8")
    assert guard.checked == 0 and guard.unchecked == GAME.parse_move("d8")  # no time: unchecked


def test_after_a_move_shown_to_lose_the_next_is_checked_too():
    # helper-61: at timeout_turn 2000 the guard traded d8 for d6 without checking d6 (the longest
    # check so far would not fit), and d6 loses too; a check now stops at the deadline instead
    d8, d6, e10 = _moves("d8 d6 e10")
    guard = _searcher().root_guard
    assert guard.choose(GAME_79, [d8, d6, e10], deadline=time.perf_counter() + 30) == e10
    assert list(guard.lost) == [d8, d6] and guard.unchecked is None and guard.checked_in_part is None
    note = guard.note(d8, e10)
    assert note.startswith("VCT guard: d8 and d6 lose to a forced win by threats (VCT: ")
    assert note.endswith("; e10 instead")


def test_a_check_stops_at_the_deadline_and_the_note_says_so():
    d8, e10 = _moves("d8 e10")
    guard = _searcher().root_guard
    assert guard.choose(GAME_79, [d8]) is None  # d8's proof (and the solver's table) warm
    d8_s = guard.seconds
    started = time.perf_counter()
    # e10's full check spends its budget (0.1-0.5 s); here it has 0.02 s after d8's
    played = guard.choose(GAME_79, [d8, e10], deadline=started + 2 * d8_s + 0.02)
    took = time.perf_counter() - started
    assert played == e10 and d8 in guard.lost and guard.checked_in_part == e10
    assert took < 2 * d8_s + 0.02 + 0.25  # a thread's wake-up on a loaded machine
    assert guard.note(d8, e10).endswith("; e10 instead (checked in part: the time was up)")
    guard.lost, guard.unchecked, guard.checked_in_part = {d8: [0]}, e10, None
    assert guard.note(d8, e10).endswith("; e10 instead (not checked: the time was up)")


def test_a_timed_search_keeps_the_guards_share_and_stays_in_time():
    # 3 s, not 1: d8's check takes 0.02-0.1 s on an idle core, and a 1 s search's 0.2 s for the
    # guard cut it short in a CI run beside four other busy processes on two cores
    searcher = _searcher(vct_guard_share=0.2, node_capacity=1 << 14, edge_capacity=1 << 20)
    started = time.perf_counter()
    r = searcher.search(GAME_79, seconds=3.0)
    took = time.perf_counter() - started
    assert searcher._limits.seconds == pytest.approx(2.4)  # the playouts' part
    assert r.best_move != GAME.parse_move("d8")  # shown to lose within the guard's 0.6 s
    # each check stops at the limit (a thread's wake-up late at most); the result's time has them
    assert took < 3.0 + 0.25 and r.seconds == pytest.approx(took, abs=0.05)


@pytest.mark.parametrize("seconds, playouts_part", [(1.0, 0.8), (0.5, 0.3), (0.2, 0.05), (4.0, 3.4)])
def test_short_turns_keep_the_guards_minimum_time(seconds, playouts_part):
    # at pbrain's 1 s turns (0.7 s of search) the share alone left the guard 0.1 s, and the search's
    # d8 went through unchecked on a loaded machine; at most 3/4 of the time goes to the guard (helper-65:
    # at half, pbrain's 300 ms turns played d8 in most fresh tries)
    searcher = _searcher(vct_guard_share=0.15)
    searcher.start(GAME_79, Limits(seconds=seconds))
    assert searcher._limits.seconds == pytest.approx(playouts_part)


def test_a_stopped_search_gives_the_guard_little_time():
    # pbrain's YXSTOP during a long YXNBEST answered 0.2-0.5 s later (helper-61): the guard's checks
    searcher = _searcher(node_capacity=1 << 14, edge_capacity=1 << 20)
    seen = []

    def stop() -> bool:
        seen.append(1)
        return len(seen) > 3

    started = time.perf_counter()
    r = searcher.search(GAME_79, seconds=60, stop=stop)
    assert r.stopped_by == "stop" and searcher.root_guard.seconds < STOP_S + 0.25
    assert time.perf_counter() - started < 5


def test_off_by_default_on_in_play_and_checked():
    assert SearchConfig().vct_guard_nodes == 0
    assert dict(GAME.play_search_options)["vct_guard_nodes"] > 0
    assert not Searcher(GAME, HeuristicEvaluator(), SearchConfig(vct_guard_nodes=50_000)).root_guard.enabled  # no solver
    assert not make("connect4").play_search_options or not _guard_enabled_for(make("connect4"))
    for bad in ({"vct_guard_nodes": -1}, {"vct_guard_moves": 0}, {"vct_guard_share": 1.0}, {"vct_guard_share": -0.1},
                {"vct_guard_min_seconds": -1.0}, {"vct_guard_min_seconds": float("nan")}):
        with pytest.raises(ValueError):
            SearchConfig(**bad)


def _guard_enabled_for(game) -> bool:
    from zeroplay.search.root_guard import RootGuard

    return RootGuard(game, SearchConfig(threat_solver=True, vct_guard_nodes=50_000), lambda: None).enabled


def test_the_arena_can_leave_the_guard_out():
    from zeroplay.engine.arena import make_player
    from zeroplay.engine.factory import MODELS_DIR

    model = MODELS_DIR / "gomoku-15x15-freestyle.safetensors"
    if not model.exists():
        pytest.skip("the 15x15 model does not ship here")
    on = make_player(f"vcf:{model}", GAME, playouts=8)
    off = make_player(f"vcf-noguard:{model}", GAME, playouts=8)
    assert on.config.vct_guard_nodes > 0 and off.config.vct_guard_nodes == 0
    assert off.name.startswith("vcf-noguard:") and off.config.threat_solver and off.config.defence


def test_reports_while_the_search_runs_do_not_run_the_guard():
    # pbrain asks result() each second for its MESSAGE line: the guard is for the move played
    searcher = _searcher(node_capacity=1 << 14, edge_capacity=1 << 20)
    seen = []

    def stop() -> bool:
        seen.append(searcher.result().best_move)
        return False

    calls = []
    choose = searcher.root_guard.choose
    searcher.root_guard.choose = lambda *a, **k: calls.append(len(seen)) or choose(*a, **k)
    r = searcher.search(GAME_79, playouts=48, stop=stop)
    assert len(seen) >= 2 and len(calls) == 1 and calls[0] == len(seen)  # once, after the last report
    assert r.best_move != GAME.parse_move("d8") or not searcher.root_guard.lost


def test_an_interrupt_ends_the_root_vct_and_the_guard_at_once():
    # helper-62: YXSTOP in the first 1-1.7 s of a search was answered only after the root VCT
    # (it runs before the first stop poll), and then "every move checked loses" over d8 alone
    import threading

    searcher = _searcher(vct_root_nodes=400_000, node_capacity=1 << 14, edge_capacity=1 << 20)  # 8 s of root VCT
    stop = threading.Event()

    def press() -> None:
        stop.set()
        searcher.interrupt()

    threading.Timer(0.3, press).start()  # (without the interrupt: 8 s)
    started = time.perf_counter()
    r = searcher.search(GAME_79, seconds=600, stop=stop.is_set)
    took = time.perf_counter() - started
    assert r.stopped_by == "stop" and took < 0.3 + STOP_S + 1.0, took
    # the guard after a stop: STOP_S, over the moves by prior too (few have visits yet)
    assert r.best_move != GAME.parse_move("d8") or searcher.root_guard.checked_in_part == GAME.parse_move("d8")
    # the next search is not interrupted
    r2 = searcher.search(GAME_79, playouts=32)
    assert searcher.root_vct.work > 0 and r2.best_move != GAME.parse_move("d8")


def test_a_loss_shown_once_is_remembered_by_later_searches():
    # helper-63: a search stopped by YXSTOP played d6 "checked in part" where an earlier search of
    # the same position had shown that d6 loses: the guard forgot verified lines between searches
    guard = _searcher().root_guard
    d8, e10 = _moves("d8 e10")
    assert guard.choose(GAME_79, [d8, e10]) == e10 and d8 in guard.lost
    assert guard.choose(GAME_79, [d8, e10], deadline=time.perf_counter()) == e10  # no time left
    # d8 from its kept line; e10 from the whole check that found nothing: neither checked again
    assert list(guard.lost) == [d8] and guard.unchecked is None and guard.checked == 0
    # a kept line that does not replay (a key collision) is not trusted: the move is checked again
    guard.memory.lost[GAME_79.play(d8).key] = _moves("a2 a4")
    guard.memory.clear.clear()
    assert guard.choose(GAME_79, [d8, e10]) == e10 and guard.checked == 2 and d8 in guard.lost


def test_a_long_search_checks_its_leading_moves_while_it_runs():
    # helper-64: YXSTOP 4-6 s into an analysis left the guard STOP_S for d8 and then d6, the
    # second choice by then; d6's check was cut and d6 played ("checked in part"), 5 times in 5
    guard = _searcher().root_guard
    d8, d6, e10 = _moves("d8 d6 e10")
    guard.start_search()
    assert not guard.precheck_due()  # not in a search's first second
    guard._search_started -= 10.0
    assert guard.precheck_due()
    for _ in range(3):  # one check a call: a quick one for each (d8 and d6 lose within it)
        guard.precheck(GAME_79, [d8, d6, e10], time.perf_counter() + 30)
    assert not guard.memory.clear
    guard.precheck(GAME_79, [d8, d6, e10], time.perf_counter() + 30)  # then e10's whole check
    assert guard._precheck_spent > 0
    guard._precheck_spent = 5.0  # over a tenth of the 10 s
    assert not guard.precheck_due()
    after = {m: GAME_79.play(m).key for m in (d8, d6, e10)}
    assert set(guard.memory.lost) == {after[d8], after[d6]} and set(guard.memory.clear) == {after[e10]}
    # the stopped search's guard: no time, no check, and neither losing move
    assert guard.choose(GAME_79, [d8, d6, e10], deadline=time.perf_counter()) == e10
    assert list(guard.lost) == [d8, d6] and guard.checked == 0 and guard.checked_in_part is None


def test_a_timed_search_prechecks_and_a_stop_before_the_root_vct_skips_it():
    searcher = _searcher(vct_root_nodes=100_000, node_capacity=1 << 14, edge_capacity=1 << 20)
    searcher.search(GAME_79, seconds=2.5)
    assert searcher.root_guard.memory.lost or searcher.root_guard.memory.clear
    # helper-64: a YXSTOP read before the search began was undone by the search's start, and the
    # root VCT ran to its budget (1.3-1.6 s) before the first stop poll
    fresh = _searcher(vct_root_nodes=100_000, node_capacity=1 << 14, edge_capacity=1 << 20)
    result = fresh.search(GAME_79, seconds=30, stop=lambda: True)
    assert result.stopped_by == "stop" and fresh.root_vct.work == 0


def test_the_searcher_names_the_losses_its_guard_remembers():
    searcher = _searcher()
    d8, e10 = _moves("d8 e10")
    assert searcher.vct_known_lost(GAME_79, [d8, e10]) == set()  # nothing checked yet: no check now either
    searcher.root_guard.choose(GAME_79, [d8, e10])
    assert searcher.vct_known_lost(GAME_79, [d8, e10]) == {d8}


def test_the_root_vct_is_not_taken_for_a_round_of_playouts():
    # helper-65's rerun: a 5 s pbrain turn answered after 1 playout in 1.6 s: the root's round,
    # timed with the root VCT in it and scaled to a batch, looked too long to start another
    searcher = _searcher(vct_root_nodes=400_000, node_capacity=1 << 14, edge_capacity=1 << 20)
    r = searcher.search(GAME_79, seconds=3.0)
    assert searcher.root_vct.seconds > 0.2 and r.playouts > 2 * searcher.config.batch_size, (r.playouts, r.seconds)


def test_with_time_left_a_move_that_passed_is_checked_again_deeper():
    # helper-65: the guard traded d8 for g5, which loses to an 11-ply VCT of about 70,500 units
    guard = _searcher().root_guard
    g5, e10 = _moves("g5 e10")
    assert guard.deep_nodes == 100_000 and guard.pool >= 2 * guard.deep_nodes
    assert guard.choose(GAME_79, [g5, e10]) == g5  # no deadline: the guard's budget only
    assert guard.memory.clear[GAME_79.play(g5).key] == 50_000
    assert guard.choose(GAME_79, [g5, e10], deadline=time.perf_counter() + 60, deep_until=None) == g5
    assert guard.choose(GAME_79, [g5, e10], deep_until=time.perf_counter() + 60) == e10
    end = GAME_79.play(g5).play_many(guard.lost[g5])
    assert end.is_terminal and end.winner == 0  # Black's win, replayed
    assert guard.memory.clear[GAME_79.play(e10).key] == guard.deep_nodes  # checked deeper too
    assert guard.choose(GAME_79, [g5, e10]) == e10  # and remembered


def test_a_deeper_check_is_not_started_without_the_time_for_it():
    guard = _searcher().root_guard
    g5, e10 = _moves("g5 e10")
    assert guard.choose(GAME_79, [g5, e10]) == g5 and guard.unit_s < 1e-3  # the check timed the units
    guard.unit_s = 1.0  # now a unit looks to take a second: no deeper check fits in a minute
    assert guard.choose(GAME_79, [g5, e10], deep_until=time.perf_counter() + 60) == g5
    assert guard.memory.clear[GAME_79.play(g5).key] == 50_000


def test_a_long_search_checks_its_leading_moves_deeper_once_they_passed():
    guard = _searcher().root_guard
    g5, e10 = _moves("g5 e10")
    guard.start_search()
    guard._search_started -= 100.0
    for _ in range(4):  # a quick and a whole check each
        guard.precheck(GAME_79, [g5, e10], time.perf_counter() + 60)
    after = {m: GAME_79.play(m).key for m in (g5, e10)}
    assert guard.memory.clear == {after[g5]: 50_000, after[e10]: 50_000}
    guard.precheck(GAME_79, [g5, e10], time.perf_counter() + 60)  # g5 deeper: lost
    assert after[g5] in guard.memory.lost and after[g5] not in guard.memory.clear
    guard._precheck_spent = 9.9  # the search's share of checks (a tenth of 100 s) spent: no deeper check
    guard.precheck(GAME_79, [g5, e10], time.perf_counter() + 60)
    assert guard.memory.clear[after[e10]] == 50_000
    assert guard.choose(GAME_79, [g5, e10], deadline=time.perf_counter()) == e10 and g5 in guard.lost


@pytest.mark.parametrize("how", ["untimed", "stopped"])
def test_the_searchers_guard_checks_deeper_in_an_untimed_search_of_enough_playouts_not_after_a_stop(how):
    searcher = _searcher(node_capacity=1 << 14, edge_capacity=1 << 20)
    searcher.search(GAME_79, playouts=64)
    g5, e10 = _moves("g5 e10")
    stats = [s for s in searcher.result().moves if s.move == e10]
    searcher.playouts = UNTIMED_DEEP_PLAYOUTS  # a search of that many playouts checks deeper, by work alone
    searcher.root_guard.unit_s = 1.0  # however slow the machine looks: the arena's games replay
    if how == "stopped":
        searcher.stopped_by = "stop"
    searcher._guarded = {}
    played = searcher._guard(GAME_79, g5, stats, [])
    assert played == (e10 if how == "untimed" else g5)
    assert (g5 in searcher.root_guard.lost) == (how == "untimed")
