"""Recount a 9x9 match record (komi 7) with GNU Go: for each game, the recorded winner (the
Tromp-Taylor count: every stone on the board alive) against GNU Go's own ``final_score`` of the
final position (its dead-stone judgement, level 1, Chinese rules). Prints the games that differ.

    .venv/bin/python training/go/recount_with_gnugo.py training/strength/games/go-9x9/FILE.jsonl
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from zeroplay.games import make


class Gnugo:
    def __init__(self):
        exe = shutil.which("gnugo") or "/usr/games/gnugo"
        self.proc = subprocess.Popen([exe, "--mode", "gtp", "--chinese-rules", "--level", "1"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, command: str) -> str:
        """The reply's text without its ``= `` (raises on ``?``)."""
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines: list[str] = []
        while True:
            line = self.proc.stdout.readline()
            if not line.strip() and lines:
                break
            lines.append(line.rstrip())
        reply = "\n".join(lines)
        if not reply.startswith("="):
            raise RuntimeError(f"GNU Go: {command}: {reply}")
        return reply[1:].strip()


def main(path: str) -> int:
    game = make("go", size=9, komi=7.0)
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f][1:]  # the first line is the match header
    gnugo = Gnugo()
    differ = 0
    for row in rows:
        for command in ("boardsize 9", "clear_board", "komi 7"):
            gnugo.ask(command)
        for i, move in enumerate(row["moves"]):
            gnugo.ask(f"play {'bw'[i % 2]} {game.format_move(move)}")
        score = gnugo.ask("final_score")
        counted = 0 if score.startswith("B") else 1 if score.startswith("W") else None
        recorded = row["winner"]
        if counted != recorded:
            differ += 1
            won = "a draw" if recorded is None else "zeroplay" if (recorded == 0) == row["a_is_black"] else "GNU Go"
            end = "two passes" if row["moves"][-2:] == [game.pass_action] * 2 else "another end"
            print(f"game {row['game']}: recorded {'draw' if recorded is None else 'BW'[recorded] + ' won'} "
                  f"({won}), GNU Go counts {score}; the game ended by {end}", flush=True)
    print(f"{len(rows) - differ} agree, {differ} differ of {len(rows)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
