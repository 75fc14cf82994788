"""One optimizer over a policy-value network: ``Trainer.train_step`` and a validation pass.

Weight decay goes to weight tensors only (conv and dense kernels); biases and batch-norm
parameters get none (they do not overfit and decaying them only shifts activations). torch's
``weight_decay=wd`` adds ``wd * theta`` to the gradient, the gradient of ``wd/2 * ||theta||^2``,
so ``wd = 2c`` realises the loss term ``c * ||theta||^2`` exactly (coupled L2, also under Adam).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

from zeroplay.nn.denormal import flushed_denormals
from zeroplay.nn.loss import opponent_reply_loss, ownership_loss, policy_value_loss, score_loss
from zeroplay.nn.schedule import learning_rate


@dataclass(frozen=True)
class TrainConfig:
    """Optimizer and schedule settings.

    Attributes:
        optimizer: ``"adam"`` or ``"sgd"`` (SGD with Nesterov-free momentum, as AlphaZero).
        lr: peak learning rate (default 2e-3, a common Adam value for small nets; AlphaZero's
            SGD started at 0.2 with batch 4096).
        momentum: SGD momentum (AlphaZero: 0.9); ignored by Adam.
        l2: c in c * ||theta||^2 (AlphaZero: 1e-4).
        schedule, total_steps, warmup_steps, step_every, step_factor, final_fraction: see
            ``zeroplay.nn.schedule.learning_rate``.
        grad_clip: max global gradient norm, None for no clipping.
        opp_reply_weight: weight of the opponent-reply head's cross-entropy in the loss, for nets
            with that head (``-opp``; KataGo: 0.15); others ignore it.
        ownership_weight: weight of the ownership cross-entropy (a mean over cells) for nets with
            the final-position heads (``-own``; KataGo: 1.5 over the board-area-normalised sum,
            the same thing); others ignore it.
        score_weight: weight of the score head's squared error (margins in board-area units) for
            ``-own`` nets; others ignore it.
    """

    optimizer: str = "adam"
    lr: float = 2e-3
    momentum: float = 0.9
    l2: float = 1e-4
    schedule: str = "constant"
    total_steps: int = 100_000
    warmup_steps: int = 0
    step_every: int = 20_000
    step_factor: float = 0.1
    final_fraction: float = 0.01
    grad_clip: float | None = None
    opp_reply_weight: float = 0.15
    ownership_weight: float = 1.5
    score_weight: float = 0.5

    def __post_init__(self):
        for name in ("opp_reply_weight", "ownership_weight", "score_weight"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")

    def to_dict(self) -> dict:
        return asdict(self)

    def lr_at(self, step: int) -> float:
        """The scheduled learning rate at optimizer step ``step``."""
        return learning_rate(
            step, base_lr=self.lr, schedule=self.schedule, total_steps=self.total_steps,
            warmup_steps=self.warmup_steps, step_every=self.step_every,
            step_factor=self.step_factor, final_fraction=self.final_fraction,
        )


def decay_groups(model: nn.Module) -> tuple[list[nn.Parameter], list[nn.Parameter]]:
    """(weights that get L2, parameters that do not): kernels have >= 2 dims, biases and norms 1."""
    decay: list[nn.Parameter] = []
    no_decay: list[nn.Parameter] = []
    for p in model.parameters():
        if p.requires_grad:
            (decay if p.dim() >= 2 else no_decay).append(p)
    return decay, no_decay


class Trainer:
    """Trains ``model`` in place; ``step`` counts optimizer steps taken (restored from checkpoints).

    Args:
        model: a ``TinyNet`` / ``ResTower`` (any module returning (logits, values)).
        config: a ``TrainConfig``.
        device: torch device string.
        step: optimizer steps already taken (resuming); sets the schedule's position.
    """

    def __init__(self, model: nn.Module, config: TrainConfig = TrainConfig(), *, device: str = "cpu",
                 step: int = 0):
        self.model = model.to(device)
        self.config = config
        self.device = torch.device(device)
        self.step = int(step)
        decay, no_decay = decay_groups(model)
        groups = [
            {"params": decay, "weight_decay": 2.0 * config.l2},
            {"params": no_decay, "weight_decay": 0.0},
        ]
        self.optimizer: torch.optim.Optimizer
        if config.optimizer == "adam":
            self.optimizer = torch.optim.Adam(groups, lr=config.lr)
        elif config.optimizer == "sgd":
            self.optimizer = torch.optim.SGD(groups, lr=config.lr, momentum=config.momentum)
        else:
            raise ValueError(f"unknown optimizer {config.optimizer!r}; use 'adam' or 'sgd'")
        self._decay_params = decay

    def _tensors(self, planes, pi, z, legal):
        def t(a, dtype):
            a = torch.as_tensor(np.asarray(a) if not torch.is_tensor(a) else a)
            return a.to(self.device, dtype)

        return t(planes, torch.float32), t(pi, torch.float32), t(z, torch.float32), t(legal, torch.bool)

    def l2_penalty(self) -> float:
        """c * ||theta||^2 over the decayed weights (reported, not backpropagated)."""
        with torch.no_grad():
            return float(self.config.l2 * sum(torch.sum(p * p) for p in self._decay_params))

    def _losses(self, planes, pi, z, legal, reply, final):
        """(total, value, policy, {auxiliary loss name: tensor}) on one batch, in the model's mode.

        ``final``: None, or (ownership float32 (B, H*W), score float32 (B,), has bool (B,)) tensors.
        """
        spec = getattr(self.model, "spec", None)
        want_opp = bool(getattr(spec, "opp_head", False)) and reply is not None
        want_own = bool(getattr(spec, "own_head", False)) and final is not None
        aux: dict[str, torch.Tensor] = {}
        if want_opp or want_own:
            out = self.model.forward_aux(planes)
            logits, values = out.logits, out.values
            if want_opp:
                aux["opp_reply_loss"] = opponent_reply_loss(out.opp, reply)
            if want_own:
                own, score, has = final
                aux["ownership_loss"] = ownership_loss(out.ownership, own, has)
                aux["score_loss"] = score_loss(out.score, score, has)
        else:
            logits, values = self.model(planes)
        loss, value_loss, policy_loss = policy_value_loss(logits, values, pi, z, legal)
        weights = {"opp_reply_loss": self.config.opp_reply_weight,
                   "ownership_loss": self.config.ownership_weight, "score_loss": self.config.score_weight}
        for name, term in aux.items():
            loss = loss + weights[name] * term
        return loss, value_loss, policy_loss, aux

    def train_step(self, planes, pi, z, legal_mask, reply=None, final=None) -> dict[str, float]:
        """One optimizer step on a batch.

        Args:
            planes: float32 (B, C, H, W), side to move's view.
            pi: float32 (B, A) policy targets, zero on illegal moves.
            z: float32 (B,) results from the side to move at each sample, in [-1, 1].
            legal_mask: bool (B, A).
            reply: int (B,) the opponent's next action, -1 none (used by nets with an
                opponent-reply head; None: that loss is skipped).
            final: None, or (ownership int/float (B, H*W) in {-1, 0, 1}, score float (B,), has
                bool (B,)): the final-position targets from the side to move
                (``Samples.ownership``, ``.score``, ``.has_final``), used by ``-own`` nets.

        Returns:
            ``{"loss", "value_loss", "policy_loss", "l2", "lr"}`` and, where the net has the
            head and the targets are given, ``"opp_reply_loss"``, ``"ownership_loss"`` and
            ``"score_loss"``: ``loss`` = value + policy + each auxiliary loss times its weight +
            l2, each a float, measured on this batch before the update; ``lr`` the rate used.
        """
        planes, pi, z, legal = self._tensors(planes, pi, z, legal_mask)
        reply = None if reply is None else torch.as_tensor(np.asarray(reply)).to(self.device, torch.int64)
        if not getattr(getattr(self.model, "spec", None), "own_head", False):
            final = None  # a net without the heads: no tensors made per step for nothing
        if final is not None:
            own, score, has = (torch.as_tensor(np.asarray(a)) for a in final)
            final = (own.to(self.device, torch.float32), score.to(self.device, torch.float32),
                     has.to(self.device, torch.bool))
        lr = self.config.lr_at(self.step)
        for g in self.optimizer.param_groups:
            g["lr"] = lr
        self.model.train()
        # dead units' weights decay into denormals, which made steps 3x dearer (nn.denormal)
        with flushed_denormals():
            loss, value_loss, policy_loss, aux = self._losses(planes, pi, z, legal, reply, final)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if self.config.grad_clip is not None:
                nn.utils.clip_grad_norm_(self.model.parameters(), self.config.grad_clip)
            l2 = self.l2_penalty()
            self.optimizer.step()
        self.step += 1
        out = {
            "loss": loss.item() + l2,
            "value_loss": value_loss.item(),
            "policy_loss": policy_loss.item(),
            "l2": l2,
            "lr": lr,
        }
        out.update({name: term.item() for name, term in aux.items()})
        return out

    def validation_loss(self, planes, pi, z, legal_mask) -> dict[str, float]:
        """Losses on held-out samples (eval mode, no update): ``{"value_loss", "policy_loss"}``."""
        planes, pi, z, legal = self._tensors(planes, pi, z, legal_mask)
        self.model.eval()
        with torch.inference_mode(), flushed_denormals():
            logits, values = self.model(planes)
            _, value_loss, policy_loss = policy_value_loss(logits, values, pi, z, legal)
        return {"value_loss": value_loss.item(), "policy_loss": float(policy_loss)}

    # --- optimizer state for checkpoints --------------------------------------------------
    def optimizer_state(self) -> tuple[dict[str, torch.Tensor], dict]:
        """(tensors by name, JSON-able rest) of the optimizer, for ``save_checkpoint(optimizer=...)``."""
        sd = self.optimizer.state_dict()
        tensors, scalars = {}, {}
        for idx, entry in sd["state"].items():
            for key, value in entry.items():
                if torch.is_tensor(value):
                    tensors[f"{idx}.{key}"] = value.detach().cpu().contiguous()
                else:
                    scalars[f"{idx}.{key}"] = value
        info = {"kind": self.config.optimizer, "param_groups": sd["param_groups"], "scalars": scalars}
        return tensors, info

    def load_optimizer_state(self, tensors: dict[str, torch.Tensor], info: dict) -> None:
        """Restore what ``optimizer_state`` returned (raises ValueError if the optimizer differs)."""
        if info.get("kind") != self.config.optimizer:
            raise ValueError(f"optimizer state is for {info.get('kind')!r}, not {self.config.optimizer!r}")
        state: dict[int, dict] = {}
        for name, value in list(tensors.items()) + list(info.get("scalars", {}).items()):
            idx, key = name.split(".", 1)
            state.setdefault(int(idx), {})[key] = value
        groups = []
        for g in info["param_groups"]:
            g = dict(g)
            if "betas" in g:
                g["betas"] = tuple(g["betas"])
            groups.append(g)
        self.optimizer.load_state_dict({"state": state, "param_groups": groups})
