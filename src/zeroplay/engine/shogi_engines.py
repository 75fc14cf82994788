"""The two shogi engines by name, behind one interface, for USI and the arena.

Both have ``new_game()``, ``resize(hash_mib)`` and
``search(state, *, depth, nodes, seconds, stop, on_iteration) -> result`` where the result has
``best_move`` (USI text, ``"resign"`` or ``"win"``), ``score`` (centipawns, side to move's view;
mate scores ``WIN_VALUE - plies``), ``mate`` (plies, signed, or None), ``pv`` (USI texts),
``depth``, ``nodes`` and ``seconds``:

* ``alphabeta``: ``zeroplay.engine.shogi_alphabeta.AlphaBetaEngine`` (Bonanza-style);
* ``mcts``: ``zeroplay.engine.shogi_mcts.MctsEngine`` (dlshogi-style PUCT with a policy-value
  net; without a model, a uniform-prior evaluator with a material value, and it says so).
"""

from __future__ import annotations

ENGINE_KINDS = ("alphabeta", "mcts")


def make_shogi_engine(kind: str = "alphabeta", *, hash_mib: float = 64, hand_dominance: bool = False,
                      playouts: int = 800, model: str | None = None, seed: int | None = None):
    """An engine by kind (``ENGINE_KINDS``).

    Raises:
        ValueError: unknown kind; for ``mcts`` a model that cannot be loaded (its message).
    """
    kind = kind.lower()
    if kind == "alphabeta":
        from zeroplay.engine.shogi_alphabeta import AlphaBetaConfig, AlphaBetaEngine

        return AlphaBetaEngine(AlphaBetaConfig(hash_mib=hash_mib, hand_dominance=hand_dominance))
    if kind == "mcts":
        from zeroplay.engine.shogi_mcts import MctsEngine

        return MctsEngine(playouts=playouts, model=model, seed=seed)
    raise ValueError(f"unknown shogi engine {kind!r}; choose one of {', '.join(ENGINE_KINDS)}")
