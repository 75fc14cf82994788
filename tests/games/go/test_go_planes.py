"""Go's network planes (feature set ``"go"``): hand positions, the batched encoder the search
uses, the history fields behind the last-move planes through undo, and the 8 symmetries applied
to planes and policies (pass unchanged)."""

from __future__ import annotations

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.games.go.layout import I_PREV1, I_PREV2
from zeroplay.games.planes import planes_batch
from zeroplay.search.evaluator import LeafBatch

KO_GAME = "C4 E5 D5 E3 D3 F4 J9 D4 E4".split()  # issue 22's hand case: White to move, ko at D4


def _at(g, plane, vertex):
    return plane.flat[g.parse_move(vertex)]


def test_last_move_planes_skip_passes_and_shift():
    g = make("go", size=9)
    s = g.initial().play_many(KO_GAME + ["pass"])
    p = s.planes("go")
    assert p[4].sum() == 0  # the last action was a pass
    assert _at(g, p[5], "E4") == 1 and p[5].sum() == 1
    assert _at(g, p[6], "D4") == 1 and p[6].sum() == 1
    assert (p[15] == 1).all() and p[3].sum() == 0  # the ko ban ends with the pass
    t = s.play("A1")
    q = t.planes("go")
    assert _at(g, q[4], "A1") == 1 and q[5].sum() == 0 and _at(g, q[6], "E4") == 1 and q[15].sum() == 0


def test_first_moves_have_empty_history_planes():
    g = make("go", size=5)
    p = g.initial().planes("go")
    assert p[3:10].sum() == 0 and (p[0] == 1).all() and p[1:3].sum() == 0
    assert p[10].sum() == 0  # Black to move gives the komi


def test_ko_plane_under_superko_and_rule_flags():
    g = make("go", size=9, ko="situational", suicide="multi", scoring="territory", komi=-3)
    s = g.initial().play_many(KO_GAME)
    p = s.planes("go")
    assert p[3].sum() == 1 and _at(g, p[3], "D4") == 1
    assert (p[11] == 1).all() and (p[12] == 1).all() and (p[13] == 1).all() and (p[14] == 1).all()
    assert p[10].sum() == 0  # White to move, komi -3: White gives 3
    assert (s.play("A1").planes("go")[10] == 1).all()  # Black receives it


def test_batch_encoder_is_state_planes():
    """The search's LeafBatch path and ``State.planes`` are one encoder."""
    g = make("go", size=7)
    rng = np.random.default_rng(3)
    states = [g.initial()]
    for _ in range(40):
        s = states[-1]
        states.append(s.play(int(rng.choice(s.legal_moves()))))
        if states[-1].is_terminal:
            break
    boards = np.stack([s._pos.board for s in states])
    infos = np.stack([s._pos.info for s in states])
    legal = np.zeros((len(states), g.num_actions), np.bool_)
    want = np.stack([s.planes("go") for s in states])
    assert np.array_equal(planes_batch(g, boards, infos, "go"), want)
    assert np.array_equal(LeafBatch(g, boards, infos, legal).planes("go"), want)
    assert np.isin(want, (0.0, 1.0)).all()  # replay shards store planes as bytes


def test_undo_restores_the_history_fields():
    g = make("go", size=9)
    s = g.initial().play_many(KO_GAME + ["pass", "A1"])
    pos = s.fast()
    for _ in range(4):
        before = pos.info.copy()
        a = g._undo(pos)
        g._apply(pos, a)
        assert pos.info[I_PREV1] == before[I_PREV1] and pos.info[I_PREV2] == before[I_PREV2]
        assert np.array_equal(pos.info, before)
        g._undo(pos)


def test_planes_and_policy_follow_the_symmetries_with_history():
    """Playing the transformed moves gives the transformed planes (stones, ko, last moves,
    liberties); a policy over points + pass maps with the pass unchanged and round-trips."""
    g = make("go", size=9)
    rng = np.random.default_rng(11)
    moves = list(KO_GAME)
    base = g.initial().play_many(moves)
    for _ in range(12):
        legal = [m for m in base.legal_moves() if m != g.pass_action]
        a = int(rng.choice(legal))
        moves.append(g.format_move(a))
        base = base.play(a)
    moves.append("pass")
    base = base.play("pass")
    policy = rng.random(g.num_actions).astype(np.float32)
    for sym in g.symmetries:
        moved = g.initial().play_many([g.format_move(sym.action(g.parse_move(m))) for m in moves])
        assert np.array_equal(moved.planes("go"), sym.planes(base.planes("go"))), sym.name
        out = sym.policy(policy)
        assert out[g.pass_action] == policy[g.pass_action]
        for c in (0, 10, 40, 80):
            assert out[sym.action(c)] == policy[c]
        inverse = [t for t in g.symmetries if np.array_equal(t.cell_perm[sym.cell_perm], np.arange(g.cells))]
        assert len(inverse) == 1
        assert np.array_equal(inverse[0].policy(out), policy)
        assert np.array_equal(inverse[0].planes(sym.planes(base.planes("go"))), base.planes("go"))


def test_go_planes_are_refused_for_another_game():
    g = make("gomoku", size=9)
    with pytest.raises(ValueError, match="not one of gomoku's"):
        g.initial().planes("go")
    with pytest.raises(ValueError, match="not one of gomoku's"):
        planes_batch(g, g.initial()._pos.board[None], g.initial()._pos.info[None], "go")
