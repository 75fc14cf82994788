"""Games behind one API: ``make(name, **options) -> Game``; see ``zeroplay.games.api``."""

from __future__ import annotations

from collections.abc import Callable

from zeroplay.files import numba_cache
from zeroplay.games import registry
from zeroplay.games.api import FEATURE_SETS, FastKernels, FastPosition, Game, IllegalMoveError, State
from zeroplay.games.symmetry import Symmetry

numba_cache.install()  # before any kernel compiles or loads (at its first call): files/numba_cache.py
_REGISTRY: dict[str, Callable[..., Game]] = registry.factories()


def register(name: str, factory: Callable[..., Game]) -> None:
    """Add a game under ``name`` at run time (later registrations replace earlier ones).

    Such a game plays through its Python methods; a game whose kernels the compiled search
    should run is a package listed in ``games/registry.py``.
    """
    _REGISTRY[name] = factory


def names() -> list[str]:
    """Registered game names."""
    return sorted(_REGISTRY)


def option_names(name: str) -> list[str]:
    """The options ``make(name, ...)`` accepts (``size`` first for a game with ``width`` and
    ``height``), e.g. ``["size", "width", "height", "n_in_row", "rule"]`` for Gomoku, ``[]`` for
    Connect Four, and ``[]`` for a name that is not registered (``make`` says so)."""
    if name not in _REGISTRY:
        return []
    import inspect

    accepted = [p for p in inspect.signature(_REGISTRY[name]).parameters
                if not p.startswith("_") and p not in ("self", "args", "kwargs")]
    if {"width", "height"} <= set(accepted):
        accepted.insert(0, "size")
    return accepted


def board_sizes(name: str) -> tuple[int, int] | None:
    """The square board sides (inclusive) a person may choose for the game ``name``
    (``Game.board_sizes``), or None: no size option, a factory that is not a Game class, or a
    name that is not registered."""
    factory = _REGISTRY.get(name)
    sizes = getattr(factory, "board_sizes", None) if isinstance(factory, type) else None
    return None if sizes is None else (int(sizes[0]), int(sizes[1]))


def make(name: str, **options) -> Game:
    """The game ``name`` with its options, e.g. ``make("gomoku", width=15, height=15, rule="standard")``.

    ``size=S`` is accepted as a shorthand for ``width=S, height=S``.

    Raises:
        ValueError: unknown name.
    """
    if name not in _REGISTRY:
        raise ValueError(f"unknown game {name!r}; known: {', '.join(names())}")
    accepted = option_names(name)
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ValueError(f"{name} has no option {', '.join(unknown)} "
                         f"({'it takes: ' + ', '.join(accepted) if accepted else 'it takes none'})")
    if "size" in options:
        size = options.pop("size")
        options.setdefault("width", size)
        options.setdefault("height", size)
    try:
        return _REGISTRY[name](**options)
    except TypeError as e:
        raise ValueError(f"bad options for {name!r}: {e}") from None


__all__ = [
    "FEATURE_SETS",
    "FastKernels",
    "FastPosition",
    "Game",
    "IllegalMoveError",
    "State",
    "Symmetry",
    "board_sizes",
    "make",
    "names",
    "option_names",
    "register",
]

