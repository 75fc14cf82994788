"""END and the search (a fresh user's finding): an END sent while the engine searches stops the
search, which answers with what it has, and the engine exits; an END read before the search
began (a script piped in whole) still lets that search run in full."""

from __future__ import annotations

import io
import re
import threading
import time

from zeroplay.play.pbrain import run


def _serve(stdin, **options) -> tuple[list[str], io.StringIO, threading.Thread]:
    """``pbrain.run`` on ``stdin`` in a thread: its replies, its log, the thread."""
    replies: list[str] = []
    log = io.StringIO()
    thread = threading.Thread(target=run, args=(stdin, replies.append), kwargs={"log": log, **options},
                              daemon=True)
    thread.start()
    return replies, log, thread


def test_end_sent_during_a_search_stops_it_and_exits(warm):
    # END two seconds into a 600 s turn: the engine searched on for the whole turn (27 s+, with
    # MESSAGE lines) and only then answered and exited
    searching = threading.Event()
    release = threading.Event()  # ends the input (and, on a failure, a search still running)

    def stdin():
        yield "INFO timeout_turn 600000\n"
        yield "START 15\n"
        yield "BEGIN\n"
        searching.wait(120)  # the first progress line: the search has been running a second
        yield "END\n"
        release.wait(120)
        yield "YXSTOP\n"  # only read when END did not stop the search: let the thread end

    replies: list[str] = []
    log = io.StringIO()

    def write(line: str) -> None:
        replies.append(line)
        if line.startswith("MESSAGE depth"):
            searching.set()

    thread = threading.Thread(target=run, args=(stdin(), write),
                              kwargs={"playouts": 10**8, "log": log}, daemon=True)
    try:
        thread.start()
        assert searching.wait(120), log.getvalue()
        t0 = time.monotonic()
        thread.join(8.0)
        stopped_s = time.monotonic() - t0
        assert not thread.is_alive(), f"still searching {stopped_s:.1f} s after END:\n{log.getvalue()}"
    finally:
        release.set()
        thread.join(60)
    moves = [r for r in replies if re.fullmatch(r"\d+,\d+", r)]
    assert len(moves) == 1, replies  # the search's move, answered before the engine ended
    assert "stopped by stop" in log.getvalue(), log.getvalue()


def test_end_piped_with_the_move_command_lets_its_search_run(warm):
    # printf 'START 15\nBEGIN\nEND\n' | pbrain-zeroplay: END is read before the search begins
    # and must not cut it to a playout
    lines = ["INFO timeout_turn 600000\n", "START 15\n", "BEGIN\n", "END\n"]
    replies, log, thread = _serve(iter(lines), playouts=40)
    thread.join(120)
    assert not thread.is_alive(), log.getvalue()
    assert len([r for r in replies if re.fullmatch(r"\d+,\d+", r)]) == 1, replies
    assert re.search(r"pbrain: 40 playouts in [\d.]+ s, .*stopped by playouts", log.getvalue()), log.getvalue()
