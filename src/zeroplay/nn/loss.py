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
