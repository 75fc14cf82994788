"""The compiled dispatch: one entry point per kernel for every registered game.

The search calls these from its own compiled loops, so it runs any game of ``games/registry.py``
without Python in the per-playout path. Each entry point loops (``numba.literal_unroll``, so
unrolled at compile time into direct calls) over the registered games' kernels and calls the
one whose index is ``params[P_FAMILY]``. Adding a game edits nothing here.

numba caches compiled code per source file and does not see the registry change, so this module
records the registry's fingerprint beside its cache and drops zeroplay's numba cache when the
fingerprint differs (a new game registered): stale code would otherwise lack the new game. A
family missing from the compiled code anyway raises ``ValueError`` instead of doing nothing.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

from numba import literal_unroll, njit
from numba.core.errors import NumbaExperimentalFeatureWarning

from zeroplay.games.layout import P_FAMILY
from zeroplay.games.registry import compiled_kernels, fingerprint

_PACKAGE_ROOT = Path(__file__).resolve().parents[1]
_STAMP = "zeroplay-game-families.txt"


def _cache_dirs() -> list[Path]:
    """Where numba keeps zeroplay's compiled code: ``__pycache__`` beside the sources, or the
    mirror under ``NUMBA_CACHE_DIR``."""
    dirs = [p for p in _PACKAGE_ROOT.rglob("__pycache__")]
    root = os.environ.get("NUMBA_CACHE_DIR")
    if root:
        mirror = Path(root) / _PACKAGE_ROOT.relative_to(_PACKAGE_ROOT.anchor)
        dirs += [p for p in mirror.rglob("*") if p.is_dir()] + [mirror]
    return dirs


def _drop_stale_caches() -> None:
    stamp_dir = Path(__file__).resolve().parent / "__pycache__"
    stamp = stamp_dir / _STAMP
    now = fingerprint()
    try:
        if stamp.read_text() == now:
            return
    except OSError:
        pass
    try:
        for d in _cache_dirs():
            for f in list(d.glob("*.nbi")) + list(d.glob("*.nbc")):
                f.unlink(missing_ok=True)
        stamp_dir.mkdir(exist_ok=True)
        tmp = stamp.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(now)
        os.replace(tmp, stamp)
    except OSError:
        pass  # a read-only install: numba then caches elsewhere or not at all


_drop_stale_caches()
# the unrolled tuple of kernels is typed as numba's (stable, but so labelled) first-class functions
warnings.filterwarnings("ignore", message="First-class function type", category=NumbaExperimentalFeatureWarning)

_KERNELS = compiled_kernels()
_APPLY = tuple(k.apply for k in _KERNELS)
_UNDO = tuple(k.undo for k in _KERNELS)
_LEGAL = tuple(k.legal_moves for k in _KERNELS)
_WINNING = tuple(k.winning_moves for k in _KERNELS)
_NUM_WINNING = tuple(k.num_winning_moves for k in _KERNELS)
_ROLLOUT = tuple(k.rollout for k in _KERNELS)


@njit(cache=True)
def _check(found):
    if not found:
        raise ValueError("game family not in the compiled dispatch (games/registry.py)")


# Each entry point keeps its result in a variable: a ``return`` inside ``literal_unroll`` does
# not type with numba's first-class functions.

@njit(cache=True)
def apply(params, zkeys, board, info, stack, aux, action):
    """Play a legal ``action`` in place (the game's ``kernels.apply``)."""
    family = params[P_FAMILY]
    found = False
    i = 0
    for kernel in literal_unroll(_APPLY):
        if i == family:
            kernel(params, zkeys, board, info, stack, aux, action)
            found = True
        i += 1
    _check(found)


@njit(cache=True)
def undo(params, zkeys, board, info, stack, aux):
    """Take back the last action in place; returns it."""
    family = params[P_FAMILY]
    found = False
    action = -1
    i = 0
    for kernel in literal_unroll(_UNDO):
        if i == family:
            action = kernel(params, zkeys, board, info, stack, aux)
            found = True
        i += 1
    _check(found)
    return action


@njit(cache=True)
def legal_moves(params, board, info, aux, out):
    """Write the legal actions, ascending, into ``out`` (int64, >= num_actions); returns count."""
    family = params[P_FAMILY]
    found = False
    count = 0
    i = 0
    for kernel in literal_unroll(_LEGAL):
        if i == family:
            count = kernel(params, board, info, aux, out)
            found = True
        i += 1
    _check(found)
    return count


@njit(cache=True)
def winning_moves(params, board, info, aux, player, out):
    """Write the actions that win at once for ``player`` into ``out``; returns count (0 if over)."""
    family = params[P_FAMILY]
    found = False
    count = 0
    i = 0
    for kernel in literal_unroll(_WINNING):
        if i == family:
            count = kernel(params, board, info, aux, player, out)
            found = True
        i += 1
    _check(found)
    return count


@njit(cache=True)
def num_winning_moves(params, board, info, aux, player):
    """How many actions win at once for ``player`` (0 if the game is over)."""
    family = params[P_FAMILY]
    found = False
    count = 0
    i = 0
    for kernel in literal_unroll(_NUM_WINNING):
        if i == family:
            count = kernel(params, board, info, aux, player)
            found = True
        i += 1
    _check(found)
    return count


@njit(cache=True)
def rollout(params, board, info, rng):
    """Finish the game from the scratch (board, info) with random moves; the winner or -1."""
    family = params[P_FAMILY]
    found = False
    winner = -1
    i = 0
    for kernel in literal_unroll(_ROLLOUT):
        if i == family:
            winner = kernel(params, board, info, rng)
            found = True
        i += 1
    _check(found)
    return winner
