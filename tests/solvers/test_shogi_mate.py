"""Shogi mate search for ``go mate``, against cshogi's df-pn as the independent reference."""

from __future__ import annotations

import threading

import cshogi
import numpy as np

from zeroplay.solvers.shogi_mate import MATE, NO_MATE, UNKNOWN, solve_mate

MATES = [
    ("7lk/9/8G/9/9/9/9/9/K8 b G 1", 1),  # G*1b
    ("1ns2s+Nnb/l1rk4l/1p1gpP1pp/p1pp5/1N3g3/PPPP2P2/2SKP+pSPP/LBG6/6GRL w gsp 1", 3),
    ("1nB1k4/1r3ngsl/ll1s1p1p1/p1p3pPp/3P2P1P/PPP1pPn2/LGB4+s1/4G2N1/S2G1K1R1 w 2Pgsp 1", 7),
]
"""Tsume positions (endgames of random games) with the length of cshogi df-pn's line; ours is a
shortest mate, so no longer."""


def test_known_mates_are_found_with_a_legal_line_no_longer_than_dfpn():
    for sfen, plies in MATES:
        board = cshogi.Board(sfen)
        before = board.sfen()
        result = solve_mate(board, max_plies=9)
        assert result.status == MATE and len(result.pv) <= plies and len(result.pv) % 2 == 1, (sfen, result)
        assert board.sfen() == before  # restored
        reference = cshogi.DfPn()
        assert reference.search(cshogi.Board(sfen))


def test_a_quiet_first_move_is_no_tsume():
    # a forced win that starts with a quiet drop (S*4c threatens S*3b mate) is not a mate by
    # checks: df-pn and ours both say so
    board = cshogi.Board("7nl/7k1/9/7P1/9/9/9/9/K8 b G2S 1")
    assert not cshogi.DfPn().search(board)
    assert solve_mate(board, max_plies=7).status == NO_MATE


def test_pawn_drop_mate_is_not_a_mate():
    result = solve_mate(cshogi.Board("7lk/9/8G/9/9/9/9/9/K8 b P 1"), max_plies=1)
    assert result.status == NO_MATE


def test_agrees_with_cshogi_dfpn_on_random_endgame_positions():
    # endgames of random games with pieces added to the attacker's hand: ours finds a mate
    # within 5 plies only where df-pn finds one, and finds every mate df-pn proves in <= 5 plies
    rng = np.random.default_rng(3)
    checked = agreed_mates = 0
    while checked < 60:
        board = cshogi.Board()
        for _ in range(int(rng.integers(40, 90))):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(moves[rng.integers(len(moves))])
        if board.is_game_over() or board.is_check():
            continue
        hand = "GS" if board.turn == 0 else "gs"
        sfen = board.sfen().split()
        sfen[2] = hand + ("" if sfen[2] == "-" else sfen[2])
        try:
            board = cshogi.Board(" ".join(sfen))
        except RuntimeError:
            continue
        ours = solve_mate(board, max_plies=5)
        dfpn = cshogi.DfPn(depth=5)
        theirs = dfpn.search(board)
        if ours.status == MATE:
            assert theirs, board.sfen()
            agreed_mates += 1
        else:
            assert ours.status == NO_MATE and not theirs, board.sfen()
        checked += 1
    assert agreed_mates >= 2


def test_stops_on_request():
    stop = threading.Event()
    stop.set()
    many_checks = "4k4/9/9/9/9/9/9/9/4K4 b RBGSNLP 1"
    assert solve_mate(cshogi.Board(many_checks), max_plies=31, stop=stop).status == UNKNOWN
    result = solve_mate(cshogi.Board(many_checks), max_plies=31, nodes=1000)
    assert result.status == UNKNOWN and result.nodes <= 1256
