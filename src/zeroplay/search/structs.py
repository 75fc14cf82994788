"""The search's array tuples as numba ``StructRef`` s: one counted pointer per argument.

numba passes a NamedTuple of arrays by value. Every compiled call that takes one, and every
function inlined into a loop (``inline="always"``: numba assigns the arguments), takes and drops a
reference on each of its arrays, with two atomic operations each. ``TreeArrays`` and
``BatchArrays`` (with the threat, defence and Gumbel arrays) hold about 100 arrays, and those
counts were 39-47 % of ``gather``'s time (docs/BENCHMARKS.md, "Go: numba's dispatch and reference
counts"). A ``StructRef`` is one reference-counted pointer to the same arrays: the compiled code
reads ``tree.node_n`` the same way, and a call counts one reference.

``as_struct(tuple)`` builds the ``StructRef`` of a search tuple; its fields are the tuple's very
arrays (no copy), so compiled writes through it are seen through the tuple, which Python code keeps
reading. Nested search tuples (``BatchArrays.threats``, ...) become ``StructRef`` s too. A tuple
whose array is replaced needs a new ``as_struct`` (``StructCache``).

The types are defined at import, at module level under fixed names, so numba's on-disk cache can
pickle them by reference (a type made inside a function could not be cached).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from numba import njit, types
from numba.core.extending import overload
from numba.experimental import structref

from zeroplay.search.defence import DefenceArrays
from zeroplay.search.gather import BatchArrays
from zeroplay.search.gumbel import GumbelArrays
from zeroplay.search.threats import ThreatArrays
from zeroplay.search.tree import TreeArrays
from zeroplay.solvers.vcf_kernels import VcfWork, VctWork
from zeroplay.tt.ab_table import ABTable
from zeroplay.tt.node_table import NodeTable

_PROXIES: dict[type, type] = {}
_NUMBA_TYPES: dict[type, type] = {}


def _preprocess_fields(self, fields):
    # a literal (e.g. an int field) would make every value its own type
    return tuple((name, types.unliteral(t)) for name, t in fields)


def _define(cls: type[NamedTuple]) -> type:
    """Register ``<Name>StructType`` (numba) and its proxy ``<Name>Struct`` for a NamedTuple."""
    name = f"{cls.__name__}Struct"
    numba_type = type(f"{name}Type", (types.StructRef,),
                      {"preprocess_fields": _preprocess_fields, "__module__": __name__})
    structref.register(numba_type)
    proxy = type(name, (structref.StructRefProxy,), {"__module__": __name__, "__slots__": ()})
    structref.define_proxy(proxy, numba_type, list(cls._fields))
    globals()[numba_type.__name__] = numba_type
    globals()[name] = proxy
    _PROXIES[cls] = proxy
    _NUMBA_TYPES[cls] = numba_type
    return proxy


for _cls in (TreeArrays, NodeTable, BatchArrays, ThreatArrays, DefenceArrays, GumbelArrays, ABTable, VcfWork,
             VctWork):
    _define(_cls)


def _to_struct(value):
    """Compiled-only: the ``StructRef`` of a search tuple (see ``_to_struct_overload``)."""
    raise NotImplementedError("_to_struct runs in compiled code only; use as_struct")


def _registered(numba_type: Any) -> type | None:
    """The registered tuple class of a numba NamedTuple type, else None."""
    if not isinstance(numba_type, types.BaseNamedTuple):
        return None
    cls = getattr(numba_type, "instance_class", None)
    return cls if cls in _PROXIES else None


def _struct_type(tuple_type: Any) -> Any:
    """The numba ``StructRef`` type for a numba NamedTuple type of a registered tuple class."""
    cls = tuple_type.instance_class
    fields = []
    for name, field_type in zip(cls._fields, tuple_type.types):
        if _registered(field_type) is not None:
            field_type = _struct_type(field_type)
        fields.append((name, field_type))
    return _NUMBA_TYPES[cls](fields)


@overload(_to_struct)
def _to_struct_overload(value):
    cls = _registered(value)
    if cls is None:
        return None
    struct_type = _struct_type(value)
    nested = {name for name, t in zip(cls._fields, value.types) if _registered(t) is not None}
    # one assignment per field, generated: a StructRef's fields are set by name
    lines = ["def impl(value):", "    s = new(struct_type)"]
    lines += [f"    s.{n} = to_struct(value.{n})" if n in nested else f"    s.{n} = value.{n}" for n in cls._fields]
    lines.append("    return s")
    scope = {"new": structref.new, "struct_type": struct_type, "to_struct": _to_struct}
    exec("\n".join(lines), scope)  # noqa: S102 (our own field names, not input)
    return scope["impl"]


@njit(cache=True)
def _as_struct(value):
    return _to_struct(value)


def as_struct(value: Any) -> Any:
    """The ``StructRef`` of a search tuple (``TreeArrays``, ``NodeTable``, ``BatchArrays``,
    ``ThreatArrays``, ``DefenceArrays``, ``GumbelArrays``, and the threat solver's ``ABTable``,
    ``VcfWork``, ``VctWork``), its fields the tuple's own arrays; nested ones converted too.
    Compiled once per tuple type and cached on disk (numba's own constructors of a proxy are
    compiled anew in every process: 4 s for these types).

    Raises:
        TypeError: ``value`` is not one of those tuples.
    """
    if type(value) not in _PROXIES:
        raise TypeError(f"as_struct takes a search tuple ({', '.join(c.__name__ for c in _PROXIES)}), "
                        f"got {type(value).__name__}")
    return _as_struct(value)


class StructCache:
    """The ``StructRef`` of the tuple last given, built again only when another tuple object comes
    (a ``_replace`` or a new search's arrays): ``get(t)`` costs an identity check."""

    __slots__ = ("_source", "_struct")

    def __init__(self) -> None:
        self._source: Any = None
        self._struct: Any = None

    def get(self, value: Any) -> Any:
        if value is not self._source:
            self._struct = as_struct(value)
            self._source = value
        return self._struct
