"""Proof-number VCT (search/pns_kernels.py): proofs checked independently, move by move.

A VCT proof is a tree, so a main line that replays to a five is necessary but not sufficient.
``_verify_or`` / ``_verify_and`` below walk the whole proof tree of ``ThreatSolver.proof()`` on
real ``State``s (rules only, none of the solver's kernels) and, at every defender node, try
EVERY legal defender move: a reply in the tree is followed; any other reply must lose at once
to a five (after a four) or to a VCF: the threat's VCF, looked up by the solver (an oracle whose
answer is then replayed and checked by ``check_vcf_line`` after that very reply), or failing
that a VCF searched after the reply itself and replayed the same way. A wrong defence set, a
four that is no four, a VCF leaf that is no VCF, a free move outside a wrong zone: each fails
here. A free move settled by the zone rule appears in the tree as that reply followed by the
pass proof, so the whole pass proof is checked again with the reply's stone on the board.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zeroplay.games import make
from zeroplay.solvers.threat_solver import ThreatSolver
from zeroplay.solvers.vcf_check import check_vcf_line

PUZZLES = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "gomoku" / "puzzles.jsonl"


def _passed(state, player):
    """``state``'s stones with ``player`` to move (the opponent passed)."""
    b = state.board.ravel()
    g = state.game
    return g.from_stones([int(c) for c in np.flatnonzero(b == 1)], [int(c) for c in np.flatnonzero(b == 2)],
                         to_play=player)


def _verify_or(s, node, a, oracle, stats):
    """``s``: A to move; ``node``: A's part of the proof."""
    assert not s.is_terminal and s.to_play == a
    kind = node[0]
    if kind == "five":
        assert s.num_winning_moves(a) >= 1
        return
    if kind == "vcf":
        r = oracle.vcf(s, nodes=2_000_000)
        assert r.found and check_vcf_line(s, r.line) is None
        stats["vcf_leaves"] += 1
        return
    assert kind == "move"
    d_wins = [int(c) for c in s.winning_moves(1 - a)]
    m = node[1]
    assert len(d_wins) <= 1 and (not d_wins or d_wins == [m]), "the defender's five was not blocked"
    t = s.play(m)
    assert not t.is_terminal
    _verify_and(t, node[2], a, oracle, stats)


def _verify_and(t, node, a, oracle, stats):
    """``t``: D to move after A's move; every legal D move must lose."""
    d = 1 - a
    assert t.num_winning_moves(d) == 0, "the defender has a five"
    stats["and_nodes"] += 1
    if node[0] == "double":
        assert t.num_winning_moves(a) >= 2
        return
    replies = node[1]
    threat_line = None
    if t.num_winning_moves(a) == 0:
        p = _passed(t, a)
        r = oracle.vcf(p, nodes=2_000_000)
        threat_line = r.line if r.found else None
    for x in (int(m) for m in t.legal_moves()):
        stats["replies_tried"] += 1
        u = t.play(x)
        assert not u.is_terminal
        if x in replies:
            _verify_or(u, replies[x], a, oracle, stats)
        elif t.num_winning_moves(a) >= 1:
            assert u.num_winning_moves(a) >= 1, "a reply outside the tree blocked the four"
        else:
            assert threat_line is not None, "a reply outside the tree, and no threat to answer it"
            if check_vcf_line(u, threat_line) is None:
                stats["outside_by_vcf"] += 1
                continue
            # the oracle's VCF need not be the solver's (with a free move's extra stone on the
            # board it may pick another); the claim is only that this reply loses: A must have
            # some VCF after it, searched from there and replayed
            r = oracle.vcf(u, nodes=2_000_000)
            assert r.found and check_vcf_line(u, r.line) is None, "a reply outside the tree does not lose"
            stats["outside_by_own_vcf"] += 1


