"""What a search returns, move choice (visits / LCB / proofs) and temperature."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class MoveStats:
    """One root move.

    Attributes:
        move: the action.
        visits: edge visits N(root, a).
        q: mean value of the move in [-1, 1] from the root mover's view (-Q(child)); the FPU-free
            value 0.0 when unvisited.
        prior: raw network prior P(root, a) (not noised).
        lcb: lower confidence bound of q: q - z * sqrt((1 - q^2) / N); -inf when unvisited.
        proven: "win" / "loss" / "draw" for the root mover when this move's result is proven,
            else None; proven_distance the plies to it.
    """

    move: int
    visits: int
    q: float
    prior: float
    lcb: float
    proven: str | None = None
    proven_distance: int | None = None


@dataclass(frozen=True)
class SearchResult:
    """The outcome of one search.

    Attributes:
        game_over: True when the searched position was already finished (nothing else is set).
        best_move: the chosen action (None when game_over).
        root_visits: N(root) = 1 + sum of root edge visits.
        root_q: Q(root) in [-1, 1] from the root mover's view.
        moves: per-move statistics, most visited first.
        policy: float32 (num_actions,) the policy target pi: the visit distribution over root edges
            (PUCT root), or the improved policy softmax(logits + sigma(completed Q)) over the
            root's moves (``SearchConfig.root_policy == "gumbel"``). Sums to 1, 0 off root moves.
        pv: principal variation, actions from the root.
        proven: "win" / "loss" / "draw" for the root mover when proven (and verified), else None.
        proven_distance: plies to the proven result.
        playouts: playouts run by this search (not counting reused visits).
        seconds: wall time of the search, the VCT guard's checks included.
        playouts_per_s: playouts / seconds.
        table_load: node-table load after the search, in [0, 1].
        stopped_by: what ended the search ("playouts", "visits", "seconds", "proven", "full", or
            "stop": the caller's ``stop`` callback).
        notes: warnings, e.g. a proof that failed verification or a full table, and what the
            VCT guard did (search/root_guard.py).
        vct_lost: root moves the VCT guard showed to lose to the opponent's VCT (a verified
            line), in the order checked; empty when it did not run or found none. A move
            chooser that varies from ``best_move`` must not play these (``choice.varied_move``).
    """

    game_over: bool = False
    best_move: int | None = None
    root_visits: int = 0
    root_q: float = 0.0
    moves: tuple[MoveStats, ...] = ()
    policy: np.ndarray | None = None
    pv: tuple[int, ...] = ()
    proven: str | None = None
    proven_distance: int | None = None
    playouts: int = 0
    seconds: float = 0.0
    playouts_per_s: float = 0.0
    table_load: float = 0.0
    stopped_by: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)
    vct_lost: tuple[int, ...] = ()

    @property
    def win_rate(self) -> float:
        """The root mover's expected score in [0, 1]: 1, 0 or 1/2 when the result is proven (a
        win, loss or draw), else (root_q + 1) / 2. A proof found by the threat solver at the root
        leaves root_q at the net's estimate, which a player would read as doubt ("82 %, proven
        win"). When the VCT guard traded the most visited move for another (``vct_lost``), root_q
        is mostly the rejected move's, which loses: the played move's own Q stands in when it has
        visits, else the visit-weighted Q of the moves not shown to lose (root_q when none has
        visits)."""
        if self.proven is not None:
            return _PROVEN_SCORE[self.proven]
        if self.vct_lost and self.best_move not in self.vct_lost:
            played = next((m for m in self.moves if m.move == self.best_move and m.visits > 0), None)
            if played is not None:
                return (played.q + 1.0) / 2.0
            rest = [m for m in self.moves if m.visits > 0 and m.move not in self.vct_lost and m.proven != "loss"]
            visits = sum(m.visits for m in rest)
            if visits:
                return (sum(m.q * m.visits for m in rest) / visits + 1.0) / 2.0
        return (self.root_q + 1.0) / 2.0


_PROVEN_SCORE = {"win": 1.0, "loss": 0.0, "draw": 0.5}


def lcb(q: float, n: int, z: float) -> float:
    """Lower confidence bound of a mean value q in [-1, 1] over n visits (variance <= 1 - q^2)."""
    if n <= 0:
        return float("-inf")
    return q - z * float(np.sqrt(max(1.0 - q * q, 0.0) / n))


def apply_temperature(visits: np.ndarray, tau: float) -> np.ndarray:
    """Visit counts -> probabilities N^(1/tau) / sum, computed stably.

    Divides by the max before the power, so tiny tau never overflows; tau == 0 (or below 1e-3
    of a visit's resolution) gives the uniform distribution over the most visited moves.

    Args:
        visits: (K,) non-negative counts, not all zero.
        tau: temperature >= 0.

    Returns:
        float64 (K,) probabilities summing to 1.

    Raises:
        ValueError: negative tau, or all counts zero.
    """
    v = np.asarray(visits, dtype=np.float64)
    if tau < 0:
        raise ValueError(f"temperature must be >= 0, got {tau}")
    top = v.max() if v.size else 0.0
    if top <= 0:
        raise ValueError("no visits to choose from")
    if tau == 0:
        p = (v == top).astype(np.float64)
    else:
        with np.errstate(under="ignore"):
            p = np.power(v / top, 1.0 / tau)
        if not np.isfinite(p).all() or p.sum() <= 0:
            p = (v == top).astype(np.float64)
    return p / p.sum()


def sample_move(moves: np.ndarray, visits: np.ndarray, tau: float, rng: np.random.Generator) -> int:
    """Draw a move with probability from ``apply_temperature(visits, tau)``."""
    p = apply_temperature(visits, tau)
    return int(moves[rng.choice(len(moves), p=p)])
