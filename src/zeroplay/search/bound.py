"""Calling a compiled kernel without numba's per-call type dispatch.

A numba dispatcher types every argument on every call to pick the compiled overload. The search's
kernels take tuples of many arrays (``TreeArrays``, ``BatchArrays`` with the threat, defence and
Gumbel arrays: about 100), and typing them cost 11 of ``gather``'s 15.5 us a call on 9x9 Go
(measured: a call that queues no leaf, dispatcher 15.4 us, the overload's entry point 4.7 us).
Self-play calls ``gather`` and ``finish`` once per game per round, a few hundred times a second.
(Since the searcher passes those tuples as ``StructRef`` s, ``search/structs.py``, the dispatcher
has a dozen arguments to type, not 100; the direct call still skips that.)

``BoundKernel`` calls the overload's entry point directly (it still unboxes the arguments) while
the leading arguments are the very objects of the call that found it (or ndarrays of the same
dtype, rank and flags) and the others have the same cheap type signature; anything else goes
through the dispatcher, which compiles or picks as usual, and binds again. If numba's internals do
not expose the overload (``overloads``, ``entry_point``, ``typeof_pyval``), every call goes through
the dispatcher: slower, never wrong.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _cheap_type(a: Any) -> Any:
    """What decides numba's type of a varying argument: an ndarray's dtype, rank and flags; an
    int's range (numba types a Python int above int64 as uint64); otherwise the Python type."""
    if isinstance(a, np.ndarray):
        f = a.flags
        layout = "C" if f.c_contiguous else ("F" if f.f_contiguous else "A")  # numba's order
        return (a.dtype.str, a.ndim, layout, f.writeable, f.aligned)
    if type(a) is int:
        return int if _INT64_MIN <= a <= _INT64_MAX else (int, "big")
    return type(a)


class BoundKernel:
    """A numba dispatcher whose overload is remembered for the same leading argument objects.

    Args:
        dispatcher: a numba-compiled function (its dispatcher).
        fixed: how many leading arguments are compared by identity (the searcher's tuples and
            position arrays); the bound overload is kept alive with them, so an identity match
            means the same object and so the same type. A plain ndarray there may also be
            replaced by one of the same ``_cheap_type`` (its numba type is the same). The other arguments are checked by
            ``_cheap_type`` on every call.

    Calls return what the kernel returns and raise what it raises.
    """

    __slots__ = ("_dispatcher", "_fixed_count", "_fixed", "_varying", "_entry")

    def __init__(self, dispatcher: Any, fixed: int) -> None:
        self._dispatcher = dispatcher
        self._fixed_count = fixed
        self._fixed: tuple | None = None
        self._varying: tuple | None = None
        self._entry: Any = None

    @property
    def bound(self) -> bool:
        """True once a call found the overload (the next matching call skips the dispatcher)."""
        return self._entry is not None

    def __call__(self, *args: Any) -> Any:
        n = self._fixed_count
        fixed = self._fixed
        if self._entry is not None and fixed is not None and len(args) == n + len(self._varying or ()):
            same, renewed = True, False
            for a, b in zip(args, fixed):
                if a is not b:
                    # a new ndarray typed like the old one (a new search's position arrays) will do
                    if type(a) is np.ndarray and type(b) is np.ndarray and _cheap_type(a) == _cheap_type(b):
                        renewed = True
                        continue
                    same = False
                    break
            if same and tuple(_cheap_type(a) for a in args[n:]) == self._varying:
                if renewed:
                    self._fixed = tuple(args[:n])
                return self._entry(*args)
        out = self._dispatcher(*args)
        self._bind(args)
        return out

    def _bind(self, args: tuple) -> None:
        self._entry = self._fixed = self._varying = None
        try:
            sig = tuple(self._dispatcher.typeof_pyval(a) for a in args)
            cres = self._dispatcher.overloads.get(sig)
            entry = cres.entry_point if cres is not None else None
        except Exception:  # numba internals changed: keep dispatching  # noqa: BLE001
            return
        if entry is None:
            return
        self._fixed = tuple(args[: self._fixed_count])
        self._varying = tuple(_cheap_type(a) for a in args[self._fixed_count :])
        self._entry = entry
