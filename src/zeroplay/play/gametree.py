"""The web board's variation tree: every position a game has visited, with what analysis found.

A small preallocated tree (struct-of-arrays, as ``search/tree.py``), one per ``WebGame``:
position 0 is the start; every other position is its parent plus one move. A node's children
are a linked list (``first_child`` -> ``next_sibling``); the first child is the main line, later
ones are variations, in the order they were played. Nodes taken back (undo) go to a free list
and are reused, so the tree never holds more than ``MAX_TREE_NODES`` positions.

Layout (``capacity`` = MAX_TREE_NODES rows; bytes per node in brackets, 45 in all)::

    parent        int32   [4]  the position before this one; NONE for the start
    move          int16   [2]  the move that led here (a cell); NONE for the start
    first_child   int32   [4]  the main continuation; NONE: a leaf
    next_sibling  int32   [4]  the next variation from the same parent; NONE: the last
    black_winrate float32 [4]  Black's expected score in [0, 1] here (NaN: not analysed; at a
                               finished position: the result, 1 / 0.5 / 0)
    visits        int32   [4]  the analysis' root visits N (0: none, or a finished position)
    best_move     int16   [2]  the analysis' best move from here (NONE: none)
    proven        int8    [1]  1: the side to move here has a proven win, -1 a proven loss, 0 not
                               proven (or a proven draw)
    pv            int16   [20] (PV_LEN,) the analysis' principal variation, NONE after its end

Win rates are Black's (player 0) whatever the side to move, so that a drop reads one way.
"""

from __future__ import annotations

import numpy as np

MAX_TREE_NODES = 2048
"""Positions one game's tree may hold: a 25x25 game (625 plies) and 1,400 variation moves."""
PV_LEN = 10
"""Moves of a principal variation kept per analysed position (the record's ``best`` is pv[0])."""
NONE = -1
ROOT = 0


class TreeFullError(RuntimeError):
    """No room for another position (``MAX_TREE_NODES``): the person should take moves back."""


class GameTree:
    """Positions as struct-of-arrays (see the module docstring); ``node`` ids are rows."""

    def __init__(self, capacity: int = MAX_TREE_NODES):
        self.capacity = capacity
        self.parent = np.full(capacity, NONE, np.int32)
        self.move = np.full(capacity, NONE, np.int16)
        self.first_child = np.full(capacity, NONE, np.int32)
        self.next_sibling = np.full(capacity, NONE, np.int32)
        self.black_winrate = np.full(capacity, np.nan, np.float32)
        self.visits = np.zeros(capacity, np.int32)
        self.best_move = np.full(capacity, NONE, np.int16)
        self.proven = np.zeros(capacity, np.int8)
        self.pv = np.full((capacity, PV_LEN), NONE, np.int16)
        self.used = 1  # rows handed out so far (row 0: the start); freed rows are reused first
        self.free: list[int] = []

    # --- shape --------------------------------------------------------------------------------
    def children(self, node: int) -> list[int]:
        """The positions one move after ``node``: the main continuation first."""
        out, c = [], int(self.first_child[node])
        while c != NONE:
            out.append(c)
            c = int(self.next_sibling[c])
        return out

    def child(self, node: int, move: int) -> int:
        """The child of ``node`` reached by ``move``, or NONE."""
        for c in self.children(node):
            if int(self.move[c]) == move:
                return c
        return NONE

    def path(self, node: int) -> list[int]:
        """The nodes from the start to ``node``, both included."""
        out = []
        while node != NONE:
            out.append(node)
            node = int(self.parent[node])
        return out[::-1]

    def moves(self, node: int) -> list[int]:
        """The moves from the start to ``node``."""
        return [int(self.move[n]) for n in self.path(node)[1:]]

    def line_end(self, node: int) -> int:
        """The end of the main continuation from ``node`` (first children all the way down)."""
        while int(self.first_child[node]) != NONE:
            node = int(self.first_child[node])
        return node

    def on_main_line(self, node: int) -> bool:
        """Whether every move to ``node`` is its parent's first child."""
        while node != ROOT:
            p = int(self.parent[node])
            if int(self.first_child[p]) != node:
                return False
            node = p
        return True

    def main_line_branch(self, node: int) -> int:
        """The last position on the main line on the way to ``node`` (``node`` itself if it is on
        the main line): where its variation left the main line."""
        path = self.path(node)
        branch = ROOT
        for a, b in zip(path, path[1:], strict=False):
            if int(self.first_child[a]) != b:
                break
            branch = b
        return branch

    # --- changes ------------------------------------------------------------------------------
    def add(self, node: int, move: int) -> int:
        """The child of ``node`` by ``move``, made (as the last variation) if new.

        Raises:
            TreeFullError: the tree holds ``capacity`` positions already.
        """
        found = self.child(node, move)
        if found != NONE:
            return found
        if self.free:
            new = self.free.pop()
        elif self.used < self.capacity:
            new = self.used
            self.used += 1
        else:
            raise TreeFullError(f"the game's variation tree is full ({self.capacity} positions): "
                                f"take moves back (undo) before trying more variations")
        self._clear(new)
        self.parent[new], self.move[new] = node, move
        last = self.children(node)
        if last:
            self.next_sibling[last[-1]] = new
        else:
            self.first_child[node] = new
        return new

    def remove(self, node: int) -> None:
        """Take ``node`` and everything after it out of the tree (its rows are reused)."""
        if node == ROOT:
            raise ValueError("the start position cannot be removed")
        p = int(self.parent[node])
        if int(self.first_child[p]) == node:
            self.first_child[p] = self.next_sibling[node]
        else:
            prev = next(c for c in self.children(p) if int(self.next_sibling[c]) == node)
            self.next_sibling[prev] = self.next_sibling[node]
        todo = [node]
        while todo:
            n = todo.pop()
            todo.extend(self.children(n))
            self._clear(n)
            self.free.append(n)

    def promote(self, node: int) -> None:
        """Make the line through ``node`` the main line (each of its moves the first child)."""
        for n in self.path(node)[1:]:
            p = int(self.parent[n])
            if int(self.first_child[p]) == n:
                continue
            prev = next(c for c in self.children(p) if int(self.next_sibling[c]) == n)
            self.next_sibling[prev] = self.next_sibling[n]
            self.next_sibling[n] = self.first_child[p]
            self.first_child[p] = n

    def _clear(self, n: int) -> None:
        self.parent[n] = self.move[n] = self.first_child[n] = self.next_sibling[n] = NONE
        self.black_winrate[n] = np.nan
        self.visits[n] = 0
        self.best_move[n] = NONE
        self.proven[n] = 0
        self.pv[n] = NONE

    # --- analysis -----------------------------------------------------------------------------
    def set_analysis(self, node: int, black_winrate: float, *, visits: int = 0, best: int | None = None,
                     pv: tuple[int, ...] = (), proven: int = 0) -> None:
        """Store what an analysis (or the record, or the result) says about ``node``."""
        self.black_winrate[node] = black_winrate
        self.visits[node] = visits
        self.best_move[node] = NONE if best is None else best
        self.proven[node] = proven
        self.pv[node] = NONE
        kept = [int(m) for m in pv[:PV_LEN]]
        self.pv[node, : len(kept)] = kept

    def winrate(self, node: int) -> float | None:
        """Black's win rate at ``node`` in [0, 1], or None when it was never analysed."""
        w = float(self.black_winrate[node])
        return None if np.isnan(w) else w

    def pv_of(self, node: int) -> list[int]:
        return [int(m) for m in self.pv[node] if m != NONE]
