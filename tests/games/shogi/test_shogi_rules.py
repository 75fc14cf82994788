"""Shogi rules on cshogi: perft, the issue's positions, repetition, declaration, records."""

from __future__ import annotations

import re

import cshogi
import pytest

from zeroplay.games import IllegalMoveError, make
from zeroplay.games.shogi.records import read_record, write_csa, write_kif

PERFT = {1: 30, 2: 900, 3: 25_470, 4: 719_731, 5: 19_861_490}
"""Leaf counts from the start position (the issue; the published shogi perft figures)."""


def _perft_board(board: cshogi.Board, depth: int) -> int:
    if depth == 1:
        return len(board.legal_moves)
    total = 0
    for m in board.legal_moves:
        board.push(m)
        total += _perft_board(board, depth - 1)
        board.pop()
    return total


def _perft(state, depth: int) -> int:
    """Through the Game API for the top two plies (labels, ``play``), cshogi boards below."""
    if depth <= 2 or state.ply >= 2:
        if depth == 1:
            return len(state.legal_moves())
        return _perft_board(state.cshogi_board(), depth)
    return sum(_perft(state.play(int(m)), depth - 1) for m in state.legal_moves())


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_perft_from_the_start(depth):
    assert _perft(make("shogi").initial(), depth) == PERFT[depth]


@pytest.mark.slow
def test_perft_depth_5():
    assert _perft(make("shogi").initial(), 5) == PERFT[5]


def test_the_issue_positions():
    g = make("shogi")
    start = g.from_sfen("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")
    assert len(start.legal_moves()) == 30 and start == g.initial()

    pawn = g.from_sfen("7lk/9/8G/9/9/9/9/9/K8 b P 1")
    texts = {pawn.move_text(m) for m in pawn.legal_moves()}
    assert len(texts) == 76 and "P*1b" not in texts  # uchifuzume: a pawn drop may not mate
    assert len(pawn.winning_moves()) == 0

    gold = g.from_sfen("7lk/9/8G/9/9/9/9/9/K8 b G 1")
    assert len(gold.legal_moves()) == 84
    mates = [gold.move_text(m) for m in gold.winning_moves()]
    assert "G*1b" in mates
    after = gold.play("G*1b")
    assert after.is_terminal and after.winner == 0 and after.termination == "checkmate"

    nifu = g.from_sfen("4k4/9/9/9/9/9/4P4/9/4K4 b P 1")
    texts = {nifu.move_text(m) for m in nifu.legal_moves()}
    assert len(texts) == 70 and not any(t.startswith("P*5") for t in texts)
    assert "P*4e" in texts

    promote = g.from_sfen("k8/7P1/9/9/9/9/9/9/8K b - 1")
    texts = sorted(promote.move_text(m) for m in promote.legal_moves())
    assert texts == ["1i1h", "1i2h", "1i2i", "2b2a+"]
    with pytest.raises(IllegalMoveError):
        promote.play("2b2a")


def test_fourfold_repetition_is_a_draw():
    s = make("shogi").initial()
    for _ in range(3):
        assert not s.is_terminal
        s = s.play_many("2h3h 8b7b 3h2h 7b8b".split())
    assert s.is_terminal and s.winner is None and s.termination == "sennichite"
    with pytest.raises(IllegalMoveError, match="over"):
        s.play("7g7f")


def test_perpetual_check_loses():
    # Black's rook checks from file 1 and file 2 in turn while White's king steps between 1a and 2a
    # (the first position recurs for the fourth time after 12 moves, all of Black's checks)
    s = make("shogi").from_sfen("8k/9/9/9/7R1/9/9/9/K8 b - 1")
    for _ in range(3):
        assert not s.is_terminal
        s = s.play_many(["2e1e", "1a2a", "1e2e", "2a1a"])
    assert s.is_terminal and s.termination == "perpetual check" and s.winner == 1


def test_entering_king_declaration_27_points():
    # Black's king in the camp with R R B B (20 points) + 4 golds + 2 silvers there and 2 pawns in
    # hand: 28 points, 10 pieces -> Black to move declares and wins
    g = make("shogi")
    s = g.from_sfen("RRBBGGGG1/4K4/SS7/9/9/9/9/9/4k4 b 2P 1")
    assert s.is_terminal and s.winner == 0 and s.termination == "declaration"
    short = g.from_sfen("RRBBGGGG1/4K4/SS7/9/9/9/9/9/4k4 b P 1")  # 27 points: Black needs 28
    assert not short.is_terminal


def test_max_moves_draw():
    g = make("shogi", max_moves=2)
    s = g.initial().play("7g7f")
    assert not s.is_terminal
    s = s.play("3c3d")
    assert s.is_terminal and s.winner is None and s.termination == "max moves"
    with pytest.raises(ValueError, match="max_moves"):
        make("shogi", max_moves=0)


