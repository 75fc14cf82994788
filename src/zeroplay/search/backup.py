"""Backup: the Monte-Carlo graph search update and MCTS-solver proofs (compiled).

After a playout, every (node, edge) pair on its path, from the bottom up, gets N(n,a) += 1 and
then recomputes its node from its children (KataGo's graph search update):

    N(n) = 1 + sum_a N(n,a)
    Q(n) = (U(n) + sum_a N(n,a) * -Q(child_a)) / N(n)

Proofs (MCTS-solver, Winands et al. 2008): a node with a child proven lost (for that child's
mover) is a proven win, at 1 + the shortest such loss; a node all of whose children are proven
wins for the opponent is a proven loss, at 1 + the longest; all children proven with a draw
among them is a proven draw. A proven node's Q is its exact value (+1, -1 or 0).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.games.layout import I_TERMINAL, I_TO_PLAY, I_WINNER
from zeroplay.search.tree import DRAW, EXPANDED, LOSS, NEW, TERMINAL, UNPROVEN, WIN, edge_q


@njit(cache=True, inline="always")
def init_node(tree, n, info):
    """Fresh payload for node ``n`` of the position ``info`` (terminal results are exact)."""
    tree.node_n[n] = 0
    tree.node_vl[n] = 0
    tree.node_num_edges[n] = 0
    tree.node_touched[n] = 0
    tree.node_edge_start[n] = 0
    tree.node_stat_start[n] = 0
    tree.node_stat_cap[n] = 0
    tree.node_dist[n] = 0
    if info[I_TERMINAL] != 0:
        tree.node_state[n] = TERMINAL
        if info[I_WINNER] >= 0 and info[I_WINNER] != info[I_TO_PLAY]:
            # a line game (Gomoku, Connect Four) always ends on the winner's move
            tree.node_u[n] = -1.0
            tree.node_proof[n] = LOSS
        elif info[I_WINNER] >= 0:
            # a game ended by two passes (Go, Othello) is won by whoever the count says, which
            # can be the side to move: the one who passed second lost
            tree.node_u[n] = 1.0
            tree.node_proof[n] = WIN
        else:
            tree.node_u[n] = 0.0
            tree.node_proof[n] = DRAW
        tree.node_q[n] = tree.node_u[n]
    else:
        tree.node_state[n] = NEW
        tree.node_u[n] = 0.0
        tree.node_q[n] = 0.0
        tree.node_proof[n] = UNPROVEN


@njit(cache=True, inline="always")
def update_node(tree, n):
    """Recompute N(n), Q(n) and the proof of an expanded node from its touched edges."""
    start = tree.node_stat_start[n]
    touched = tree.node_touched[n]
    s = np.float64(tree.node_u[n])
    total = 1
    win_dist = 1 << 30
    loss_dist = 0
    draw_dist = 0
    any_draw = False
    all_proven = touched == tree.node_num_edges[n] and touched > 0
    for stat in range(start, start + touched):
        c = tree.stat_child[stat]
        visits = tree.stat_n[stat]
        if visits > 0:
            s += visits * edge_q(tree, stat)
            total += visits
        if c < 0:
            all_proven = False
            continue
        p = tree.node_proof[c]
        d = tree.node_dist[c] + 1
        if p == LOSS:
            if d < win_dist:
                win_dist = d
        elif p == WIN:
            if d > loss_dist:
                loss_dist = d
        elif p == DRAW:
            any_draw = True
            if d > draw_dist:
                draw_dist = d
        else:
            all_proven = False
    tree.node_n[n] = total
    if tree.node_proof[n] != UNPROVEN:
        return
    if win_dist < (1 << 30):
        tree.node_proof[n] = WIN
        tree.node_dist[n] = win_dist
        tree.node_q[n] = 1.0
    elif all_proven:
        if any_draw:
            tree.node_proof[n] = DRAW
            tree.node_dist[n] = draw_dist
            tree.node_q[n] = 0.0
        else:
            tree.node_proof[n] = LOSS
            tree.node_dist[n] = loss_dist
            tree.node_q[n] = -1.0
    else:
        tree.node_q[n] = s / total


@njit(cache=True)
def backup_path(tree, virtual_loss, path_node, path_edge, depth, visit):
    """Remove the path's virtual loss; with ``visit``, count the playout and update each node.

    Args:
        path_node: int32 (D,) nodes from the root down; path_edge: int64 (D,) the position (in
            the node's edge list, inside its touched prefix) of the edge taken at each; depth:
            pairs on the path. Positions, not pool indices: a node's statistics may move to a
            bigger block while the path waits for its evaluation.
        visit: False for an abandoned playout (collision, full table): virtual loss only.
    """
    for j in range(depth - 1, -1, -1):
        n = path_node[j]
        s = tree.node_stat_start[n] + path_edge[j]
        tree.stat_vl[s] -= virtual_loss
        tree.node_vl[n] -= virtual_loss
        if visit:
            tree.stat_n[s] += 1
            update_node(tree, n)


@njit(cache=True, inline="always")
def set_expanded(tree, n, value):
    """An evaluated leaf: U = Q = value (its mover's view), N = 1."""
    tree.node_u[n] = value
    tree.node_q[n] = value
    tree.node_n[n] = 1
    tree.node_state[n] = EXPANDED
    tree.node_touched[n] = 0
