"""Board symmetries applied to planes and policy vectors together, checked against coordinate
maps written out independently here."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from gomoku_reference import cell
from zeroplay.games import make


def _d4_maps(width, height):
    """The 8 maps (x, y) -> (x', y') of the dihedral group, keyed by a descriptive name.

    Written as (sign/transpose) combinations: optionally swap x and y, then optionally mirror
    each axis. Only the 4 that keep the shape are valid when width != height.
    """
    maps = {}
    for swap, mx, my in itertools.product((False, True), (False, True), (False, True)):
        if swap and width != height:
            continue

        def f(x, y, swap=swap, mx=mx, my=my):
            if swap:
                x, y = y, x
            if mx:
                x = width - 1 - x
            if my:
                y = height - 1 - y
            return x, y

        maps[(swap, mx, my)] = f
    return maps


def _match_maps(game):
    """For each symmetry of the game, the independent map it equals (exactly one)."""
    maps = _d4_maps(game.width, game.height)
    found = []
    for sym in game.symmetries:
        hits = []
        for name, f in maps.items():
            ok = all(
                sym.cell(cell(x, y, game.width)) == cell(*f(x, y), game.width)
                for y in range(game.height)
                for x in range(game.width)
            )
            if ok:
                hits.append(name)
        assert len(hits) == 1, (sym, hits)
        found.append((sym, maps[hits[0]], hits[0]))
    assert sorted(h for _, _, h in found) == sorted(maps)  # the whole group, each once
    return found


def _issue_position():
    """B (3,1), W (6,4), last move (6,4); policy one-hot at (5,2); 15x15."""
    g = make("gomoku")
    s = g.from_stones([cell(3, 1, 15)], [cell(6, 4, 15)], last_move=cell(6, 4, 15))
    policy = np.zeros(g.num_actions, dtype=np.float32)
    policy[cell(5, 2, 15)] = 1.0
    return g, s, policy


def test_issue_case_all_eight_transforms_move_everything_together():
    g, s, policy = _issue_position()
    assert len(g.symmetries) == 8
    assert g.symmetries[0].name == "identity"
    planes = s.planes("alphazero-gomoku")
    assert planes.shape == (4, 15, 15)
    assert planes[0, 1, 3] == 1 and planes[1, 4, 6] == 1 and planes[2, 4, 6] == 1
    results = []
    for sym, f, _ in _match_maps(g):
        tp = sym.planes(planes)
        tpol = sym.policy(policy)
        bx, by = f(3, 1)
        wx, wy = f(6, 4)
        px, py = f(5, 2)
        assert tp.shape == planes.shape and tp.dtype == planes.dtype
        assert tp[0, by, bx] == 1 and tp[0].sum() == 1, sym
        assert tp[1, wy, wx] == 1 and tp[1].sum() == 1, sym
        assert tp[2, wy, wx] == 1 and tp[2].sum() == 1, sym
        assert (tp[3] == 1).all()
        assert int(np.argmax(tpol)) == cell(px, py, 15) and tpol.sum() == 1, sym
        assert sym.action(cell(5, 2, 15)) == cell(px, py, 15)
        # the transformed planes are the planes of the transformed position
        t = g.from_stones([cell(bx, by, 15)], [cell(wx, wy, 15)], last_move=cell(wx, wy, 15))
        assert np.array_equal(t.planes("alphazero-gomoku"), tp)
        # inverse restores
        inv = sym.inverse()
        assert np.array_equal(inv.planes(tp), planes)
        assert np.array_equal(inv.policy(tpol), policy)
        assert np.array_equal(sym.planes(inv.planes(planes)), planes)
        results.append((tp.tobytes(), tpol.tobytes()))
    assert len(set(results)) == 8  # pairwise different


def test_names_of_unambiguous_transforms():
    g = make("gomoku")
    by_name = {sym.name: key for sym, _, key in _match_maps(g)}
    assert by_name["identity"] == (False, False, False)
    assert by_name["flip_x"] == (False, True, False)
    assert by_name["flip_y"] == (False, False, True)
    assert by_name["rot180"] == (False, True, True)
    assert by_name["transpose"] == (True, False, False)
    assert by_name["antitranspose"] == (True, True, True)
    assert {by_name["rot90"], by_name["rot270"]} == {(True, True, False), (True, False, True)}


@pytest.mark.parametrize("shape", [(15, 15), (9, 7), (5, 12), (3, 3)])
def test_group_structure(shape):
    width, height = shape
    g = make("tictactoe") if shape == (3, 3) else make("gomoku", width=width, height=height)
    syms = g.symmetries
    assert len(syms) == (8 if width == height else 4)
    perms = {tuple(s.cell_perm.tolist()) for s in syms}
    assert len(perms) == len(syms)
    ident = tuple(range(g.cells))
    assert tuple(syms[0].cell_perm.tolist()) == ident
    for s in syms:
        assert sorted(s.cell_perm.tolist()) == list(ident)  # a permutation
        assert np.array_equal(s.action_perm, s.cell_perm)  # Gomoku: actions are cells
        inv = s.inverse()
        assert tuple(inv.cell_perm[s.cell_perm].tolist()) == ident
        assert tuple(inv.cell_perm.tolist()) in perms  # closed under inverse
        for t in syms:  # closed under composition
            assert tuple(t.cell_perm[s.cell_perm].tolist()) in perms
    _match_maps(g)


def test_non_square_board_gets_four_shape_preserving_transforms():
    g = make("gomoku", width=9, height=7)
    s = g.from_stones([cell(1, 0, 9), cell(8, 2, 9)], [cell(0, 5, 9)], last_move=cell(8, 2, 9))
    planes = s.planes("alphazero-gomoku")
    policy = np.arange(g.num_actions, dtype=np.float32)
    outs = []
    for sym, f, _ in _match_maps(g):
        tp = sym.planes(planes)
        assert tp.shape == (4, 7, 9)
        x, y = f(8, 2)  # Black's last move; White to move, so Black is the opponent
        assert tp[1, y, x] == 1 and tp[2, y, x] == 1
        x, y = f(0, 5)
        assert tp[0, y, x] == 1
        tpol = sym.policy(policy)
        for c in range(g.cells):
            assert tpol[sym.cell(c)] == policy[c]
        assert np.array_equal(sym.inverse().planes(tp), planes)
        assert np.array_equal(sym.inverse().policy(tpol), policy)
        outs.append(tp.tobytes())
    assert len(set(outs)) == 4


def test_batches_and_policy_as_planes_agree():
    """Batched (B, C, H, W) planes and (B, A) policies; a policy reshaped as a plane moves alike."""
    g = make("gomoku", width=7, height=7)
    rng = np.random.default_rng(3)
    planes = rng.random((5, 4, 7, 7)).astype(np.float32)
    policy = rng.random((5, 49)).astype(np.float32)
    for sym in g.symmetries:
        tp = sym.planes(planes)
        tpol = sym.policy(policy)
        assert tp.shape == planes.shape and tpol.shape == policy.shape
        for b in range(5):
            assert np.array_equal(tp[b], sym.planes(planes[b]))
            assert np.array_equal(tpol[b], sym.policy(policy[b]))
            as_plane = sym.planes(policy[b].reshape(1, 7, 7)).reshape(49)
            assert np.array_equal(as_plane, tpol[b])


def test_shape_errors():
    g = make("gomoku", width=9, height=7)
    sym = g.symmetries[1]
    with pytest.raises(ValueError):
        sym.planes(np.zeros((3, 9, 7), dtype=np.float32))
    with pytest.raises(ValueError):
        sym.policy(np.zeros(62, dtype=np.float32))
