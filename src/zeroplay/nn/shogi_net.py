"""A small dlshogi-style policy-value ResNet for shogi, its evaluator and its checkpoint file.

Input: dlshogi's 119 planes of 9 x 9 (``zeroplay.games.shogi.features``: 62 board planes and 57
hand/check planes, mover's view). Body: a 3x3 convolution to ``channels`` then ``blocks``
residual blocks (two 3x3 convolutions with batch norm, He et al. 2016), as dlshogi's ResNet
with fewer, narrower blocks. Policy head (dlshogi's): a 1x1 convolution to 27 planes, one per
move class, flattened to the 27 x 81 = 2,187 move labels (``label = class * 81 + square``,
square ``file * 9 + rank`` = the planes' [file, rank] layout). Value head: a 1x1 convolution,
a 128-unit layer and tanh: V in [-1, 1] from the mover's view.

Checkpoints are safetensors files (never unpickled) with the architecture and training facts in
the header's metadata; written atomically (``zeroplay.files.atomic``).
"""

from __future__ import annotations

import json

import numpy as np
import torch
from torch import nn

from zeroplay.files.atomic import atomic_write_bytes
from zeroplay.games.shogi.features import NUM_PLANES
from zeroplay.games.shogi.labels import NUM_LABELS, NUM_MOVE_CLASSES
from zeroplay.nn.denormal import flushed_denormals
from zeroplay.nn.record import SHOGI_NET_FORMAT

FORMAT = SHOGI_NET_FORMAT


class _Block(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(x + self.bn2(self.conv2(y)))


class ShogiNet(nn.Module):
    """``forward(planes float32 (B, 119, 9, 9)) -> (logits float32 (B, 2187), values float32 (B,))``."""

    def __init__(self, blocks: int = 4, channels: int = 64):
        super().__init__()
        if not 1 <= blocks <= 40 or not 8 <= channels <= 512:
            raise ValueError(f"blocks must be in 1..40 and channels in 8..512, got {blocks}, {channels}")
        self.blocks_count, self.channels = blocks, channels
        self.stem = nn.Sequential(nn.Conv2d(NUM_PLANES, channels, 3, padding=1, bias=False), nn.BatchNorm2d(channels), nn.ReLU())
        self.tower = nn.Sequential(*[_Block(channels) for _ in range(blocks)])
        self.policy = nn.Conv2d(channels, NUM_MOVE_CLASSES, 1)
        self.value = nn.Sequential(nn.Conv2d(channels, 1, 1, bias=False), nn.BatchNorm2d(1), nn.ReLU(), nn.Flatten(),
                                   nn.Linear(81, 128), nn.ReLU(), nn.Linear(128, 1))

    def forward(self, planes):
        x = self.tower(self.stem(planes))
        return self.policy(x).reshape(-1, NUM_LABELS), torch.tanh(self.value(x)).reshape(-1)


def legal_mask(states) -> np.ndarray:
    """bool (B, 2187): the legal move labels of each state."""
    mask = np.zeros((len(states), NUM_LABELS), dtype=bool)
    for i, s in enumerate(states):
        mask[i, s.legal_moves()] = True
    return mask


class ShogiNetEvaluator:
    """The net as the Python PUCT search's evaluator (``evaluate_states``), in inference mode.

    Priors: softmax of the logits over each state's legal labels (exactly 0 elsewhere); values
    float32 (B,) from each state's mover.
    """

    def __init__(self, net: ShogiNet, *, threads: int | None = None):
        self.net = net.eval()
        self.threads = threads

    def evaluate_states(self, states):
        if self.threads is not None:
            torch.set_num_threads(self.threads)
        planes = torch.from_numpy(np.stack([s.planes("dlshogi") for s in states]))
        legal = torch.from_numpy(legal_mask(states))
        with torch.inference_mode(), flushed_denormals():  # (nn.denormal)
            logits, values = self.net(planes)
            logits = logits.masked_fill(~legal, float("-inf"))
            priors = torch.softmax(logits, dim=1)
        return np.nan_to_num(priors.numpy()).astype(np.float32), values.numpy().astype(np.float32)


def save_shogi_net(path, net: ShogiNet, **facts) -> None:
    """Write ``net`` as a safetensors file (atomic); ``facts`` (JSON-able) go in its metadata."""
    from safetensors.torch import save

    meta = {"format": FORMAT, "blocks": str(net.blocks_count), "channels": str(net.channels),
            "facts": json.dumps(facts, sort_keys=True)}
    tensors = {k: v.detach().contiguous().cpu() for k, v in net.state_dict().items()}
    atomic_write_bytes(path, save(tensors, metadata=meta))


def load_shogi_net(path) -> tuple[ShogiNet, dict]:
    """(net, facts) from a file written by ``save_shogi_net``.

    Raises:
        ValueError: not such a file (missing, damaged, another format), naming the path.
    """
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(str(path), framework="pt") as f:
            meta = f.metadata() or {}
            if meta.get("format") != FORMAT:
                raise ValueError(f"{path}: not a zeroplay shogi network (format {meta.get('format')!r})")
            net = ShogiNet(int(meta["blocks"]), int(meta["channels"]))
            state = {k: f.get_tensor(k) for k in f.keys()}
        net.load_state_dict(state)
        return net.eval(), json.loads(meta.get("facts", "{}"))
    except (OSError, SafetensorError, KeyError, RuntimeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: cannot load a shogi network ({type(e).__name__}: {e})") from None
