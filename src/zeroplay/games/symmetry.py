"""Board symmetries applied consistently to network planes and to policy vectors over actions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np


@dataclass(frozen=True, eq=False)
class Symmetry:
    """One transform of the board's symmetry group.

    Attributes:
        name: e.g. ``"identity"``, ``"rot90"``, ``"flip_x"`` (mirror left-right).
        cell_perm: int64 (cells,): the stone on cell c moves to cell ``cell_perm[c]``.
        action_perm: int64 (num_actions,): the policy mass on action a moves to
            ``action_perm[a]`` (equal to ``cell_perm`` for Gomoku; column mirror for Connect Four;
            a pass action maps to itself).
        height, width: board shape (every transform here keeps it: non-square boards only get the
            shape-preserving ones).
    """

    name: str
    cell_perm: np.ndarray
    action_perm: np.ndarray
    height: int
    width: int
    if TYPE_CHECKING:  # set by __post_init__ (not fields: declared for the type checker only)
        _cell_gather: np.ndarray = field(init=False)
        _action_gather: np.ndarray = field(init=False)

    def __post_init__(self):
        self.cell_perm.setflags(write=False)
        self.action_perm.setflags(write=False)
        # gather indices: out[new] = in[old]  <=>  out = in[inverse_perm]
        object.__setattr__(self, "_cell_gather", np.argsort(self.cell_perm))
        object.__setattr__(self, "_action_gather", np.argsort(self.action_perm))

    def planes(self, planes: np.ndarray) -> np.ndarray:
        """Transform planes of shape (..., C, H, W) (any dtype); returns a new array."""
        planes = np.asarray(planes)
        if planes.shape[-2:] != (self.height, self.width):
            raise ValueError(
                f"planes end in {planes.shape[-2:]}, expected ({self.height}, {self.width})"
            )
        flat = planes.reshape(planes.shape[:-2] + (self.height * self.width,))
        return flat[..., self._cell_gather].reshape(planes.shape)

    def policy(self, policy: np.ndarray) -> np.ndarray:
        """Transform policy vectors of shape (..., num_actions); returns a new array."""
        policy = np.asarray(policy)
        if policy.shape[-1] != len(self.action_perm):
            raise ValueError(f"policy has {policy.shape[-1]} actions, expected {len(self.action_perm)}")
        return policy[..., self._action_gather]

    def action(self, action: int) -> int:
        """Where action ``action`` goes under this transform."""
        return int(self.action_perm[action])

    def cell(self, cell: int) -> int:
        """Where cell ``cell`` goes under this transform."""
        return int(self.cell_perm[cell])

    def inverse(self) -> Symmetry:
        """The transform that undoes this one."""
        return Symmetry(
            self.name + "^-1",
            np.argsort(self.cell_perm),
            np.argsort(self.action_perm),
            self.height,
            self.width,
        )

    def __repr__(self) -> str:
        return f"Symmetry({self.name!r}, {self.height}x{self.width})"


def _coord_maps(height: int, width: int):
    """(name, f(x, y) -> (x', y')) for the transforms that keep a height x width board's shape."""
    w1, h1 = width - 1, height - 1
    maps = [
        ("identity", lambda x, y: (x, y)),
        ("flip_x", lambda x, y: (w1 - x, y)),
        ("flip_y", lambda x, y: (x, h1 - y)),
        ("rot180", lambda x, y: (w1 - x, h1 - y)),
    ]
    if width == height:
        maps += [
            ("rot90", lambda x, y: (h1 - y, x)),
            ("rot270", lambda x, y: (y, w1 - x)),
            ("transpose", lambda x, y: (y, x)),
            ("antitranspose", lambda x, y: (h1 - y, w1 - x)),
        ]
    return maps


def board_symmetries(height: int, width: int) -> tuple[Symmetry, ...]:
    """The symmetry group of a height x width board whose actions are its cells.

    8 transforms (the dihedral group D4) on a square board, 4 when width != height.
    """
    cells = height * width
    out = []
    for name, f in _coord_maps(height, width):
        perm = np.empty(cells, dtype=np.int64)
        for y in range(height):
            for x in range(width):
                nx, ny = f(x, y)
                perm[y * width + x] = ny * width + nx
        out.append(Symmetry(name, perm, perm.copy(), height, width))
    return tuple(out)


def mirror_symmetries(height: int, width: int, action_perm_mirror: np.ndarray) -> tuple[Symmetry, ...]:
    """Identity and the left-right mirror, for games where gravity forbids the other transforms."""
    cells = height * width
    ident = np.arange(cells, dtype=np.int64)
    mirror = np.array([(c // width) * width + (width - 1 - c % width) for c in range(cells)], dtype=np.int64)
    n_actions = len(action_perm_mirror)
    return (
        Symmetry("identity", ident, np.arange(n_actions, dtype=np.int64), height, width),
        Symmetry("flip_x", mirror, np.asarray(action_perm_mirror, dtype=np.int64), height, width),
    )
