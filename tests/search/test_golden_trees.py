"""Golden search trees (mctx's ``tree_test.py`` + JSON, KataGo's ``tests/results``): fixed
positions, a fixed fake evaluator, the whole resulting graph (visits, Q, U, priors per edge,
proofs, transpositions as references) compared with JSON stored in ``tests/search/golden/``.

A deliberate change in tie-breaking, FPU, c_puct, noise or visit order changes these trees and
must fail here, even when the best move stays the same. After an intended change, rewrite the
files with ``ZEROPLAY_UPDATE_GOLDEN=1 pytest tests/search/test_golden_trees.py`` and review the
diff of the JSON like code.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from zeroplay.games import make
from zeroplay.games.layout import I_KEY
from zeroplay.search import SearchConfig, Searcher, tree_dict

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("ZEROPLAY_UPDATE_GOLDEN") == "1"


class HashEvaluator:
    """Priors and values drawn from a generator seeded by the position's Zobrist key: fixed for a
    position, different between positions, independent of batching and of visit order."""

    features = None

    def evaluate(self, batch):
        b, a = len(batch.infos), batch.game.num_actions
        priors = np.zeros((b, a), np.float32)
        values = np.zeros(b, np.float32)
        for i in range(b):
            rng = np.random.default_rng(int(batch.infos[i, I_KEY]) & 0x7FFF_FFFF_FFFF_FFFF)
            logits = rng.normal(0.0, 1.5, a)
            legal = np.asarray(batch.legal[i], bool)
            p = np.where(legal, np.exp(logits - logits.max()), 0.0)
            priors[i] = p / p.sum()
            values[i] = rng.uniform(-0.6, 0.6)
        return priors, values


def _tictactoe_mid():
    return make("tictactoe").initial().play_many([4, 0, 8])  # X centre and corner; O to move


CASES = {
    # plain PUCT, one leaf per batch, default FPU and c_puct
    "puct_gomoku7": (lambda: make("gomoku", size=7, n_in_row=4).initial().play_many(["d4", "c3"]),
                     dict(batch_size=1), 60),
    # batched: virtual loss and collisions decide the visit order
    "puct_batched_gomoku7": (lambda: make("gomoku", size=7, n_in_row=4).initial().play_many(["d4", "c3"]),
                             dict(batch_size=8), 64),
    # tic-tac-toe from the empty board: transpositions (shared children) and proven draws/wins
    "transpositions_tictactoe": (lambda: make("tictactoe").initial(), dict(batch_size=1), 300),
    # a position with forced lines: one-ply proofs and proof propagation
    "proofs_tictactoe": (_tictactoe_mid, dict(batch_size=1), 120),
    # root noise with a seed (self-play)
    "noise_gomoku7": (lambda: make("gomoku", size=7, n_in_row=4).initial().play_many(["d4"]),
                      dict(batch_size=4, noise=True, seed=7), 48),
    # Gumbel root search with a seed: sequential halving over the root candidates
    "gumbel_gomoku7": (lambda: make("gomoku", size=7, n_in_row=4).initial().play_many(["d4"]),
                       dict(batch_size=1, root_policy="gumbel", gumbel_m=8, seed=3), 48),
}


def _run(case: str, **overrides) -> dict:
    make_state, options, playouts = CASES[case]
    state = make_state()
    config = SearchConfig(node_capacity=1 << 12, edge_capacity=1 << 16, eval_cache_size=0,
                          **{**options, **overrides})
    searcher = Searcher(state.game, HashEvaluator(), config)
    result = searcher.search(state, playouts=playouts)
    return {"best_move": None if result.best_move is None else int(result.best_move),
            "pv": [int(m) for m in result.pv], "playouts": int(result.playouts),
            "tree": tree_dict(searcher)}


@pytest.mark.parametrize("case", sorted(CASES))
def test_tree_matches_golden(case):
    got = _run(case)
    path = GOLDEN / f"{case}.json"
    if UPDATE:
        path.write_text(json.dumps(got, indent=0, sort_keys=True, separators=(",", ":")) + "\n")
    assert path.exists(), f"no golden file {path.name}: run with ZEROPLAY_UPDATE_GOLDEN=1"
    expected = json.loads(path.read_text())
    assert got == expected, f"the search tree of {case} changed; if intended, rewrite with ZEROPLAY_UPDATE_GOLDEN=1"


@pytest.mark.parametrize("change", [dict(fpu_reduction=0.3), dict(c_puct=1.5), dict(virtual_loss=2)])
def test_a_deliberate_change_fails_the_golden_tree(change):
    expected = json.loads((GOLDEN / "puct_batched_gomoku7.json").read_text())
    assert _run("puct_batched_gomoku7", **change) != expected


def test_the_dump_holds_every_visit():
    tree = _run("transpositions_tictactoe")["tree"]
    assert tree["N"] == 1 + sum(e["N"] for e in tree["edges"])
    refs = []

    def walk(node):
        for e in node["edges"]:
            c = e["child"]
            if c is not None and "ref" in c:
                refs.append(c["ref"])
            elif c is not None:
                walk(c)
    walk(tree)
    assert refs, "tic-tac-toe from the empty board reaches positions by two move orders"
