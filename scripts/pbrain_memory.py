"""A Gomocup session as a tournament runs it: START, INFO max_memory 367001600, 30 s turns.

Reports the time from the process start (and from START) to the first model-backed search, the
resident memory at each stage of start-up (from /proc/PID/status, sampled every 0.05 s and at
each of the engine's stderr lines), and per turn: the playouts, the search time and why it
stopped, the engine that searched; then the peak RSS during the turns and over the whole process
(VmHWM). Run from the repository root (docs/BENCHMARKS.md, "Gomocup turn"):

    PYTHONPATH=src python scripts/pbrain_memory.py [--inference numpy|torch] [--turns 3] [--turn-ms 30000]
        [--rule 1]
"""
import argparse
import subprocess
import sys
import threading
import time

MAX = 367001600
ap = argparse.ArgumentParser()
ap.add_argument("--inference", default=None, help="passed to pbrain (absent: pbrain's default)")
ap.add_argument("--turns", type=int, default=3)
ap.add_argument("--turn-ms", type=int, default=30000)
ap.add_argument("--rule", type=int, default=None, help="INFO rule before the turns (1: exactly five, no shipped "
                "model: the search-only engine's fast playouts fill the tables)")
ap.add_argument("--wait", type=float, default=900, help="most seconds to wait for the warm-up")
args = ap.parse_args()

cmd = [sys.executable, "-m", "zeroplay", "pbrain", "--playouts", "100000000"]
cmd += ["--inference", args.inference] if args.inference else []
t_spawn = time.perf_counter()
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)


def status(key):
    try:
        for line in open(f"/proc/{p.pid}/status"):
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


err = []  # (seconds since spawn, line, VmRSS then)


def read_err():
    for line in p.stderr:
        err.append((time.perf_counter() - t_spawn, line.rstrip(), status("VmRSS")))


threading.Thread(target=read_err, daemon=True).start()
turn_peak = [0]
in_turns = [False]


def watch():
    while p.poll() is None:
        rss = status("VmRSS")
        if in_turns[0]:
            turn_peak[0] = max(turn_peak[0], rss)
        time.sleep(0.05)


threading.Thread(target=watch, daemon=True).start()


def send(line):
    p.stdin.write(line + "\n")
    p.stdin.flush()


def reply():
    while True:
        line = p.stdout.readline().strip()
        if line and not line.startswith(("MESSAGE", "DEBUG")):
            return line


def mib(n):
    return f"{n / 2**20:.1f} MiB"


send("START 15")
t_start = time.perf_counter()
print("START ->", reply(), f"({t_start - t_spawn:.2f} s after spawn)")
while not any(e[1].startswith("pbrain: ready in") for e in err) and time.perf_counter() - t_start < args.wait:
    time.sleep(0.05)
for t, line, rss in err:
    print(f"  {t:7.2f} s after spawn, {t - (t_start - t_spawn):7.2f} s after START, VmRSS {mib(rss)}: {line}")
try:
    maps = open(f"/proc/{p.pid}/maps").read()
    print("torch loaded in the process:", "libtorch" in maps)
except OSError:
    pass
print("VmRSS before the turns:", mib(status("VmRSS")), "; VmHWM so far:", mib(status("VmHWM")))
in_turns[0] = True
infos = [f"INFO rule {args.rule}"] if args.rule is not None else []
infos += [f"INFO max_memory {MAX}", f"INFO timeout_turn {args.turn_ms}", "INFO timeout_match 10000000",
          "INFO time_left 10000000"]
for info in infos:
    send(info)
moves = ["BEGIN", "TURN 8,7", "TURN 6,8", "TURN 9,9", "TURN 5,5", "TURN 10,4"]
for move in moves[: args.turns]:
    n = len(err)
    t = time.perf_counter()
    send(move)
    answer = reply()
    print(f"{move} -> {answer} in {time.perf_counter() - t:.1f} s")
    time.sleep(0.2)
    for _, line, _ in err[n:]:
        print("   ", line)
in_turns[0] = False
hwm = status("VmHWM")
send("END")
p.wait(timeout=60)
print(f"peak VmRSS during the turns (sampled every 0.05 s): {turn_peak[0]} bytes = {mib(turn_peak[0])}")
print(f"process VmHWM (start-up included): {hwm} bytes = {mib(hwm)}; max_memory {MAX} = {mib(MAX)}")
print("target met (turn peak < max_memory):", turn_peak[0] < MAX, "; whole process:", hwm < MAX)
