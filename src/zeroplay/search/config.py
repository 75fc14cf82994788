"""Every search parameter in one frozen, documented dataclass (after KataGo's SearchParams)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from zeroplay.search.tree import EDGE_BYTES, MAX_POOL, NODE_BYTES, STAT_BYTES, THREAT_BYTES_PER_NODE
from zeroplay.tt.node_table import TABLE_BYTES_PER_NODE

EDGES_PER_NODE_SHARE = 0.5
"""``for_memory``: edges reserved per node, as a share of the game's ``max_legal_moves``: nodes
below the root have fewer legal moves, and the candidate radius trims more (15x15: 1M-node
searches measured 0.2-0.9 of the actions, docs/BENCHMARKS.md). A search whose nodes need more
recycles when the edge pool fills instead of when the node table does. ``for_playouts`` reserves
the whole ``max_legal_moves`` (a bound, so a search of its size never runs out of edges)."""
STATS_PER_NODE = 2
"""Statistics the sizing rule reserves per node: one per selected edge (each creates a child,
so about one per node) plus the growth slack of doubling blocks (with ``REUSE_FACTOR`` nodes
per playout, 4 per playout: a node's blocks of 1, 2, 4, ... statistics sum to under 4 per
touched edge even when every block is moved)."""
REUSE_FACTOR = 2
"""``for_playouts``: nodes per playout asked for (tree reuse keeps part of the last search)."""
MAX_PLAYOUT_MEMORY = 2 << 30
"""``for_playouts`` never sizes the tables above this (2 GiB); longer searches recycle."""
MIN_NODES = 64
"""Smallest node limit the sizing rule gives."""
CACHE_SHARE = 1 / 16
"""Most of a memory budget the evaluation cache may take."""


@dataclass(frozen=True)
class SearchConfig:
    """Parameters of the PUCT Monte-Carlo graph search.

    Defaults are for play and evaluation (no noise); ``SearchConfig.selfplay()`` gives the
    self-play variant with Dirichlet noise.
    """

    # --- PUCT -------------------------------------------------------------------------
    c_puct: float = 1.25
    """c_init of the exploration constant (AlphaZero pseudocode: 1.25)."""
    c_puct_log: float = 0.0
    """Growth c_log in c_init + c_log * ln((N + c_base) / c_base); 0 disables (AlphaZero: 1.0)."""
    c_puct_base: float = 19652.0
    """c_base of the log growth (AlphaZero: 19652)."""
    puct_eps: float = 0.01
    """Added under the square root, sqrt(sum_b N(n,b) + eps), so that priors order the first visit."""
    fpu_reduction: float = 0.2
    """FPU = parent Q - fpu_reduction * sqrt(sum of visited children's priors) (KataGo: 0.2)."""
    fpu_reduction_root: float = 0.1
    """The same at the root (KataGo: 0.1)."""

    # --- batching ---------------------------------------------------------------------
    batch_size: int = 16
    """Leaves gathered per round under virtual loss and sent to the evaluator at once."""
    virtual_loss: int = 1
    """Visits of value -1 (for the mover) added to each edge of an in-flight playout's path."""

    # --- root noise (self-play only) ----------------------------------------------------
    noise: bool = False
    """Mix Dirichlet noise into the root priors (self-play). Off in play/evaluation mode."""
    dirichlet_total_alpha: float = 10.0
    """Total concentration spread over the legal moves: alpha = total / legal (KataGo: 10.83)."""
    dirichlet_epsilon: float = 0.25
    """Weight of the noise: P' = (1 - eps) P + eps * Dir(alpha) (AlphaZero: 0.25)."""

    # --- root policy: PUCT or Gumbel (search/gumbel.py) ------------------------------------
    root_policy: str = "puct"
    """"puct": the root selects by PUCT (with Dirichlet noise when ``noise``) and the policy target
    is the visit distribution. "gumbel": Gumbel-top-k sampling and sequential halving at the root
    (Danihelka et al. 2022; mctx's gumbel_muzero_policy); ``noise`` then means Gumbel noise g
    (none in play: g = 0), the move is the Gumbel search's choice and the policy target is the
    improved policy softmax(logits + sigma(completed Q)). Interior nodes use PUCT either way."""
    gumbel_m: int = 16
    """Root candidates m sampled by Gumbel-top-k (mctx's max_num_considered_actions: 16)."""
    gumbel_c_visit: float = 50.0
    """c_visit of sigma(q) = (c_visit + max_b N(b)) * c_scale * q, q in [0, 1] (paper: 50)."""
    gumbel_c_scale: float = 1.0
    """c_scale of sigma (paper: 1.0)."""

    forced_playouts_k: float = 0.0
    """KataGo's forced playouts (search/forced.py): in searches with root ``noise``, a visited
    root move with fewer than sqrt(k * P * sum N) visits is selected first; 0 turns it off
    (KataGo: 2). PUCT root only; the caller prunes them from the target
    (``search.forced.prune_policy_target``)."""

    # --- memory (set them with ``for_memory`` / ``for_playouts``: the one sizing rule) ------
    node_capacity: int = 1 << 16
    """Node indices and hash slots of the node table (a power of two); ``tree.NODE_BYTES`` each."""
    max_load: float = 0.9
    """Share of node_capacity the table may hold; at that load the pools count as full."""
    edge_capacity: int = 1 << 24
    """Edges in the edge pool, ``tree.EDGE_BYTES`` (4) each; an expanded node takes one per
    candidate move (about 200 on an open 15x15 board). np.zeros: only the part used costs memory."""
    stat_capacity: int = 1 << 18
    """Statistics in the stat pool, ``tree.STAT_BYTES`` (12) each: one per selected edge."""
    eval_cache_size: int = 1 << 14
    """Evaluation-cache entries (a power of two; 0 disables). Cached per node key."""
    recycle: bool = True
    """When a table fills in the middle of a search, free its least visited part and go on
    (``search/gc.py``); False: stop with ``stopped_by == "full"``."""
    memory_bytes: int | None = None
    """The budget the tables were sized for (``for_memory``); None when set by hand."""

    # --- candidate moves --------------------------------------------------------------
    candidate_radius: int = 0
    """> 0: a node's edges are only the cells within this Chebyshev distance of a stone (every
    legal move on an empty board; forced blocks always), for games whose actions are cells and
    whose stones stay (``Game.stones_stay``); ignored for others. 0: every legal move."""

    # --- proofs -------------------------------------------------------------------------
    one_ply_proofs: bool = True
    """At expansion: a winning move proves a win; an opponent's win leaves only the blocks."""
    verify_proofs: bool = True
    """Replay a proven result's line on real game states before reporting it."""

    # --- threat solver (Gomoku; search/threats.py, the MCTS adapter) -----------------------------------------------
    threat_solver: bool = False
    """VCF search for the side to move at every newly expanded node and at the root; a win
    found makes the node a proven win (distance = the line's length). Costs a window scan per
    new node (see docs/THREATS.md for the measured price); ignored for other games."""
    threat_solver_nodes: int = 16
    """VCF budget (attacker nodes) at a newly expanded node (16: nearly the proofs of 64 or 256
    at a third of the cost of 64; docs/THREATS.md)."""
    threat_solver_root_nodes: int = 100_000
    """VCF budget at the root, searched once per search after the root's expansion."""
    threat_solver_table_mib: float = 2.0
    """Size of the VCF's alpha-beta table in MiB (kept across searches)."""
    defence: bool = False
    """At a new node whose side to move has no five and no forced block: when the opponent would
    win by VCF were the side to move to pass, only the moves that may break that VCF (its cells,
    our fours along it) and are not proven to lose to a VCF stay candidates (search/defence.py,
    docs/THREATS.md "Defence"). Needs ``threat_solver`` (shares its table); Gomoku only."""
    defence_nodes: int = 64
    """VCF budget (attacker nodes) of the defence's pass search and of each re-check."""
    vct_root_nodes: int = 0
    """Work budget (proof-number expansions plus the nodes of their VCF searches) of the
    proof-number VCT run once per search at the root when the VCF found no win (needs
    ``threat_solver``); 0 disables. A win found ends the search and plays the proven line."""
    vct_root_share: float = 0.25
    """With a time limit: the root VCT stops (between budget doublings) once it has used this
    share of the search's seconds; a fraction in (0, 1]."""
    vct_guard_nodes: int = 0
    """Work budget of the VCT guard's search for the opponent after each move it checks
    (search/root_guard.py: the chosen move, then the others by visits, until one leaves the
    opponent no VCT found; needs ``threat_solver``); 0 disables."""
    vct_guard_moves: int = 8
    """Most moves the VCT guard checks (the search's choice included); >= 1."""
    vct_guard_share: float = 0.15
    """With a time limit: the share of the search's seconds kept for the VCT guard (the playouts
    stop at the rest); a fraction in [0, 1)."""
    vct_guard_min_seconds: float = 0.2
    """With a time limit and a share > 0: the VCT guard keeps at least this (seconds), but at most
    half of the search's seconds. A check that finds a VCT takes 0.02-0.15 s on 15x15 (more on a
    loaded machine), so at pbrain's 1 s turns the share alone (0.1 s) let the chosen move
    through unchecked; >= 0."""

    # --- opening ----------------------------------------------------------------------------
    opening_prior: float = 0.0
    """Weight w of the game's opening prior C (``game.opening_prior()``; Gomoku: the centre) in
    the root priors while the root's ply < ``opening_prior_plies``: P' = (1 - w) P + w C. 0: off.
    For a net whose priors are flat on the empty board (the root then scans all its edges)."""
    opening_prior_plies: int = 1
    """Plies from the start of the game at which the opening prior applies (1: the first move)."""

    # --- result -------------------------------------------------------------------------
    move_choice: str = "visits"
    """"visits" (most edge visits) or "lcb" (highest lower confidence bound of Q)."""
    lcb_z: float = 1.96
    """z of the LCB: Q - z * sqrt((1 - Q^2) / N)."""
    lcb_min_fraction: float = 0.1
    """LCB choice considers moves with at least this fraction of the most visits."""

    # --- misc ---------------------------------------------------------------------------
    debug: bool = False
    """Check the invariants (N(n) = 1 + sum of edge visits, no virtual loss left) after each batch."""
    seed: int | None = None
    """Seed of the noise and of move sampling; None draws a fresh one."""

    def __post_init__(self):
        if self.node_capacity < 2 or self.node_capacity & (self.node_capacity - 1):
            raise ValueError(f"node_capacity must be a power of two >= 2, got {self.node_capacity}")
        if not 1 <= self.edge_capacity <= MAX_POOL or not 1 <= self.stat_capacity <= MAX_POOL:
            raise ValueError(f"edge_capacity and stat_capacity must be in [1, {MAX_POOL}], got "
                             f"{self.edge_capacity}, {self.stat_capacity}")
        if self.candidate_radius < 0:
            raise ValueError(f"candidate_radius must be >= 0, got {self.candidate_radius}")
        if self.eval_cache_size and self.eval_cache_size & (self.eval_cache_size - 1):
            raise ValueError(f"eval_cache_size must be 0 or a power of two, got {self.eval_cache_size}")
        if self.batch_size < 1 or self.virtual_loss < 0:
            raise ValueError("batch_size must be >= 1 and virtual_loss >= 0")
        if not 0.0 < self.max_load <= 1.0:
            raise ValueError(f"max_load must be in (0, 1], got {self.max_load}")
        if self.threat_solver_nodes < 0 or self.threat_solver_root_nodes < 0:
            raise ValueError("threat_solver_nodes and threat_solver_root_nodes must be >= 0")
        if self.defence_nodes < 1 or self.vct_root_nodes < 0:
            raise ValueError("defence_nodes must be >= 1 and vct_root_nodes >= 0")
        if not 0.0 < self.vct_root_share <= 1.0:
            raise ValueError(f"vct_root_share must be in (0, 1], got {self.vct_root_share}")
        if self.vct_guard_nodes < 0 or self.vct_guard_moves < 1:
            raise ValueError(f"vct_guard_nodes must be >= 0 and vct_guard_moves >= 1, got {self.vct_guard_nodes} "
                             f"and {self.vct_guard_moves}")
        if not 0.0 <= self.vct_guard_share < 1.0:
            raise ValueError(f"vct_guard_share must be in [0, 1), got {self.vct_guard_share}")
        if not 0.0 <= self.vct_guard_min_seconds < float("inf"):
            raise ValueError(f"vct_guard_min_seconds must be a number of seconds >= 0, got {self.vct_guard_min_seconds}")
        if not 0.0 <= self.opening_prior <= 1.0 or self.opening_prior_plies < 0:
            raise ValueError(f"opening_prior must be in [0, 1] and opening_prior_plies >= 0, got "
                             f"{self.opening_prior}, {self.opening_prior_plies}")
        if self.root_policy not in ("puct", "gumbel"):
            raise ValueError(f"root_policy must be 'puct' or 'gumbel', got {self.root_policy!r}")
        if self.gumbel_m < 1 or not self.gumbel_c_visit >= 0 or not self.gumbel_c_scale >= 0:
            raise ValueError("gumbel_m must be >= 1, gumbel_c_visit and gumbel_c_scale >= 0")
        if not self.forced_playouts_k >= 0:
            raise ValueError(f"forced_playouts_k must be >= 0, got {self.forced_playouts_k}")
        if self.move_choice not in ("visits", "lcb"):
            raise ValueError(f"move_choice must be 'visits' or 'lcb', got {self.move_choice!r}")

    @classmethod
    def selfplay(cls, **overrides) -> SearchConfig:
        """Self-play defaults: root noise on."""
        return cls(noise=True, **overrides)

    @classmethod
    def for_memory(cls, memory_bytes: int, game, **overrides) -> SearchConfig:
        """A config whose tables fit ``memory_bytes`` for ``game`` (its ``num_actions`` size the
        evaluation cache's entries, its ``max_legal_moves`` the edges reserved per node).

        The one sizing rule of the search (``table_bytes``): the node limit N is the largest for
        which the node table (``TABLE_BYTES_PER_NODE`` per hash slot, a power of two >= N /
        max_load, plus the threat solver's per-node word when it is on), N nodes' payload,
        ``EDGES_PER_NODE_SHARE`` x ``max_legal_moves`` edges and ``STATS_PER_NODE`` statistics per
        node fit what is left of the budget once the evaluation cache (at most ``CACHE_SHARE``
        of it) and the threat solver's alpha-beta table are taken off. When a table fills during
        a search the search recycles (``recycle``): the budget bounds the memory, not the search.

        Raises:
            ValueError: a budget too small for ``MIN_NODES`` nodes.
        """
        num_actions = int(game.num_actions)
        edges = _edges_per_node(game, share=1.0)
        threat = overrides.get("threat_solver", cls.threat_solver)
        max_load = overrides.pop("max_load", cls.max_load)
        budget = int(memory_bytes) - _threat_table_bytes(overrides)
        cache = overrides.pop("eval_cache_size", cls.eval_cache_size)
        while cache and cache * _cache_entry_bytes(num_actions) > budget * CACHE_SHARE:
            cache //= 2
        budget -= cache * _cache_entry_bytes(num_actions)
        if table_bytes(MIN_NODES, edges, threat, max_load) > budget:
            raise ValueError(f"a search of {game!r} needs at least "
                             f"{table_bytes(MIN_NODES, edges, threat, max_load) + int(memory_bytes) - budget:,} "
                             f"bytes, got {int(memory_bytes):,}")
        low, high = MIN_NODES, max(MIN_NODES, budget // _bytes_per_node(edges))
        while low < high:  # the most nodes that fit
            mid = (low + high + 1) // 2
            low, high = (mid, high) if table_bytes(mid, edges, threat, max_load) <= budget else (low, mid - 1)
        return cls._sized(low, edges, max_load, cache, int(memory_bytes), **overrides)

    @classmethod
    def for_playouts(cls, playouts: int, game, **overrides) -> SearchConfig:
        """A config sized for ``playouts`` per search of ``game`` plus tree reuse: ``REUSE_FACTOR``
        nodes per playout, each with the game's ``max_legal_moves`` edges (a playout expands at
        most one node, so a search of ``playouts`` never fills these tables and never recycles),
        or ``for_memory(MAX_PLAYOUT_MEMORY)`` when that is less (a longer search recycles).

        Raises:
            ValueError: playouts < 1.
        """
        if playouts < 1:
            raise ValueError(f"playouts must be >= 1, got {playouts}")
        threat = overrides.get("threat_solver", cls.threat_solver)
        max_load = overrides.pop("max_load", cls.max_load)
        cache = overrides.pop("eval_cache_size", cls.eval_cache_size)
        nodes = max(MIN_NODES, REUSE_FACTOR * int(playouts))
        edges = _edges_per_node(game, share=1.0)
        total = table_bytes(nodes, edges, threat, max_load) + cache * _cache_entry_bytes(int(game.num_actions)) \
            + _threat_table_bytes(overrides)
        if total > MAX_PLAYOUT_MEMORY:
            return cls.for_memory(MAX_PLAYOUT_MEMORY, game, max_load=max_load, eval_cache_size=cache,
                                  **overrides)
        return cls._sized(nodes, edges, max_load, cache, total, **overrides)

    @classmethod
    def _sized(cls, nodes: int, edges_per_node: int, max_load: float, cache: int, memory: int,
               **overrides) -> SearchConfig:
        capacity = table_slots(nodes, max_load)
        return cls(node_capacity=capacity, max_load=min(max_load, max(nodes, 1) / capacity),
                   edge_capacity=min(MAX_POOL, nodes * edges_per_node),
                   stat_capacity=min(MAX_POOL, nodes * STATS_PER_NODE), eval_cache_size=cache,
                   memory_bytes=memory, **overrides)

    def replace(self, **changes) -> SearchConfig:
        """A copy with some fields changed."""
        return replace(self, **changes)


def table_slots(nodes: int, max_load: float) -> int:
    """Hash slots of a node table that may hold ``nodes`` nodes at ``max_load``: a power of two."""
    return 1 << max(1, (math.ceil(nodes / max_load) - 1).bit_length())


def _edges_per_node(game, *, share: float) -> int:
    """Edges reserved per node: ``share`` of the game's most legal moves (at least 1)."""
    most = int(game.max_legal_moves)
    if most < 1:
        raise ValueError(f"a game needs at least one legal move, {game!r} says {most}")
    return max(1, math.ceil(share * most))


def _bytes_per_node(edges_per_node: int) -> int:
    """Payload, reserved edges and statistics of one node (its table slot apart)."""
    payload = NODE_BYTES - TABLE_BYTES_PER_NODE - THREAT_BYTES_PER_NODE
    return payload + edges_per_node * EDGE_BYTES + STATS_PER_NODE * STAT_BYTES


def table_bytes(nodes: int, edges_per_node: int, threat_solver: bool = False, max_load: float = 0.9) -> int:
    """Bytes of the search's tables for ``nodes`` nodes with ``edges_per_node`` reserved edges
    each: the node table's slots (all touched at creation), the nodes' payload, their reserved
    edges and statistics (``tree.NODE_BYTES``, ``EDGE_BYTES``, ``STAT_BYTES``: the arrays' dtypes)."""
    slot = TABLE_BYTES_PER_NODE + (THREAT_BYTES_PER_NODE if threat_solver else 0)
    return table_slots(nodes, max_load) * slot + nodes * _bytes_per_node(edges_per_node)


def _cache_entry_bytes(num_actions: int) -> int:
    return 4 * num_actions + 4 + 8 + 1  # priors float32, value float32, key int64, valid (search/cache.py)


def _threat_table_bytes(overrides: dict) -> int:
    if not overrides.get("threat_solver", SearchConfig.threat_solver):
        return 0
    # the alpha-beta table and the ring of proof lines (search/threats.py: 2^18 int32)
    return int(overrides.get("threat_solver_table_mib", SearchConfig.threat_solver_table_mib) * (1 << 20)) + (1 << 20)

