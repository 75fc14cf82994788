"""Recount a 9x9 match record (komi 7) with GNU Go: for each game, the recorded winner (the
Tromp-Taylor count: every stone on the board alive) against GNU Go's own ``final_score`` of the
final position (its dead-stone judgement, level 1, Chinese rules). Prints the games that differ.

    .venv/bin/python training/go/recount_with_gnugo.py training/strength/games/go-9x9/FILE.jsonl
"""
import json
import shutil
import subprocess
import sys

from zeroplay.games import make

path = sys.argv[1]
game = make("go", size=9, komi=7.0)
rows = [json.loads(l) for l in open(path)][1:]
gg = subprocess.Popen([shutil.which("gnugo") or "/usr/games/gnugo", "--mode", "gtp", "--chinese-rules", "--level", "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def ask(cmd):
    gg.stdin.write(cmd + "\n"); gg.stdin.flush()
    out = []
    while True:
        line = gg.stdout.readline()
        if line.strip() == "" and out: break
        out.append(line.rstrip())
    return "\n".join(out)
same = differ = 0
for r in rows:
    ask("boardsize 9"); ask("clear_board"); ask("komi 7")
    color = "b"
    for i, m in enumerate(r["moves"]):
        a = ask(f"play {color} {game.format_move(m)}")
        assert a.startswith("="), (r["game"], i, a)
        color = "w" if color == "b" else "b"
    s = ask("final_score")[2:]
    g_winner = 0 if s.startswith("B") else 1 if s.startswith("W") else None
    tt = r["winner"]
    ended = "two passes" if r["moves"][-2:] == [81, 81] else "other"
    ours = "draw" if tt is None else "zeroplay" if (tt == 0) == r["a_is_black"] else "GNU Go"
    if g_winner == tt: same += 1
    else:
        differ += 1
        print(f"game {r['game']}: recorded winner {'BW'[tt] if tt is not None else '-'} ({ours}), GNU Go counts {s}, end {ended}", flush=True)
print(f"{same} agree, {differ} differ of {len(rows)}", flush=True)