def test_usi_notation_and_positions():
    g = make("shogi")
    s = g.from_usi("startpos moves 7g7f 3c3d 8h2b+")
    assert s.usi_moves == ("7g7f", "3c3d", "8h2b+") and s.hands == ((0, 0, 0, 0, 0, 1, 0), (0,) * 7)
    assert g.from_usi(s.usi_position()).sfen() == s.sfen()
    assert g.from_usi("sfen " + s.sfen()).sfen() == s.sfen()
    for bad in ["7g7", "7g7e", "P*5e", "zz", "7g7f+", "", "1a1a"]:
        with pytest.raises(IllegalMoveError):
            g.initial().play(bad)
    for bad in ["", "nonsense", "sfen x b - 1", "startpos 7g7f", "startpos moves 7g7f 7g7f"]:
        with pytest.raises(ValueError):
            g.from_usi(bad)
    for bad in ["9/9/9/9/9/9/9/9/9 b - 1", "lnsgkgsnl/9 b - 1", "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL x - 1"]:
        with pytest.raises(ValueError):
            g.from_sfen(bad)
    # the error quotes the whole SFEN (it quoted the first 60 characters, which read as the input)
    bad = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNX b - 1"
    with pytest.raises(ValueError, match=re.escape(repr(bad))):
        g.from_sfen(bad)


def test_records_round_trip(tmp_path):
    s = make("shogi").from_usi("startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e")
    for name in ("game.kif", "game.csa", "game.kifu"):
        path = tmp_path / name
        (write_kif if "kif" in name else write_csa)(s, path)
        back = read_record(path)
        assert back.usi_moves == s.usi_moves and back.sfen() == s.sfen()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.csa", "game.kif", "game.kifu"]
    mate = make("shogi").from_sfen("7lk/9/8G/9/9/9/9/9/K8 b G 1").play("G*1b")
    write_csa(mate, tmp_path / "mate.csa")
    assert "%TORYO" in (tmp_path / "mate.csa").read_text()
    assert read_record(tmp_path / "mate.csa").is_terminal


def test_a_record_with_a_utf8_byte_order_mark_reads(tmp_path):
    """cshogi's CSA reader took the BOM (Windows Notepad's) for part of line 1 and refused the file."""
    s = make("shogi").from_usi("startpos moves 7g7f 3c3d")
    for name in ("game.csa", "game.kifu"):
        path = tmp_path / name
        (write_kif if "kif" in name else write_csa)(s, path)
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
        assert read_record(path).usi_moves == s.usi_moves


@pytest.mark.parametrize("sfen, why", [
    # cshogi keeps hand counts in a few bits: 99P read back as L3P and passed every board check
    ("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 99P 1", "117 pawns on the board and in hand"),
    ("4k4/9/9/9/9/9/9/+R8/4K4 b 2r 1", "3 rooks .* the set has 2"),
    ("4k4/9/9/9/9/9/9/9/4K4 b 5G 1", "5 golds"),
    ("4k4/9/9/9/9/9/9/9/4K4 b 2P10P 1", "name P twice"),
    ("4k4/9/9/9/9/9/9/9/4K4 b 0P 1", "0P holds no piece"),
    ("4k4/9/9/9/9/9/9/9/4K4 b S00p 1", "00p holds no piece"),
    ("P3k4/9/9/9/9/9/9/9/4K4 b - 1", "Black's pawn on 9a can never move"),
    ("4k4/9/9/9/9/9/9/9/4K3l w - 1", "White's lance on 1i can never move"),
    ("4k4/9/9/9/9/9/9/n8/4K4 w - 1", "White's knight on 9h can never move"),
    ("1N2k4/9/9/9/9/9/9/9/4K4 b - 1", "Black's knight on 8a can never move"),
    ("4k4/9/9/9/9/9/4P4/4P4/4K4 b - 1", "two of Black's unpromoted pawns on file 5 \\(nifu\\)"),
])
def test_an_impossible_position_is_refused_naming_what_is_wrong(sfen, why):
    with pytest.raises(ValueError, match=why):
        make("shogi").from_sfen(sfen)


def test_positions_at_the_edge_of_possible_still_load():
    g = make("shogi")
    for sfen in ["4k4/9/9/9/9/9/9/9/4K4 b 18P4L4N4S4G2B2R 1", "4k4/9/9/9/9/9/4P4/4+P4/4K4 b - 1",
                 "+P+L+N1k4/9/9/9/9/9/9/9/4K4 b - 1", "4k4/9/9/9/9/9/4P4/9/4K4 b p 1"]:
        assert g.from_sfen(sfen).sfen().split()[0] == sfen.split()[0]
