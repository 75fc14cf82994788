"""The session of ``zeroplay analyze``: a reader that takes query lines and ``terminate`` actions
while a worker thread answers the queries in order (the protocol: ``play.analyze``'s docstring)."""

from __future__ import annotations

import functools
import json
import os
import queue
import sys
import threading
from collections.abc import Callable
from typing import TextIO

from zeroplay.play.analyze import MAX_ID, MAX_LINE_BYTES, Analyzer, check_analyze_model, is_unicode_text, parse_line

_ACTIONS = ("terminate", "terminate_all")


class _Queries:
    """The queries read and not yet answered, and which of them a ``terminate`` stopped.

    The reader (``run``'s thread) adds queries and terminations; the worker takes queries in
    order. One lock guards both, so a termination stops a query whether it is queued or running.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.lines: queue.Queue = queue.Queue()
        self.stopped: dict[str, int] = {}  # id -> the count of queries read when it was terminated
        self.queued: list[str] = []  # ids read, in order, not yet answered
        self.everything_before = 0  # terminate_all: the first this many queries read are stopped
        self.read = 0

    def add(self, line: str, qid: str | None) -> None:
        with self.lock:
            self.read += 1
            if qid is not None:
                self.queued.append(qid)
        self.lines.put((self.read, line, qid))

    def terminate(self, qid: str | None) -> None:
        with self.lock:
            if qid is None:
                self.everything_before = self.read
            elif qid in self.queued:  # only the queries read before it: a later one may reuse the id
                self.stopped[qid] = self.read

    def is_stopped(self, number: int, qid: str | None) -> bool:
        with self.lock:
            return number <= max(self.everything_before, self.stopped.get(qid, 0) if qid is not None else 0)

    def done(self, qid: str | None) -> None:
        with self.lock:
            if qid is not None:
                self.queued.remove(qid)
                if qid not in self.queued:
                    self.stopped.pop(qid, None)


def _action(query: dict) -> dict:
    """The acknowledgment of a ``terminate`` / ``terminate_all`` query, or its error."""
    action = query.get("action")
    if action not in _ACTIONS:
        return {"id": query["id"], "error": f"action must be {' or '.join(_ACTIONS)}, got {json.dumps(action)[:40]}"}
    extra = sorted(set(query) - {"id", "action", "terminateId"})
    target = query.get("terminateId")
    if extra:
        return {"id": query["id"], "error": f"unknown field{'s' if len(extra) > 1 else ''} {', '.join(extra)[:100]}"}
    if action == "terminate" and (not isinstance(target, str) or len(target) > MAX_ID or not is_unicode_text(target)):
        return {"id": query["id"], "error": f"terminateId must be a string of at most {MAX_ID} characters (Unicode "
                                            "text)"}
    if action == "terminate_all" and target is not None:
        return {"id": query["id"], "error": "terminate_all takes no terminateId"}
    return {"id": query["id"], "action": action, **({"terminateId": target} if target is not None else {})}


def run(stdin: TextIO, write: Callable[[str], None], on_broken: Callable[[], None] | None = None, **options) -> int:
    """Answer every line of ``stdin`` until its end (a worker thread searches while this one reads,
    so that a ``terminate`` reaches a running search); returns 0.

    A ``write`` that raises OSError (the reader of the answers went away) ends the queries left,
    unanswered, calls ``on_broken`` (from the thread that wrote) and then raises that error here.
    ``main``'s ``on_broken`` ends the process, since this thread may wait in ``stdin.readline``
    for a line that a client with the output closed never sends."""
    analyzer = Analyzer(**options)
    queries = _Queries()
    lock = threading.Lock()
    broken: list[OSError] = []  # the reader of the answers went away (``zeroplay analyze | head``)

    def say(answer: dict) -> None:
        with lock:
            if broken:
                return
            try:
                write(json.dumps(answer, separators=(",", ":")))
            except OSError as e:  # (BrokenPipeError): the queries left are ended, unanswered
                broken.append(e)
                queries.terminate(None)
                if on_broken is not None:
                    on_broken()

    finished = threading.Event()

    def work() -> None:
        try:
            while (item := queries.lines.get()) is not None:
                number, line, qid = item
                if queries.is_stopped(number, qid):
                    say({"id": qid, "error": "terminated before its search began"})
                else:
                    say(analyzer.answer_line(line, stop=functools.partial(queries.is_stopped, number, qid)))
                queries.done(qid)
        finally:
            finished.set()

    worker = threading.Thread(target=work, name="analyze-worker", daemon=True)
    worker.start()
    first = True
    try:
        while not broken:
            line = stdin.readline(MAX_LINE_BYTES + 1)
            if not line:
                break
            if first:  # a query file that Windows Notepad saved starts with a byte-order mark
                line, first = line.removeprefix("\ufeff"), False
            if len(line) > MAX_LINE_BYTES and not line.endswith("\n"):
                while line and not line.endswith("\n"):  # drop the rest of the over-long line
                    line = stdin.readline(MAX_LINE_BYTES + 1)
                line = "x" * (MAX_LINE_BYTES + 1)  # answered, in its turn, as over-long
            if not line.strip():
                continue
            query = parse_line(line)
            if "action" in query and "error" not in query:
                answer = _action(query)
                if "error" not in answer:
                    queries.terminate(answer.get("terminateId"))
                say(answer)
                continue
            queries.add(line, None if "error" in query else query["id"])
    except BaseException:  # an interrupt: the queries read end now, each still answered
        queries.terminate(None)
        raise
    finally:
        queries.lines.put(None)
        _join(finished, queries)
    if broken:
        raise broken[0]
    return 0


def _join(finished: threading.Event, queries: _Queries) -> None:
    """Wait for the worker to answer the queries read (``finished``); an interrupt meanwhile
    (Ctrl-C after the end of the input) ends them first: leaving the worker inside a search as the
    interpreter exits aborted the process, with no answer (helper-77). An event, not
    ``Thread.join``: a join that an interrupt cuts short can leave the thread counted as ended."""
    interrupted: BaseException | None = None
    while not finished.is_set():
        try:
            finished.wait(0.5)
        except BaseException as e:  # (KeyboardInterrupt)
            queries.terminate(None)
            interrupted = e
    if interrupted is not None:
        raise interrupted


def main(args) -> int:
    """``zeroplay analyze``: the protocol on stdin/stdout.

    A bad ``--model`` stops it first (``check_analyze_model``: ValueError, one line on stderr
    and exit status 2 from the CLI). Before the first query is read, the search is compiled (a
    cold numba cache costs minutes of CPU); as KataGo's analysis engine does, start-up notes go
    to stderr (each compile stage once it takes over 2 s, then a ready line), so stdout carries
    only answers."""
    from zeroplay.play.terminal import warm_up_with_note

    if args.model is not None:
        # a model that fits no query must not print "ready" and then fail every one of them
        check_analyze_model(args.model)

    def write(text: str) -> None:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    def note(text: str) -> None:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def gone() -> None:
        # nothing can be answered any more; waiting for stdin's next line or end would keep the
        # process alive as long as the client keeps its side of stdin open (session 33)
        sys.stderr.flush()
        os._exit(141)

    warm_up_with_note(note)
    note("zeroplay analyze: ready, one JSON query a line on stdin")
    return run(sys.stdin, write, on_broken=gone, model=args.model, max_playouts=args.max_playouts)
