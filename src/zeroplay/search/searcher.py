"""The search driver: root set-up and reuse, rounds of gather / evaluate / finish, results.

Python runs once per batch of leaves; everything per playout is compiled (gather.py).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from zeroplay.games import Game, State
from zeroplay.games.layout import I_TO_PLAY
from zeroplay.games.planes import recent_moves_shown
from zeroplay.search import gumbel
from zeroplay.search.backup import init_node
from zeroplay.search.bound import BoundKernel
from zeroplay.search.cache import EvalCache
from zeroplay.search.config import SearchConfig
from zeroplay.search.defence import new_defence_arrays
from zeroplay.search.evaluator import LeafBatch
from zeroplay.search.gather import (
    check_invariants,
    finish,
    gather,
    new_batch_arrays,
    node_key,
    release_collisions,
)
from zeroplay.search.gc import collect, recycle, recycle_threshold
from zeroplay.search.inline import CHUNK_PLAYOUTS, ROLLOUT_CHUNK_PLAYOUTS, run_inline_rounds
from zeroplay.search.limits import Limits
from zeroplay.search.opening import opening_priors
from zeroplay.search.proof import PROOF_NAMES, best_proven_edge, proof_line, verify_line
from zeroplay.search.result import MoveStats, SearchResult, lcb
from zeroplay.search.root_guard import GUARD_MAX_SHARE, PRECHECK_MOVES, STOP_S, UNTIMED_DEEP_PLAYOUTS, RootGuard
from zeroplay.search.root_vct import RootVct
from zeroplay.search.structs import StructCache
from zeroplay.search.threats import check_root, new_threat_arrays, proof_tail
from zeroplay.search.tree import (
    DRAW,
    EXPANDED,
    LOSS,
    M_EDGE_TOP,
    M_FULL,
    M_ROOT,
    M_STAT_TOP,
    NEW,
    NO_NODE,
    PENDING,
    UNPROVEN,
    WIN,
    SearchParams,
    decode_priors,
    new_tree_arrays,
    node_edges,
    tree_bytes_used,
)
from zeroplay.tt.node_table import C_COUNT, C_LIMIT, new_node_table, node_clear, node_count, node_find, node_find_or_add


def _recent_moves_keyed(game: Game, features: str | None) -> int:
    """The recent moves the search folds into node and cache keys for an evaluator reading
    ``features``: those its planes show (``recent_moves_shown``: Gomoku's ``alphazero-gomoku`` 1,
    Go's ``go`` 3), so that two positions the net sees differently never share a node.

    Raises:
        ValueError: ``game`` has fewer recent-move key rows (``zkeys`` rows 2, 3, ...) than that.
    """
    recent = recent_moves_shown(features)
    if recent and game.zkeys.shape[0] < 2 + recent:
        raise ValueError(f"{game!r} has {game.zkeys.shape[0] - 2} recent-move key rows; features {features!r} "
                         f"show {recent} recent moves")
    return recent


ROUND_GUESS_MAX_S = 0.25
"""The most a timed, guarded search guesses its next round of playouts takes from a smaller
round's time per playout (``Searcher._update_stop``): a 16-leaf round of the 15x15 net with
numpy inference took about 0.1 s on a loaded core."""


class Searcher:
    """PUCT Monte-Carlo graph search over one game, keeping its tree between searches.

    Args:
        game: the Game.
        evaluator: an Evaluator (``zeroplay.search.evaluator``).
        config: SearchConfig (default: play mode, no noise).

    ``search(state, playouts=...)`` reuses the subtree of ``state`` when the previous searches
    reached it (our move and the reply), freeing everything else; ``reset()`` empties the tree.
    """

    def __init__(self, game: Game, evaluator, config: SearchConfig | None = None):
        self.game = game
        self.evaluator = evaluator
        self.config = config = config or SearchConfig()
        # gather / finish without numba's per-call typing of ~100 arrays (search/bound.py)
        self._gather = BoundKernel(gather, 10)
        self._finish = BoundKernel(finish, 8)
        # the kernels take the tuples as StructRefs: one reference count a call, not ~100
        # (search/structs.py); rebuilt when a tuple object is replaced
        self._tree_s, self._table_s, self._batch_s = StructCache(), StructCache(), StructCache()
        self.table = new_node_table(config.node_capacity, config.max_load)
        # node indices stay below the table's limit (its free list hands out the lowest unused
        # index first), so the payload arrays need only that many entries
        node_limit = int(self.table.counters[C_LIMIT])
        self.tree = new_tree_arrays(node_limit, config.edge_capacity, config.stat_capacity, game.num_actions)
        threats = new_threat_arrays(game, node_limit, enabled=True, leaf_nodes=config.threat_solver_nodes,
                                    table_mib=config.threat_solver_table_mib) if config.threat_solver else None
        self._gumbel = config.root_policy == "gumbel"
        roots = gumbel.new_gumbel_arrays(game.num_actions, config.gumbel_c_visit, config.gumbel_c_scale) \
            if self._gumbel else None
        defence = new_defence_arrays(game, enabled=config.threat_solver and config.defence,
                                     nodes=config.defence_nodes) if config.defence else None
        self.batch = new_batch_arrays(config.batch_size, game, threats, roots, defence)
        self.root_vct = RootVct(game, config)
        self.root_guard = RootGuard(game, config, self.root_vct.solver)
        # this search's guard outcomes: the choice -> (the move played, its note, the moves shown to lose)
        self._guarded: dict[int, tuple[int, str | None, tuple[int, ...]]] = {}
        self._stop: Callable[[], bool] | None = None  # search()'s stop, while it runs
        self._vct_lost: tuple[int, ...] = ()
        self._guard_deadline: float | None = None
        self._last_round_end = 0.0
        self._last_round_playouts = 0
        features = getattr(evaluator, "features", None)
        self.params = SearchParams(
            c_puct=float(config.c_puct),
            c_puct_log=float(config.c_puct_log),
            c_puct_base=float(config.c_puct_base),
            puct_eps=float(config.puct_eps),
            fpu_reduction=float(config.fpu_reduction),
            fpu_reduction_root=float(config.fpu_reduction_root),
            virtual_loss=int(config.virtual_loss),
            one_ply_proofs=bool(config.one_ply_proofs),
            key_recent_moves=_recent_moves_keyed(game, features),
            # noise or the opening prior reorder the root's priors: the root then scans every edge
            # (Gumbel noise is not in the priors)
            root_noise=(bool(config.noise) or config.opening_prior > 0) and not self._gumbel,
            candidate_radius=int(config.candidate_radius) if getattr(game, "stones_stay", False) else 0,
            forced_playouts_k=0.0,  # set per search (start): only searches with root noise force
        )
        # an evaluator whose rule runs inside the compiled loop (search/inline.py)
        self._inline = getattr(evaluator, "inline_rule", None)
        cacheable = getattr(evaluator, "cacheable", True)
        self.cache = EvalCache(config.eval_cache_size, game.num_actions) if config.eval_cache_size and cacheable else None
        self.rng = np.random.default_rng(config.seed)
        self.root_state: State | None = None
        self._pos = None
        self._limits: Limits | None = None
        self._queued = 0
        self._collisions = 0
        self.playouts = 0
        self.stopped_by = ""
        self._root_priors_ready = False
        self._threats_at_root = False
        self.recycled = 0  # recyclings in the current search
        self.recycled_total = 0

    # --- tree lifecycle ---------------------------------------------------------------------
    def reset(self) -> None:
        """Empty the tree (a new game, a rule change)."""
        node_clear(self.table)
        self.tree.meta[M_EDGE_TOP] = 0
        self.tree.meta[M_STAT_TOP] = 0
        self.tree.meta[M_ROOT] = NO_NODE
        self.tree.meta[M_FULL] = 0
        self.root_state = None

    def set_evaluator(self, evaluator) -> None:
        """Search with another evaluator from now on (new network weights): the evaluation cache
        is emptied; the tree is emptied too when the new one reads other input features."""
        if evaluator is self.evaluator:
            return
        old_features = getattr(self.evaluator, "features", None)
        self.evaluator = evaluator
        if self.cache is not None:
            self.cache.clear()
        if getattr(evaluator, "features", None) != old_features:
            self.params = self.params._replace(
                key_recent_moves=_recent_moves_keyed(self.game, getattr(evaluator, "features", None)))
            self.reset()
        self._inline = getattr(evaluator, "inline_rule", None)

    @property
    def root(self) -> int:
        return int(self.tree.meta[M_ROOT])

    def _set_root(self, state: State) -> None:
        if state.game != self.game:
            raise ValueError(f"this searcher plays {self.game!r}, not {state.game!r}")
        pos = state.fast()
        key = int(node_key(self.game.zkeys, pos.info, pos.stack, self.params.key_recent_moves))
        found = node_find(self.table, key, int(pos.info[I_TO_PLAY]), state.ply) if self.root != NO_NODE else -1
        # a node proven lost in one ply has no edges: as the root it must be expanded afresh
        one_ply_loss = found >= 0 and self.tree.node_state[found] == EXPANDED and self.tree.node_num_edges[found] == 0
        if found >= 0 and self.tree.node_state[found] != PENDING and not one_ply_loss:
            if found != self.root or self.tree.meta[M_FULL]:
                # the same root again (an analysis's next report slice) has nothing to sweep:
                # every node was added below it; collect would only scan the whole table
                collect(self.tree, self.table, found)
            self.tree.meta[M_ROOT] = found
            if self.tree.node_state[found] == EXPANDED:
                # a reused root keeps only its 16-bit priors (renormalised for selection below)
                t = self.tree
                start, k = int(t.node_edge_start[found]), int(t.node_num_edges[found])
                t.root_raw_prior[:k] = decode_priors(t.edge_prior[start : start + k])
        else:
            self.reset()
            node, _ = node_find_or_add(self.table, key, int(pos.info[I_TO_PLAY]), state.ply)
            init_node(self.tree, node, pos.info)
            self.tree.meta[M_ROOT] = node
        self.root_state = state
        self._pos = pos
        self.batch.root_board[:] = pos.board
        self.batch.root_info[:] = pos.info
        if self.batch.root_wmask.shape[0]:  # (none kept for a history: Game.aux_is_history)
            self.batch.root_wmask[:] = pos.aux

    def _prepare_root_priors(self) -> None:
        """Copy the root's raw priors into its private array; noise them in self-play."""
        t, r = self.tree, self.root
        if t.node_state[r] != EXPANDED:
            return
        start, k = int(t.node_edge_start[r]), int(t.node_num_edges[r])
        priors = t.root_raw_prior[:k].astype(np.float64)
        priors = priors / priors.sum() if priors.sum() > 0 else np.full(k, 1.0 / max(k, 1))
        if self.config.opening_prior > 0 and self.root_state.ply < self.config.opening_prior_plies:
            priors = opening_priors(self.game, priors, t.edge_move[start : start + k], self.config.opening_prior)
        if self.config.noise and k > 1 and not self._gumbel:
            alpha = self.config.dirichlet_total_alpha / k
            eta = self.rng.dirichlet(np.full(k, alpha))
            eps = self.config.dirichlet_epsilon
            priors = (1.0 - eps) * priors + eps * eta
        t.root_prior[:k] = priors.astype(np.float32)
        self._root_priors_ready = True
        if self._gumbel:
            budget = self._limits.remaining_playouts(self.playouts, int(t.node_n[r]))
            self.batch = self.batch._replace(gumbel=gumbel.prepare_root(
                t, r, self.batch.gumbel, m=self.config.gumbel_m, noise=self.config.noise, rng=self.rng,
                budget=budget if budget < (1 << 40) else gumbel.DEFAULT_BUDGET))

    # --- one search, in steps (search_many interleaves these) ---------------------------------
    def start(self, state: State, limits: Limits) -> None:
        """Set the root (reusing the tree when possible) and the limits of a new search."""
        self.playouts = 0
        self.stopped_by = ""
        self._started = time.perf_counter()
        self._guarded = {}
        self._vct_lost = ()
        self._guard_deadline = None
        self._last_round_end = self._started
        self._last_round_playouts = 0
        self.root_vct.resume()  # an interrupt was for the search before
        self.root_guard.start_search()
        if self.root_guard.enabled and limits.seconds is not None and self.root_guard.share > 0:
            # the VCT guard's share of the time comes after the playouts (search/root_guard.py)
            self._guard_deadline = self._started + limits.seconds
            guard_s = max(limits.seconds * self.root_guard.share,
                          min(self.config.vct_guard_min_seconds, limits.seconds * GUARD_MAX_SHARE))
            limits = replace(limits, seconds=limits.seconds - guard_s)
        self._limits = limits
        self._root_priors_ready = False
        self.recycled = 0
        self._playouts_at_recycle = -1
        self.root_vct.line = None
        self.batch.gumbel.enabled[0] = False  # until this search's root is prepared
        forced = self.config.forced_playouts_k if self.config.noise and not self._gumbel else 0.0
        if forced != self.params.forced_playouts_k:
            self.params = self.params._replace(forced_playouts_k=float(forced))
        if state.is_terminal:
            self.root_state = state
            self.stopped_by = "game over"
            return
        self._set_root(state)
        self._make_room()
        self._prepare_root_priors()
        self._threats_at_root = self.config.threat_solver
        self._check_root_threats()
        self._update_stop()

    @property
    def done(self) -> bool:
        return bool(self.stopped_by)

    def _update_stop(self) -> None:
        t, r = self.tree, self.root
        if t.node_proof[r] != UNPROVEN or self.root_vct.line:
            self.stopped_by = "proven"
        elif t.meta[M_FULL] and not self._recycle():
            self.stopped_by = "full"
        elif t.node_state[r] == NEW:
            self.stopped_by = ""  # whatever the limits, the root is evaluated: there must be moves to choose from
        else:
            reason = self._limits.reason(self.playouts, int(t.node_n[r]), self._started)
            if reason is None and self._guard_deadline is not None:
                # the VCT guard's time comes after the playouts': end them a round early rather
                # than run the last round into it (rounds of a loaded 15x15 search took 15-80 ms).
                # The next round is guessed from the last one's time per playout: the root's
                # round is one leaf and the next batch_size (a numpy 15x15 net took 0.1 s for
                # those 16, a 0.14 s search's whole guard time: helper-65's 300 ms turns). A
                # small round's time can be mostly one-off costs (the first search's compile,
                # the root's priors), so the scaled guess is held to ROUND_GUESS_MAX_S.
                now = time.perf_counter()
                last = now - self._last_round_end
                done = max(1, self.playouts - self._last_round_playouts)
                ahead = max(last, min(last * self.config.batch_size / done, ROUND_GUESS_MAX_S))
                if now + ahead >= self._started + self._limits.seconds:
                    reason = "seconds"
                self._last_round_end, self._last_round_playouts = now, self.playouts
            self.stopped_by = reason or ""

    def _make_room(self) -> None:
        """A reused tree that holds more than half of a table is trimmed to about half before the
        search (``recycle``: its least visited nodes go, N and Q of what stays are unchanged), so
        that a search sized for its playouts (``SearchConfig.for_playouts``: 2 nodes a playout)
        runs without recycling in its middle. Over a game the reused part grows when the
        expected lines are played (a new user's 9x9 Go game recycled at move 12 at the default
        800 playouts, and said so)."""
        t = self.tree
        if not self.config.recycle or t.node_state[self.root] != EXPANDED or max(self.memory_load().values()) <= 0.5:
            return
        recycle(t, self.table, self.root, recycle_threshold(t, self.table, 0.5))

    def _recycle(self) -> bool:
        """A pool filled: free the least visited part of the graph (``search/gc.py``). True when
        the search can go on: each pool at most 3/4 full afterwards, and playouts completed since
        the last recycling (else what the root itself holds does not fit: e.g. its own edges)."""
        t = self.tree
        if not self.config.recycle or t.node_state[self.root] != EXPANDED:
            return False
        if self.recycled and self.playouts == self._playouts_at_recycle:
            return False
        self._playouts_at_recycle = self.playouts
        min_visits = recycle_threshold(t, self.table, 0.5)
        recycle(t, self.table, self.root, min_visits)
        self.recycled += 1
        self.recycled_total += 1
        return max(self.memory_load().values()) <= 0.75

    def memory_load(self) -> dict:
        """Used share of each table: ``nodes`` (of the node limit), ``edges``, ``stats``, in [0, 1]."""
        t, c = self.tree, self.table.counters
        return {"nodes": int(c[C_COUNT]) / int(c[C_LIMIT]), "edges": int(t.meta[M_EDGE_TOP]) / t.edge_move.shape[0],
                "stats": int(t.meta[M_STAT_TOP]) / t.stat_n.shape[0]}

    def memory_bytes_used(self) -> int:
        """Bytes the live nodes and the pools' used parts take (``tree.tree_bytes_used``)."""
        return tree_bytes_used(self.tree, int(node_count(self.table)))

    def gather(self) -> int:
        """Phase 1: run playouts until a batch of leaves is queued; returns how many.

        With an evaluator whose rule runs inside the compiled loop (``inline_rule``), whole
        rounds of playouts run here instead (``search/inline.py``) and 0 is returned."""
        t = self.tree
        remaining = self._limits.remaining_playouts(self.playouts, int(t.node_n[self.root]))
        max_leaves = 1 if t.node_state[self.root] == NEW else self.config.batch_size
        pos = self._pos
        if self._inline is not None:
            self._run_inline(max_leaves)
            return 0
        queued, done, collisions = self._gather(self._tree_s.get(t), self._table_s.get(self.table), self.params,
                                                self.game.params, self.game.zkeys, pos.board, pos.info, pos.stack,
                                                pos.aux, self._batch_s.get(self.batch), max_leaves, max(remaining, 1))
        self.playouts += done
        self._queued = queued
        self._collisions = collisions
        if queued == 0:
            self._release()
            self._after_round()
        return queued

    def _run_inline(self, max_leaves: int) -> None:
        """Rounds with the evaluator's rule in the compiled loop, the batched path's rounds: the
        root alone first (its private priors and threat check follow in Python), then up to a
        chunk of playouts per call (one round per call in debug mode, for the invariant check)."""
        rule, limits, t, pos = self._inline, self._limits, self.tree, self._pos
        unlimited = 1 << 40
        max_playouts = limits.playouts - self.playouts if limits.playouts is not None else unlimited
        max_visits = limits.visits if limits.visits is not None else unlimited
        leaves = 1 if max_leaves == 1 else (rule.leaves_per_round or max_leaves)
        first = t.node_state[self.root] == NEW
        done = run_inline_rounds(self._tree_s.get(t), self._table_s.get(self.table), self.params, self.game.params,
                                 self.game.zkeys, pos.board, pos.info, pos.stack, pos.aux,
                                 self._batch_s.get(self.batch), leaves, float(rule.share), int(rule.rollouts),
                                 max_playouts, max_visits, 1 if first or self.config.debug else unlimited,
                                 ROLLOUT_CHUNK_PLAYOUTS if rule.rollouts else CHUNK_PLAYOUTS)
        self.playouts += done
        self._queued = 0
        self._after_round()

    def leaf_batch(self) -> LeafBatch:
        """The queued leaves as a LeafBatch (views into the batch buffers)."""
        q, b = self._queued, self.batch
        return LeafBatch(self.game, b.leaf_board[:q], b.leaf_info[:q], b.leaf_legal[:q])

    def finish(self, priors: np.ndarray, values: np.ndarray) -> None:
        """Phase 3: expand the queued leaves with their evaluations and back them up."""
        q = self._queued
        b = self.batch
        self._finish(self._tree_s.get(self.tree), self.params.virtual_loss, b.leaf_node, b.leaf_legal, b.moves, b.path_node,
                     b.path_edge, b.path_len, q, np.ascontiguousarray(priors[:q], dtype=np.float32),
                     np.ascontiguousarray(values[:q], dtype=np.float32))
        self.playouts += q
        self._queued = 0
        self._release()
        self._after_round()

    def _release(self) -> None:
        if self._collisions:
            release_collisions(self._tree_s.get(self.tree), self.params, self._batch_s.get(self.batch),
                               self._collisions)
            self._collisions = 0

    def abandon(self) -> None:
        """Undo a gathered batch that will not be evaluated (the evaluator raised)."""
        from zeroplay.search.backup import backup_path

        b, t = self.batch, self.tree
        for i in range(self._queued):
            n = int(b.leaf_node[i])
            t.node_state[n] = NEW
            t.node_num_edges[n] = 0
            backup_path(t, self.params.virtual_loss, b.path_node[i], b.path_edge[i], int(b.path_len[i]), False)
        self._queued = 0
        self._release()

    def _check_root_threats(self) -> None:
        """Threat solver: one VCF at the root per search, once the root has its edges."""
        if self._threats_at_root and self.tree.node_state[self.root] == EXPANDED:
            self._threats_at_root = False
            t0 = time.perf_counter()
            try:
                if not check_root(self, self.config.threat_solver_root_nodes) and self.tree.node_proof[self.root] == UNPROVEN:
                    if self._stop is not None and self._stop():
                        return  # stopped before it began (a YXSTOP read with the command): the move is wanted now
                    # no VCF: the proof-number VCT within its share (search/root_vct.py)
                    self.root_vct.run(self.root_state, seconds=self._limits.seconds, started=self._started)
            finally:
                # not a round of playouts: the next round's guess (_update_stop) leaves it out
                self._last_round_end += time.perf_counter() - t0

    def _after_round(self) -> None:
        if not self._root_priors_ready:
            self._prepare_root_priors()
        self._check_root_threats()
        if self.config.debug:
            bad = check_invariants(self.tree, self.root)
            if bad >= 0:
                raise AssertionError(f"search invariant broken at node {bad}")
        self._update_stop()

    def evaluate_queued(self) -> tuple[np.ndarray, np.ndarray]:
        """Phase 2 for this searcher alone: cache, then the evaluator for the misses."""
        return evaluate_batches([self])[0]

    # --- whole search --------------------------------------------------------------------------
    def search(self, state: State, playouts: int | None = None, visits: int | None = None,
               seconds: float | None = None, stop: Callable[[], bool] | None = None) -> SearchResult:
        """Search ``state`` until a limit is reached; see ``SearchResult``.

        Args:
            stop: asked between batches; True ends the search early (the result is that of the
                playouts so far; the root is always evaluated first). E.g. a Ctrl-C flag.

        Raises:
            ValueError: no limit given, or a state of another game.
        """
        self._stop = stop
        try:
            self.start(state, Limits(playouts=playouts, visits=visits, seconds=seconds))
            while not self.done:
                if stop is not None and self.tree.node_state[self.root] != NEW and stop():
                    self.stopped_by = "stop"
                    break
                self._precheck()
                if self.gather():
                    try:
                        priors, values = self.evaluate_queued()
                    except BaseException:
                        self.abandon()
                        raise
                    self.finish(priors, values)
        finally:
            self._stop = None
        return self.result()

    def _precheck(self) -> None:
        """A timed search's VCT guard checks its leading moves while it runs, from its first
        second on and within a tenth of its time (``RootGuard.precheck``, ``precheck_due``):
        the guard at the end then finds them settled."""
        guard = self.root_guard
        if not guard.enabled or self._guard_deadline is None or not guard.precheck_due() \
                or self.tree.node_state[self.root] != EXPANDED:
            return
        edges = node_edges(self.tree, self.root)
        order = np.argsort(-edges.visits, kind="stable")[:PRECHECK_MOVES]
        guard.precheck(self.root_state, [int(edges.moves[i]) for i in order if edges.visits[i] > 0],
                       self._started + self._limits.seconds)
        self._last_round_end = time.perf_counter()  # the check is not a round of playouts

    # --- results -------------------------------------------------------------------------------
    def result(self) -> SearchResult:
        """Statistics of the root, the chosen move, principal variation and proof."""
        state = self.root_state
        if state is None or state.is_terminal:
            return SearchResult(game_over=True, stopped_by="game over", seconds=time.perf_counter() - self._started)
        t, r, game = self.tree, self.root, self.game
        notes = []
        if self.stopped_by == "full":
            notes.append("search tables full (recycling could not make room): the search stopped expanding")
        if self.recycled:
            notes.append("search tables filled: the least visited nodes were recycled and the search went on")
        edges = node_edges(t, r)
        policy = np.zeros(game.num_actions, np.float32)
        stats = []
        z = self.config.lcb_z
        for i in range(len(edges.moves)):
            mv, n, c = int(edges.moves[i]), int(edges.visits[i]), int(edges.children[i])
            q = float(edges.q[i]) if n > 0 else 0.0
            proven, dist = None, None
            if c >= 0 and t.node_proof[c] != UNPROVEN:
                proven = {LOSS: "win", WIN: "loss", DRAW: "draw"}[int(t.node_proof[c])]
                dist = int(t.node_dist[c]) + 1
            policy[mv] = n
            stats.append(MoveStats(mv, n, q, float(t.root_raw_prior[i]), lcb(q, n, z), proven, dist))
        if policy.sum() > 0:
            policy /= policy.sum()
        gumbel_move = None
        if self._gumbel and len(edges.moves) > 0 and self.batch.gumbel.enabled[0]:
            moves, improved, gumbel_move = gumbel.root_outcome(t, r, self.batch.gumbel)
            policy[:] = 0.0
            policy[moves] = improved
        stats.sort(key=lambda s: (-s.visits, -s.q, -s.prior, s.move))

        proven = PROOF_NAMES.get(int(t.node_proof[r]))
        distance = int(t.node_dist[r]) if proven else None
        best = None
        line: list[int] = []
        self._vct_lost = ()
        if proven:
            line = proof_line(t, r)
            line += proof_tail(self, line)  # a VCF-proven node's line, down to the five
            if self.config.verify_proofs and not verify_line(state, proven, distance, line):
                notes.append(f"proof ({proven} in {distance}) failed verification on real states; ignored")
                proven, distance = None, None
            elif line:
                best = line[0]
        vct_line = self.root_vct.line if not proven else None
        if vct_line:
            proven, distance, best = "win", len(vct_line), vct_line[0]
        if best is None:
            # no root edges only when the table filled up before the root could be expanded
            best = gumbel_move if gumbel_move is not None else \
                self._choose(stats) if stats else int(state.legal_moves()[0])
            if self.done:  # the final result: a progress report mid-search (pbrain's MESSAGE) has no guard
                best = self._guard(state, best, stats, notes)
        pv = vct_line if vct_line else self._principal_variation(best)
        if proven in ("win", "loss"):
            # the whole proven line to the game's end (the web board draws it: "wins in N"), not
            # the tree's few visited plies: the proof's own line (VCF tail included) when it starts
            # with the move chosen, finished where it stops at a double threat
            if not vct_line and line and line[0] == best and len(line) > len(pv):
                pv = line
            pv = self._to_the_end(list(pv))
        root_q = float(t.node_q[r])
        seconds = time.perf_counter() - self._started  # the VCT guard's time included
        return SearchResult(
            best_move=best,
            root_visits=int(t.node_n[r]),
            root_q=root_q,
            moves=tuple(stats),
            policy=policy,
            pv=tuple(pv),
            proven=proven,
            proven_distance=distance,
            playouts=self.playouts,
            seconds=seconds,
            playouts_per_s=self.playouts / seconds if seconds > 0 else 0.0,
            table_load=node_count(self.table) / self.config.node_capacity,
            stopped_by=self.stopped_by,
            notes=tuple(notes),
            vct_lost=self._vct_lost,
        )

    # --- inspection (analysis boards, tests) -------------------------------------------------
    def node_at(self, moves=()) -> int:
        """Node index reached from the root through ``moves`` (actions); -1 if not in the tree."""
        t, n = self.tree, self.root
        for mv in moves:
            if n < 0:
                return -1
            start, touched = int(t.node_edge_start[n]), int(t.node_touched[n])
            hits = np.flatnonzero(t.edge_move[start : start + touched] == mv)
            n = int(t.stat_child[int(t.node_stat_start[n]) + int(hits[0])]) if len(hits) else -1
        return n

    def stats_at(self, moves=()) -> dict | None:
        """Statistics of the node reached through ``moves`` from the root, or None.

        Keys: ``visits`` N, ``q`` Q and ``u`` U (both from that node's side to move), ``state``
        ("new", "pending", "expanded", "terminal"), ``proven`` ("win"/"loss"/"draw" for its side
        to move, or None), ``distance``, ``virtual_loss``, ``edges``: list of dicts with
        ``move``, ``visits`` (edge N), ``prior`` (raw; below the root as stored in 16 bits,
        within ``tree.PRIOR_ABS_ERROR``), ``q`` (-Q(child), this node's mover's
        view; None when the edge was never visited), ``child`` (node index or -1),
        ``virtual_loss``.
        """
        n = self.node_at(moves)
        if n < 0:
            return None
        t = self.tree
        ne = node_edges(t, n)
        priors = t.root_raw_prior[: len(ne.moves)] if n == self.root else ne.priors
        edges = []
        for i in range(len(ne.moves)):
            c, visits = int(ne.children[i]), int(ne.visits[i])
            edges.append({
                "move": int(ne.moves[i]),
                "visits": visits,
                "prior": float(priors[i]),
                "q": float(ne.q[i]) if visits > 0 else None,
                "child": c,
                "virtual_loss": int(ne.virtual_loss[i]),
            })
        return {
            "node": n,
            "visits": int(t.node_n[n]),
            "q": float(t.node_q[n]),
            "u": float(t.node_u[n]),
            "state": ("new", "pending", "expanded", "terminal")[int(t.node_state[n])],
            "proven": PROOF_NAMES.get(int(t.node_proof[n])),
            "distance": int(t.node_dist[n]),
            "virtual_loss": int(t.node_vl[n]),
            "edges": edges,
        }

    def root_priors(self) -> np.ndarray:
        """float32 (num_actions,): the priors the root used in this search (noised in self-play)."""
        out = np.zeros(self.game.num_actions, np.float32)
        t, r = self.tree, self.root
        if r < 0:
            return out
        start, k = int(t.node_edge_start[r]), int(t.node_num_edges[r])
        out[t.edge_move[start : start + k]] = t.root_prior[:k]
        return out

    def _guard(self, state, best: int, stats: list[MoveStats], notes: list[str]) -> int:
        """The VCT guard's move for the search's choice ``best`` (search/root_guard.py): ``best``
        unless the opponent has a VCT after it and not after another of the most visited moves.
        Asked by ``result`` once the search is done (not by reports while it runs); once per
        search and choice (``result`` may be asked again)."""
        guard = self.root_guard
        if not guard.enabled:
            return best
        if best not in self._guarded:
            # by visits, then (a search stopped early) by prior
            order = [best] + [s.move for s in stats if s.move != best and s.proven != "loss"]
            deadline = self._guard_deadline
            if self.stopped_by == "stop":  # the caller wants the move now (pbrain's YXSTOP)
                deadline = min(deadline or math.inf, time.perf_counter() + STOP_S)
                self.root_vct.resume()  # STOP_S for the guard; an interrupt from now on ends it
            # a deeper check of a move that passed: in a timed search's time, or by work alone in
            # an untimed one of enough playouts (its move a function of the position)
            deep_until = (None if self.stopped_by == "stop" else deadline if deadline is not None
                          else math.inf if self.playouts >= UNTIMED_DEEP_PLAYOUTS else None)
            chosen = guard.choose(state, order, deadline, deep_until)
            played = best if chosen is None else chosen
            self._guarded[best] = (played, guard.note(best, played), tuple(guard.lost))
        played, note, lost = self._guarded[best]
        if note:
            notes.append(note)
        self._vct_lost = lost
        return played

    def interrupt(self) -> None:
        """From another thread, with a ``stop`` callback that now answers True (pbrain's
        YXSTOP): end the threat searches running now, so that the search reaches its next
        ``stop`` poll at once. The root's proof-number VCT runs before the first poll (0.1-1.5 s
        on 15x15), and the VCT guard's checks after the last one; a check running when the
        interrupt comes stops, and no other is started. The next search starts clean."""
        self.root_vct.interrupt()

    def vct_cleared(self, state: State, move: int) -> bool:
        """Whether the VCT guard lets ``move`` (an action of ``state``) be played: True when the
        guard is off or the opponent has no VCT after it within the guard's budget
        (``vct_guard_nodes``; search/root_guard.py); False when one was found and verified. For
        a front-end that plays another move than the search's (``choice.varied_move``)."""
        if not self.root_guard.enabled:
            return True
        return self.root_guard.choose(state, [int(move)]) is not None

    def vct_known_lost(self, state: State, moves: list[int]) -> set[int]:
        """Those of ``moves`` (actions of ``state``) after which the VCT guard's memory holds a
        verified win for the opponent (``RootGuard.memory``; no new check): for an analysis
        that lists moves the last search's guard did not reach (pbrain's ``YXNBEST``)."""
        if not self.root_guard.enabled:
            return set()
        return {int(m) for m in moves if isinstance(self.root_guard.known(state.play(int(m))), list)}

    def _choose(self, stats: list[MoveStats]) -> int:
        """Most visits (or best LCB), never a move proven lost while another is not."""
        candidates = [s for s in stats if s.proven != "loss"] or stats
        if self.config.move_choice == "lcb":
            top = max(s.visits for s in candidates)
            pool = [s for s in candidates if s.visits >= self.config.lcb_min_fraction * top and s.visits > 0]
            if pool:
                return max(pool, key=lambda s: (s.lcb, s.visits)).move
        return candidates[0].move

    def principal_variation(self, first: int) -> list[int]:
        """The line the tree expects after root move ``first``: ``first``, then at each expanded
        node the most visited edge (the proven best where the node is proven), while it has at
        least 2 visits; at most 64 actions. Call it between searches (the tree of the last one)."""
        return self._principal_variation(first)

    def line_visits(self, moves) -> tuple[list[int], list[int]]:
        """Visits along ``moves`` (actions from the root, e.g. a ``principal_variation``): for
        each move, N of the node it reaches (KataGo's ``pvVisits``) and the visits of the edge
        it follows (``pvEdgeVisits``; below N where other paths reach the same position, this
        search being a graph). Both 0 from the first move the tree does not hold (a forced
        ending the solver appended). Call it between searches (the tree of the last one)."""
        t, n = self.tree, self.root
        nodes: list[int] = []
        edges: list[int] = []
        for mv in moves:
            child, edge_n = -1, 0
            if n >= 0:
                start, touched = int(t.node_edge_start[n]), int(t.node_touched[n])
                hits = np.flatnonzero(t.edge_move[start : start + touched] == mv)
                if len(hits):
                    s = int(t.node_stat_start[n]) + int(hits[0])
                    child, edge_n = int(t.stat_child[s]), int(t.stat_n[s])
            nodes.append(int(t.node_n[child]) if child >= 0 else 0)
            edges.append(edge_n if child >= 0 else 0)
            n = child
        return nodes, edges

    def _principal_variation(self, first: int) -> list[int]:
        t = self.tree
        pv = [first]
        n = self.node_at([first])
        while n >= 0 and t.node_state[n] == EXPANDED and len(pv) < 64:
            touched = int(t.node_touched[n])
            if touched == 0:
                break
            if t.node_proof[n] != UNPROVEN:
                i = best_proven_edge(t, n)
                if i < 0:
                    break
            else:
                s = int(t.node_stat_start[n])
                i = int(np.argmax(t.stat_n[s : s + touched]))
                if t.stat_n[s + i] < 2:
                    break  # a single visit is no principal variation, just the last playout
            pv.append(int(t.edge_move[int(t.node_edge_start[n]) + i]))
            n = int(t.stat_child[int(t.node_stat_start[n]) + i])
        if n >= 0 and t.node_proof[n] == LOSS and t.node_num_edges[n] == 0 and len(pv) < 64:
            pv += self._double_threat_ending(pv)
        return pv

    def _to_the_end(self, pv: list[int]) -> list[int]:
        """A proven line ``pv`` (from the root) finished where it stops short of the game's end:
        the side to move's winning move, or (facing two winning cells) a block and the win that
        remains; unchanged at the end, or when neither applies."""
        if len(pv) >= 64:
            return pv
        try:
            s = self.root_state.play_many(pv)
        except ValueError:
            return pv
        if s.is_terminal:
            return pv
        wins = s.winning_moves(s.to_play)
        if len(wins):
            return pv + [int(wins[0])]
        return pv + self._double_threat_ending(pv)

    def _double_threat_ending(self, pv: list[int]) -> list[int]:
        """Two plies that finish a line ending where the side to move faces two winning cells
        (a one-ply proven loss has no edges): a block, then the win that remains."""
        try:
            s = self.root_state.play_many(pv)
        except ValueError:
            return []
        threats = [int(m) for m in s.winning_moves(1 - s.to_play)]
        if len(threats) < 2:
            return []
        after = s.play(threats[0])
        wins = [int(m) for m in after.winning_moves(after.to_play)]
        return [threats[0], wins[0]] if wins else [threats[0]]


def evaluate_batches(searchers: list[Searcher]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Evaluate the queued leaves of several searchers with ONE evaluator call.

    Cache hits are answered from each searcher's cache; the misses of all searchers are merged
    into one LeafBatch (they must share the game and the evaluator).

    Returns, per searcher: priors float32 (queued, A) and values float32 (queued,).
    """
    if len(searchers) == 1 and searchers[0].cache is None:
        # the common single-search case: no copies, no bookkeeping
        s = searchers[0]
        q = s._queued
        p, v = s.evaluator.evaluate(s.leaf_batch())
        p = np.asarray(p, np.float32)
        v = np.asarray(v, np.float32)
        if p.shape != (q, s.game.num_actions) or v.shape != (q,):
            raise ValueError(f"evaluator returned shapes {p.shape}, {v.shape}; expected "
                             f"({q}, {s.game.num_actions}), ({q},)")
        return [(p, v)]
    outs, misses = [], []
    for s in searchers:
        q = s._queued
        priors = np.zeros((q, s.game.num_actions), np.float32)
        values = np.zeros(q, np.float32)
        hit = np.zeros(q, np.bool_)
        if s.cache is not None and q:
            hit = s.cache.lookup(s.batch.leaf_key[:q], priors, values)
        outs.append((priors, values))
        misses.append(np.flatnonzero(~hit))
    total = sum(len(m) for m in misses)
    if total:
        first = searchers[0]
        boards = np.concatenate([s.batch.leaf_board[m] for s, m in zip(searchers, misses)])
        infos = np.concatenate([s.batch.leaf_info[m] for s, m in zip(searchers, misses)])
        legal = np.concatenate([s.batch.leaf_legal[m] for s, m in zip(searchers, misses)])
        p, v = first.evaluator.evaluate(LeafBatch(first.game, boards, infos, legal))
        p = np.asarray(p, np.float32)
        v = np.asarray(v, np.float32)
        if p.shape != (total, first.game.num_actions) or v.shape != (total,):
            raise ValueError(f"evaluator returned shapes {p.shape}, {v.shape}; expected "
                             f"({total}, {first.game.num_actions}), ({total},)")
        at = 0
        for s, m, (priors, values) in zip(searchers, misses, outs):
            priors[m] = p[at : at + len(m)]
            values[m] = v[at : at + len(m)]
            if s.cache is not None and len(m):
                s.cache.store(s.batch.leaf_key[m], priors[m], values[m])
            at += len(m)
    return outs


def lockstep_round(searchers: list[Searcher]) -> None:
    """One round of several started searches: each gathers a batch of leaves, all the leaves go
    to the evaluator in ONE call (``evaluate_batches``), each finishes its batch. On an evaluator
    error every gathered batch is abandoned (no virtual loss left) and the error propagates."""
    waiting = [s for s in searchers if not s.done and s.gather()]
    if not waiting:
        return
    try:
        outs = evaluate_batches(waiting)
    except BaseException:
        for s in waiting:
            s.abandon()
        raise
    for s, (p, v) in zip(waiting, outs):
        s.finish(p, v)
