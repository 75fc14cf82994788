"""The shogi alpha-beta engine: incremental keys and evaluation, tactics, limits, hand dominance."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from zeroplay.engine.shogi_alphabeta import AlphaBetaConfig, AlphaBetaEngine, mate_plies
from zeroplay.games import make
from zeroplay.games.shogi.evaluation import evaluate, evaluate_black
from zeroplay.games.shogi.keys import hand_aux, to_int64
from zeroplay.tt import WIN_VALUE


@pytest.fixture(scope="module")
def engine():
    return AlphaBetaEngine(AlphaBetaConfig(hash_mib=4))


def test_incremental_key_hands_and_evaluation_equal_the_from_scratch_ones(engine):
    rng = np.random.default_rng(0)
    g = make("shogi")
    for _ in range(4):
        s = g.initial()
        engine._setup(s.cshogi_board(), None, None, None, 0.0)
        for _ in range(150):
            if s.is_terminal:
                break
            moves = s.legal_cshogi_moves()
            move = int(moves[rng.integers(len(moves))])
            engine._make(move)
            s = s.play(s.label_of(move))
            assert engine.key == to_int64(s.board_key)
            assert engine.aux == [hand_aux(s.hands[0]), hand_aux(s.hands[1])]
            assert engine.eval_black == evaluate_black(s.pieces, s.hands)


def test_evaluation_is_symmetric_and_counts_material():
    g = make("shogi")
    assert evaluate(g.initial()) == 0
    up_a_rook = g.from_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")
    assert 900 < evaluate(up_a_rook) < 1100
    assert evaluate(g.from_sfen("lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1")) == -evaluate(up_a_rook)


def test_mate_in_one_and_mate_scores(engine):
    r = engine.search(make("shogi").from_sfen("7lk/9/8G/9/9/9/9/9/K8 b G 1"), depth=3)
    assert r.best_move == "G*1b" and r.mate == 1 and r.score == WIN_VALUE - 1
    assert mate_plies(WIN_VALUE - 5) == 5 and mate_plies(-(WIN_VALUE - 4)) == -4 and mate_plies(300) is None


def test_finds_the_quiet_forced_win(engine):
    # S*4c (no check) then S*3b mates: a win in 5 plies that a tsume search cannot see
    r = engine.search(make("shogi").from_sfen("7nl/7k1/9/7P1/9/9/9/9/K8 b G2S 1"), depth=5)
    assert r.mate is not None and r.mate > 0 and r.pv[0] == "G*2c"


def test_takes_a_hanging_rook(engine):
    # White's rook on 7e stands in front of Black's pawn on 7f, undefended
    s = make("shogi").from_sfen("lnsgkgsnl/7b1/ppppppppp/9/2r6/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 1")
    r = engine.search(s, depth=3)
    assert r.best_move == "7f7e" and r.score > 500


def test_resign_and_win_and_the_limits(engine):
    g = make("shogi")
    mated = g.from_sfen("7lk/9/8G/9/9/9/9/9/K8 b G 1").play("G*1b")
    assert engine.search(mated).best_move == "resign"
    assert engine.search(g.from_sfen("RRBBGGGG1/4K4/SS7/9/9/9/9/9/4k4 b 2P 1")).best_move == "win"
    r = engine.search(g.initial(), nodes=3000)
    assert r.nodes < 3000 + 512 and r.best_move in {g.initial().move_text(int(m)) for m in g.initial().legal_moves()}
    stop = threading.Event()
    stop.set()
    r = engine.search(g.initial(), stop=stop)
    assert r.best_move and r.nodes <= 512
    r = engine.search(g.initial(), seconds=0.2)
    assert r.seconds < 2.0


def test_hand_dominance_keeps_the_results(engine):
    # the dominance probe only adds cutoffs that are sound: the same mates and the same best
    # capture with it on
    on = AlphaBetaEngine(AlphaBetaConfig(hash_mib=4, hand_dominance=True))
    g = make("shogi")
    for sfen, depth in [("7nl/7k1/9/7P1/9/9/9/9/K8 b G2S 1", 5),
                        ("lnsgkgsnl/7b1/ppppppppp/9/2r6/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 1", 3)]:
        a, b = engine.search(g.from_sfen(sfen), depth=depth), on.search(g.from_sfen(sfen), depth=depth)
        assert (a.best_move, a.mate) == (b.best_move, b.mate)


# found by `zeroplay arena alphabeta:1000 alphabeta:300 --game shogi`: White in check (S*3e) got
# R*1i, a "mate in one" from cshogi's mate_move_in_1ply, which is only valid out of check
_IN_CHECK = ("startpos moves 5g5f 4c4d 1g1f 1c1d 2g2f 2c2d 3g3f 3c3d 4g4f 5c5d 6g6f 6c6d 7g7f 7c7d 8g8f 8c8d 9g9f "
             "9c9d 2f2e 2d2e 2h2e P*2d 2e2d 1d1e 2d2c+ 1e1f P*1b 1f1g+ 1b1a+ 2b1a 2c2a 1a2b 1i1g 2b3c N*4c 5a4b "
             "4c3a+ 4a3a L*4c 4b4c 2a3a N*4g 5i4h 4g3i+ 4h3i L*5a 1g1a+ 3c1e P*1b P*1h P*2b 1h1i+ 2b2a+ 1i2i 3i2i "
             "1e3g+ 3a3d 4c3d S*3e")


def test_in_check_the_root_plays_an_evasion_not_a_false_mate(engine):
    s = make("shogi").from_usi(_IN_CHECK)
    assert s.in_check and not s.is_terminal
    legal = {s.move_text(int(m)) for m in s.legal_moves()}
    assert legal == {"3d2e", "3d3c", "3d2c", "3d4c"}
    for limits in ({"depth": 1}, {"nodes": 300}):
        engine.new_game()
        result = engine.search(s, **limits)
        assert result.best_move in legal and result.pv[0] in legal
        assert result.mate is None or result.mate < 0  # nobody mates in one out of a check here


def test_quiescence_sees_mates_and_does_not_stand_pat_in_check():
    from zeroplay.engine.shogi_alphabeta import AlphaBetaEngine
    from zeroplay.tt import WIN_VALUE

    engine = AlphaBetaEngine()
    s = make("shogi").from_sfen("7lk/9/8G/9/9/9/9/9/K8 b G 1")  # G*1b mates
    engine._setup(s.cshogi_board(), None, None, None, 0.0)
    assert engine._quiesce(-WIN_VALUE, WIN_VALUE, 0, 0) == WIN_VALUE - 1  # it stood pat at about +1,000
    board = s.cshogi_board()
    board.push_usi("G*1b")
    engine._setup(board, None, None, None, 0.0)
    assert engine._quiesce(-WIN_VALUE, WIN_VALUE, 0, 0) == -WIN_VALUE  # mated, not a material score
    # in check with a way out: the evasions are searched (the king takes the gold: about even)
    board = make("shogi").from_sfen("8k/8G/9/9/9/9/9/9/K8 w - 1").cshogi_board()
    engine._setup(board, None, None, None, 0.0)
    assert abs(engine._quiesce(-WIN_VALUE, WIN_VALUE, 0, 0)) < 2000


def test_staged_ordering_yields_every_move_once_table_move_then_captures():
    from zeroplay.engine.shogi_alphabeta import AlphaBetaEngine

    engine = AlphaBetaEngine()
    s = make("shogi").from_usi("startpos moves 7g7f 3c3d 2g2f 4c4d 2f2e 2b3c")
    board = s.cshogi_board()
    engine._setup(board, None, None, None, 0.0)
    moves = list(board.legal_moves)
    table = next(m for m in moves if not m & (0xF << 20))
    engine.killers[0] = [moves[-1], 0]
    ordered = list(engine._order(moves, engine._label(table, board.turn), 0))
    assert sorted(ordered) == sorted(moves) and ordered[0] == table
    captures = [m for m in ordered[1:] if m & (0xF << 20)]
    assert ordered[1:1 + len(captures)] == captures and len(captures) > 0
