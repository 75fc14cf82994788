"""Every search parameter in one frozen, documented dataclass (after KataGo's SearchParams)."""

from __future__ import annotations

from dataclasses import dataclass, replace


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

    # --- memory -----------------------------------------------------------------------
    node_capacity: int = 1 << 16
    """Nodes in the node table (a power of two)."""
    max_load: float = 0.9
    """Load of the node table at which the search stops expanding and returns what it has."""
    edge_capacity: int = 1 << 24
    """Edges in the edge pool, 20 bytes each (an expanded node has one edge per legal move: about
    200 on an open 15x15 board). Allocated with np.zeros, so only the part used costs memory."""
    eval_cache_size: int = 1 << 14
    """Evaluation-cache entries (a power of two; 0 disables). Cached per node key."""

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
        if self.eval_cache_size and self.eval_cache_size & (self.eval_cache_size - 1):
            raise ValueError(f"eval_cache_size must be 0 or a power of two, got {self.eval_cache_size}")
        if self.batch_size < 1 or self.virtual_loss < 0:
            raise ValueError("batch_size must be >= 1 and virtual_loss >= 0")
        if not 0.0 < self.max_load <= 1.0:
            raise ValueError(f"max_load must be in (0, 1], got {self.max_load}")
        if self.threat_solver_nodes < 0 or self.threat_solver_root_nodes < 0:
            raise ValueError("threat_solver_nodes and threat_solver_root_nodes must be >= 0")
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

    def replace(self, **changes) -> SearchConfig:
        """A copy with some fields changed."""
        return replace(self, **changes)
