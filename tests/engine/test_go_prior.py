"""Go's search-only priors (engine/go_prior.py): eyes, captures, atari, the edge, tie-breaks."""

import numpy as np
import pytest

from zeroplay.engine.factory import make_engine
from zeroplay.engine.go_prior import GoPriorEvaluator
from zeroplay.games import make
from zeroplay.search.evaluator import LeafBatch


def priors_of(state, seed=0):
    g = state.game
    legal = np.zeros((1, g.num_actions), bool)
    legal[0, list(state.legal_moves())] = True
    batch = LeafBatch(g, state._pos.board[None].copy(), state._pos.info[None].copy(), legal)
    priors, values = GoPriorEvaluator(seed=seed).evaluate(batch)
    assert priors.shape == (1, g.num_actions) and values.shape == (1,)
    assert -1 <= values[0] <= 1
    assert abs(priors.sum() - 1) < 1e-5 and (priors[0, ~legal[0]] == 0).all()
    return priors[0]


def line(g, c):
    x, y = c % g.width, c // g.width
    return min(x, y, g.width - 1 - x, g.height - 1 - y)


def test_empty_board_prefers_the_third_line_and_in():
    g = make("go")
    p = priors_of(g.initial())
    inner = [c for c in range(g.cells) if line(g, c) >= 2]
    edge = [c for c in range(g.cells) if line(g, c) == 0]
    assert p[inner].min() > 5 * p[edge].max()
    assert p[g.pass_action] < p[edge].min()


def test_capture_first_and_own_eye_last():
    g = make("go")
    # White E5 in atari (Black D5, F5, E6); Black owns an eye at A1 (Black A2, B1, B2)
    s = g.from_stones(["D5", "F5", "E6", "A2", "B1", "B2"], ["E5", "J9"], to_play=0)
    p = priors_of(s)
    capture, eye = g.parse_move("E4"), g.parse_move("A1")
    assert p.argmax() == capture
    assert p[eye] < p[g.pass_action]


def test_escape_beats_a_plain_move_and_self_atari_is_rare():
    g = make("go")
    # Black E5 in atari (White D5, F5, E6): E4 saves it; Black C7 alone in White's mouth:
    # B7 / C8 / ... fine, but D7 between White C8? Use a plain self-atari at J1 under White H1, J2's
    s = g.from_stones(["E5"], ["D5", "F5", "E6", "H2", "G1"], to_play=0)
    p = priors_of(s)
    escape, self_atari = g.parse_move("E4"), g.parse_move("H1")
    plain = g.parse_move("C3")
    assert p[escape] > 2 * p[plain] and p[self_atari] < p[plain] / 5


def test_ties_are_not_broken_in_board_order():
    """Found by a user: with uniform priors a short search opened on A9, B9, ... (board order)."""
    g = make("go")
    engine = make_engine(g, None, use_shipped=False)
    assert isinstance(engine.evaluator, GoPriorEvaluator)
    assert "Go priors" in engine.name
    searcher = engine.new_searcher(playouts=8)
    result = searcher.search(g.initial(), playouts=8)
    assert line(g, int(result.best_move)) >= 2


def test_rollouts_must_be_positive():
    with pytest.raises(ValueError):
        GoPriorEvaluator(rollouts=0)


def test_no_model_note_names_the_rule_a_shipped_model_lacks():
    """The web board said "no trained model for go 9x9 yet" for territory scoring, though a 9x9
    model ships (for area scoring) -- a new user's finding."""
    from zeroplay.engine.factory import MODELS_DIR, make_engine
    from zeroplay.games import make

    note = make_engine(make("go", size=9, scoring="territory"), None).note
    if (MODELS_DIR / "go-9x9.safetensors").exists():
        assert note.startswith("no trained model for go 9x9 with scoring 'territory' yet (the shipped go-9x9 "
                               "plays scoring 'area')")
    renju = make_engine(make("gomoku", size=15, rule="renju"), None).note
    assert renju.startswith("no trained model for gomoku 15x15 renju yet")  # its rule is named once
    # the board's default is named, not the 11x11 default's file that sorts first
    assert "(the shipped gomoku-15x15-freestyle plays rule 'freestyle')" in renju
    # 11x11's default is a 15x15 file, which the board's own name did not find
    renju11 = make_engine(make("gomoku", size=11, rule="renju"), None).note
    assert "(the shipped gomoku-15x15-freestyle plays rule 'freestyle')" in renju11
