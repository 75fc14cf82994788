"""Proven results: the line behind a proof, and its replay on real game states.

Nodes are found by 64-bit keys, so a key collision could graft a foreign subtree into the graph.
Before a proven result is reported or acted on, its line is replayed with ``State.play`` (rules
only, no keys) and must end exactly as claimed.
"""

from __future__ import annotations

from zeroplay.games import IllegalMoveError, State
from zeroplay.search.tree import DRAW, EXPANDED, LOSS, TERMINAL, UNPROVEN, WIN

PROOF_NAMES = {WIN: "win", LOSS: "loss", DRAW: "draw"}


def best_proven_edge(tree, n: int) -> int:
    """Position (in ``n``'s touched prefix) of the edge a proven node's line follows: shortest
    win, longest loss, any draw; -1 if none."""
    proof = int(tree.node_proof[n])
    start = int(tree.node_stat_start[n])
    best, best_d = -1, None
    for i in range(int(tree.node_touched[n])):
        c = int(tree.stat_child[start + i])
        if c < 0:
            continue
        cp, d = int(tree.node_proof[c]), int(tree.node_dist[c])
        if proof == WIN and cp == LOSS and (best_d is None or d < best_d):
            best, best_d = i, d
        elif proof == LOSS and cp == WIN and (best_d is None or d > best_d):
            best, best_d = i, d
        elif proof == DRAW and cp == DRAW and (best_d is None or d > best_d):
            best, best_d = i, d
    return best


def proof_line(tree, root: int) -> list[int]:
    """Actions from ``root`` following the proof, down to a terminal node or a one-ply proof."""
    line = []
    n = root
    while tree.node_proof[n] != UNPROVEN and tree.node_state[n] == EXPANDED:
        i = best_proven_edge(tree, n)
        if i < 0:
            break
        line.append(int(tree.edge_move[int(tree.node_edge_start[n]) + i]))
        n = int(tree.stat_child[int(tree.node_stat_start[n]) + i])
        if tree.node_state[n] == TERMINAL or len(line) > 10_000:
            break
    return line


def verify_line(state: State, proof: str, distance: int, line: list[int]) -> bool:
    """Replay ``line`` from ``state`` and check it ends in ``proof`` for ``state``'s mover.

    The line ends either at a finished game or at a position whose side to move has no winning
    move while the opponent has two or more (a one-ply proven loss).
    """
    me = state.to_play
    s = state
    try:
        for m in line:
            s = s.play(m)
    except IllegalMoveError:
        return False
    if s.is_terminal:
        if proof == "draw":
            return s.winner is None
        winner = me if proof == "win" else 1 - me
        return s.winner == winner and len(line) == distance
    if proof == "draw":
        return False
    loser = 1 - me if proof == "win" else me
    return (
        s.to_play == loser
        and len(s.winning_moves(s.to_play)) == 0
        and len(s.winning_moves(1 - s.to_play)) >= 2
        and len(line) + 2 == distance
    )
