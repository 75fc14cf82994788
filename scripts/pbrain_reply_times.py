"""Reply times of the real ``pbrain-zeroplay`` at short ``timeout_turn``, on positions where the VCT
guard acts (docs/THREATS.md, "The VCT guard"): each BOARD is sent at each turn time three times,
and the time from DONE to the move line is printed with LATE where it passes the turn.

    .venv/bin/python scripts/pbrain_reply_times.py [TURN_MS ...]      # default 300 500 1000 2000

The engine is given 90 s after START to load its model and compile (until then it answers with
a quick heuristic move, which would time nothing).
"""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

POSITIONS = {  # 15x15 free-style, moves from the empty board
    # game 79 of training/strength/games/gomoku-15x15-iter83, White to move: d8 and d6 lose to a VCT
    "g79": "g8 f8 f9 h7 h9 f7 g9 i9 i7 g10 j8 h8 j10 h6 j9 j11 i5 f6 j6 j7 h4 k7 f5 e6 g6 g7 e5 e9 d10 e7 d7",
    "g45p9": "h7 h6 g6 g7 f8 f7 e7 g9 e6",  # game 45 at ply 9
}
MOVE = re.compile(r"^\d+,\d+$")


def board_lines(moves: list[str], size: int = 15) -> list[str]:
    """BOARD lines: 1 for the side to move's stones, 2 for the other's; x = column, y = row from the top."""
    me = len(moves) % 2
    return [f"{ord(m[0]) - ord('a')},{size - int(m[1:])},{1 if i % 2 == me else 2}" for i, m in enumerate(moves)]


def main(argv: list[str]) -> None:
    exe = Path(sys.executable).with_name("pbrain-zeroplay")
    proc = subprocess.Popen([str(exe)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, bufsize=1, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put((time.perf_counter(), ln.strip())) for ln in proc.stdout],
                     daemon=True).start()

    def send(*text: str) -> float:
        proc.stdin.write("".join(t + "\n" for t in text))
        proc.stdin.flush()
        return time.perf_counter()

    def until(pred, sent: float) -> tuple[str, float]:
        while True:
            at, line = lines.get(timeout=120)
            if pred(line):
                return line, at - sent

    until(lambda ln: ln == "OK", send("START 15"))
    time.sleep(90)
    for name, text in POSITIONS.items():
        for turn in [int(a) for a in argv] or [300, 500, 1000, 2000]:
            for _ in range(3):
                send(f"INFO timeout_turn {turn}")
                move, took = until(lambda ln: bool(MOVE.match(ln)) or ln.startswith("ERROR"),
                                   send("BOARD", *board_lines(text.split()), "DONE"))
                print(f"{name} {turn} ms: {move} in {1000 * took:.0f} ms{' LATE' if 1000 * took > turn else ''}",
                      flush=True)
    send("END")
    proc.wait(10)


if __name__ == "__main__":
    main(sys.argv[1:])
