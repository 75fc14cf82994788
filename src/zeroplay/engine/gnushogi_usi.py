"""GNU Shogi behind USI, so that ``python -m cshogi.cli`` and the arena (``usi:COMMAND``) can
play it: ``python -m zeroplay.engine.gnushogi_usi [--level 'MOVES MINUTES'] [--gnushogi PATH]``.

GNU Shogi (Debian package ``gnushogi``) speaks its own line protocol (xshogi mode): moves in the
same coordinates as USI (``7g7f``, ``2b3a+``, ``P*5e``), ``new``, ``force`` (enter moves for
both sides; given again it ends force mode), ``go`` (the program moves for the side to move)
and prints its own move as ``N. ... MOVE``. Each ``go`` here starts GNU Shogi afresh and replays the game
(``force``, the moves, ``force``, ``go``); only ``position startpos [moves ...]`` is
supported (a ``position sfen`` is answered with ``info string`` and ``bestmove resign``). The time
per move is set by GNU Shogi's time-control arguments (``--level "512 8"``: 512 moves in 8 minutes,
about 1 s a move, every ``go`` starting a fresh clock; the shortest we found practical). ``--depth N``
sends GNU Shogi's ``depth`` command with N first: the search stops after N plies (plus its own check and capture
extensions) or at the clock, whichever comes first; ``--depth 1`` is its weakest setting, which answers in
well under 0.1 s. A reply we cannot read as a legal move is reported as ``bestmove resign``.
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import subprocess
import sys
import threading

# not anchored: after ``depth`` GNU Shogi's prompt "depth = " stays on the line its first move is printed on
_MOVE = re.compile(r"(?:^|\s)\d+\.\s+\.\.\.\s+(\S+)")


class GnuShogi:
    """GNU Shogi, one fresh process per move (its clock then starts full at every ``go``)."""

    def __init__(self, path: str, level: str, depth: int | None = None):
        if depth is not None and not 1 <= depth <= 29:
            raise ValueError(f"GNU Shogi's depth must be 1..29, got {depth}")
        self.argv = [path, *level.split()]
        # "depth" and its number on two lines: given "depth 1" on one, GNU Shogi took the depth
        # but then never answered ``go`` while its input stayed open; no input may be left
        # pending during its search either (it polls input and cuts the search short when any waits)
        self.setup = [] if depth is None else ["depth", str(depth)]
        self.log = open(os.environ["GNUSHOGI_USI_LOG"], "a") if os.environ.get("GNUSHOGI_USI_LOG") else None

    def best_move(self, usi_moves, timeout: float) -> str | None:
        """GNU Shogi's move after ``usi_moves`` from the start, None when it gives none."""
        proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, bufsize=1)
        lines: queue.Queue = queue.Queue()

        def read():
            for line in proc.stdout:
                lines.put(line.strip())
            lines.put(None)

        threading.Thread(target=read, daemon=True).start()
        try:
            proc.stdin.write("\n".join([*self.setup, "force", *usi_moves, "force", "go"]) + "\n")
            proc.stdin.flush()
            while True:
                try:
                    line = lines.get(timeout=timeout)
                except queue.Empty:
                    return None
                if line is None:
                    return None
                match = _MOVE.search(line)
                if match:
                    return match.group(1)
                if self.log is not None:
                    self.log.write(line + "\n")
                    self.log.flush()
                if line.lower().startswith("illegal") or "resign" in line.lower() or "mate" in line.lower():
                    return None
        finally:
            try:
                proc.stdin.write("quit\n")
                proc.stdin.flush()
                proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()


def serve(stdin, write, *, path: str, level: str, depth: int | None = None, timeout: float = 30.0) -> int:
    from zeroplay.games.shogi import Shogi

    game = Shogi(max_moves=100_000)
    engine = None
    state = game.initial()
    for raw in stdin:
        words = raw.split()
        if not words:
            continue
        command = words[0]
        if command == "usi":
            write("id name GNU Shogi (zeroplay USI adapter)")
            write("id author the GNU Shogi authors; adapter by zeroplay")
            write("usiok")
        elif command == "isready":
            if engine is None:
                engine = GnuShogi(path, level, depth)
            write("readyok")
        elif command == "position":
            try:
                if len(words) < 2 or words[1] != "startpos":
                    raise ValueError("only position startpos [moves ...] is supported")
                state = game.from_usi(" ".join(words[1:]))
            except ValueError as e:
                write(f"info string {e}")
                state = None
        elif command == "go":
            if engine is None:
                engine = GnuShogi(path, level, depth)
            move = engine.best_move(state.usi_moves, timeout=timeout) if state is not None else None
            try:
                if move is None:
                    raise ValueError("no move")
                state.parse_move(move)
            except (ValueError, AttributeError):
                move = "resign"
            write(f"info depth 1 score cp 0 pv {move}")
            write(f"bestmove {move}")
        elif command == "quit":
            break
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m zeroplay.engine.gnushogi_usi", description="GNU Shogi as a USI engine")
    p.add_argument("--level", default="512 8",
                   help="GNU Shogi's time control arguments: MOVES MINUTES (default '512 8': about 1 s a move, "
                        "each move searched as the start of a new game's clock)")
    p.add_argument("--depth", type=int, default=None,
                   help="GNU Shogi's search depth limit in plies, 1..29 (default: none, the clock decides); 1 is its weakest")
    p.add_argument("--gnushogi", default="/usr/games/gnushogi", help="the gnushogi program (default /usr/games/gnushogi)")
    a = p.parse_args(argv)

    def write(line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    return serve(iter(sys.stdin.readline, ""), write, path=a.gnushogi, level=a.level, depth=a.depth)


if __name__ == "__main__":
    sys.exit(main())
