"""Exact Connect Four solver: negamax alpha-beta on bitboards, with the alpha-beta table (issue 3).

Scores follow Pascal Pons' convention ("Solving Connect 4", blog.gamesolver.org), from the point
of view of the side to move, with ``n`` stones on the board and both sides playing perfectly (win
as fast as possible, lose as late as possible):

* a win scores ``22 - s``, ``s`` the number of stones the winner has when the game ends
  (a win with the next stone scores ``(43 - n) // 2``, the largest possible);
* a loss scores ``s - 22`` (the winner's stones again); a draw 0.

Bitboards (two uint64 words per position; 7 bits per column, 6 cells and an always-empty
sentinel bit on top)::

      6 13 20 27 34 41 48   <- sentinel row (never set)
      5 12 19 26 33 40 47   <- top row (Game API row 0)
      4 11 18 25 32 39 46
      3 10 17 24 31 38 45
      2  9 16 23 30 37 44
      1  8 15 22 29 36 43
      0  7 14 21 28 35 42   <- bottom row (Game API row 5)

* ``mask``: every stone on the board; ``me``: the stones of the side to move.
* ``me + mask`` identifies the position uniquely (each column's stones are contiguous from the
  bottom, so adding ``me`` to ``mask`` cannot carry into another column's field); the table key is
  that number passed through a bijective 64-bit mixer (murmur3's finaliser), so keys differ for
  different positions and the table's low-bit bucket index is well spread: a table hit is never
  another position.

Search (``solve``):

* Null-window iteration at the root: the score lies in [min, max] (the bounds above); each pass
  asks "is the score > m?" with the window (m, m + 1) and moves min or max, picking m half-way
  but first towards 0 (draws and short results are the cheap ones to refute).
* ``_negamax``: fail-hard alpha-beta on [alpha, beta]. On entry the side to move cannot win at
  once (callers check). Only non-losing moves are generated: if the opponent threatens to win
  next move the block is forced (two threats: lost), and no move may fill the cell under an
  opponent's winning cell. The window is clamped to the reachable score range, then by the
  table's bound; moves are tried table move first, then by the number of winning cells they
  create (threats), ties to the centre.
* Table entries (``zeroplay.tt.ab_table``): value = the fail-hard result with bound LOWER (fail
  high), UPPER (fail low) or EXACT (a child inside the window); depth = empty cells left (every
  entry is a full-depth result, so any hit may cut; depth only steers replacement); move = the
  best column found. Scores are small ordinary values (never the table's "mate" range), stored at
  ply 0.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from zeroplay.tt.ab_table import (
    BOUND_EXACT,
    BOUND_LOWER,
    BOUND_UPPER,
    ABTable,
    ab_clear,
    ab_new_search,
    ab_probe,
    ab_store,
    new_ab_table,
)

WIDTH = 7
HEIGHT = 6
CELLS = WIDTH * HEIGHT
COL_BITS = HEIGHT + 1  # bits per column, sentinel included

DEFAULT_TABLE_MIB = 16
"""Default alpha-beta table size (MiB): 2^18 buckets of three 16-byte entries (12 MiB used, 786,432
entries). It stays mostly in the L3 cache, so the serial probes of a small search do not each wait
for memory: on the 2-core machine of docs/BENCHMARKS.md a 64 MiB table made Test_L3_R1 about 3x
slower (each of its ~50 nodes paying a memory miss) while saving 0.2 % of the nodes on Test_L1_R2
and about 8 % on the first Test_L1_R3 positions (tens of millions of nodes: pass a larger
``table_mib`` for such searches)."""

_ONE = np.uint64(1)
_BOTTOM = np.uint64(sum(1 << (c * COL_BITS) for c in range(WIDTH)))
"""One bit per column, the bottom cell."""
_BOARD = np.uint64(sum(((1 << HEIGHT) - 1) << (c * COL_BITS) for c in range(WIDTH)))
"""Every playable cell (no sentinels)."""
_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S3 = np.uint64(3)
_SHIFT_H = np.uint64(COL_BITS)  # horizontal neighbour
_SHIFT_D1 = np.uint64(COL_BITS - 1)  # diagonal: one column right, one row down
_SHIFT_D2 = np.uint64(COL_BITS + 1)  # diagonal: one column right, one row up
_CENTRE_ORDER = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)
"""Columns tried centre first (ties in move ordering go to the earlier one)."""
_NO_MOVE = -1
PREFETCH_CHILDREN = True
"""Prefetch the table buckets of all children before probing a node's own entry: the probes of a
depth-first search are serial, so each one that misses the cache stalls for a full memory
latency; loading the children's buckets together overlaps those misses (about 25 % less time on
Test_L2_R2, a little more on the tiny Test_L3_R1 searches)."""


# --- table prefetch -------------------------------------------------------------------------
@intrinsic
def _prefetch_row(typingctx, array, row):
    """Hint the CPU to load ``array[row, 0]``'s cache line (LLVM ``llvm.prefetch``, read, keep)."""
    sig = types.void(array, row)

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        ary = context.make_array(array_type)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        ptr = cgutils.get_item_pointer(context, builder, array_type, ary, [args[1], zero], wraparound=False)
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, inline="always")
def _prefetch_entry(table, key):
    """Prefetch the bucket of ``key`` (layout of ``zeroplay.tt.ab_table``: bucket b = key & (B - 1)
    owns entry rows 3b .. 3b + 2, 48 bytes, which may straddle two cache lines)."""
    entries = table.entries
    buckets = entries.shape[0] // 3
    first = 3 * (key & (buckets - 1))
    _prefetch_row(entries, first)
    _prefetch_row(entries, first + 2)


