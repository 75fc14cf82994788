"""Bonanza's hand-superiority probe of the alpha-beta table, on shogi hand packings."""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.games.shogi.keys import HAND_FIELD_BITS, hand_aux
from zeroplay.tt import (BOUND_EXACT, BOUND_LOWER, BOUND_UPPER, WIN_VALUE, ab_probe, ab_probe_dominance,
                         ab_store, new_ab_table)

KEY = 0x1234_5678_9ABC_DEF
NO_HAND = hand_aux((0,) * 7)
ONE_PAWN = hand_aux((1, 0, 0, 0, 0, 0, 0))
TWO_PAWNS = hand_aux((2, 0, 0, 0, 0, 0, 0))
PAWN_AND_GOLD = hand_aux((1, 0, 0, 0, 1, 0, 0))
ROOK_ONLY = hand_aux((0, 0, 0, 0, 0, 0, 1))


def _probe(t, aux, alpha, beta, depth=4, ply=0):
    return ab_probe_dominance(t, KEY, aux, ply, depth, alpha, beta, HAND_FIELD_BITS)


def _table_with(bound, value, aux=ONE_PAWN, depth=6):
    t = new_ab_table(1, num_buckets=8)
    ab_store(t, KEY, aux, 0, depth, bound, value, 3)
    return t


def test_lower_bound_with_a_pawn_serves_two_pawns_not_none():
    t = _table_with(BOUND_LOWER, 200)
    assert _probe(t, TWO_PAWNS, alpha=100, beta=150) == (True, 200)
    assert _probe(t, TWO_PAWNS, alpha=100, beta=200) == (True, 200)  # beta <= v
    assert _probe(t, TWO_PAWNS, alpha=100, beta=201) == (False, 0)  # beta above the bound
    assert _probe(t, PAWN_AND_GOLD, alpha=100, beta=150) == (True, 200)
    assert _probe(t, NO_HAND, alpha=100, beta=150) == (False, 0)  # fewer pieces: no bound
    assert _probe(t, ROOK_ONLY, alpha=100, beta=150) == (False, 0)  # not comparable
    # the exact-match probe keeps the positions apart
    assert not ab_probe(t, KEY, TWO_PAWNS, 0)[0]


def test_upper_bound_with_a_pawn_serves_no_pawn_not_two():
    t = _table_with(BOUND_UPPER, -80)
    assert _probe(t, NO_HAND, alpha=-50, beta=0) == (True, -80)
    assert _probe(t, NO_HAND, alpha=-80, beta=0) == (True, -80)  # alpha >= v
    assert _probe(t, NO_HAND, alpha=-81, beta=0) == (False, 0)
    assert _probe(t, TWO_PAWNS, alpha=-50, beta=0) == (False, 0)  # more pieces: no bound
    assert _probe(t, PAWN_AND_GOLD, alpha=-50, beta=0) == (False, 0)


def test_exact_value_serves_both_sides_and_depth_and_key_must_fit():
    t = _table_with(BOUND_EXACT, 10)
    assert _probe(t, TWO_PAWNS, alpha=-100, beta=5) == (True, 10)
    assert _probe(t, NO_HAND, alpha=20, beta=100) == (True, 10)
    assert _probe(t, TWO_PAWNS, alpha=20, beta=100) == (False, 0)  # a lower bound 10 says nothing at beta 100
    assert _probe(t, TWO_PAWNS, alpha=-100, beta=5, depth=7) == (False, 0)  # stored depth 6 too shallow
    assert ab_probe_dominance(t, KEY ^ 1, TWO_PAWNS, 0, 4, -100, 5, HAND_FIELD_BITS) == (False, 0)


def test_mate_scores_come_back_relative_to_the_root():
    t = new_ab_table(1, num_buckets=8)
    ab_store(t, KEY, ONE_PAWN, 3, 6, BOUND_LOWER, WIN_VALUE - 7, 3)  # a win 4 plies below the node
    assert _probe(t, TWO_PAWNS, alpha=0, beta=1, ply=5) == (True, WIN_VALUE - 9)


def test_field_comparison_is_per_field_not_numeric():
    # 2 pawns pack to a larger number than 1 rook? No: the rook's field is higher; a numeric
    # comparison would call ROOK_ONLY > TWO_PAWNS. Dominance must not.
    assert ROOK_ONLY > TWO_PAWNS
    t = _table_with(BOUND_LOWER, 300, aux=TWO_PAWNS)
    assert _probe(t, ROOK_ONLY, alpha=0, beta=100) == (False, 0)


def test_callable_from_compiled_code():
    @njit
    def probe_many(t, auxes, bits):
        hits = 0
        for a in auxes:
            hits += ab_probe_dominance(t, KEY, a, 0, 1, -1000, 0, bits)[0]
        return hits

    t = _table_with(BOUND_LOWER, 50)
    assert probe_many(t, np.array([NO_HAND, ONE_PAWN, TWO_PAWNS, ROOK_ONLY], np.int64), HAND_FIELD_BITS) == 2
