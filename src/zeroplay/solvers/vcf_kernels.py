"""Compiled VCF search (victory by continuous fours) for Gomoku, on the tracked fast path.

Terms. The *attacker* A is the side to move at the root; the *defender* D the other side. A
*four* is a move after which A has a winning cell (``wmask[A] != 0`` somewhere: a cell where A's
next stone wins under the rule in force); those cells are exactly D's possible blocks. A VCF is a
sequence A four, D block, A four, D block, ..., A five in which every D move is forced.

The tree (an OR-tree: D's replies are forced, so only A's nodes branch). At an A node, in order:

Renju: Black's forbidden points (``games/gomoku/renju.py``) are never played -- neither as A's
fours nor as D's blocks (a four whose block is forbidden for Black is left unused: White does win
there, but the line would need a Black move).

1. A has a winning cell: A plays it, won (a "five" -- under ``standard`` a five that is exactly
   n long, which is what the wmask encodes; an overline cell is never a winning cell).
2. D has two or more winning cells: A cannot block both and has no five: no VCF here.
3. D has exactly one winning cell c (D's block of A's last four made a four of D's own -- a
   "counter-four"): A must play c, and c must itself be a four, or the line fails.
4. Otherwise A tries each of its four moves (window scan below, best first, the table's move
   before the others). After A's four m:
   - A has two or more winning cells (open four, double four): D blocks one, A plays the other:
     won in three plies from m. (D has no five to play instead: D's winning cells were blocked
     at step 3, and an A stone never creates one.)
   - A has exactly one winning cell w: D plays w (any other D move loses to the five at w, and
     D has no five of its own), and the search goes on at the next A node.

Why A's new winning cells after m lie within n - 1 cells of m on a line through m: a winning
cell e that appears when m is played has m in the block of A stones next to e (else e's status
would not have changed), and the cells between e and m are A stones; were m more than n - 1 away,
e would have been winning before m -- and A had no winning cell (step 1).

Four moves: a window of n consecutive cells on a line with no D stone and n - 2 A stones gives
two empty cells, each of which makes a four with the other as the winning cell (under
``standard`` the five must not be an overline: the move is confirmed by playing it and reading
the I_NWIN count). Every four move lies in such a window, so the scan finds all of them.

Table (``zeroplay.tt.ab_table``, key = the Zobrist key of the A node, aux 0):
  * a proven win: BOUND_LOWER, value = win at root ply (the line's length), move = the four
    played. Used for move ordering only, never as a cutoff: the line is always re-played, so a
    returned sequence is never taken on trust from the table.
  * no VCF within the remaining depth: BOUND_UPPER, value 0, depth = remaining plies; cuts when
    its depth >= the remaining depth. Stored only when the node was searched completely (never
    after the budget ran out). The result of a node depends on the position alone (stones only
    get added: no cycles), so the entry is valid from any path.

The search is depth first with an explicit stack (one level per A node); moves are applied and
undone in place with ``apply_move_tracked`` / ``undo_move_tracked``: the position is restored
when the search returns, whatever the outcome.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from zeroplay.games.gomoku.kernels import (
    DIR_DX,
    DIR_DY,
    apply_move_tracked,
    undo_move_tracked,
)
from zeroplay.games.gomoku.layout import I_NWIN0, P_N_IN_ROW, P_RULE, RULE_RENJU
from zeroplay.games.gomoku.renju import ALLOWED, forbidden_reason
from zeroplay.games.layout import I_KEY, I_PLY, I_TERMINAL, I_TO_PLAY, P_CELLS, P_HEIGHT, P_SIDE_KEY, P_WIDTH
from zeroplay.tt.ab_table import (
    BOUND_LOWER,
    BOUND_UPPER,
    MAX_DEPTH,
    WIN_VALUE,
    ab_probe,
    ab_store,
)

# search outcomes
NOT_FOUND = 0
"""No VCF within the depth: a complete search, so a proof that none exists up to that depth."""
FOUND = 1
"""A VCF: the line is in ``work.line``."""
ABORTED = 2
"""The node budget ran out first: nothing is known."""

_OPEN = 3  # internal: the node has candidates left to try

FOUR_WEIGHT = 64
"""Ordering score a cell gets per window in which it makes a four (n - 2 own stones, no enemy)."""
THREE_WEIGHT = 8
"""Ordering score a cell gets per window with n - 3 own stones and no enemy stone."""

MAX_PLIES = MAX_DEPTH
"""Longest line the search may look for (the table's depth field is 8 bits)."""


class VcfWork(NamedTuple):
    """Scratch arrays of one VCF search (levels L = A nodes on the deepest line, cells C).

    Attributes:
        cand: int64 (L, C) candidate four moves of the A node at each level, best first.
        cand_n: int64 (L,) candidates at each level.
        cand_i: int64 (L,) next candidate to try at each level.
        score: int64 (C,) ordering scores of the window scan (scratch).
        line: int64 (C + 2,) the winning line once found: A, D, A, D, ..., A's five.
        line_cells: int64 (S,) the cells of every board line (row, column, both diagonals) at
            least n long, line after line, each in order along its direction.
        line_start: int64 (K + 1,) line k is ``line_cells[line_start[k]:line_start[k + 1]]``.
        cell_line: int64 (C, 4) the line through each cell in each direction, -1 when that
            line is shorter than n.
        line_count: int64 (K,) scratch: a player's stones on each line.
    """

    cand: np.ndarray
    cand_n: np.ndarray
    cand_i: np.ndarray
    score: np.ndarray
    line: np.ndarray
    line_cells: np.ndarray
    line_start: np.ndarray
    cell_line: np.ndarray
    line_count: np.ndarray


def board_lines(width: int, height: int, n_in_row: int) -> tuple[np.ndarray, np.ndarray]:
    """(line_cells, line_start) of every line of ``n_in_row`` or more cells (see VcfWork)."""
    cells, starts = [], [0]
    for dx, dy in ((1, 0), (0, 1), (1, 1), (-1, 1)):
        for y0 in range(height):
            for x0 in range(width):
                if 0 <= x0 - dx < width and 0 <= y0 - dy < height:
                    continue  # not the first cell of its line
                line = []
                x, y = x0, y0
                while 0 <= x < width and 0 <= y < height:
                    line.append(y * width + x)
                    x += dx
                    y += dy
                if len(line) >= n_in_row:
                    cells.extend(line)
                    starts.append(len(cells))
    return np.array(cells, np.int64), np.array(starts, np.int64)


def new_vcf_work(width: int, height: int, n_in_row: int = 5) -> VcfWork:
    """Scratch for lines of up to ``MAX_PLIES`` plies on a width x height board, n in a row."""
    cells = width * height
    levels = min(cells // 2 + 2, MAX_PLIES // 2 + 2)
    line_cells, line_start = board_lines(width, height, n_in_row)
    cell_line = np.full((cells, 4), -1, np.int64)
    for k in range(line_start.shape[0] - 1):
        line = line_cells[line_start[k] : line_start[k + 1]]
        # the direction of a line: from the step between its first two cells
        step = int(line[1] - line[0])
        d = 0 if step == 1 else 1 if step == width else 2 if step == width + 1 else 3
        cell_line[line, d] = k
    return VcfWork(
        cand=np.zeros((levels, cells), np.int64),
        cand_n=np.zeros(levels, np.int64),
        cand_i=np.zeros(levels, np.int64),
        score=np.zeros(cells, np.int64),
        line=np.zeros(cells + 2, np.int64),
        line_cells=line_cells,
        line_start=line_start,
        cell_line=cell_line,
        line_count=np.zeros(line_start.shape[0] - 1, np.int64),
    )


@njit(cache=True, inline="always")
def _score_line(board, n, me, other, cells, first, end, score, min_own):
    """Slide a window of n cells along one board line (``cells[first:end]``); every window with
    no ``other`` stone and at least ``min_own`` ``me`` stones adds to its empty cells' scores:
    FOUR_WEIGHT when it holds n - 2 ``me`` stones, THREE_WEIGHT when n - 3, 1 when fewer."""
    own = 0
    opp = 0
    for i in range(first, end):
        v = board[cells[i]]
        if v == me:
            own += 1
        elif v == other:
            opp += 1
        if i >= first + n:
            u = board[cells[i - n]]
            if u == me:
                own -= 1
            elif u == other:
                opp -= 1
        if i >= first + n - 1 and opp == 0 and own >= min_own and own <= n - 2:
            wt = FOUR_WEIGHT if own == n - 2 else (THREE_WEIGHT if own == n - 3 else 1)
            for j in range(i - n + 1, i + 1):
                c = cells[j]
                if board[c] == 0:
                    score[c] += wt


@njit(cache=True)
def scan_windows(params, board, player, score, work, min_own):
    """Fill ``score`` (zeroed first) for ``player`` over every board line (see ``_score_line``);
    ``min_own`` = n - 2 scores fours only, n - 3 adds the threes' weight."""
    n = params[P_N_IN_ROW]
    me = player + 1
    other = 2 - player
    score[:] = 0
    cells = work.line_cells
    starts = work.line_start
    count = work.line_count
    count[:] = 0
    # only lines holding at least min_own of the player's stones can score
    cell_line = work.cell_line
    for c in range(params[P_CELLS]):
        if board[c] == me:
            for d in range(4):
                k = cell_line[c, d]
                if k >= 0:
                    count[k] += 1
    for k in range(starts.shape[0] - 1):
        if count[k] >= min_own and count[k] > 0:
            _score_line(board, n, me, other, cells, starts[k], starts[k + 1], score, min_own)


@njit(cache=True)
def four_candidates(params, board, player, score, work, out):
    """Cells where ``player`` makes a four (a superset under ``standard``: an overline five is
    weeded out when the move is played), best first; returns their count.

    Order: decreasing score (windows in which the cell makes a four weigh FOUR_WEIGHT each, so
    potential double fours come first; windows of n - 3 own stones break ties), then cell index.
    """
    n = params[P_N_IN_ROW]
    scan_windows(params, board, player, score, work, max(n - 3, 0))
    k = 0
    for c in range(params[P_CELLS]):
        s = score[c]
        if s >= FOUR_WEIGHT:
            # insertion by decreasing score; equal scores keep cell order
            j = k
            while j > 0 and score[out[j - 1]] < s:
                out[j] = out[j - 1]
                j -= 1
            out[j] = c
            k += 1
    return k


@njit(cache=True)
def win_cells_near(params, wmask, player, move, out):
    """``player``'s winning cells on the four lines through ``move`` within n - 1 cells of it
    (distinct, at most 2 written); returns how many were found (capped at 2)."""
    w = params[P_WIDTH]
    h = params[P_HEIGHT]
    n = params[P_N_IN_ROW]
    mx = move % w
    my = move // w
    k = 0
    for d in range(4):
        for sign in (-1, 1):
            dx = DIR_DX[d] * sign
            dy = DIR_DY[d] * sign
            x = mx
            y = my
            for _ in range(n - 1):
                x += dx
                y += dy
                if not (0 <= x < w and 0 <= y < h):
                    break
                c = y * w + x
                if wmask[player, c] != 0:
                    dup = False
                    for j in range(k):
                        if out[j] == c:
                            dup = True
                    if not dup:
                        out[k] = c
                        k += 1
                        if k == 2:
                            return k
    return k


@njit(cache=True)
def illegal_for(params, board, player, cell):
    """True if ``player`` may not play the empty ``cell``: a forbidden point of Black under renju
    (``games/gomoku/renju.py``). ``board`` is the writable working board (restored)."""
    return (player == 0 and params[P_RULE] == RULE_RENJU
            and forbidden_reason(board, params[P_WIDTH], params[P_HEIGHT], cell) != ALLOWED)


@njit(cache=True)
def first_win_cell(params, wmask, player):
    """The lowest cell where ``player`` wins at once, -1 when none."""
    for c in range(params[P_CELLS]):
        if wmask[player, c] != 0:
            return c
    return -1


@njit(cache=True)
def _enter(params, board, info, wmask, work, tt, attacker, level, remaining, root_ply):
    """Open the A node at ``level``: FOUND (five now; line written), NOT_FOUND, or _OPEN with its
    candidates in ``work.cand[level]``. Returns (outcome, line length)."""
    a = attacker
    dfd = 1 - a
    if info[I_TERMINAL] != 0:
        return NOT_FOUND, 0
    if info[I_NWIN0 + a] > 0:
        five = first_win_cell(params, wmask, a)
        length = info[I_PLY] - root_ply
        work.line[length] = five
        return FOUND, length + 1
    nd = info[I_NWIN0 + dfd]
    if nd >= 2 or remaining < 3:
        return NOT_FOUND, 0
    hit, tt_move, _value, depth, bound = ab_probe(tt, info[I_KEY], 0, 2 * level)
    if hit and bound == BOUND_UPPER and depth >= remaining:
        return NOT_FOUND, 0
    cand = work.cand[level]
    if nd == 1:
        cand[0] = first_win_cell(params, wmask, dfd)  # the counter-four's cell: block it
        k = 1
    else:
        k = four_candidates(params, board, a, work.score, work, cand)
        if hit and tt_move >= 0:
            # the table's move first (it won before from this position)
            for j in range(k):
                if cand[j] == tt_move:
                    for i in range(j, 0, -1):
                        cand[i] = cand[i - 1]
                    cand[0] = tt_move
                    break
    work.cand_n[level] = k
    work.cand_i[level] = 0
    return _OPEN, 0


@njit(cache=True)
def vcf_search(params, zkeys, board, info, stack, wmask, work, tt, max_plies, budget):
    """Search a VCF for the side to move. Returns (outcome, line length, nodes).

    Args:
        params, zkeys, board, info, stack, wmask: the tracked fast-path position (Gomoku); it is
            modified during the search and restored before returning.
        work: VcfWork scratch; on FOUND, ``work.line[:length]`` holds the line: A's four, D's
            block, ..., A's five (length odd; 1 = a five at once).
        tt: the ABTable (see the module docstring for its entries).
        max_plies: longest line searched (plies of both sides, the five included), <= MAX_PLIES.
        budget: A nodes the search may visit before it gives up (ABORTED).

    Outcomes: FOUND, NOT_FOUND (no VCF of at most ``max_plies`` plies), ABORTED (budget spent).
    """
    a = info[I_TO_PLAY]
    root_ply = info[I_PLY]
    max_plies = min(max_plies, MAX_PLIES)
    levels = work.cand.shape[0]
    nodes = 0
    level = 0
    length = 0
    entering = True
    result = NOT_FOUND
    near = np.zeros(2, np.int64)
    while True:
        if entering:
            entering = False
            nodes += 1
            remaining = max_plies - 2 * level
            if level + 1 >= levels:
                remaining = min(remaining, 1)  # scratch depth reached: a five only
            if nodes > budget:
                result = ABORTED
            else:
                result, length = _enter(params, board, info, wmask, work, tt, a, level, remaining, root_ply)
        if result == _OPEN:
            # try the next candidates of this level
            descended = False
            cand = work.cand[level]
            while work.cand_i[level] < work.cand_n[level]:
                m = cand[work.cand_i[level]]
                work.cand_i[level] += 1
                if illegal_for(params, board, a, m):
                    continue  # renju: a forbidden point of Black's
                apply_move_tracked(params, zkeys, board, info, stack, wmask, m)
                if info[I_NWIN0 + a] == 0 or info[I_TERMINAL] != 0 or info[I_NWIN0 + 1 - a] != 0:
                    # not a four (an overline five under standard, or a blocked line); or D
                    # could win at once (cannot happen after step 3, kept as a guard)
                    undo_move_tracked(params, zkeys, board, info, stack, wmask)
                    continue
                k = win_cells_near(params, wmask, a, m, near)
                if info[I_NWIN0 + a] >= 2 or k >= 2:
                    if k < 2:
                        # the two cells are not both near m (cannot happen): take them in order
                        near[0] = first_win_cell(params, wmask, a)
                        near[1] = near[0]
                        for c in range(near[0] + 1, params[P_CELLS]):
                            if wmask[a, c] != 0:
                                near[1] = c
                                break
                    length = info[I_PLY] - root_ply
                    for j in range(length):
                        work.line[j] = stack[root_ply + j]
                    work.line[length] = near[0]  # D blocks one
                    work.line[length + 1] = near[1]  # A plays the other
                    length += 2
                    undo_move_tracked(params, zkeys, board, info, stack, wmask)
                    result = FOUND
                    break
                if k == 0:
                    near[0] = first_win_cell(params, wmask, a)
                if illegal_for(params, board, 1 - a, near[0]):
                    # renju: Black cannot block on a forbidden point. White then wins with the
                    # five, but the line format needs D's move; the candidate is left unused
                    undo_move_tracked(params, zkeys, board, info, stack, wmask)
                    continue
                apply_move_tracked(params, zkeys, board, info, stack, wmask, near[0])  # D's forced block
                level += 1
                entering = True
                descended = True
                break
            if descended:
                continue
            if result == _OPEN:
                result = NOT_FOUND
                ab_store(tt, info[I_KEY], 0, 2 * level, max(min(max_plies - 2 * level, MAX_DEPTH), 0),
                         BOUND_UPPER, 0, -1)
        # the node at `level` is resolved: hand `result` to its parent
        if result == FOUND:
            m_here = work.line[2 * level] if length > 2 * level else -1
            ab_store(tt, info[I_KEY], 0, 2 * level, max(min(max_plies - 2 * level, MAX_DEPTH), 0),
                     BOUND_LOWER, WIN_VALUE - length, m_here)
        if level == 0:
            return result, length, nodes
        undo_move_tracked(params, zkeys, board, info, stack, wmask)
        undo_move_tracked(params, zkeys, board, info, stack, wmask)
        level -= 1
        if result == NOT_FOUND:
            result = _OPEN  # back to this level's remaining candidates


# --- VCT: fours and threats ---------------------------------------------------------------------

# VctWork.counters fields
C_NODES = 0  # nodes used so far (VCT nodes and the VCF nodes of the searches they run)
C_BUDGET = 1  # node budget of the whole VCT search
C_VCF_NODES = 2  # budget of the VCF tried first at each VCT node
C_THREAT_NODES = 3  # budget of the VCF that tests a threat (defender passes)
C_MAX_PLIES = 4  # longest VCF line looked for
C_WIDE = 5  # 1: threat candidates from windows with n - 4 own stones too (0: n - 3)
C_QUIET = 6  # 1: a forced block that is no threat may still win: every defender reply is searched
COUNTERS_SIZE = 7

VCT_AUX = 1
"""``aux`` of the VCT entries in the shared table (VCF entries use 0): VCT results depend on the
threats left (stored as the entry's depth) and never cut a VCF probe."""


class VctWork(NamedTuple):
    """Scratch of one VCT search (L levels = VCT nodes on the deepest line, C cells).

    Attributes:
        lines: int64 (L, C + 2) main line found below each level (A, D, ..., A's five).
        line_len: int64 (L,) its length.
        cands: int64 (L, C) attacker candidates at each level, best first.
        defs: int64 (L, C) the defender's replies to a threat at each level.
        mark: int8 (C,) scratch marks (defender set without duplicates); all 0 between uses.
        tmp: int64 (C,) scratch move list.
        counters: int64 (COUNTERS_SIZE,) see the C_* fields.
    """

    lines: np.ndarray
    line_len: np.ndarray
    cands: np.ndarray
    defs: np.ndarray
    mark: np.ndarray
    tmp: np.ndarray
    counters: np.ndarray


def new_vct_work(width: int, height: int) -> VctWork:
    cells = width * height
    levels = cells // 2 + 2
    return VctWork(
        lines=np.zeros((levels, cells + 2), np.int64),
        line_len=np.zeros(levels, np.int64),
        cands=np.zeros((levels, cells), np.int64),
        defs=np.zeros((levels, cells), np.int64),
        mark=np.zeros(cells, np.int8),
        tmp=np.zeros(cells, np.int64),
        counters=np.zeros(COUNTERS_SIZE, np.int64),
    )


@njit(cache=True, inline="always")
def _null_move(params, info):
    """Pass: the other side is to move, same stones (key updated; the stack is untouched)."""
    info[I_TO_PLAY] = 1 - info[I_TO_PLAY]
    info[I_KEY] ^= params[P_SIDE_KEY]


@njit(cache=True)
def _add_def(vw, level, n, c):
    if vw.mark[c] == 0:
        vw.mark[c] = 1
        vw.defs[level, n] = c
        return n + 1
    return n


@njit(cache=True)
def threat_defences(params, zkeys, board, info, stack, wmask, work, vw, level, line, length):
    """The defender's replies that may refute a threat, into ``vw.defs[level]``; returns count.

    Called with A to move after a pass by D, ``line[:length]`` being A's VCF from there (S).
    Any D move x outside the set returned leaves S winning: the set holds every cell of S (A's
    fours, D's forced blocks, the final five or both cells of a final open/double four) and, at
    each A node of S before the five, every cell where D would make a four (the window scan,
    a superset). Why that suffices: x not on S keeps every four of S a four with the same forced
    block (A's lines through empty cells are made of A stones only); x can give D a five at some
    point of S only by making a D four there; and a D stone never makes an A move illegal.
    Order: D's fours now (counter-fours refute most often), then S's cells, then the later fours.
    """
    d = 1 - info[I_TO_PLAY]
    nd = 0
    k = four_candidates(params, board, d, work.score, work, vw.tmp)
    for i in range(k):
        nd = _add_def(vw, level, nd, vw.tmp[i])
    for i in range(length):
        nd = _add_def(vw, level, nd, line[i])
    played = 0
    j = 0
    while j + 2 < length:  # A node at j has a four and D's block, the five comes later
        if j > 0:
            k = four_candidates(params, board, d, work.score, work, vw.tmp)
            for i in range(k):
                nd = _add_def(vw, level, nd, vw.tmp[i])
        apply_move_tracked(params, zkeys, board, info, stack, wmask, line[j])
        apply_move_tracked(params, zkeys, board, info, stack, wmask, line[j + 1])
        played += 2
        j += 2
    for _ in range(played):
        undo_move_tracked(params, zkeys, board, info, stack, wmask)
    kept = 0
    for i in range(nd):
        c = vw.defs[level, i]
        vw.mark[c] = 0
        if not illegal_for(params, board, d, c):  # renju: Black's forbidden points are no replies
            vw.defs[level, kept] = c
            kept += 1
    return kept


@njit(cache=True)
def all_replies(params, board, dfd, work, vw, level):
    """Every empty cell into ``vw.defs[level]``, the likeliest refutations first: decreasing
    D's window score (D's fours, then threes) plus A's (cells on A's lines), then cell order.
    Returns the count."""
    n = params[P_N_IN_ROW]
    cells = params[P_CELLS]
    scan_windows(params, board, dfd, work.score, work, max(n - 3, 0))
    for c in range(cells):
        vw.tmp[c] = work.score[c]
    scan_windows(params, board, 1 - dfd, work.score, work, max(n - 3, 0))
    out = vw.defs[level]
    k = 0
    for c in range(cells):
        if board[c] != 0 or illegal_for(params, board, dfd, c):
            continue
        s = vw.tmp[c] + work.score[c]
        vw.tmp[c] = s
        j = k
        while j > 0 and vw.tmp[out[j - 1]] < s:
            out[j] = out[j - 1]
            j -= 1
        out[j] = c
        k += 1
    return k


@njit(cache=True)
def vct_node(params, zkeys, board, info, stack, wmask, work, vw, tt, level, threats):
    """VCT search at an A node: wins by fours, and by up to ``threats`` non-four threats.

    Returns FOUND (main line in ``vw.lines[level, :vw.line_len[level]]``), NOT_FOUND or ABORTED.
    At each A node: a five wins; D's two fives lose; a VCF (budget ``C_VCF_NODES``) wins; then
    each candidate t (D's five cell when D has one, else every cell in a window with n - 3 A
    stones and no D stone, best first): a four t is followed by D's forced block (threats left
    unchanged: a run of fours counts as one move); a non-four t is a threat when A, if D passed,
    would win by VCF (budget ``C_THREAT_NODES``); it wins when every reply in
    ``threat_defences`` loses to a VCT with one threat less. The main line follows the reply
    with the longest line.
    """
    a = info[I_TO_PLAY]
    dfd = 1 - a
    cnt = vw.counters
    cnt[C_NODES] += 1
    if cnt[C_NODES] > cnt[C_BUDGET]:
        return ABORTED
    if info[I_TERMINAL] != 0:
        return NOT_FOUND
    if info[I_NWIN0 + a] > 0:
        vw.lines[level, 0] = first_win_cell(params, wmask, a)
        vw.line_len[level] = 1
        return FOUND
    nd = info[I_NWIN0 + dfd]
    if nd >= 2:
        return NOT_FOUND
    budget = min(cnt[C_VCF_NODES], cnt[C_BUDGET] - cnt[C_NODES])
    res, length, used = vcf_search(params, zkeys, board, info, stack, wmask, work, tt, cnt[C_MAX_PLIES], budget)
    cnt[C_NODES] += used
    if res == FOUND:
        for i in range(length):
            vw.lines[level, i] = work.line[i]
        vw.line_len[level] = length
        return FOUND
    if res == ABORTED and cnt[C_NODES] >= cnt[C_BUDGET]:
        return ABORTED
    if (threats <= 0 and nd == 0) or level + 2 >= vw.lines.shape[0]:
        return NOT_FOUND
    key = info[I_KEY]
    hit, tt_move, _value, depth, bound = ab_probe(tt, key, VCT_AUX, 0)
    if hit and bound == BOUND_UPPER and depth >= threats:
        return NOT_FOUND
    cands = vw.cands[level]
    if nd == 1:
        cands[0] = first_win_cell(params, wmask, dfd)
        nc = 1
    else:
        n = params[P_N_IN_ROW]
        scan_windows(params, board, a, work.score, work, max(n - 3 - cnt[C_WIDE], 0))
        nc = 0
        for c in range(params[P_CELLS]):
            s = work.score[c]
            if s > 0:
                j = nc
                while j > 0 and work.score[cands[j - 1]] < s:
                    cands[j] = cands[j - 1]
                    j -= 1
                cands[j] = c
                nc += 1
        if hit and tt_move >= 0:
            for j in range(nc):
                if cands[j] == tt_move:
                    for i in range(j, 0, -1):
                        cands[i] = cands[i - 1]
                    cands[0] = tt_move
                    break
    near = np.zeros(2, np.int64)
    aborted = False
    for ci in range(nc):
        t = cands[ci]
        if illegal_for(params, board, a, t):
            continue  # renju: a forbidden point of Black's
        apply_move_tracked(params, zkeys, board, info, stack, wmask, t)
        if info[I_TERMINAL] != 0 or info[I_NWIN0 + dfd] != 0:
            undo_move_tracked(params, zkeys, board, info, stack, wmask)
            continue
        if info[I_NWIN0 + a] > 0:
            # a four: D's block is forced
            k = win_cells_near(params, wmask, a, t, near)
            if k == 0:
                near[0] = first_win_cell(params, wmask, a)
            if info[I_NWIN0 + a] >= 2 or illegal_for(params, board, dfd, near[0]):
                # an open or double four: the VCF above found it (budget allowing); or Black's
                # block is a forbidden point (renju): the line format needs a D move, unused
                undo_move_tracked(params, zkeys, board, info, stack, wmask)
                continue
            apply_move_tracked(params, zkeys, board, info, stack, wmask, near[0])
            res = vct_node(params, zkeys, board, info, stack, wmask, work, vw, tt, level + 1, threats)
            undo_move_tracked(params, zkeys, board, info, stack, wmask)
            undo_move_tracked(params, zkeys, board, info, stack, wmask)
            if res == FOUND:
                m = vw.line_len[level + 1]
                vw.lines[level, 0] = t
                vw.lines[level, 1] = near[0]
                for i in range(m):
                    vw.lines[level, 2 + i] = vw.lines[level + 1, i]
                vw.line_len[level] = m + 2
                ab_store(tt, key, VCT_AUX, 0, threats, BOUND_LOWER, 0, t)
                return FOUND
            if res == ABORTED:
                aborted = True
                break
            continue
        # a threat? A moves again (D passes) and must win by VCF. A forced block (nd == 1) costs
        # no threat when it is one, like a four; a forced block that is no threat leaves D a free
        # move: with C_QUIET, every D reply is searched, at one threat less.
        _null_move(params, info)
        budget = min(cnt[C_THREAT_NODES], cnt[C_BUDGET] - cnt[C_NODES])
        res, length, used = vcf_search(params, zkeys, board, info, stack, wmask, work, tt, cnt[C_MAX_PLIES],
                                       budget)
        cnt[C_NODES] += used
        ndef = 0
        if res == FOUND:
            ndef = threat_defences(params, zkeys, board, info, stack, wmask, work, vw, level, work.line, length)
        _null_move(params, info)
        if res == ABORTED and cnt[C_NODES] >= cnt[C_BUDGET]:
            undo_move_tracked(params, zkeys, board, info, stack, wmask)
            aborted = True
            break
        left = threats if nd == 1 else threats - 1
        if res != FOUND:
            if nd == 1 and cnt[C_QUIET] != 0 and threats >= 1:
                ndef = all_replies(params, board, dfd, work, vw, level)
                left = threats - 1
            else:
                undo_move_tracked(params, zkeys, board, info, stack, wmask)
                continue
        if left < 0:
            undo_move_tracked(params, zkeys, board, info, stack, wmask)
            continue
        best = -1
        ok = True
        for i in range(ndef):
            x = vw.defs[level, i]
            apply_move_tracked(params, zkeys, board, info, stack, wmask, x)
            res = vct_node(params, zkeys, board, info, stack, wmask, work, vw, tt, level + 1, left)
            undo_move_tracked(params, zkeys, board, info, stack, wmask)
            if res != FOUND:
                ok = False
                if res == ABORTED:
                    aborted = True
                break
            m = vw.line_len[level + 1]
            if m > best:
                best = m
                vw.lines[level, 0] = t
                vw.lines[level, 1] = x
                for j in range(m):
                    vw.lines[level, 2 + j] = vw.lines[level + 1, j]
                vw.line_len[level] = m + 2
        undo_move_tracked(params, zkeys, board, info, stack, wmask)
        if aborted:
            break
        if ok and ndef > 0:
            ab_store(tt, key, VCT_AUX, 0, threats, BOUND_LOWER, 0, t)
            return FOUND
    if aborted:
        return ABORTED
    ab_store(tt, key, VCT_AUX, 0, threats, BOUND_UPPER, 0, -1)
    return NOT_FOUND
