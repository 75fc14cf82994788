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
from zeroplay.play.pbrain_turn import DEFAULT_PLAYOUTS


def run(stdin, write: Callable[[str], None], **engine_options) -> int:
    """Serve the protocol from ``stdin`` (a text stream) until END or end of input; returns 0.

    A reader thread takes the lines as they come, so that a ``YXSTOP`` sent while the engine
    searches reaches it then (``PbrainEngine.stop_requested``), not after the search."""
    import queue

    engine = PbrainEngine(write, **engine_options)
    lines: queue.Queue = queue.Queue(maxsize=10_000)  # bounded: a flood waits in the pipe

    def read() -> None:
        # END and the end of input do not stop a search: a script piped in whole has them read
        # at once, and every search before them would answer from a playout
        try:
            for line in stdin:
                if _is_stop(line):
                    engine.stop_requested.set()
                    engine.interrupt_search()  # a threat search under way stops too
                lines.put(line)
        finally:
            lines.put(None)

    threading.Thread(target=read, name="pbrain-reader", daemon=True).start()
    while (line := lines.get()) is not None:
        engine.handle(line)
        if engine.finished:
            break
    return 0


def _is_stop(line: str) -> bool:
    """Whether ``line`` is YXSTOP as the engine's dispatch reads it: the first word, any case,
    words after it ignored (``YXSTOP now`` stopped nothing while idle answers took it)."""
    words = line.split(None, 1)
    return bool(words) and words[0].upper() == "YXSTOP"


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
    replies = os.fdopen(reply_fd, "w", encoding="ascii", errors="replace", newline="\n", buffering=1)

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
        status = run(_lines(stdin), write, playouts=args.playouts, model=args.model, inference=inference)
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


def _lines(stream):
    """Lines of ``stream``, split on LF (CR before it is stripped later), read as they arrive."""
    while True:
        line = stream.readline()
        if not line:
            return
        yield line


if __name__ == "__main__":
    sys.exit(main())
