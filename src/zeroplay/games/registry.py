"""The games zeroplay knows: a game is one folder under ``games/`` and one name in ``PACKAGES``.

A game package exports ``GAMES`` (registry name -> factory taking the game's options) and
``KERNELS`` (its compiled kernels, ``games.api.FastKernels``, or None when its rules are not
compiled). The compiled search dispatches on ``params[P_FAMILY]``, the index of the game's
kernels among the compiled packages (``games/fast.py``).
"""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType

PACKAGES = (
    "gomoku",
    "connect4",
    "othello",
    "go",
    "shogi",
)
"""Game packages under ``zeroplay.games``, one line each; their order fixes the family ids."""


@cache
def packages() -> tuple[ModuleType, ...]:
    """The imported game packages, in ``PACKAGES`` order."""
    return tuple(importlib.import_module(f"zeroplay.games.{name}") for name in PACKAGES)


def factories() -> dict:
    """Registry name -> factory for every game of every package."""
    out: dict = {}
    for pkg in packages():
        out.update(pkg.GAMES)
    return out


@cache
def compiled_kernels() -> tuple:
    """The ``FastKernels`` of every compiled game package, in ``PACKAGES`` order."""
    return tuple(pkg.KERNELS for pkg in packages() if getattr(pkg, "KERNELS", None) is not None)


def family_id(kernels) -> int:
    """Index of ``kernels`` in ``compiled_kernels()`` (the value of ``params[P_FAMILY]``).

    Raises:
        ValueError: kernels of a package that is not listed in ``PACKAGES``.
    """
    for i, k in enumerate(compiled_kernels()):
        if k is kernels:
            return i
    raise ValueError("these kernels belong to no package in games/registry.py PACKAGES")


def fingerprint() -> str:
    """What the compiled dispatch was built from: the compiled packages' names, in order."""
    return ",".join(name for name, pkg in zip(PACKAGES, packages())
                    if getattr(pkg, "KERNELS", None) is not None)
