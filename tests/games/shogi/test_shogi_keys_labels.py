"""Shogi move labels (against cshogi's dlshogi module) and keys: same board, other hands, apart."""

from __future__ import annotations

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.games.shogi.keys import aux_hand, board_key, full_key, hand_aux, to_int64
from zeroplay.games.shogi.labels import NUM_LABELS, move_labels
from zeroplay.tt import BOUND_EXACT, ab_probe, ab_store, new_ab_table, new_node_table, node_find, node_find_or_add


def random_positions(count: int, seed: int = 0):
    """``count`` positions of random games (each game up to 120 moves), as ShogiStates."""
    rng = np.random.default_rng(seed)
    g = make("shogi")
    out = []
    while len(out) < count:
        s = g.initial()
        for _ in range(120):
            if s.is_terminal or len(out) >= count:
                break
            out.append(s)
            moves = s.legal_moves()
            s = s.play(int(moves[rng.integers(len(moves))]))
    return out


def test_label_59_for_both_sides():
    s = make("shogi").initial()
    assert s.parse_move("7g7f") == 59
    assert s.play("7g7f").parse_move("3c3d") == 59


def test_labels_of_1000_random_positions_are_distinct_and_match_dlshogi():
    dlshogi = pytest.importorskip("cshogi.dlshogi", reason="this cshogi has no cshogi.dlshogi features: pip install -U cshogi")
    total = 0
    for s in random_positions(1000):
        moves = s.legal_cshogi_moves()
        ours = move_labels(moves, s.to_play)
        assert len(set(ours.tolist())) == len(ours) and ours.min() >= 0 and ours.max() < NUM_LABELS
        assert ours.tolist() == [dlshogi.make_move_label(int(m), s.to_play) for m in moves]
        assert s.key == full_key(s.pieces, s.to_play, s.hands)  # incremental == from scratch
        for label in ours[:3]:
            assert s.parse_move(s.move_text(int(label))) == label
        total += len(moves)
    assert total > 30_000


def test_hand_packing_round_trips_and_fits_21_bits():
    full = (18, 4, 4, 4, 4, 2, 2)
    assert (1 << 20) <= hand_aux(full) < 1 << 21 and aux_hand(hand_aux(full)) == full
    assert aux_hand(hand_aux((3, 0, 1, 0, 2, 1, 0))) == (3, 0, 1, 0, 2, 1, 0)
    with pytest.raises(ValueError):
        hand_aux((19, 0, 0, 0, 0, 0, 0))


def test_keys_from_scratch_agree_and_see_the_side_to_move():
    s = make("shogi").initial()
    assert s.board_key == board_key(s.pieces, 0) != board_key(s.pieces, 1)
    t = s.play("7g7f")
    assert t.board_key != s.board_key and t.key != s.key


def _same_board_two_hands():
    g = make("shogi")
    one = g.from_sfen("4k4/9/9/9/9/9/9/9/4K4 b P 1")
    two = g.from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 2P 1")
    return one, two


def test_same_board_different_hands_apart_in_the_alpha_beta_table():
    one, two = _same_board_two_hands()
    assert one.board_key == two.board_key and one.hand_aux != two.hand_aux
    t = new_ab_table(1, num_buckets=4)
    key = to_int64(one.board_key)
    ab_store(t, key, one.hand_aux, 0, 5, BOUND_EXACT, 123, 7)
    assert ab_probe(t, key, one.hand_aux, 0)[0]
    assert not ab_probe(t, key, two.hand_aux, 0)[0]
    ab_store(t, key, two.hand_aux, 0, 5, BOUND_EXACT, -50, 9)
    assert ab_probe(t, key, one.hand_aux, 0)[1:3] == (7, 123)
    assert ab_probe(t, key, two.hand_aux, 0)[1:3] == (9, -50)


def test_same_board_different_hands_apart_in_the_node_table():
    one, two = _same_board_two_hands()
    assert one.key != two.key
    t = new_node_table(16)
    a, added_a = node_find_or_add(t, to_int64(one.key), one.to_play, 0)
    b, added_b = node_find_or_add(t, to_int64(two.key), two.to_play, 0)
    assert added_a and added_b and a != b
    assert node_find(t, to_int64(one.key), 0, 0) == a and node_find(t, to_int64(two.key), 0, 0) == b