# --- bitboard helpers ----------------------------------------------------------------------
@njit(cache=True, inline="always")
def _column_bottom(col):
    return _ONE << np.uint64(col * COL_BITS)


@njit(cache=True, inline="always")
def _column_top(col):
    return _ONE << np.uint64(col * COL_BITS + HEIGHT - 1)


@njit(cache=True, inline="always")
def _column_cells(col):
    return np.uint64((1 << HEIGHT) - 1) << np.uint64(col * COL_BITS)


@njit(cache=True, inline="always")
def _popcount(x):
    """Number of set bits of a uint64 (SWAR)."""
    x = x - ((x >> _S1) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> _S2) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def _line_completions(stones, shift):
    """Cells that complete four of ``stones`` along the line whose neighbour is ``shift`` bits up.

    A cell x completes four when three stones sit next to it on the line: x+1, x+2, x+3 (x at one
    end), x-1, x+1, x+2 or x-2, x-1, x+1 (x inside) or x-1, x-2, x-3 (x at the other end).
    """
    pair_up = (stones >> shift) & (stones >> (shift + shift))  # x+1 and x+2 held
    pair_down = (stones << shift) & (stones << (shift + shift))  # x-1 and x-2 held
    r = pair_up & (stones >> (shift * _S3))
    r |= pair_up & (stones << shift)
    r |= pair_down & (stones >> shift)
    r |= pair_down & (stones << (shift * _S3))
    return r


@njit(cache=True, inline="always")
def winning_cells(stones, mask):
    """Empty cells (of the 42) where a stone of the owner of ``stones`` would complete four."""
    # vertical: only the cell right above three stacked stones
    r = (stones << _S1) & (stones << _S2) & (stones << _S3)
    r |= _line_completions(stones, _SHIFT_H)
    r |= _line_completions(stones, _SHIFT_D1)
    r |= _line_completions(stones, _SHIFT_D2)
    return r & (_BOARD ^ mask)


@njit(cache=True, inline="always")
def playable_cells(mask):
    """The landing cell of every column that is not full."""
    return (mask + _BOTTOM) & _BOARD


