"""The Gomocup (Piskvork) engine process: ``zeroplay pbrain``, ``pbrain-zeroplay``,
``python -m zeroplay.play.pbrain``.

The protocol it speaks is in ``pbrain_protocol``'s docstring; the brain that answers it is
``pbrain_engine.PbrainEngine``. This module is the process around it: the command line, a reader
thread for stdin, and the replies' own stream. Only protocol replies go to stdout: the process
points file descriptor 1 at stderr at start and writes replies to a private copy of it, so numba,
torch or warnings can never corrupt the protocol stream. A ``--model`` that can play no board, or
whose weights are damaged, stops the engine at start-up (stderr, exit status 2).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable

from zeroplay.play.pbrain_engine import PbrainEngine
from zeroplay.play.pbrain_limits import model_error
from zeroplay.play.pbrain_protocol import MAX_LINE
from zeroplay.play.pbrain_turn import DEFAULT_PLAYOUTS

MAX_QUEUED_LINES = 10_000
"""Most lines read ahead of the engine (a search can take a while): past it the reader waits, and
the rest of the input waits in the pipe."""
MAX_QUEUED_CHARS = 16 * 1024 * 1024
"""Most characters read ahead of the engine, as ``MAX_QUEUED_LINES``: 10,000 lines near
``MAX_LINE`` would hold 640 MiB; a manager's lines are short, so only a flood ever waits for it."""
_TOO_LONG = object()
"""What the reader queues for a line over ``MAX_LINE`` characters, in place of its text."""


def run(stdin, write: Callable[[str], None], **engine_options) -> int:
    """Serve the protocol from ``stdin`` until END or end of input; returns 0.

    ``stdin`` is a text stream (read with ``readline``: a line over ``MAX_LINE`` characters is read
    in pieces and dropped, never held whole, and answered with an ERROR) or an iterable of lines.
    A reader thread takes the lines as they come, so that a ``YXSTOP`` sent while the engine
    searches reaches it then (``PbrainEngine.stop_requested``), not after the search. So does an
    ``END`` read while a search runs with no line queued before it (sent after the command that
    searches): the search answers with what it has, then END ends the engine. An END read before
    the search began (a script piped in whole) lets it run in full, and the end of input stops
    nothing."""
    import queue

    engine = PbrainEngine(write, **engine_options)
    lines: queue.Queue = queue.Queue(maxsize=MAX_QUEUED_LINES)  # bounded: a flood waits in the pipe
    room = threading.Condition()
    queued = 0  # characters in ``lines``

    def put(line) -> None:
        nonlocal queued
        size = len(line) if isinstance(line, str) else 0
        with room:
            room.wait_for(lambda: queued == 0 or queued + size <= MAX_QUEUED_CHARS)
            queued += size
        lines.put(line)

    def read() -> None:
        # the end of input, and an END read with lines still queued or before the search began,
        # stop nothing: a script piped in whole has them read at once, and every search before
        # them would answer from a playout. An END read while the search runs and nothing waits
        # ahead of it was sent after that command: the manager wants the engine gone now
        try:
            for line in _bounded_lines(stdin):
                if line is not _TOO_LONG and (_is_stop(line) or _is_end(line) and lines.empty() and engine.searching):
                    engine.stop_requested.set()
                    engine.interrupt_search()  # a threat search under way stops too
                put(line)
        finally:
            lines.put(None)

    threading.Thread(target=read, name="pbrain-reader", daemon=True).start()
    while (line := lines.get()) is not None:
        if line is _TOO_LONG:
            engine.line_too_long()
        else:
            with room:
                queued -= len(line)
                room.notify()
            engine.handle(line)
        if engine.finished:
            break
    return 0


def _bounded_lines(stdin):
    """The lines of ``stdin`` (line ends kept), each at most ``MAX_LINE`` characters before its line
    end; ``_TOO_LONG`` stands for a longer one.

    A stream is read with ``readline(limit)``: an over-long line's rest is read in pieces and
    dropped up to its line end (LF; CR too, as a stream opened with ``newline=""`` splits lines),
    so that memory holds one piece of it at a time."""
    readline = getattr(stdin, "readline", None)
    if readline is None:  # an iterable of lines (tests, callers): they are in memory already
        for line in stdin:
            yield _TOO_LONG if len(line.rstrip("\r\n")) > MAX_LINE else line
        return
    limit = MAX_LINE + 2  # the longest line and CR LF
    while line := readline(limit):
        if len(line) == limit and not line.endswith(("\n", "\r")):
            while line and not line.endswith(("\n", "\r")):
                line = readline(MAX_LINE)
            yield _TOO_LONG
        elif len(line.rstrip("\r\n")) > MAX_LINE:  # MAX_LINE + 1 characters, then its line end
            yield _TOO_LONG
        else:
            yield line


