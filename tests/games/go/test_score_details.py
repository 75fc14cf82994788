"""``Go.score_details`` (what the front-ends show of the count) against the compiled scorer, and
the hoshi of the usual boards."""

import numpy as np
import pytest

from zeroplay.games import make


@pytest.mark.parametrize("scoring", ["area", "territory"])
def test_the_count_matches_the_compiled_score_on_random_positions(scoring):
    g = make("go", size=7, komi=6.5, scoring=scoring)
    rng = np.random.default_rng(5)
    for _ in range(20):
        s = g.initial()
        for _ in range(int(rng.integers(0, 90))):
            if s.is_terminal:
                break
            s = s.play(int(rng.choice(s.legal_moves())))
        d = g.score_details(s)
        assert d["points"][0] - d["points"][1] - d["komi"] == pytest.approx(g.score(s))
        assert d["stones"] == [int((s.board == 1).sum()), int((s.board == 2).sum())]
        assert d["prisoners"] == list(g.prisoners(s)) and d["scoring"] == scoring
        assert (d["result"] is not None) == s.is_terminal


def test_the_issue_hand_case_counts():
    g = make("go", size=5, komi=0.5)
    s = g.initial().play_many("C1 D1 C2 D2 C3 D3 C4 D4 C5 D5 A1 pass pass".split())
    d = g.score_details(s)
    assert d["stones"] == [6, 5] and d["territory"] == [9, 5] and d["points"] == [15, 10]
    assert d["result"] == "B+4.5" and d["passes"] == 2


@pytest.mark.parametrize("size, points", [
    (5, []), (9, ["C3", "G3", "C7", "G7", "E5"]), (13, ["D4", "K4", "D10", "K10", "G7", "G4", "G10", "D7", "K7"]),
    (19, ["D4", "K4", "Q4", "D10", "K10", "Q10", "D16", "K16", "Q16"]),
])
def test_star_points(size, points):
    g = make("go", size=size)
    assert sorted(g.star_points()) == sorted(g.parse_move(p) for p in points)
    assert g.column_labels() == "ABCDEFGHJKLMNOPQRST"[:size]


def test_gomocup_style_names_a_point_from_the_top_left():
    g = make("go", size=9)
    assert g.format_move(g.parse_move("C3"), "gomocup") == "2,6"
    assert g.format_move(g.pass_action, "gomocup") == "pass"