@njit(cache=True, inline="always")
def _mix(x):
    """Bijective 64-bit mixer (murmur3 fmix64) of ``x`` + an odd constant, as an int64 key."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xFF51AFD7ED558CCD)
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xC4CEB9FE1A85EC53)
    x ^= x >> np.uint64(33)
    return np.int64(x)


@njit(cache=True, inline="always")
def position_key(me, mask):
    """Table key of a position: unique per position (``me + mask`` mixed bijectively)."""
    return _mix(me + mask)


@njit(cache=True, inline="always")
def can_win_now(me, mask):
    """True if the side to move has a move that completes four."""
    return (winning_cells(me, mask) & playable_cells(mask)) != 0


@njit(cache=True)
def play_column(me, mask, col):
    """(me', mask') after the side to move drops a stone in ``col`` (side to move swaps)."""
    return me ^ mask, mask | (mask + _column_bottom(col))


@njit(cache=True)
def bitboards_from_actions(actions):
    """(me, mask, moves, status) after playing ``actions`` (int64 columns) from the empty board.

    status: 0 fine; 1 + i when move i is illegal (column out of range or full); -(1 + i) when
    move i completes four (the game is over: it may not be solved, and later moves are illegal).
    """
    me = np.uint64(0)
    mask = np.uint64(0)
    for i in range(actions.shape[0]):
        col = actions[i]
        if col < 0 or col >= WIDTH or (mask & _column_top(col)) != 0:
            return me, mask, i, 1 + i
        if (winning_cells(me, mask) & playable_cells(mask) & _column_cells(col)) != 0:
            return me, mask, i, -(1 + i)
        me, mask = play_column(me, mask, col)
    return me, mask, actions.shape[0], 0


# --- search --------------------------------------------------------------------------------
@njit(cache=True)
def _negamax(me, mask, moves, alpha, beta, table, counters):
    """Score of the position in [alpha, beta], fail-hard, side to move's view.

    Precondition: the side to move cannot win at once. Returns r with: r <= alpha -> score <= r;
    r >= beta -> score >= r; otherwise score == r. ``counters[0]`` counts calls (nodes).
    """
    counters[0] += 1
    opponent = me ^ mask
    free = playable_cells(mask)
    opponent_wins = winning_cells(opponent, mask)
    forced = free & opponent_wins
    if forced != 0:
        if (forced & (forced - _ONE)) != 0:
            return -((CELLS - moves) // 2)  # two threats: one of them wins next move
        free = forced
    safe = free & ~(opponent_wins >> _S1)  # never fill the cell under an opponent's win
    if safe == 0:
        return -((CELLS - moves) // 2)
    if moves >= CELLS - 2:
        return 0  # our stone and the opponent's last one cannot win
    low = -((CELLS - 2 - moves) // 2)  # the opponent cannot win before its second stone
    if alpha < low:
        alpha = low
        if alpha >= beta:
            return alpha
    high = (CELLS - 1 - moves) // 2  # we cannot win before our second stone
    if beta > high:
        beta = high
        if alpha >= beta:
            return beta

    depth = CELLS - moves
    key = position_key(me, mask)
    if PREFETCH_CHILDREN:
        rest = safe
        while rest != 0:
            bit = rest & (~rest + _ONE)  # lowest set bit
            rest ^= bit
            _prefetch_entry(table, position_key(opponent, mask | bit))
    hit, table_move, value, _depth, bound = ab_probe(table, key, 0, 0)
    if hit:
        if bound == BOUND_EXACT:
            return value
        if bound == BOUND_LOWER:
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    return alpha
        elif value < beta:
            beta = value
            if alpha >= beta:
                return beta
    alpha_start = alpha
    best_move = _NO_MOVE

    # 1. the table's move, when still playable here
    if table_move >= 0:
        bit = safe & _column_cells(table_move)
        if bit != 0:
            score = -_negamax(opponent, mask | bit, moves + 1, -beta, -alpha, table, counters)
            if score >= beta:
                ab_store(table, key, 0, 0, depth, BOUND_LOWER, score, table_move)
                return score
            best_move = table_move
            if score > alpha:
                alpha = score
            safe &= ~bit

    # 2. the rest, most threats first, centre first among equals. Scores are packed 9 bits per
    # move (threats * 8 + 6 - centre rank): no allocation in this recursive function.
    packed = np.int64(0)
    for i in range(WIDTH):
        bit = safe & _column_cells(_CENTRE_ORDER[i])
        if bit != 0:
            threats = _popcount(winning_cells(me | bit, mask | bit))
            if threats > 62:
                threats = 62
            packed |= np.int64(threats * 8 + (WIDTH - 1 - i) + 1) << np.int64(9 * i)
    while packed != 0:
        top = np.int64(0)
        top_i = 0
        for i in range(WIDTH):
            code = (packed >> np.int64(9 * i)) & np.int64(511)
            if code > top:
                top = code
                top_i = i
        packed &= ~(np.int64(511) << np.int64(9 * top_i))
        col = _CENTRE_ORDER[top_i]
        bit = safe & _column_cells(col)
        score = -_negamax(opponent, mask | bit, moves + 1, -beta, -alpha, table, counters)
        if score >= beta:
            ab_store(table, key, 0, 0, depth, BOUND_LOWER, score, col)
            return score
        if score > alpha:
            alpha = score
            best_move = col
        elif best_move == _NO_MOVE:
            best_move = col
    if alpha > alpha_start:
        ab_store(table, key, 0, 0, depth, BOUND_EXACT, alpha, best_move)
    else:
        ab_store(table, key, 0, 0, depth, BOUND_UPPER, alpha, best_move)
    return alpha


@njit(cache=True)
def _score_after(me, mask, moves, col, alpha, beta, table, counters):
    """Score for the side to move of playing ``col`` (legal), tested in [alpha, beta], fail-hard."""
    bit = playable_cells(mask) & _column_cells(col)
    if (winning_cells(me, mask) & bit) != 0:
        return (CELLS + 1 - moves) // 2
    child_me, child_mask = me ^ mask, mask | bit
    if moves + 1 == CELLS:
        return 0
    if can_win_now(child_me, child_mask):
        return -((CELLS - moves) // 2)
    return -_negamax(child_me, child_mask, moves + 1, -beta, -alpha, table, counters)


@njit(cache=True)
def solve_bitboards(me, mask, moves, table, counters):
    """Exact score of a position that is not over (Pons' convention, side to move's view).

    Null-window iteration: while min < max, test a middle m with the window (m, m + 1)
    and keep the half where the score lies.
    """
    if can_win_now(me, mask):
        return (CELLS + 1 - moves) // 2
    if moves >= CELLS:
        return 0
    low = -((CELLS - moves) // 2)
    high = (CELLS + 1 - moves) // 2
    while low < high:
        mid = low + (high - low) // 2
        # look near 0 first: halve towards zero (truncating) when that is still inside (low, high)
        if mid <= 0 and _half_towards_zero(low) < mid:
            mid = _half_towards_zero(low)
        elif mid >= 0 and _half_towards_zero(high) > mid:
            mid = _half_towards_zero(high)
        r = _negamax(me, mask, moves, mid, mid + 1, table, counters)
        if r <= mid:
            high = r
        else:
            low = r
    return low


@njit(cache=True, inline="always")
def _half_towards_zero(x):
    return -((-x) // 2) if x < 0 else x // 2


@njit(cache=True)
def best_move_bitboards(me, mask, moves, score, table, counters):
    """A column that achieves ``score`` (the solved score), centre first; -1 when none is legal."""
    fallback = -1
    for i in range(WIDTH):
        col = _CENTRE_ORDER[i]
        if (mask & _column_top(col)) != 0:
            continue
        if fallback < 0:
            fallback = col
        # does this move score >= score? (the score is the maximum, so then it is exact)
        if _score_after(me, mask, moves, col, score - 1, score, table, counters) >= score:
            return col
    return fallback


@njit(cache=True)
def solve_batch(me_arr, mask_arr, moves_arr, table, clear_each, scores, nodes):
    """Solve many positions in one compiled call (table cleared before each when ``clear_each``).

    Writes ``scores[i]`` and ``nodes[i]``. Used by tests; the benchmark times positions one by one.
    """
    counters = np.zeros(2, dtype=np.int64)
    for i in range(me_arr.shape[0]):
        if clear_each:
            ab_clear(table)
        else:
            ab_new_search(table)
        counters[0] = 0
        scores[i] = solve_bitboards(me_arr[i], mask_arr[i], moves_arr[i], table, counters)
        nodes[i] = counters[0]


# --- Python API ----------------------------------------------------------------------------
@dataclass(frozen=True)
class SolveResult:
    """One solved position.

    Attributes:
        moves: the game, column digits ``"4453"``.
        score: exact score in Pons' convention, side to move's view.
        best_move: a column digit achieving ``score`` ("" when not asked for).
        nodes: ``_negamax`` calls of the score search (the best-move search not counted).
        seconds: wall time of the score search.
    """

    moves: str
    score: int
    best_move: str
    nodes: int
    seconds: float

    def as_dict(self) -> dict:
        return {"moves": self.moves, "score": self.score, "best_move": self.best_move,
                "nodes": self.nodes, "seconds": self.seconds}


def parse_position(moves: str) -> tuple[np.uint64, np.uint64, int]:
    """(me, mask, stones) of a game given as column digits; raises IllegalMoveError when bad.

    Raises:
        IllegalMoveError: a character that is not a column digit, a full column, or a move
            after four in a row (the game is over; there is nothing to solve).
    """
    from zeroplay.games.api import IllegalMoveError

    text = moves.strip()
    actions = []
    for i, ch in enumerate(text):
        if not "1" <= ch <= str(WIDTH):
            raise IllegalMoveError(f"moves {moves!r}: {ch!r} at position {i} is not a column digit 1..{WIDTH}")
        actions.append(ord(ch) - ord("1"))
    me, mask, n, status = bitboards_from_actions(np.array(actions, dtype=np.int64))
    if status > 0:
        i = status - 1
        raise IllegalMoveError(f"moves {moves!r}: move {i + 1} ({text[i]}) is illegal: column {text[i]} is full")
    if status < 0:
        i = -status - 1
        raise IllegalMoveError(
            f"moves {moves!r}: move {i + 1} ({text[i]}) completes four: the game is over"
            + ("" if i == len(text) - 1 else " before the later moves")
        )
    if n >= CELLS:
        raise IllegalMoveError(f"moves {moves!r}: the board is full (a draw): nothing to solve")
    return me, mask, n


def bitboards_from_state(state) -> tuple[np.uint64, np.uint64, int]:
    """(me, mask, stones) of a Game API ``connect4`` State (set-up positions included).

    Raises:
        ValueError: a State of another game, or one that is over.
    """
    game = state.game
    if not getattr(game, "exact_solver", False) or (game.width, game.height) != (WIDTH, HEIGHT):
        raise ValueError(f"not a 7x6 connect4 state: {game!r}")
    if state.is_terminal:
        raise ValueError("the game is over: nothing to solve")
    me = 0
    mask = 0
    for row in range(HEIGHT):
        for col in range(WIDTH):
            stone = int(state.board[row, col])
            if stone:
                bit = 1 << (col * COL_BITS + (HEIGHT - 1 - row))
                mask |= bit
                if stone == state.to_play + 1:
                    me |= bit
    return np.uint64(me), np.uint64(mask), int(state.ply)


class Connect4Solver:
    """Exact solver with its own alpha-beta table, kept between positions.

    Args:
        table_mib: table size in MiB (default ``DEFAULT_TABLE_MIB``).
        clear_each: clear the table before each position (as the benchmark times it); otherwise
            only advance its generation (entries stay valid: they do not depend on the root).

    Example:
        >>> Connect4Solver(table_mib=1).solve("4455").score
        18
    """

    def __init__(self, table_mib: float = DEFAULT_TABLE_MIB, *, clear_each: bool = False):
        self.table: ABTable = new_ab_table(table_mib)
        self.clear_each = clear_each
        self._counters = np.zeros(2, dtype=np.int64)

    def clear(self) -> None:
        """Empty the table."""
        ab_clear(self.table)

    def solve(self, moves, *, best_move: bool = True) -> SolveResult:
        """Solve the position after ``moves`` (column digits, ``"4453"``; ``""`` = empty board),
        or a Game API ``connect4`` State (then ``moves`` in the result is its history, if any).

        Raises:
            IllegalMoveError: malformed moves, a full column, a game already won or a full board.
            ValueError: a State of another game or a finished one.
        """
        if isinstance(moves, str):
            me, mask, n = parse_position(moves)
        else:
            me, mask, n = bitboards_from_state(moves)
            moves = moves.game.format_moves(moves.moves)
        if self.clear_each:
            ab_clear(self.table)
        else:
            ab_new_search(self.table)
        self._counters[0] = 0
        t0 = time.perf_counter()
        score = solve_bitboards(me, mask, n, self.table, self._counters)
        seconds = time.perf_counter() - t0
        nodes = int(self._counters[0])
        move = ""
        if best_move:
            col = best_move_bitboards(me, mask, n, score, self.table, self._counters)
            move = str(col + 1)
        return SolveResult(moves.strip(), int(score), move, nodes, seconds)


def solve(moves: str, *, table_mib: float = DEFAULT_TABLE_MIB) -> SolveResult:
    """Solve one position with a fresh table (see ``Connect4Solver`` to keep one warm)."""
    return Connect4Solver(table_mib).solve(moves)