def verify_proof(state, solver, oracle=None):
    """Check the last proof of ``solver`` (a ``vct`` that found a win from ``state``)."""
    proof = solver.proof()
    assert proof is not None
    stats = {"and_nodes": 0, "replies_tried": 0, "outside_by_vcf": 0, "outside_by_own_vcf": 0, "vcf_leaves": 0}
    _verify_or(state, proof, state.to_play, oracle or ThreatSolver(state.game), stats)
    return stats


def _random_positions(game, count, seed, stones=(6, 16)):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        n = int(rng.integers(*stones))
        cells = rng.choice(game.cells, size=2 * n + 1, replace=False)
        black, white = [int(c) for c in cells[: n + 1]], [int(c) for c in cells[n + 1:]]
        if rng.random() < 0.5:
            black = black[:-1]
        try:
            s = game.from_stones(black, white)
        except ValueError:
            continue
        if not s.is_terminal and s.num_winning_moves(s.to_play) == 0:
            out.append(s)
    return out


# --- hand-made ----------------------------------------------------------------------------------
def test_pns_double_three_and_its_proof_holds_against_every_reply():
    g = make("gomoku")
    s = g.from_stones(["g8", "h8", "i9", "i10"], ["a1", "a3", "o15", "o13"])
    solver = ThreatSolver(g)
    r = solver.vct(s, method="pns", threats=1)
    assert r.found and r.kind == "vct" and r.complete
    assert s.play_many(r.line).winner == 0
    stats = verify_proof(s, solver)
    assert stats["outside_by_vcf"] > 100  # most replies are answered by the threat's VCF


def test_pns_nothing_to_prove_returns_none():
    g = make("gomoku")
    s = g.from_stones(["h8", "a1"], ["o15", "o1"])
    solver = ThreatSolver(g)
    r = solver.vct(s, method="pns", nodes=20_000)
    assert not r.found and r.line == () and solver.proof() is None


def test_pns_restores_the_position_and_unknown_method_raises():
    g = make("gomoku", width=9, height=9)
    solver = ThreatSolver(g)
    for s in _random_positions(g, 10, seed=2):
        pos = s.fast()
        before = [x.copy() for x in (pos.board, pos.info, pos.aux)]
        solver.vct(s, method="pns", nodes=5_000)
        for x, y in zip(before, (pos.board, pos.info, pos.aux)):
            assert np.array_equal(x, y)
    with pytest.raises(ValueError):
        solver.vct(g.initial(), method="nope")


# --- random small boards: every proof verified against every reply --------------------------------
@pytest.mark.parametrize("rule", ["freestyle", "standard"])
def test_pns_proofs_on_random_9x9_positions_hold(rule):
    g = make("gomoku", width=9, height=9, rule=rule)
    solver = ThreatSolver(g, table_mib=1)
    proofs = threat_proofs = 0
    for s in _random_positions(g, 40, seed=21 if rule == "freestyle" else 22):
        r = solver.vct(s, method="pns", nodes=20_000, threats=2)
        if not r.found:
            continue
        end = s.play_many(r.line)
        assert end.is_terminal and end.winner == s.to_play
        stats = verify_proof(s, solver)
        proofs += 1
        threat_proofs += stats["outside_by_vcf"] > 0
    assert proofs >= 5 and threat_proofs >= 1


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), stones=st.integers(5, 14))
def test_pns_proofs_hold_property(seed, stones):
    g = make("gomoku", width=9, height=9)
    s = _random_positions(g, 1, seed=seed, stones=(stones, stones + 1))[0]
    solver = ThreatSolver(g, table_mib=1)
    r = solver.vct(s, method="pns", nodes=10_000, threats=2)
    if r.found:
        assert s.play_many(r.line).winner == s.to_play
        verify_proof(s, solver)


# --- puzzles ---------------------------------------------------------------------------------------
def _puzzles():
    if not PUZZLES.exists():
        pytest.skip(f"puzzle data not found at {PUZZLES} (the ../shared folder beside the checkout)")
    return [json.loads(line) for line in PUZZLES.read_text().splitlines() if line.strip()]


