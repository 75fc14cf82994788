"""AlphaZero loss: (z - v)^2 - pi . log p, with p the softmax of the logits over legal moves.

The L2 term c * ||theta||^2 is not here: the optimizer applies it as weight decay on the weight
tensors only (see ``zeroplay.nn.trainer``), and the trainer reports its value alongside.
"""

from __future__ import annotations

import torch


def masked_log_softmax(logits: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
    """log p over legal moves: float (B, A), 0 (not -inf) on illegal moves so ``pi * log p`` stays finite.

    Args:
        logits: float (B, A) raw network output.
        legal: bool (B, A); a row with no legal move (never sent by the search) counts as all legal.
    """
    legal = legal | ~legal.any(dim=1, keepdim=True)
    logp = torch.log_softmax(logits.masked_fill(~legal, float("-inf")), dim=1)
    return torch.where(legal, logp, torch.zeros_like(logp))


def policy_value_loss(
    logits: torch.Tensor,
    values: torch.Tensor,
    pi: torch.Tensor,
    z: torch.Tensor,
    legal: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Mean losses over the batch: ``(total, value_loss, policy_loss)``, scalars.

    Args:
        logits: float32 (B, A); values: float32 (B,) in [-1, 1] from the side to move.
        pi: float32 (B, A) search policy targets (zero on illegal moves, rows sum to 1).
        z: float32 (B,) game result from the side to move at each sample: +1 win, 0 draw, -1 loss.
        legal: bool (B, A).

    ``policy_loss`` is the cross-entropy -sum(pi * log p), so it is >= the entropy of pi, not 0.
    """
    value_loss = torch.mean((z - values) ** 2)
    policy_loss = -torch.mean(torch.sum(pi * masked_log_softmax(logits, legal), dim=1))
    return value_loss + policy_loss, value_loss, policy_loss


def opponent_reply_loss(opp_logits: torch.Tensor, reply: torch.Tensor) -> torch.Tensor:
    """Cross-entropy of the opponent-reply head (KataGo's auxiliary policy target, Wu 2019):
    -log q(reply) with q the softmax of ``opp_logits`` over all actions (the legal moves after the
    reply are not known here), mean over the rows that have a reply; 0 when none has.

    Args:
        opp_logits: float32 (B, A); reply: int64 (B,) the action the opponent played next, -1 none.
    """
    has = reply >= 0
    if not bool(has.any()):
        return opp_logits.sum() * 0.0  # keeps the graph (and the head's gradient) defined
    logq = torch.log_softmax(opp_logits[has], dim=1)
    return -logq.gather(1, reply[has].unsqueeze(1)).mean()


def ownership_loss(ownership: torch.Tensor, target: torch.Tensor, has: torch.Tensor) -> torch.Tensor:
    """KataGo's ownership target (Wu 2019 section 3.3): the binary cross-entropy between
    p = (1 + o) / 2 and the final owner t = (1 + y) / 2 of each cell, mean over the cells and the
    rows that have a target; 0 when none has.

    Args:
        ownership: float32 (B, H*W) the head's output in [-1, 1], side to move's view.
        target: float32 (B, H*W) in {-1, 0, +1}: +1 the side to move owned the cell at the end,
            -1 the opponent, 0 neither (seki, dame, or a game without an owner).
        has: bool (B,) rows whose game was played to the end (a resigned game has no final owner).
    """
    if not bool(has.any()):
        return ownership.sum() * 0.0  # keeps the graph (and the head's gradient) defined
    p = ((1 + ownership[has]) / 2).clamp(1e-6, 1 - 1e-6)
    t = (1 + target[has]) / 2
    return -torch.mean(t * torch.log(p) + (1 - t) * torch.log(1 - p))


def score_loss(score: torch.Tensor, target: torch.Tensor, has: torch.Tensor) -> torch.Tensor:
    """Squared error of the score head (KataGo's score-margin target, Wu 2019 section 3.3, as a
    mean rather than a distribution), mean over the rows that have a target; 0 when none has.

    Args:
        score, target: float32 (B,) final margin from the side to move in board-area units
            (points / cells, komi included); has: bool (B,) as in ``ownership_loss``.
    """
    if not bool(has.any()):
        return score.sum() * 0.0
    return torch.mean((score[has] - target[has]) ** 2)
