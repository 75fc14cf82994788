"""numba's reference counting of a tuple of arrays passed to an inlined function (BENCHMARKS.md,
"Go: numba's dispatch and reference counts").

An inlined function takes a reference on every array of a tuple argument; LLVM's pruning of those
pairs fails when the inlined body has a loop and a call, so each call pays two atomic operations per
array. The same function as a plain call, or the tuple as a numba ``StructRef`` (one counted
pointer), pays far less. Prints nanoseconds per call for each; run:

    .venv/bin/python scripts/refcount_tuple_bench.py
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.experimental import structref

FIELDS = [f"a{i}" for i in range(20)]
Arrays = NamedTuple("Arrays", [(f, np.ndarray) for f in FIELDS])  # type: ignore[misc]


@structref.register
class ArraysRefType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class ArraysRef(structref.StructRefProxy):
    pass


structref.define_proxy(ArraysRef, ArraysRefType, FIELDS)


@njit
def opaque(x):
    return x + 1.0


@njit
def bump(a, i):
    a[i] += 1.0
    return a[i]


def branchy(t, i):
    if t.a2[i] > 5.0:
        return opaque(t.a2[i])
    for j in range(3):
        if t.a4[j] > 1.0:
            return 1.0
    return t.a3[i]


def make_loop(inlined: bool):
    """A compiled loop calling ``branchy`` inlined (numba IR inlining) or as a plain call."""
    step = njit(inline="always" if inlined else "never")(branchy)

    @njit
    def loop(t, n):
        s = 0.0
        for k in range(n):
            s += step(t, k % 100)
            s += bump(t.a1, k % 100)
        return s
    return loop


def main(n: int = 2_000_000) -> None:
    arrays = [np.zeros(100) for _ in FIELDS]
    loop_inlined, loop_called = make_loop(True), make_loop(False)
    cases = [("namedtuple, inlined", loop_inlined, Arrays(*arrays)),
             ("namedtuple, plain call", loop_called, Arrays(*arrays)),
             ("StructRef, inlined", loop_inlined, ArraysRef(*arrays))]
    for name, loop, t in cases:
        loop(t, 10)  # compile
        t0 = time.perf_counter()
        loop(t, n)
        print(f"{name:24s} {1e9 * (time.perf_counter() - t0) / n:7.1f} ns a call")


if __name__ == "__main__":
    main()
