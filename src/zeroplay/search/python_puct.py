"""PUCT Monte-Carlo search driven from Python, for games without the compiled fast path.

For a Game whose ``kernels`` is None (shogi: its rules live in cshogi) the search walks real
``State`` objects (``state.play``) instead of the compiled kernels; everything else is arrays.
It asks the game nothing by name: states need ``play(action)``, ``legal_moves()`` (int actions),
``is_terminal``, ``winner``, ``to_play``, ``ply`` and a 64-bit ``key`` covering the whole position.

Data (struct-of-arrays, preallocated; ``capacity`` nodes, ``edge_capacity`` edges)::

    node n (index from the node table, tt/node_table.py, keyed by (key, to_play, ply)):
      node_value   float32  value V from the network, mover at n's view, in [-1, 1]
      node_edges   int64 x2 first edge, edge count (-1 while unexpanded)       -> 20 bytes/node
      node_terminal int8    0 no, 1 terminal (node_value is then the exact result)
    edge e:
      edge_action int32, edge_prior float32 (P), edge_visits int32 (N(s,a)),
      edge_value_sum float32 (W(s,a), mover at the parent's view), edge_virtual int32,
      edge_child int32 (-1 until first crossed)                                -> 24 bytes/edge

Statistics live on edges (N(s,a), W(s,a), Q = W / N), so transpositions share a node's
network evaluation and expansion but each path keeps its own counts (the scheme of the dlshogi
book's node hash, which shares the evaluation). Selection (AlphaZero's PUCT): argmax over the
node's edges of Q(s,a) + c_puct * P(s,a) * sqrt(N(s)) / (1 + N(s,a)), unvisited edges at the
first-play urgency Q = V(s) - fpu_reduction (KataGo's FPU, V from the net). Virtual loss: each
edge on a path in flight counts ``virtual_loss`` extra visits of value -1 until its leaf is
evaluated, so one batch spreads over several leaves. A leaf already waiting in the batch (a
collision) ends that descent; terminal leaves back up their exact result at once.

Proofs (``solve_wins``, the MCTS-solver of Winands, Bjoernsson & Saito 2008, as the compiled search
does with its solvers): a leaf whose mover has an immediate win (``state.winning_moves()``: shogi's
mates in one) is a proven win at expansion; a terminal leaf is proven by its result. Proofs back
up -- a node with a child proven lost (for the child's mover) is won, a node whose every child is
proven won is lost -- and a descent that reaches a proven node backs up its exact value (+-1)
without descending further, so won positions are played out as wins instead of drifting.
``node_proven`` int8 per node: 0 unknown, 1 the mover wins, -1 the mover loses.

Evaluator: ``evaluate_states(states) -> (priors float32 (B, num_actions), values float32 (B,))``,
priors zero off the legal moves and summing to one over them, values from each state's mover.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from zeroplay.tt import new_node_table, node_find_or_add


class StateEvaluator(Protocol):
    """The network side of the Python-driven search (see the module docstring)."""

    def evaluate_states(self, states: list) -> tuple[np.ndarray, np.ndarray]: ...


@dataclass(frozen=True)
class PythonPuctConfig:
    """Parameters of the Python-driven PUCT search.

    Attributes:
        c_puct: exploration constant (AlphaZero's c_puct; 1.5 as in KataGo's default range).
        fpu_reduction: first-play urgency Q = V(s) - this for unvisited edges (KataGo: 0.2).
        virtual_loss: visits of value -1 added per in-flight path (1, as AlphaGo Zero's).
        batch_size: leaves per evaluator call (8).
        capacity: nodes, a power of two (2^16); edge_capacity: edges (2^21).
        solve_wins: prove immediate wins at expansion and back proofs up (see the module
            docstring); off by default.
    """

    c_puct: float = 1.5
    fpu_reduction: float = 0.2
    virtual_loss: int = 1
    batch_size: int = 8
    capacity: int = 1 << 16
    edge_capacity: int = 1 << 21
    solve_wins: bool = False


@dataclass
class PuctMove:
    """One root move: action, visits N(s,a), Q(s,a) (mover at the root's view), prior P."""

    action: int
    visits: int
    q: float
    prior: float


@dataclass
class PuctResult:
    """Outcome of a search: ``best_move`` (most visits; None when the root is terminal),
    ``root_q`` (visit-weighted Q of the root's moves, root mover's view; +-1 when proven),
    ``proven`` (1 the root's mover wins by force, -1 loses, 0 unknown; a proven win's
    ``best_move`` is the winning move), ``moves`` (most visited
    first), ``pv`` (actions along most-visited edges), ``playouts``, ``seconds``, ``full``
    (tables filled before the playouts asked for)."""

    best_move: int | None
    root_q: float
    moves: list[PuctMove] = field(default_factory=list)
    pv: list[int] = field(default_factory=list)
    playouts: int = 0
    seconds: float = 0.0
    full: bool = False
    proven: int = 0


class PythonPuct:
    """One search tree over states of a non-compiled game; ``search`` starts fresh each call."""

    def __init__(self, evaluator: StateEvaluator, config: PythonPuctConfig | None = None):
        self.evaluator = evaluator
        self.config = config or PythonPuctConfig()
        cap, ecap = self.config.capacity, self.config.edge_capacity
        self.table = new_node_table(cap)
        self.node_value = np.zeros(cap, np.float32)
        self.node_first = np.full(cap, -1, np.int64)
        self.node_count = np.zeros(cap, np.int64)
        self.node_terminal = np.zeros(cap, np.int8)
        self.node_proven = np.zeros(cap, np.int8)
        self.node_win_edge = np.full(cap, -1, np.int64)
        self.edge_action = np.zeros(ecap, np.int32)
        self.edge_prior = np.zeros(ecap, np.float32)
        self.edge_visits = np.zeros(ecap, np.int32)
        self.edge_value_sum = np.zeros(ecap, np.float32)
        self.edge_virtual = np.zeros(ecap, np.int32)
        self.edge_child = np.full(ecap, -1, np.int32)
        self.edges_used = 0
        self.evaluation_seconds = 0.0

    # --- public -------------------------------------------------------------------------------
    def search(self, root, *, playouts: int, seconds: float | None = None, stop=None) -> PuctResult:
        """Run ``playouts`` playouts from ``root`` (a State), fewer when ``seconds`` pass or
        ``stop`` (a threading.Event) is set; at least one batch is evaluated."""
        started = time.perf_counter()
        self._reset()
        if root.is_terminal:
            return PuctResult(None, _terminal_value(root), [], [], 0, 0.0)
        root_node = self._node(root)
        self._expand([(root_node, root)])
        done, full = 0, False
        while done < playouts and not self.node_proven[root_node]:
            full = self._round(root, root_node, min(self.config.batch_size, playouts - done))
            done += min(self.config.batch_size, playouts - done)
            if full or (seconds is not None and time.perf_counter() - started >= seconds) or (stop is not None and stop.is_set()):
                break
        return self._result(root, root_node, done, time.perf_counter() - started, full)

    # --- tree ---------------------------------------------------------------------------------
    def _reset(self):
        from zeroplay.tt import node_clear

        node_clear(self.table)
        self.node_first[:] = -1
        self.node_proven[:] = 0
        self.node_win_edge[:] = -1
        self.edges_used = 0
        self.evaluation_seconds = 0.0

    def _node(self, state) -> int:
        key = state.key
        index, _ = node_find_or_add(self.table, key - (1 << 64) if key >= 1 << 63 else key, state.to_play, state.ply)
        return index

    def _expand(self, leaves):
        """Evaluate (node, state) pairs in one evaluator call and give each its edges."""
        t0 = time.perf_counter()
        priors, values = self.evaluator.evaluate_states([s for _, s in leaves])
        self.evaluation_seconds += time.perf_counter() - t0
        full = False
        for (node, state), prior_row, value in zip(leaves, priors, values):
            actions = state.legal_moves()
            first = self.edges_used
            if first + len(actions) > len(self.edge_action):
                full = True
                continue
            order = np.argsort(-prior_row[actions], kind="stable")
            actions = actions[order]
            end = first + len(actions)
            self.edge_action[first:end] = actions
            self.edge_prior[first:end] = prior_row[actions]
            self.edge_visits[first:end] = 0
            self.edge_value_sum[first:end] = 0.0
            self.edge_virtual[first:end] = 0
            self.edge_child[first:end] = -1
            self.edges_used = end
            self.node_value[node] = float(value)
            self.node_first[node] = first
            self.node_count[node] = len(actions)
            if self.config.solve_wins and len(wins := state.winning_moves()):
                self.node_proven[node] = 1
                self.node_value[node] = 1.0
                self.node_win_edge[node] = first + int(np.flatnonzero(actions == wins[0])[0])
        return full

    def _select(self, node) -> int:
        if self.node_win_edge[node] >= 0:
            return int(self.node_win_edge[node])
        first, count = self.node_first[node], self.node_count[node]
        edges = slice(first, first + count)
        visits = self.edge_visits[edges] + self.edge_virtual[edges]
        parent_visits = max(1, int(visits.sum()))
        value_sum = self.edge_value_sum[edges] - self.edge_virtual[edges]
        fpu = self.node_value[node] - self.config.fpu_reduction
        q = np.where(visits > 0, value_sum / np.maximum(visits, 1), fpu)
        u = self.config.c_puct * self.edge_prior[edges] * math.sqrt(parent_visits) / (1.0 + visits)
        return first + int(np.argmax(q + u))

    def _round(self, root, root_node, count) -> bool:
        """``count`` descents under virtual loss, one evaluator call, backups. True when full."""
        waiting = {}
        paths = []
        full = False
        for _ in range(count):
            node, state, path, nodes = root_node, root, [], []
            while True:
                edge = self._select(node)
                path.append(edge)
                nodes.append(node)
                self.edge_virtual[edge] += self.config.virtual_loss
                state = state.play(int(self.edge_action[edge]))
                child = int(self.edge_child[edge])
                if child < 0:
                    child = self._node(state)
                    if child < 0:
                        full = True
                        break
                    self.edge_child[edge] = child
                node = child
                if state.is_terminal:
                    self.node_terminal[node] = 1
                    value = _terminal_value(state)
                    if self.config.solve_wins and value:
                        self.node_proven[node] = int(value)
                    self._backup(path, value)
                    self._prove(nodes, path)
                    break
                if self.node_proven[node]:  # solved: its exact value, no further descent
                    self._backup(path, float(self.node_proven[node]))
                    self._prove(nodes, path)
                    break
                if self.node_first[node] < 0:
                    if node in waiting:
                        self._undo_virtual(path)  # a collision: this leaf is evaluated already
                    else:
                        waiting[node] = state
                        paths.append((node, path, nodes))
                    break
            if full:
                self._undo_virtual(path)
                break
        if waiting:
            full |= self._expand(list(waiting.items()))
            for node, path, nodes in paths:
                value = float(self.node_value[node]) if self.node_first[node] >= 0 else 0.0
                self._backup(path, value)
                if self.node_proven[node]:
                    self._prove(nodes, path)
        return full

    def _prove(self, nodes, path):
        """Back a proof at the end of ``path`` up through ``nodes`` (each edge's parent) while it
        decides the parent: a child lost for its mover wins the parent; all children won for their
        movers lose it."""
        for parent, edge in zip(reversed(nodes), reversed(path)):
            if self.node_proven[parent]:
                return
            child = int(self.edge_child[edge])
            if child < 0 or not self.node_proven[child]:
                return
            if self.node_proven[child] < 0:
                self.node_proven[parent] = 1
                self.node_win_edge[parent] = edge
                continue
            first, count = self.node_first[parent], self.node_count[parent]
            children = self.edge_child[first:first + count]
            if count == 0 or (children < 0).any() or (self.node_proven[children] != 1).any():
                return
            self.node_proven[parent] = -1

    def _undo_virtual(self, path):
        for edge in path:
            self.edge_virtual[edge] -= self.config.virtual_loss

    def _backup(self, path, leaf_value: float):
        """``leaf_value`` from the leaf's mover; each edge gets it from its parent's mover."""
        value = -leaf_value
        for edge in reversed(path):
            self.edge_virtual[edge] -= self.config.virtual_loss
            self.edge_visits[edge] += 1
            self.edge_value_sum[edge] += value
            value = -value

    # --- results ------------------------------------------------------------------------------
    def _result(self, root, root_node, playouts, seconds, full) -> PuctResult:
        first, count = self.node_first[root_node], self.node_count[root_node]
        moves = []
        for e in range(first, first + count):
            n = int(self.edge_visits[e])
            moves.append(PuctMove(int(self.edge_action[e]), n, float(self.edge_value_sum[e]) / n if n else 0.0,
                                  float(self.edge_prior[e])))
        moves.sort(key=lambda m: (-m.visits, -m.prior))
        total = sum(m.visits for m in moves)
        root_q = sum(m.q * m.visits for m in moves) / total if total else float(self.node_value[root_node])
        proven = int(self.node_proven[root_node])
        if proven == 1:  # the winning move first, whatever its visits
            win = int(self.edge_action[self.node_win_edge[root_node]])
            moves.sort(key=lambda m: m.action != win)
            root_q = 1.0
        elif proven == -1:
            root_q = -1.0
        elif self.config.solve_wins:  # a move proven to lose goes last: another may not
            lost = {int(self.edge_action[e]) for e in range(first, first + count)
                    if self.edge_child[e] >= 0 and self.node_proven[self.edge_child[e]] == 1}
            moves.sort(key=lambda m: m.action in lost)
        pv, node = [], root_node
        while node >= 0 and self.node_first[node] >= 0 and len(pv) < 64:
            edges = slice(self.node_first[node], self.node_first[node] + self.node_count[node])
            if self.node_count[node] == 0 or self.edge_visits[edges].max() == 0:
                break
            best = self.node_first[node] + int(np.argmax(self.edge_visits[edges]))
            if self.node_win_edge[node] >= 0:
                best = int(self.node_win_edge[node])
            elif node == root_node and moves:
                best = first + int(np.flatnonzero(self.edge_action[first:first + count] == moves[0].action)[0])
            pv.append(int(self.edge_action[best]))
            node = int(self.edge_child[best])
        return PuctResult(moves[0].action if moves else None, root_q, moves, pv, playouts, seconds, full, proven)


def _terminal_value(state) -> float:
    """Exact result from the mover's view: 1 won, -1 lost, 0 drawn."""
    if state.winner is None:
        return 0.0
    return 1.0 if state.winner == state.to_play else -1.0
