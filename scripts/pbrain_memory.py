"""A pbrain turn with INFO max_memory 367001600 and a 30 s turn: playouts, stop reason, peak RSS.
Run from the repository root: PYTHONPATH=src python scripts/pbrain_memory.py (docs/BENCHMARKS.md)."""
import os, subprocess, sys, threading, time
MAX = 367001600
cmd = [sys.executable, "-m", "zeroplay", "pbrain", "--playouts", "100000000"]
p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
err = []
threading.Thread(target=lambda: [err.append(l.rstrip()) for l in p.stderr], daemon=True).start()
peak = [0]
turn_peak = [0]
in_turns = [False]
def watch():
    while p.poll() is None:
        try:
            for line in open(f"/proc/{p.pid}/status"):
                if line.startswith("VmHWM:"):
                    peak[0] = max(peak[0], int(line.split()[1]) * 1024)
                if line.startswith("VmRSS:") and in_turns[0]:
                    turn_peak[0] = max(turn_peak[0], int(line.split()[1]) * 1024)
        except OSError:
            pass
        time.sleep(0.1)
threading.Thread(target=watch, daemon=True).start()
def send(line):
    p.stdin.write(line + "\n"); p.stdin.flush()
def reply():
    while True:
        line = p.stdout.readline().strip()
        if line and not line.startswith(("MESSAGE", "DEBUG")):
            return line
send("START 15"); print("START ->", reply())
t0 = time.time()
while not any(l.startswith("pbrain: ready in") for l in err) and time.time() - t0 < float(os.environ.get("WAIT", "900")):
    time.sleep(1)  # the background warm-up (compile or numba's cache, then the model)
print("warm-up:", round(time.time() - t0), "s;", [l for l in err if "ready in" in l])
in_turns[0] = True
for info in (f"INFO max_memory {MAX}", "INFO timeout_turn 30000", "INFO timeout_match 10000000", "INFO time_left 10000000"):
    send(info)
t = time.time(); send("BEGIN"); print("BEGIN ->", reply(), round(time.time() - t, 1), "s")
t = time.time(); send("TURN 8,7"); print("TURN ->", reply(), round(time.time() - t, 1), "s")
t = time.time(); send("TURN 6,8"); print("TURN ->", reply(), round(time.time() - t, 1), "s")
send("END"); p.wait(timeout=30)
print("peak RSS during the turns (VmRSS sampled every 0.1 s):", turn_peak[0], "bytes =", round(turn_peak[0] / 2**20, 1), "MiB")
print("peak RSS (VmHWM, warm-up compile included):", peak[0], "bytes =", round(peak[0] / 2**20, 1), "MiB; max_memory", MAX, "=", round(MAX / 2**20, 1), "MiB")
print("\n".join(err[-30:]))
