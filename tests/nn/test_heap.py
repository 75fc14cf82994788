"""``nn.heap.keep_heap``: glibc's malloc keeps freed memory, so batches stop costing page faults."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

CHECK = "from zeroplay.nn.heap import keep_heap; print(keep_heap(), keep_heap())"


def _run(env_value: str | None) -> str:
    env = dict(os.environ)
    env.pop("ZEROPLAY_KEEP_HEAP", None)
    if env_value is not None:
        env["ZEROPLAY_KEEP_HEAP"] = env_value
    out = subprocess.run([sys.executable, "-c", CHECK], env=env, capture_output=True, text=True, check=True)
    return out.stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_keep_heap_sets_the_thresholds_once_and_the_variable_turns_it_off():
    import platform

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("not glibc")
    assert _run(None) == "True True"  # set, and the second call reports the first's outcome
    assert _run("0") == "False False"
    assert _run("off") == "False False" and _run("False") == "False False"  # (a new user's "off")


def test_building_an_evaluator_keeps_the_heap():
    import torch

    from zeroplay.nn import heap
    from zeroplay.nn.evaluator import NetEvaluator

    class Tiny(torch.nn.Module):
        def forward(self, x):
            return torch.zeros(len(x), 4), torch.zeros(len(x))

    NetEvaluator(Tiny(), "basic")
    assert heap._done is not None  # asked once; later evaluators do not ask again
