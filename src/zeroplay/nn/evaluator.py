"""``NetEvaluator``: a policy-value network behind the search's evaluator interface."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from zeroplay.games.planes import FEATURE_CHANNELS
from zeroplay.nn.denormal import flushed_denormals
from zeroplay.nn.heap import keep_heap
from zeroplay.search.evaluator import LeafBatch


def limit_inference_threads() -> int:
    """Set torch to ``numpy_net.inference_threads()`` (half the cores, 1..4) for play-time
    inference; returns it. With every core busy, torch's extra threads spin against each other."""
    from zeroplay.nn.numpy_net import inference_threads

    n = inference_threads()
    torch.set_num_threads(n)
    return n


class NetEvaluator:
    """Evaluates batches of leaves with a network (``zeroplay.search.evaluator.Evaluator``).

    Args:
        model: returns (logits (B, A), values (B,) tanh) from planes (B, C, H, W).
        features: the feature set the model was trained on (``"basic"``, ``"alphazero-gomoku"``).
        device: torch device string.
        threads: ``torch.set_num_threads(threads)`` when given, here and again in whichever
            thread calls ``evaluate``: torch's thread count (OpenMP's) is kept per thread, so a
            limit set where the evaluator was built does not hold where the search runs (pbrain
            built it in its warm-up thread and searched at twice the turn time on a loaded
            machine). One intra-op thread per self-play process is fastest on small machines.

    The model is switched to eval mode (batch norm uses its running statistics). Denormal floats
    are flushed to zero while it evaluates (``nn.denormal``). Building one sets
    glibc's malloc to keep freed memory (``nn.heap.keep_heap``): otherwise every batch's
    tensors cost fresh, zeroed pages.
    """

    def __init__(self, model: nn.Module, features: str, device: str = "cpu", threads: int | None = None):
        if features not in FEATURE_CHANNELS:
            raise ValueError(f"unknown feature set {features!r}; choose one of {tuple(FEATURE_CHANNELS)}")
        keep_heap()
        self.threads = int(threads) if threads is not None else None
        if self.threads is not None:
            torch.set_num_threads(self.threads)
        self.features = features
        self.device = torch.device(device)
        self.model = model.to(self.device).eval()
        self.calls = 0
        self.positions = 0

    def evaluate(self, batch: LeafBatch) -> tuple[np.ndarray, np.ndarray]:
        """``(priors float32 (B, num_actions), values float32 (B,))`` for ``batch``.

        priors: softmax of the logits over the legal actions only; exactly 0 on illegal ones,
        each row sums to 1 (an all-illegal row, i.e. a terminal position, is all 0).
        values: in [-1, 1], from the point of view of the side to move in each position.
        """
        return self.evaluate_planes(batch.planes(self.features), batch.legal)

    def evaluate_planes(self, planes: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Same as ``evaluate`` from planes float32 (B, C, H, W) and legal bool (B, A)."""
        if self.threads is not None and torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)  # this thread's own setting
        legal_t = torch.from_numpy(np.ascontiguousarray(legal, dtype=np.bool_)).to(self.device)
        x = torch.from_numpy(np.ascontiguousarray(planes, dtype=np.float32)).to(self.device)
        with torch.inference_mode(), flushed_denormals():
            logits, values = self.model(x)
            if logits.shape != legal_t.shape:
                raise ValueError(f"network gives {tuple(logits.shape)} logits, legal mask is {tuple(legal_t.shape)}")
            logits = logits.float().masked_fill(~legal_t, float("-inf"))
            priors = torch.softmax(logits, dim=1)
            # softmax of an all -inf row is NaN: those are terminal positions, give them zeros
            priors = torch.nan_to_num(priors, nan=0.0)
            values = values.float().clamp(-1.0, 1.0)
        self.calls += 1
        self.positions += len(planes)
        return priors.cpu().numpy(), values.cpu().numpy()

    def ownership(self, planes: np.ndarray) -> np.ndarray | None:
        """The ownership head of a ``-own`` net (``ResTower.forward_aux``; KataGo, Wu 2019 section
        3.3) for planes float32 (B, C, H, W): float32 (B, H*W) in [-1, 1], each cell's predicted
        final owner from the side to move's view (+1: its own); None for a net without the head."""
        aux = self._aux(planes)
        return None if aux is None else aux.ownership.float().cpu().numpy()

    def score(self, planes: np.ndarray) -> np.ndarray | None:
        """The score head of a ``-own`` net (KataGo's score margin, Wu 2019 section 3.3) for planes
        float32 (B, C, H, W): float32 (B,), the predicted final margin from the side to move's view,
        komi included, in board-area units (points / cells); None for a net without the head."""
        aux = self._aux(planes)
        return None if aux is None else aux.score.float().cpu().numpy()

    def _aux(self, planes: np.ndarray):
        """``forward_aux`` of a net with the ``-own`` heads, else None."""
        spec = getattr(self.model, "spec", None)
        forward_aux = getattr(self.model, "forward_aux", None)
        if spec is None or not getattr(spec, "own_head", False) or forward_aux is None:
            return None
        x = torch.from_numpy(np.ascontiguousarray(planes, dtype=np.float32)).to(self.device)
        with torch.inference_mode(), flushed_denormals():
            return forward_aux(x)
