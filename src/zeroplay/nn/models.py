"""Policy-value networks: ``TinyNet`` (the AlphaZero Gomoku design) and ``ResTower`` (bNcM).

Both map planes float32 (B, C, H, W) from the side to move's view to
``(logits float32 (B, num_actions), values float32 (B,) in [-1, 1] from the side to move)``.
Logits are raw: masking to legal moves happens in the loss and the evaluator.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from zeroplay.games import Game
from zeroplay.nn.arch import (  # noqa: F401  (global_pool_blocks re-exported)
    HEAD_CELLS_PASS,
    HEAD_COLUMNS,
    HEADS,
    TINY_CONVS,
    TINY_POLICY_FILTERS,
    TINY_VALUE_FILTERS,
    TOWER_HEAD_CHANNELS,
    VALUE_HIDDEN,
    ArchSpec,
    arch_spec,
    global_pool_blocks,
    global_pool_channels,
)


class AuxOutputs(NamedTuple):
    """What ``ResTower.forward_aux`` returns: the training pass's outputs.

    Attributes:
        logits: float32 (B, num_actions) raw policy logits; values: float32 (B,) in [-1, 1] from
            the side to move (as ``forward``).
        opp: float32 (B, num_actions) opponent-reply logits (``-opp`` nets), else None.
        ownership: float32 (B, H*W) in [-1, 1], final owner of each cell from the side to move's
            view (+1 theirs), row-major (``-own`` nets), else None.
        score: float32 (B,) final score margin from the side to move in board-area units (points
            divided by the number of cells; ``-own`` nets), else None.
    """

    logits: torch.Tensor
    values: torch.Tensor
    opp: torch.Tensor | None
    ownership: torch.Tensor | None
    score: torch.Tensor | None


class TinyNet(nn.Module):
    """3 conv layers 32/64/128 (3x3), policy head 4 filters (1x1) -> dense over actions, value head
    2 filters -> dense 64 -> 1 tanh (junxiaosong/AlphaZero_Gomoku's network). No normalisation.

    Size-specific: the dense heads fix height, width and num_actions.
    """

    def __init__(self, spec: ArchSpec):
        super().__init__()
        self.spec = spec
        h, w = spec.height, spec.width
        c1, c2, c3 = TINY_CONVS
        pf, vf = TINY_POLICY_FILTERS, TINY_VALUE_FILTERS
        self.conv1 = nn.Conv2d(spec.in_channels, c1, 3, padding=1)
        self.conv2 = nn.Conv2d(c1, c2, 3, padding=1)
        self.conv3 = nn.Conv2d(c2, c3, 3, padding=1)
        self.policy_conv = nn.Conv2d(c3, pf, 1)
        self.policy_fc = nn.Linear(pf * h * w, spec.num_actions)
        self.value_conv = nn.Conv2d(c3, vf, 1)
        self.value_fc1 = nn.Linear(vf * h * w, VALUE_HIDDEN)
        self.value_fc2 = nn.Linear(VALUE_HIDDEN, 1)

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        _check_input(self.spec, planes)
        x = F.relu(self.conv1(planes))
        x = F.relu(self.conv2(x))
        x = F.relu(self.conv3(x))
        p = F.relu(self.policy_conv(x)).flatten(1)
        logits = self.policy_fc(p)
        v = F.relu(self.value_conv(x)).flatten(1)
        v = torch.tanh(self.value_fc2(F.relu(self.value_fc1(v)))).squeeze(1)
        return logits, v


class ResidualBlock(nn.Module):
    """conv3x3-BN-ReLU-conv3x3-BN, plus the input, then ReLU."""

    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(x + y)


class GlobalPoolBlock(nn.Module):
    """A residual block with KataGo's global pooling (Wu 2019, section 3.4): beside conv1, a 3x3
    conv to G channels -> BN -> ReLU is pooled over the board (mean and max, 2G numbers) and a
    dense layer turns that into one bias per channel, added to conv1's output before its ReLU;
    then conv2 -> BN, plus the input, ReLU. Lets every cell see board-wide facts (who is ahead,
    where the threats are) in one layer. G = max(8, C // 4)."""

    def __init__(self, channels: int):
        super().__init__()
        pooled = global_pool_channels(channels)
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.pool_conv = nn.Conv2d(channels, pooled, 3, padding=1, bias=False)
        self.pool_bn = nn.BatchNorm2d(pooled)
        self.pool_fc = nn.Linear(2 * pooled, channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        g = F.relu(self.pool_bn(self.pool_conv(x)))
        bias = self.pool_fc(torch.cat([g.mean(dim=(2, 3)), g.amax(dim=(2, 3))], dim=1))
        y = F.relu(self.bn1(self.conv1(x)) + bias[:, :, None, None])
        y = self.bn2(self.conv2(y))
        return F.relu(x + y)


class ResTower(nn.Module):
    """Residual tower, fully convolutional: the same weights run on any board size.

    Input: the feature planes plus one all-ones "on board" plane added here, because zero
    padding alone hides the board edge whenever the side-to-move plane is zero.
    Policy head: 1x1 conv to 32 -> BN -> ReLU -> 1x1 conv to one logit per cell; for
    ``head == "columns"`` a column's logit is the log-sum-exp over its cells; for
    ``head == "cells+pass"`` a pass logit follows the cells', from the policy features' mean and
    max over the board -> dense 1 (as the value head pools; any board size).
    Value head: 1x1 conv to 32 -> BN -> ReLU -> mean and max over the board (64 numbers)
    -> dense 64 -> ReLU -> dense 1 -> tanh.
    Options (``ArchSpec``): ``global_pool`` makes some blocks ``GlobalPoolBlock``s;
    ``opp_head`` adds an opponent-reply policy head shaped like the policy head, whose logits
    only ``forward_aux`` returns (``forward`` and play are unchanged); ``own_head`` adds
    KataGo's final-position heads (Wu 2019 section 3.3): ownership (1x1 conv to 32 -> BN -> ReLU
    -> 1x1 conv to one number per cell -> tanh) and the score margin (a second dense output of the
    value head's hidden layer), also returned only by ``forward_aux``.
    """

    HEAD_CHANNELS = TOWER_HEAD_CHANNELS

    def __init__(self, spec: ArchSpec):
        super().__init__()
        self.spec = spec
        c, hc = spec.channels, self.HEAD_CHANNELS
        self.stem = nn.Conv2d(spec.in_channels + 1, c, 3, padding=1, bias=False)
        self.stem_bn = nn.BatchNorm2d(c)
        pooled = global_pool_blocks(spec.blocks) if spec.global_pool else set()
        self.blocks = nn.Sequential(*(GlobalPoolBlock(c) if i in pooled else ResidualBlock(c)
                                      for i in range(spec.blocks)))
        self.policy_conv = nn.Conv2d(c, hc, 1, bias=False)
        self.policy_bn = nn.BatchNorm2d(hc)
        self.policy_out = nn.Conv2d(hc, 1, 1)
        if spec.head not in HEADS:
            raise ValueError(f"unknown policy head {spec.head!r}; one of {HEADS}")
        # only where there is a pass: the other heads' checkpoints keep their tensors
        self.pass_fc = nn.Linear(2 * hc, 1) if spec.head == HEAD_CELLS_PASS else None
        self.value_conv = nn.Conv2d(c, hc, 1, bias=False)
        self.value_bn = nn.BatchNorm2d(hc)
        self.value_fc1 = nn.Linear(2 * hc, VALUE_HIDDEN)
        self.value_fc2 = nn.Linear(VALUE_HIDDEN, 1)
        if spec.opp_head:
            self.opp_conv = nn.Conv2d(c, hc, 1, bias=False)
            self.opp_bn = nn.BatchNorm2d(hc)
            self.opp_out = nn.Conv2d(hc, 1, 1)
            self.opp_pass_fc = nn.Linear(2 * hc, 1) if spec.head == HEAD_CELLS_PASS else None
        if spec.own_head:
            self.own_conv = nn.Conv2d(c, hc, 1, bias=False)
            self.own_bn = nn.BatchNorm2d(hc)
            self.own_out = nn.Conv2d(hc, 1, 1)
            self.score_fc = nn.Linear(VALUE_HIDDEN, 1)

    def _trunk(self, planes: torch.Tensor) -> torch.Tensor:
        _check_input(self.spec, planes)
        on_board = planes.new_ones((planes.shape[0], 1) + planes.shape[2:])
        x = F.relu(self.stem_bn(self.stem(torch.cat([planes, on_board], dim=1))))
        return self.blocks(x)

    def _action_logits(self, features: torch.Tensor, out: nn.Module, pass_fc: nn.Module | None) -> torch.Tensor:
        """Action logits (B, num_actions) from a policy head's features (B, 32, H, W)."""
        cell_logits = out(features).squeeze(1)
        if self.spec.head == HEAD_COLUMNS:
            return torch.logsumexp(cell_logits, dim=1)  # (B, W): sum of the column's cells
        if pass_fc is not None:
            pass_logit = pass_fc(torch.cat([features.mean(dim=(2, 3)), features.amax(dim=(2, 3))], dim=1))
            return torch.cat([cell_logits.flatten(1), pass_logit], dim=1)  # (B, H*W + 1), pass last
        return cell_logits.flatten(1)  # (B, H*W): action = row * width + col

    def _heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(logits, values, the value head's hidden layer float32 (B, VALUE_HIDDEN))."""
        logits = self._action_logits(F.relu(self.policy_bn(self.policy_conv(x))), self.policy_out, self.pass_fc)
        v = F.relu(self.value_bn(self.value_conv(x)))
        pooled = torch.cat([v.mean(dim=(2, 3)), v.amax(dim=(2, 3))], dim=1)
        hidden = F.relu(self.value_fc1(pooled))
        return logits, torch.tanh(self.value_fc2(hidden)).squeeze(1), hidden

    def forward(self, planes: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, v, _ = self._heads(self._trunk(planes))
        return logits, v

    def forward_aux(self, planes: torch.Tensor) -> AuxOutputs:
        """The training pass: ``AuxOutputs`` (the auxiliary heads' outputs None where the net
        lacks them). The opponent-reply logits are for the position after the side to move's
        move, over the same actions."""
        x = self._trunk(planes)
        logits, v, hidden = self._heads(x)
        opp = own = score = None
        if self.spec.opp_head:
            opp = self._action_logits(F.relu(self.opp_bn(self.opp_conv(x))), self.opp_out, self.opp_pass_fc)
        if self.spec.own_head:
            own = torch.tanh(self.own_out(F.relu(self.own_bn(self.own_conv(x))))).flatten(1)
            score = self.score_fc(hidden).squeeze(1)
        return AuxOutputs(logits, v, opp, own, score)


def _check_input(spec: ArchSpec, planes: torch.Tensor) -> None:
    if planes.dim() != 4 or planes.shape[1] != spec.in_channels:
        raise ValueError(f"{spec.name} expects planes (B, {spec.in_channels}, H, W), got {tuple(planes.shape)}")
    if spec.size_specific and tuple(planes.shape[2:]) != (spec.height, spec.width):
        raise ValueError(
            f"{spec.name} was built for {spec.height}x{spec.width} boards, got "
            f"{planes.shape[2]}x{planes.shape[3]}"
        )


def model_from_spec(spec: ArchSpec) -> nn.Module:
    """A freshly initialised network for ``spec`` (``TinyNet`` or ``ResTower``)."""
    if spec.kind == "tiny":
        return TinyNet(spec)
    if spec.kind == "tower":
        return ResTower(spec)
    raise ValueError(f"unknown architecture kind {spec.kind!r}")


def build_model(arch: str, game: Game, features: str, *, seed: int | None = None) -> nn.Module:
    """A new network of preset ``arch`` (``"tiny"``, ``"b6c64"``, any ``"bNcM"``) for ``game``.

    Args:
        seed: makes the initial weights reproducible (torch's global RNG is left untouched).

    Raises:
        ValueError: unknown preset or feature set, or a game the head cannot serve.
    """
    spec = arch_spec(arch, game, features)
    if seed is None:
        return model_from_spec(spec)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return model_from_spec(spec)
