"""BoundKernel: the dispatcher-free call gives the dispatcher's results, and rebinds on change."""

from typing import NamedTuple

import numpy as np
from numba import njit

from zeroplay.search.bound import BoundKernel, _cheap_type


class Pair(NamedTuple):
    a: np.ndarray
    b: np.ndarray


@njit(cache=False)
def _add_into(pair, scale, out, k):
    for i in range(out.shape[0]):
        out[i] = (pair.a[i] + pair.b[i]) * scale + k
    return out.sum()


def _pair(dtype=np.float64):
    return Pair(np.arange(4, dtype=dtype), np.ones(4, dtype=dtype))


def test_bound_call_matches_dispatcher_and_binds():
    k = BoundKernel(_add_into, 2)
    pair, out = _pair(), np.zeros(4)
    assert not k.bound
    first = k(pair, 2.0, out, 1)
    assert k.bound
    again = k(pair, 2.0, out, 1)  # through the entry point
    assert first == again == _add_into.py_func(pair, 2.0, np.zeros(4), 1)
    out2 = np.zeros(4)
    k(pair, 2.0, out2, 3)  # varying arguments of the same types stay bound
    np.testing.assert_array_equal(out2, (pair.a + pair.b) * 2.0 + 3)


def test_new_objects_or_types_go_through_the_dispatcher():
    k = BoundKernel(_add_into, 2)
    pair = _pair()
    k(pair, 2.0, np.zeros(4), 1)
    # another tuple of another dtype: the dispatcher compiles it, the result is right
    ipair = _pair(np.int64)
    out = np.zeros(4, np.int64)
    assert k(ipair, 2.0, out, 1) == int(((ipair.a + ipair.b) * 2 + 1).sum())
    assert k.bound
    # a varying argument whose type changed (float32 out) is not passed to the int64 overload
    out32 = np.zeros(4, np.float32)
    assert k(ipair, 2.0, out32, 1) == np.float32(((ipair.a + ipair.b) * 2 + 1).sum())
    # an int beyond int64 (numba types it uint64) has another signature
    assert _cheap_type(1 << 63) != _cheap_type(1)


def test_without_numba_internals_it_still_calls():
    k = BoundKernel(_add_into, 2)
    pair = _pair()
    k(pair, 2.0, np.zeros(4), 1)

    class NoOverloads:
        """A dispatcher stand-in without numba's overload table."""

        def __call__(self, *args):
            return _add_into(*args)

    k2 = BoundKernel(NoOverloads(), 2)
    assert k2(pair, 2.0, np.zeros(4), 1) == k(pair, 2.0, np.zeros(4), 1)
    assert not k2.bound
