"""Learning-rate schedules as pure functions of the training step (so resuming needs only the step)."""

from __future__ import annotations

import math

SCHEDULES = ("constant", "step", "cosine")


def learning_rate(
    step: int,
    *,
    base_lr: float,
    schedule: str = "constant",
    total_steps: int = 100_000,
    warmup_steps: int = 0,
    step_every: int = 20_000,
    step_factor: float = 0.1,
    final_fraction: float = 0.01,
) -> float:
    """Learning rate for optimizer step ``step`` (0-based).

    Args:
        base_lr: the peak rate.
        schedule: ``"constant"``; ``"step"`` (multiply by ``step_factor`` every ``step_every``
            steps, as in AlphaZero's 0.2 -> 0.02 -> 0.002 drops); ``"cosine"`` (half a cosine from
            ``base_lr`` down to ``final_fraction * base_lr`` at ``total_steps``, flat after).
        warmup_steps: linear ramp from ``base_lr / warmup_steps`` up to ``base_lr`` first.

    Raises:
        ValueError: unknown schedule.
    """
    if schedule not in SCHEDULES:
        raise ValueError(f"unknown schedule {schedule!r}; choose one of {SCHEDULES}")
    if warmup_steps > 0 and step < warmup_steps:
        return base_lr * (step + 1) / warmup_steps
    if schedule == "constant":
        return base_lr
    if schedule == "step":
        return base_lr * step_factor ** (step // max(1, step_every))
    progress = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
    low = base_lr * final_fraction
    return low + (base_lr - low) * 0.5 * (1.0 + math.cos(math.pi * progress))
