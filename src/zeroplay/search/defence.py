"""Defence against a threatened VCF: at a new node, only the moves that break it stay candidates.

The defence every strong Gomoku engine has (Allis' threat-space search, 1994; Rapfi and
Embryo narrow the same way). At a node where the side to move (us) has no five and no forced
block, the opponent (A) is given the move (a pass, ``null move``) and a small VCF is searched
for A. When one is found (line S), our candidates shrink to

1. the replies that may refute S (``vcf_kernels.threat_defences``, a sound superset: every
   cell of S and every cell where we make a four along it -- any other move leaves S winning),
2. minus those after which A still wins by a VCF found within the same budget (the re-check:
   a move proven to lose is dropped).

Nothing is dropped when every candidate fails the re-check (the node is lost, but the search
still needs moves to weigh; the threat solver's own proofs mark it) or when the pass VCF is not
found within the budget. Only moves proven to lose or outside the sound superset go, so the
narrowing never drops a move that holds -- within the rules of the superset (free-style and
standard; see ``threat_defences`` for the argument).

Cost: one VCF of ``defence_nodes`` attacker nodes at each new node, plus one per candidate of a
threatened node; measured in docs/BENCHMARKS.md ("Defence"). ``SearchConfig.defence`` switches
it (on in the play engines for Gomoku, which also run the threat solver whose table it shares).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from zeroplay.games.gomoku.kernels import apply_move_tracked, undo_move_tracked
from zeroplay.games.layout import I_KEY, I_TERMINAL, I_TO_PLAY, P_SIDE_KEY
from zeroplay.solvers.vcf_kernels import FOUND, VctWork, threat_defences, vcf_search

# DefenceArrays.cfg fields
D_ENABLED = 0  # 1: narrow threatened nodes
D_NODES = 1  # VCF budget (attacker nodes) of the pass search and of each re-check
D_MAX_PLIES = 2  # longest VCF line looked for
D_CALLS = 3  # nodes checked (statistics)
D_THREATS = 4  # nodes where the pass VCF was found
D_NARROWED = 5  # nodes whose candidates were narrowed
D_KEPT = 6  # candidates kept over the narrowed nodes
D_WORK = 7  # VCF nodes searched in total
D_CFG_SIZE = 8


class DefenceArrays(NamedTuple):
    """What the search carries for the defence (compiled, passed in the batch arrays).

    Attributes:
        cfg: int64 (D_CFG_SIZE,) switch, budget and counters (the D_* fields).
        replies: VctWork with one level: ``defs[0]`` the superset of refuting replies, ``mark``
            and ``tmp`` scratch (``threat_defences``' arrays).
        legal: int8 (cells,) scratch: 1 on the node's legal moves while it is narrowed.
    """

    cfg: np.ndarray
    replies: VctWork
    legal: np.ndarray


def new_defence_arrays(game, *, enabled: bool, nodes: int = 64, max_plies: int = 255) -> DefenceArrays:
    """Defence arrays for a search of ``game``; tiny and switched off unless ``enabled`` and the
    game has the threat space (``game.threat_space``: the Gomoku family; same dtypes either way,
    one compiled specialisation).

    Args:
        nodes: VCF budget (attacker nodes) of the pass search and of each re-check (>= 1).
        max_plies: longest VCF line looked for (plies of both sides, <= 255).
    """
    on = bool(enabled) and bool(getattr(game, "threat_space", False))
    cells = game.cells if on else 1
    cfg = np.zeros(D_CFG_SIZE, np.int64)
    cfg[D_ENABLED] = int(on)
    cfg[D_NODES] = int(nodes)
    cfg[D_MAX_PLIES] = int(min(max_plies, 255))
    replies = VctWork(lines=np.zeros((1, cells + 2), np.int64), line_len=np.zeros(1, np.int64),
                      cands=np.zeros((1, cells), np.int64), defs=np.zeros((1, cells), np.int64),
                      mark=np.zeros(cells, np.int8), tmp=np.zeros(cells, np.int64), counters=np.zeros(7, np.int64))
    return DefenceArrays(cfg, replies, np.zeros(cells, np.int8))


def defence_off() -> DefenceArrays:
    """Switched-off defence arrays (a search without it)."""
    cfg = np.zeros(D_CFG_SIZE, np.int64)
    replies = VctWork(lines=np.zeros((1, 3), np.int64), line_len=np.zeros(1, np.int64),
                      cands=np.zeros((1, 1), np.int64), defs=np.zeros((1, 1), np.int64),
                      mark=np.zeros(1, np.int8), tmp=np.zeros(1, np.int64), counters=np.zeros(7, np.int64))
    return DefenceArrays(cfg, replies, np.zeros(1, np.int8))


def defence_stats(defence: DefenceArrays) -> dict:
    """Counters: ``calls`` (nodes checked), ``threats`` (pass VCF found), ``narrowed``, ``kept``
    (candidates left over the narrowed nodes), ``vcf_nodes`` (work)."""
    c = defence.cfg
    return {"calls": int(c[D_CALLS]), "threats": int(c[D_THREATS]), "narrowed": int(c[D_NARROWED]),
            "kept": int(c[D_KEPT]), "vcf_nodes": int(c[D_WORK])}


@njit(cache=True, inline="always")
def _pass(params, info):
    info[I_TO_PLAY] = 1 - info[I_TO_PLAY]
    info[I_KEY] ^= params[P_SIDE_KEY]


@njit(cache=True, inline="always")
def defend(params, zkeys, board, info, stack, wmask, threats, defence, moves, k):
    """Narrow the node's candidate moves ``moves[:k]`` (its legal moves) to those that break the
    opponent's VCF after a pass; returns the new count (``k`` when nothing is narrowed).

    Args:
        params, zkeys, board, info, stack, wmask: the tracked position of the node (Gomoku), the
            side to move without a five and without a forced block; restored on return.
        threats: the threat solver's ``ThreatArrays`` (its VCF table and scratch are shared).
        defence: DefenceArrays.
        moves: int64 (>= k,) the node's legal moves; on narrowing, the kept ones are written
            first, in the order of the superset (our counter-fours first).
    """
    if defence.cfg[D_ENABLED] == 0 or info[I_TERMINAL] != 0:
        return k
    return _defend_on(params, zkeys, board, info, stack, wmask, threats, defence, moves, k)


@njit(cache=True)
def _defend_on(params, zkeys, board, info, stack, wmask, threats, defence, moves, k):
    """``defend``'s work when the defence is on (apart, so that a search with it off pays no call)."""
    cfg = defence.cfg
    cfg[D_CALLS] += 1
    budget = cfg[D_NODES]
    work, table = threats.work, threats.table
    _pass(params, info)
    res, length, used = vcf_search(params, zkeys, board, info, stack, wmask, work, table, cfg[D_MAX_PLIES], budget)
    cfg[D_WORK] += used
    if res != FOUND:
        _pass(params, info)
        return k
    cfg[D_THREATS] += 1
    replies = defence.replies
    count = threat_defences(params, zkeys, board, info, stack, wmask, work, replies, 0, work.line, length)
    _pass(params, info)
    legal = defence.legal
    for i in range(k):
        legal[moves[i]] = 1
    kept = 0
    for i in range(count):
        c = replies.defs[0, i]
        if legal[c] == 0:
            continue
        apply_move_tracked(params, zkeys, board, info, stack, wmask, c)
        holds = True
        if info[I_TERMINAL] == 0:
            res, _, used = vcf_search(params, zkeys, board, info, stack, wmask, work, table, cfg[D_MAX_PLIES],
                                      budget)
            cfg[D_WORK] += used
            holds = res != FOUND
        undo_move_tracked(params, zkeys, board, info, stack, wmask)
        if holds:
            replies.tmp[kept] = c
            kept += 1
    for i in range(k):
        legal[moves[i]] = 0
    if kept == 0:
        return k  # lost to a VCF whatever we play: leave the search every move to weigh
    for i in range(kept):
        moves[i] = replies.tmp[i]
    cfg[D_NARROWED] += 1
    cfg[D_KEPT] += kept
    return kept
