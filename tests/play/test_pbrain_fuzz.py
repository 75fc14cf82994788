"""Fuzzing the Gomocup engine: random and mutated lines never crash it, hang it or put anything
but protocol replies on stdout, and it still answers a correct move afterwards.

The CI slice is a few thousand lines; ``scripts/fuzz_pbrain.py`` runs 100,000+.
"""

from __future__ import annotations

import random
import subprocess
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from play_helpers import PBRAIN, Engine
from zeroplay.play.fuzz import REPLY, junk_line, mutate, random_lines, reset_and_check, valid_like_line


@st.composite
def protocol_lines(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    kind = draw(st.sampled_from(["valid", "mutated", "junk", "text"]))
    if kind == "valid":
        line = valid_like_line(rng)
    elif kind == "mutated":
        line = mutate(valid_like_line(rng), rng)
    elif kind == "junk":
        line = junk_line(rng)
    else:
        line = draw(st.text(max_size=40))
    if line.strip().upper().startswith("END"):
        line = "X" + line
    return line + draw(st.sampled_from(["\n", "\r\n"]))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(protocol_lines(), min_size=1, max_size=40))
def test_fuzz_in_process(warm, lines):
    e = Engine(playouts=8)
    for line in lines:
        e.engine.handle(line)
        assert not e.engine.finished
    assert all(REPLY.match(r) for r in e.replies), e.replies
    assert reset_and_check(e.engine, e.replies) is None


def test_fuzz_subprocess_stdout_is_protocol_only(warm, tmp_path):
    """2,000 random lines through a real process: only reply lines, then a correct move."""
    rng = random.Random(8)
    lines = list(random_lines(rng, 2000))
    tail = ["DONE\n", "INFO rule 1\n", "INFO timeout_turn 0\n", "START 15\n", "BOARD\n",
            "3,5,1\n", "4,5,1\n", "5,5,1\n", "6,5,1\n", "8,5,1\n",
            "0,14,2\n", "2,14,2\n", "4,14,2\n", "6,14,2\n", "8,14,2\n", "DONE\n", "END\n"]
    data = "".join(lines + tail).encode("utf-8", errors="surrogatepass")
    t0 = time.monotonic()
    proc = subprocess.run(PBRAIN + ["--playouts", "16"], input=data, capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout.decode("ascii").splitlines()
    bad = [line for line in out if not REPLY.match(line)]
    assert not bad, bad[:5]
    assert out[-1] == "2,5"
    assert time.monotonic() - t0 < 600