def _is_stop(line: str) -> bool:
    """Whether ``line`` is YXSTOP as the engine's dispatch reads it: the first word, any case,
    words after it ignored (``YXSTOP now`` stopped nothing while idle answers took it)."""
    return _command_word(line) == "YXSTOP"


def _is_end(line: str) -> bool:
    """Whether ``line`` is END as the engine's dispatch reads it (as ``_is_stop``)."""
    return _command_word(line) == "END"


def _command_word(line: str) -> str:
    """The first word of ``line`` in upper case ("" for a blank line)."""
    words = line.split(None, 1)
    return words[0].upper() if words else ""


def main(argv: list[str] | None = None) -> int:
    """``pbrain-zeroplay`` console script: the protocol on stdin/stdout."""
    import argparse

    parser = argparse.ArgumentParser(prog="pbrain-zeroplay", description="zeroplay as a Gomocup (Piskvork) engine")
    add_pbrain_arguments(parser)
    return run_from_args(parser.parse_args(argv))


def add_pbrain_arguments(parser) -> None:
    """Options of ``zeroplay pbrain`` and ``pbrain-zeroplay``."""
    from zeroplay.engine.options import at_least_1, model_argument

    parser.add_argument("--playouts", type=at_least_1, default=DEFAULT_PLAYOUTS,
                        help=f"most playouts per move; the turn time usually stops the search sooner "
                             f"(default {DEFAULT_PLAYOUTS})")
    parser.add_argument("--model", default=None, type=model_argument,
                        help="checkpoint (.safetensors) or shipped model name to play with (default: the "
                             "shipped model, else search only)")
    parser.add_argument("--inference", choices=("numpy", "torch"), default="numpy",
                        help="how the model's net runs: numpy (default) never imports torch, which costs "
                             "about 190 MiB of INFO max_memory; torch searches about 1.3x the playouts a turn "
                             "where memory allows (docs/BENCHMARKS.md)")


def run_from_args(args) -> int:
    """Point fd 1 at stderr (so nothing but replies reach stdout) and serve stdin."""
    sys.stdout.flush()
    reply_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # replies are ASCII: a non-ASCII character quoted back from the input is written \uXXXX
    replies = os.fdopen(reply_fd, "w", encoding="ascii", errors="backslashreplace", newline="\n", buffering=1)

    def write(text: str) -> None:
        replies.write(text + "\n")
        replies.flush()

    stdin = open(sys.stdin.fileno(), encoding="utf-8", errors="replace", newline="", closefd=False)
    # a model that can play no board, or whose weights are damaged, stops the engine before the
    # manager's first command
    inference = getattr(args, "inference", "numpy")
    if args.model is not None and (why := model_error(args.model, load=True, inference=inference)):
        program = "zeroplay pbrain" if getattr(args, "command", None) == "pbrain" else "pbrain-zeroplay"
        print(f"{program}: error: {why}", file=sys.stderr)
        return 2
    try:
        status = run(stdin, write, playouts=args.playouts, model=args.model, inference=inference)
    except KeyboardInterrupt:
        status = 0
    except BrokenPipeError:
        status = 0
        # the buffered reply would fail again when the interpreter closes the stream at exit
        replies = open(os.devnull, "w")
    _exit_if_warming_up(status, replies)
    return status


def _exit_if_warming_up(status: int, replies) -> None:
    """End the process at once when the background warm-up is still running.

    A daemon thread inside numba's LLVM compile (or torch) while the interpreter finalizes makes
    the C++ runtime abort ("terminate called without an active exception", status -6): an END
    soon after start, while the first compile runs, would exit with a crash instead of 0.
    """
    if any(t.name == "pbrain-warm-up" and t.is_alive() for t in threading.enumerate()):
        for stream in (replies, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)


if __name__ == "__main__":
    sys.exit(main())
