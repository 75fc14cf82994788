"""Training targets from a finished game: (planes, pi, z) per position, z from the side to move.

The sign of z is the classic AlphaZero-reimplementation bug, so it is computed in one place:
``z = +1`` when the side to move at the sample went on to win, ``-1`` when it lost, ``0`` for a
draw. A game Black wins therefore gives +1, -1, +1, ... from Black's first move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from zeroplay.games import Game, State

FROM_BOARD = "from-board"
"""``game_samples(winner=FROM_BOARD)``: take the result from the final position (must be over)."""


@dataclass
class Samples:
    """Training samples, one row per position.

    Attributes:
        planes: float32 (T, C, H, W), 0/1, from the side to move's view (``State.planes``).
        pi: float32 (T, A) search policy targets: >= 0, zero on illegal actions, rows sum to 1.
        z: float32 (T,) in {-1, 0, +1}: the game's result from the side to move at that sample.
        legal: bool (T, A) legal actions.
        ply: int32 (T,) moves played before the sample (0 = the start position).
        reply: int32 (T,) the action the opponent played right after the sample's move (the
            target of the auxiliary opponent-reply policy head, KataGo), -1 when there was none
            (the game ended, or was resigned, before it). Shards written before it existed read
            as all -1.
        ownership: int8 (T, H*W) in {-1, 0, +1}: the owner of each cell at the end of the game
            from the side to move's view at the sample (+1 its own; ``game.final_ownership``,
            Go), 0 where there is none; the ownership head's target (KataGo).
        score: float32 (T,) the final score margin from the side to move (komi included), in
            board-area units (points / cells); the score head's target.
        has_final: bool (T,) the sample's game was played to its end in a game that has final
            ownership (Go): ``ownership`` and ``score`` are targets. A resigned game, a game
            without ownership, and shards written before these fields existed read as False.
    """

    planes: np.ndarray
    pi: np.ndarray
    z: np.ndarray
    legal: np.ndarray
    ply: np.ndarray
    reply: np.ndarray = field(default=None)  # type: ignore[arg-type]  # None: __post_init__ makes the -1s
    ownership: np.ndarray = field(default=None)  # type: ignore[arg-type]  # None: zeros
    score: np.ndarray = field(default=None)  # type: ignore[arg-type]  # None: zeros
    has_final: np.ndarray = field(default=None)  # type: ignore[arg-type]  # None: all False

    def __post_init__(self):
        n = len(self.z)
        if self.reply is None:
            self.reply = np.full(n, -1, np.int32)
        if self.ownership is None:
            self.ownership = np.zeros((n, self.planes.shape[-2] * self.planes.shape[-1]), np.int8)
        if self.score is None:
            self.score = np.zeros(n, np.float32)
        if self.has_final is None:
            self.has_final = np.zeros(n, np.bool_)

    def __len__(self) -> int:
        return len(self.z)


def z_from_side_to_move(to_play: Sequence[int] | np.ndarray, winner: int | None) -> np.ndarray:
    """float32 (T,): +1 where ``to_play[t] == winner``, -1 where it is the loser, 0 for a draw.

    Args:
        to_play: side to move (0 Black, 1 White) at each sample.
        winner: 0, 1, or None for a draw.
    """
    to_play = np.asarray(to_play, dtype=np.int64)
    if winner is None:
        return np.zeros(len(to_play), dtype=np.float32)
    if winner not in (0, 1):
        raise ValueError(f"winner must be 0, 1 or None, got {winner!r}")
    return np.where(to_play == winner, 1.0, -1.0).astype(np.float32)


def game_samples(
    game: Game,
    moves: Sequence[int],
    policies: Sequence[np.ndarray | None],
    features: str = "basic",
    *,
    winner: int | None | str = FROM_BOARD,
    start: State | None = None,
) -> Samples:
    """Samples of one finished game: the position before each move that has a policy target.

    Args:
        game: the game.
        moves: the actions played from ``start`` (default ``game.initial()``).
        policies: one entry per move: float (A,) search policy at the position before that
            move, or None for moves that are not targets (e.g. fast searches under playout cap
            randomization).
        features: feature set of the planes.
        winner: 0 / 1 / None (draw), needed when the game ended early (resignation, adjudication);
            by default the final position must be terminal and gives it.
        start: the position the moves start from.

    Returns:
        ``Samples`` in move order. Pure: nothing outside is read or changed.

    Raises:
        ValueError: lengths differ; the game is not over and no winner was given; a policy with
            negative entries, mass on an illegal action, or a sum other than 1.
        IllegalMoveError: a move that cannot be played.
    """
    if len(policies) != len(moves):
        raise ValueError(f"{len(moves)} moves but {len(policies)} policies")
    state = start if start is not None else game.initial()
    planes, pis, legals, to_play, plies, replies = [], [], [], [], [], []
    for t, (move, pi) in enumerate(zip(moves, policies)):
        if pi is not None:
            pi = np.asarray(pi, dtype=np.float32)
            legal = np.zeros(game.num_actions, dtype=np.bool_)
            legal[state.legal_moves()] = True
            _check_policy(pi, legal, t, game)
            planes.append(state.planes(features))
            pis.append(pi)
            legals.append(legal)
            to_play.append(state.to_play)
            plies.append(t)
            replies.append(int(moves[t + 1]) if t + 1 < len(moves) else -1)
        state = state.play(int(move))
    # the final-position targets exist where the game was played out in a game that has them
    played_out = winner == FROM_BOARD and hasattr(game, "final_ownership")
    if winner == FROM_BOARD:
        if not state.is_terminal:
            raise ValueError(
                f"the game is not over after {len(moves)} moves; pass winner= (0, 1 or None) "
                "for a resigned or adjudicated game"
            )
        winner = state.winner
    if not pis:
        return empty_samples(game, features)
    if isinstance(winner, str):  # not FROM_BOARD: z_from_side_to_move's error, said here
        raise ValueError(f"winner must be 0, 1 or None, got {winner!r}")
    n = len(pis)
    sign = np.where(np.asarray(to_play) == 0, 1, -1).astype(np.int8)  # Black's view -> side to move's
    if played_out:
        go: Any = game  # a game with final ownership (Go) also has score()
        black_owner = np.asarray(go.final_ownership(state), dtype=np.int8)
        ownership = sign[:, None] * black_owner[None, :]
        score = sign.astype(np.float32) * np.float32(go.score(state) / game.cells)
    else:
        ownership = np.zeros((n, game.cells), np.int8)
        score = np.zeros(n, np.float32)
    return Samples(
        planes=np.stack(planes),
        pi=np.stack(pis),
        z=z_from_side_to_move(to_play, winner),
        legal=np.stack(legals),
        ply=np.asarray(plies, dtype=np.int32),
        reply=np.asarray(replies, dtype=np.int32),
        ownership=ownership.astype(np.int8),
        score=score.astype(np.float32),
        has_final=np.full(n, played_out, np.bool_),
    )


def empty_samples(game: Game, features: str) -> Samples:
    """Zero samples with the right shapes and dtypes."""
    c = game.initial().planes(features).shape[0]
    a = game.num_actions
    return Samples(
        np.zeros((0, c, game.height, game.width), np.float32), np.zeros((0, a), np.float32),
        np.zeros(0, np.float32), np.zeros((0, a), np.bool_), np.zeros(0, np.int32),
    )


def _check_policy(pi: np.ndarray, legal: np.ndarray, t: int, game: Game) -> None:
    if pi.shape != (game.num_actions,):
        raise ValueError(f"policy at move {t} has shape {pi.shape}, expected ({game.num_actions},)")
    if (pi < 0).any() or not np.isfinite(pi).all():
        raise ValueError(f"policy at move {t} has negative or non-finite entries")
    if (pi[~legal] != 0).any():
        bad = int(np.flatnonzero((pi != 0) & ~legal)[0])
        raise ValueError(f"policy at move {t} puts mass on illegal action {game.format_move(bad)}")
    if abs(float(pi.sum()) - 1.0) > 1e-4:
        raise ValueError(f"policy at move {t} sums to {float(pi.sum()):.6f}, not 1")
