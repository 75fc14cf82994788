"""dlshogi-style MCTS engine for shogi: the Python-driven PUCT search with the shogi net.

With a model (``zeroplay.nn.shogi_net`` checkpoint) the priors and values are the net's. Without
one it searches with ``MaterialEvaluator``: uniform priors over the legal moves and the hand-set
material + piece-square score as value (V = tanh(score / 1000), mover's view) -- a stand-in that
plays, and says so in ``note``.

Won positions are converted, as dlshogi does with its mate searches: before the playouts, cshogi's
odd-ply mate solver (``Board.mate_move(plies)``, the C++ mate search cshogi takes from Apery /
YaneuraOu; ``mate_plies`` = 5 by default, 0 for none; a mate in one is looked for always) at the
root, and in the tree every expanded node's mates in one proven and backed up as proofs
(``PythonPuctConfig.solve_wins``, the MCTS-solver), so a proven win is played move by move instead
of drifting into the max-moves draw.

Results follow ``zeroplay.engine.shogi_engines``: ``score`` in centipawns from the root mover's
view, from Q by dlshogi's conversion cp = -756 * ln(2 / (Q + 1) - 1) (win rate (Q + 1) / 2), kept
within +-30,000 - 1,024; ``nodes`` counts playouts; ``depth`` is the length of the principal
variation.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import cshogi
import numpy as np

from zeroplay.games.shogi.evaluation import evaluate
from zeroplay.search.python_puct import PythonPuct, PythonPuctConfig

CP_SCALE = 756.0
"""dlshogi's win rate <-> centipawn scale (cp = -756 ln(1 / winrate - 1))."""
MAX_CP = 30_000 - 1_024 - 1


class MaterialEvaluator:
    """Uniform priors, value tanh(material score / 1000) from the mover's view (no network)."""

    def evaluate_states(self, states):
        from zeroplay.nn.shogi_net import legal_mask

        mask = legal_mask(states).astype(np.float32)
        priors = mask / np.maximum(mask.sum(axis=1, keepdims=True), 1.0)
        values = np.array([math.tanh(evaluate(s) / 1000.0) for s in states], dtype=np.float32)
        return priors, values


def q_to_cp(q: float) -> int:
    """Centipawns of a mean value Q in [-1, 1] (dlshogi's logistic scale)."""
    rate = min(max((q + 1.0) / 2.0, 1e-6), 1 - 1e-6)
    return int(max(-MAX_CP, min(MAX_CP, round(-CP_SCALE * math.log(1.0 / rate - 1.0)))))


@dataclass
class MctsResult:
    """See ``zeroplay.engine.shogi_engines`` for the fields; ``q`` is the root's Q, mover's view."""

    best_move: str
    score: int = 0
    mate: int | None = None
    pv: list[str] = field(default_factory=list)
    depth: int = 0
    nodes: int = 0
    seconds: float = 0.0
    hashfull: int | None = None
    q: float = 0.0
    evaluation_seconds: float = 0.0


class MctsEngine:
    """The MCTS engine; ``playouts`` per move unless ``nodes`` or a time limit says otherwise."""

    def __init__(self, playouts: int = 800, model: str | None = None, seed: int | None = None,
                 config: PythonPuctConfig | None = None, mate_plies: int = 5):
        if not 0 <= mate_plies <= 7:
            raise ValueError(f"mate_plies must be 0..7 (cshogi's odd-ply mate search has no node limit), got {mate_plies}")
        self.playouts = playouts
        self.mate_plies = int(mate_plies)
        if model:
            from zeroplay.nn.shogi_net import ShogiNetEvaluator, load_shogi_net

            net, self.facts = load_shogi_net(model)
            self.evaluator = ShogiNetEvaluator(net)
            self.note = f"MCTS with the network {model}"
        else:
            self.evaluator = MaterialEvaluator()
            self.facts = {}
            self.note = "MCTS without a network: uniform priors, material value (weak; give Model)"
        self.search_tree = PythonPuct(self.evaluator, config or PythonPuctConfig(solve_wins=True))

    def new_game(self) -> None:
        """Nothing is kept between searches (each search builds its tree afresh)."""

    def resize(self, hash_mib: float) -> None:
        """The node arrays are sized by ``PythonPuctConfig``; USI_Hash sizes the alpha-beta table only."""

    def search(self, state, *, depth=None, nodes=None, seconds=None, stop=None, on_iteration=None) -> MctsResult:
        """Search ``state`` (ShogiState): ``nodes`` playouts (default ``playouts``), at most
        ``seconds``; ``depth`` is ignored (MCTS has no depth limit)."""
        started = time.perf_counter()
        if state.is_terminal:
            best = "win" if state.termination == "declaration" and state.winner == state.to_play else "resign"
            return MctsResult(best, score=MAX_CP if best == "win" else -MAX_CP)
        mates = state.winning_moves()
        if len(mates):
            move = state.move_text(int(mates[0]))
            return MctsResult(move, score=30_000 - 1, mate=1, pv=[move], depth=1, seconds=time.perf_counter() - started)
        # cshogi's mate searches assume the mover is not in check (in check its mate in one named
        # an illegal drop: engine/shogi_alphabeta.py)
        if self.mate_plies >= 3 and not state.in_check:
            board = state.cshogi_board()
            for plies in range(3, self.mate_plies + 1, 2):
                move = board.mate_move(plies)
                if move:
                    text = state.move_text(state.parse_move(cshogi.move_to_usi(move)))  # legal, or it raises
                    return MctsResult(text, score=30_000 - plies, mate=plies, pv=[text], depth=plies,
                                      seconds=time.perf_counter() - started)
        result = self.search_tree.search(state, playouts=int(nodes or self.playouts), seconds=seconds, stop=stop)
        pv, s = [], state
        for action in result.pv:
            pv.append(s.move_text(action))
            s = s.play(action)
        out = MctsResult(pv[0] if pv else state.move_text(result.best_move), q_to_cp(result.root_q), None, pv or [],
                         len(pv), result.playouts, time.perf_counter() - started, None, result.root_q,
                         self.search_tree.evaluation_seconds)
        if on_iteration is not None:
            on_iteration(out)
        return out
