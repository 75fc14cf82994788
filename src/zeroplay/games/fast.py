"""The compiled dispatch: one entry point per kernel for every registered game.

The search calls these from its own compiled loops, so it runs any game of ``games/registry.py``
without Python in the per-playout path. Each entry point is a chain of compiled closures built
at import from the registered games' kernels, one link per game: link k calls game k's kernel
when ``params[P_FAMILY] == k`` and hands on to link k + 1 otherwise; the links and the entry
points are inlined into their callers. The kernels are closure constants, so numba calls them
directly: no function pointers, unlike a
loop over a tuple of functions, which numba types as first-class functions and which cost the
search 25-30 % (measured, docs/BENCHMARKS.md). Adding a game edits nothing here.

numba caches compiled code per source file and checks only that file's own stamp: it sees neither
the registry change nor an edit of a kernel in another module that a cached function calls (a
``git pull`` that changed the renju legal-move kernel left the search calling the old one from
its cache). So this module records a fingerprint beside the cache -- the registry's games and the
stamp (path, size, mtime) of every zeroplay source file that compiles with numba -- and drops
zeroplay's whole numba cache when it differs. A family missing from the compiled code anyway
raises ``ValueError`` instead of doing nothing.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from numba import njit

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


def kernel_sources_stamp(root: Path) -> str:
    """A hex digest of (relative path, size in bytes, mtime in ns) of every ``.py`` file under
    ``root`` whose text mentions ``njit``: it changes when any compiled source changes. About
    10 ms for the package (the files are read to find the compiled ones)."""
    h = hashlib.sha1()
    for path in sorted(root.rglob("*.py")):
        try:
            if b"njit" not in path.read_bytes():
                continue
            st = path.stat()
        except OSError:
            continue
        h.update(f"{path.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _drop_stale_caches() -> None:
    stamp_dir = Path(__file__).resolve().parent / "__pycache__"
    stamp = stamp_dir / _STAMP
    now = fingerprint() + "|" + kernel_sources_stamp(_PACKAGE_ROOT)
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



_MISSING = "game family not in the compiled dispatch (games/registry.py)"


def _chain(kernels: tuple, arity: int):
    """A compiled ``call(family, a0, ..., a{arity-1})`` that runs ``kernels[family](a0, ...)``.

    The links are inlined into their caller (numba IR inlining; a closure with ``*args`` cannot
    be, hence one builder per arity): a call through the chain then costs the kernel's call
    alone. Each call boundary makes numba take and drop a reference on every array argument
    (atomic operations); for 9x9 Go (family 3, four links deep) those counts were, with the other
    calls' ones, 47 % of the compiled ``gather``'s perf samples, and inlining the links cut its
    time per leaf by about 12 % (docs/BENCHMARKS.md, "Go: reference counts").

    Raises (inside compiled code) ValueError for a family past the end: compiled code older than
    the registry (see ``_drop_stale_caches``) fails loudly instead of running another game's
    kernel."""
    return _BUILDERS[arity](kernels)


def _chain4(kernels):
    head = kernels[0]
    if len(kernels) == 1:
        @njit(cache=True, inline="always")
        def last(family, a, b, c, d):
            if family != 0:
                raise ValueError(_MISSING)
            return head(a, b, c, d)
        return last
    rest = _chain4(kernels[1:])

    @njit(cache=True, inline="always")
    def link(family, a, b, c, d):
        if family == 0:
            return head(a, b, c, d)
        return rest(family - 1, a, b, c, d)
    return link


def _chain5(kernels):
    head = kernels[0]
    if len(kernels) == 1:
        @njit(cache=True, inline="always")
        def last(family, a, b, c, d, e):
            if family != 0:
                raise ValueError(_MISSING)
            return head(a, b, c, d, e)
        return last
    rest = _chain5(kernels[1:])

    @njit(cache=True, inline="always")
    def link(family, a, b, c, d, e):
        if family == 0:
            return head(a, b, c, d, e)
        return rest(family - 1, a, b, c, d, e)
    return link


def _chain6(kernels):
    head = kernels[0]
    if len(kernels) == 1:
        @njit(cache=True, inline="always")
        def last(family, a, b, c, d, e, f):
            if family != 0:
                raise ValueError(_MISSING)
            return head(a, b, c, d, e, f)
        return last
    rest = _chain6(kernels[1:])

    @njit(cache=True, inline="always")
    def link(family, a, b, c, d, e, f):
        if family == 0:
            return head(a, b, c, d, e, f)
        return rest(family - 1, a, b, c, d, e, f)
    return link


def _chain7(kernels):
    head = kernels[0]
    if len(kernels) == 1:
        @njit(cache=True, inline="always")
        def last(family, a, b, c, d, e, f, g):
            if family != 0:
                raise ValueError(_MISSING)
            return head(a, b, c, d, e, f, g)
        return last
    rest = _chain7(kernels[1:])

    @njit(cache=True, inline="always")
    def link(family, a, b, c, d, e, f, g):
        if family == 0:
            return head(a, b, c, d, e, f, g)
        return rest(family - 1, a, b, c, d, e, f, g)
    return link


_BUILDERS = {4: _chain4, 5: _chain5, 6: _chain6, 7: _chain7}


_KERNELS = compiled_kernels()
_apply = _chain(tuple(k.apply for k in _KERNELS), 7)
_undo = _chain(tuple(k.undo for k in _KERNELS), 6)
_legal_moves = _chain(tuple(k.legal_moves for k in _KERNELS), 5)
_winning_moves = _chain(tuple(k.winning_moves for k in _KERNELS), 6)
_num_winning_moves = _chain(tuple(k.num_winning_moves for k in _KERNELS), 5)
_rollout = _chain(tuple(k.rollout for k in _KERNELS), 4)


@njit(cache=True, inline="always")
def apply(params, zkeys, board, info, stack, aux, action):
    """Play a legal ``action`` in place (the game's ``kernels.apply``)."""
    _apply(params[P_FAMILY], params, zkeys, board, info, stack, aux, action)


@njit(cache=True, inline="always")
def undo(params, zkeys, board, info, stack, aux):
    """Take back the last action in place; returns it."""
    return _undo(params[P_FAMILY], params, zkeys, board, info, stack, aux)


@njit(cache=True, inline="always")
def legal_moves(params, board, info, aux, out):
    """Write the legal actions, ascending, into ``out`` (int64, >= num_actions); returns count."""
    return _legal_moves(params[P_FAMILY], params, board, info, aux, out)


@njit(cache=True, inline="always")
def winning_moves(params, board, info, aux, player, out):
    """Write the actions that win at once for ``player`` into ``out``; returns count (0 if over)."""
    return _winning_moves(params[P_FAMILY], params, board, info, aux, player, out)


@njit(cache=True, inline="always")
def num_winning_moves(params, board, info, aux, player):
    """How many actions win at once for ``player`` (0 if the game is over)."""
    return _num_winning_moves(params[P_FAMILY], params, board, info, aux, player)


@njit(cache=True, inline="always")
def rollout(params, board, info, rng):
    """Finish the game from the scratch (board, info) with random moves; the winner or -1."""
    return _rollout(params[P_FAMILY], params, board, info, rng)