def _position(game, row):
    return game.from_stones([y * 15 + x for x, y in row["black"]], [y * 15 + x for x, y in row["white"]],
                            to_play=0 if row["to_move"] == "black" else 1)


# intro_3move_win puzzles whose win needs a three (no VCF): cheap proofs with real threats
_FAST_IDS = ("intro_3move_win_024", "intro_3move_win_130")


def test_pns_puzzle_proofs_hold_against_every_reply():
    rows = {r["id"]: r for r in _puzzles()}
    g = make("gomoku")
    solver = ThreatSolver(g)
    for pid in _FAST_IDS:
        s = _position(g, rows[pid])
        assert not solver.vcf(s).found
        r = solver.vct(s, method="pns", nodes=500_000, threats=2)
        assert r.found, pid
        stats = verify_proof(s, solver)
        assert stats["outside_by_vcf"] > 0


@pytest.mark.slow
def test_pns_puzzle_proofs_hold_slow():
    """Every 8th target position without a VCF: each PNS proof is verified against every reply."""
    g = make("gomoku")
    solver = ThreatSolver(g)
    checked = 0
    for row in _puzzles():
        if not row.get("freestyle_winning_four_moves"):
            continue
        s = _position(g, row)
        solver.clear()
        if solver.vcf(s).found:
            continue
        checked += 1
        if checked % 8:
            continue
        r = solver.vct(s, method="pns", nodes=1_000_000)
        if r.found:
            verify_proof(s, solver)


# --- free moves: the zone of the pass proof (docs/THREATS.md) ---------------------------------------
# Black to move must block White's four at f1 (b1-e1), a quiet move: White then has a free move.
# Black has two separate double-three set-ups (g8 h8 i9 i10 -> i8; l4 m4 n5 n6 -> n4): were White
# to pass, i8 wins; a White move near it is answered by n4. Every White move outside the pass
# proof's zone is settled by the pass proof, so few are searched.
_FREE_BLACK = ["a1", "g8", "h8", "i9", "i10", "l4", "m4", "n5", "n6"]
_FREE_WHITE = ["b1", "c1", "d1", "e1", "o15", "o8", "h15", "a8", "c15"]


def test_pns_free_move_zone_proof_holds_against_every_reply():
    from zeroplay.solvers.pns_kernels import K_ZONED

    g = make("gomoku")
    s = g.from_stones(_FREE_BLACK, _FREE_WHITE, to_play=0)
    assert not ThreatSolver(g).vcf(s).found
    solver = ThreatSolver(g)
    r = solver.vct(s, method="pns", nodes=200_000, threats=2)
    assert r.found and r.line[0] == g.parse_move("f1")
    zoned = int(solver._pns.counters[K_ZONED])
    assert zoned > 150  # most free moves needed no search
    stats = verify_proof(s, solver)  # each zoned reply: the pass proof replayed with its stone
    assert stats["and_nodes"] > zoned
    plain = ThreatSolver(g)
    assert plain.vct(s, method="pns", nodes=200_000, threats=2, zone=False).found  # the same result
    assert int(plain._pns.counters[K_ZONED]) == 0


def test_pns_zone_without_the_defender_window_cells_is_caught():
    """White's a8 and a12 make a two: the free move a11 makes it a three, and after Black's
    threat i8 White's a9 or a10 is a four that gains the tempo. The sound zone keeps a9-a11 (cells
    where White makes a four with one more stone at a threat) and finds no proof; the zone
    without those window cells (K_ZONE = 2, deliberately unsound) claims one, and the
    independent check rejects it."""
    g = make("gomoku")
    s = g.from_stones(_FREE_BLACK, _FREE_WHITE[:-1] + ["a12"], to_play=0)
    sound = ThreatSolver(g)
    assert not sound.vct(s, method="pns", nodes=200_000, threats=2).found
    unsound = ThreatSolver(g)
    assert unsound.vct(s, method="pns", nodes=200_000, threats=2, zone=2).found
    with pytest.raises(AssertionError, match="does not lose"):
        verify_proof(s, unsound)
