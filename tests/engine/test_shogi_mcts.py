"""The dlshogi-style MCTS engine and its network: shapes, a checkpoint round trip, legal moves."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")

from zeroplay.engine.shogi_mcts import MctsEngine, q_to_cp  # noqa: E402
from zeroplay.games import make  # noqa: E402
from zeroplay.nn.shogi_net import ShogiNet, ShogiNetEvaluator, load_shogi_net, save_shogi_net  # noqa: E402


def test_net_shapes_and_priors_only_on_legal_moves():
    torch.manual_seed(0)
    net = ShogiNet(blocks=1, channels=16)
    states = [make("shogi").initial(), make("shogi").from_usi("startpos moves 7g7f 3c3d 8h2b+")]
    priors, values = ShogiNetEvaluator(net).evaluate_states(states)
    assert priors.shape == (2, 2187) and values.shape == (2,) and np.all(np.abs(values) <= 1)
    for row, s in zip(priors, states):
        legal = s.legal_moves()
        assert row.sum() == pytest.approx(1.0, abs=1e-5) and np.count_nonzero(row) == len(legal)
        assert set(np.flatnonzero(row)) == set(legal.tolist())


def test_checkpoint_round_trip_and_bad_files(tmp_path):
    net = ShogiNet(blocks=1, channels=16)
    save_shogi_net(tmp_path / "n.safetensors", net, step=7)
    back, facts = load_shogi_net(tmp_path / "n.safetensors")
    assert facts == {"step": 7}
    x = torch.from_numpy(make("shogi").initial().planes()[None])
    with torch.inference_mode():
        assert torch.allclose(net.eval()(x)[0], back(x)[0])
    (tmp_path / "bad.safetensors").write_bytes(b"junk")
    for bad in (tmp_path / "bad.safetensors", tmp_path / "missing.safetensors"):
        with pytest.raises(ValueError, match="shogi network"):
            load_shogi_net(bad)


def test_engine_plays_legal_moves_and_takes_mate_in_one(tmp_path):
    e = MctsEngine(playouts=32)
    s = make("shogi").from_usi("startpos moves 7g7f 3c3d")
    r = e.search(s)
    assert r.best_move in {s.move_text(int(m)) for m in s.legal_moves()} and r.nodes == 32
    assert e.search(make("shogi").from_sfen("7lk/9/8G/9/9/9/9/9/K8 b G 1")).best_move == "G*1b"
    save_shogi_net(tmp_path / "n.safetensors", ShogiNet(blocks=1, channels=16))
    r = MctsEngine(playouts=16, model=str(tmp_path / "n.safetensors")).search(s)
    assert r.best_move in {s.move_text(int(m)) for m in s.legal_moves()}
    assert q_to_cp(0.0) == 0 and q_to_cp(0.5) > 0 > q_to_cp(-0.5)



# ply 86 of a game of the 64-playout engine vs a random mover that went on for 426 plies to the
# max-moves draw (training/matches/shogi/shogimcts64-random.jsonl): Black mates in 3 (R*6b)
WON_SFEN = "ln2S4/1k4PP1/rppPg3s/p6l1/1g5p1/2P1g4/P3+p4/1BS5+p/LN2K2N1 b RBGSNL7P 87"


def _wins_within_three(state, text):
    """Whether ``text`` wins in at most 3 plies: the game ends won, or every reply leaves a win in
    one (a mate, or a position where the loser has no move: shogi's rules, not cshogi's solver)."""
    mover, after = state.to_play, state.play(text)
    if after.is_terminal:
        return after.winner == mover
    for reply in after.legal_moves():
        t = after.play(int(reply))
        if not (t.is_terminal and t.winner == mover) and not t.winning_moves().size:
            return False
    return True


def test_a_won_position_is_converted_by_the_root_mate_search():
    s = make("shogi").from_sfen(WON_SFEN)
    assert not s.winning_moves().size
    root = MctsEngine(playouts=64).search(s)  # cshogi's mate search at the root
    assert root.mate == 3 and root.nodes == 0 and _wins_within_three(s, root.best_move)
    with pytest.raises(ValueError, match="mate_plies"):
        MctsEngine(mate_plies=9)


@pytest.mark.parametrize("sfen", ["8k/5+B3/8G/9/9/9/9/9/K8 b - 1", "8k/9/5+B2+B/9/9/9/9/9/K8 b - 1"])
def test_tree_proofs_alone_convert_a_win_in_three(sfen):
    s = make("shogi").from_sfen(sfen)
    assert not s.winning_moves().size
    r = MctsEngine(playouts=64, mate_plies=0).search(s)
    assert r.q == 1.0 and r.nodes < 64 and _wins_within_three(s, r.best_move)


def test_root_mate_search_is_skipped_in_check():
    # cshogi's mate searches assume the mover is not in check; in check the search plays an evasion
    s = make("shogi").from_sfen("4k4/4G4/9/9/9/9/9/9/4K4 w - 1")
    assert s.in_check
    r = MctsEngine(playouts=16).search(s)
    assert r.best_move in {s.move_text(int(m)) for m in s.legal_moves()}


def test_a_shogi_net_as_a_checkpoint_player_names_the_player_that_plays_it(tmp_path, capsys):
    # a net `zeroplay train --game shogi` wrote was called "corrupt or not a zeroplay checkpoint
    # (weights saved by another program)"
    from zeroplay.cli import main

    path = tmp_path / "net.safetensors"
    save_shogi_net(path, ShogiNet(blocks=1, channels=8), iteration=1)
    assert main(["arena", str(path), "random:1", "--game", "shogi", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert "is a shogi net" in err and f"shogimcts:PLAYOUTS@{path}" in err and "corrupt" not in err


@pytest.mark.parametrize("player", ["uniform:4", "rollout:4", "vcf:gomoku-15x15-freestyle"])
def test_compiled_search_players_refuse_shogi_in_one_line(player, capsys):
    # uniform:N and vcf: crashed with an AttributeError traceback on shogi, and rollout:N's refusal
    # sent the user to uniform:N
    from zeroplay.cli import main

    assert main(["arena", player, "random:1", "--game", "shogi", "--games", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("zeroplay arena: error: ") and err.count("\n") == 1
    assert "use uniform:N" not in err and ("arena --help lists them" in err or "threat solver" in err)
