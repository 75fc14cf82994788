"""Stopping conditions, composed (lc0's stoppers): the first that fires ends the search."""

from __future__ import annotations

import time
from dataclasses import dataclass

MAX_PLAYOUTS = 1 << 27
"""Most playouts per move a search may be asked for (arena players, ``zeroplay train``, ``bench
selfplay``): the node table sized for them (16 nodes per playout) stays within 2^31 nodes."""


@dataclass(frozen=True)
class Limits:
    """When a search stops; None = no limit of that kind. At least one must be set.

    Attributes:
        playouts: playouts run by this search (reused visits do not count).
        visits: root visits N(root), reused visits included (KataGo's maxVisits).
        seconds: wall-clock seconds for this search.

    The search also stops when the root is proven or the node table / edge pool is full.
    """

    playouts: int | None = None
    visits: int | None = None
    seconds: float | None = None

    def __post_init__(self):
        if self.playouts is None and self.visits is None and self.seconds is None:
            raise ValueError("set at least one of playouts, visits, seconds")
        for name in ("playouts", "visits"):
            v = getattr(self, name)
            if v is not None and v < 1:
                raise ValueError(f"{name} must be >= 1, got {v}")
        if self.seconds is not None and self.seconds <= 0:
            raise ValueError(f"seconds must be > 0, got {self.seconds}")

    def remaining_playouts(self, playouts: int, root_visits: int) -> int:
        """Playouts still allowed by the count limits (a large number when only time limits)."""
        left = 1 << 40
        if self.playouts is not None:
            left = min(left, self.playouts - playouts)
        if self.visits is not None:
            left = min(left, self.visits - root_visits)
        return max(left, 0)

    def reason(self, playouts: int, root_visits: int, started: float) -> str | None:
        """The name of the limit reached, or None to go on."""
        if self.playouts is not None and playouts >= self.playouts:
            return "playouts"
        if self.visits is not None and root_visits >= self.visits:
            return "visits"
        if self.seconds is not None and time.perf_counter() - started >= self.seconds:
            return "seconds"
        return None
