"""Play-time inference without torch: a checkpoint's policy-value net run in numpy.

``load_numpy_net(path)`` reads a ``.safetensors`` checkpoint with safetensors' numpy API (the same
checks as ``load_checkpoint``: record, game, checksum over the tensors, every tensor's shape
against the architecture) and returns a ``NumpyNet`` that computes what ``TinyNet`` /
``ResTower`` (``zeroplay.nn.models``) compute in eval mode, to float32 rounding (tests: max
|diff| <= 1e-4 against torch). ``NumpyNetEvaluator`` puts it behind the search's evaluator
interface, like ``NetEvaluator``.

Why: importing torch costs a process about 300 MiB resident before any weight is loaded; the
Gomocup manager's ``INFO max_memory`` (350 MiB in the tournament) counts the whole process, and a
torch import also stalls start-up for seconds (docs/BENCHMARKS.md, "Gomocup turn"). Nothing here
imports torch.

How: activations are kept channels-last (B, H, W, C) so that a 3x3 convolution is one BLAS
matrix product of an im2col buffer (B*H*W, 9*C) by the weights (9*C, O); batch norm is folded
into the preceding convolution's weights and bias at load time (eval mode: running mean and
variance, eps 1e-5 as torch's ``BatchNorm2d``), computed in float64 and then rounded to float32.
"""

from __future__ import annotations

import hashlib
import os
import threading

import numpy as np

from zeroplay.games import Game
from zeroplay.games.planes import FEATURE_CHANNELS
from zeroplay.nn.arch import (
    HEAD_CELLS_PASS,
    HEAD_COLUMNS,
    HEADS,
    TINY_CONVS,
    TINY_POLICY_FILTERS,
    TINY_VALUE_FILTERS,
    TOWER_HEAD_CHANNELS,
    VALUE_HIDDEN,
    ArchSpec,
    global_pool_blocks,
    global_pool_channels,
)
from zeroplay.nn.denormal import zero_denormals
from zeroplay.nn.record import CheckpointError, CheckpointMismatchError, _differences, _parse, _read, check_shapes

BN_EPS = 1e-5
"""torch.nn.BatchNorm2d's default eps, which every model in ``zeroplay.nn.models`` uses."""
OPTIM_PREFIX = "optim/"
"""Optimizer tensors' name prefix in a checkpoint (``zeroplay.nn.checkpoint``): not the net's."""
_TORCH_DTYPES = {"float32": "torch.float32", "float64": "torch.float64", "float16": "torch.float16",
                 "int64": "torch.int64", "int32": "torch.int32", "int8": "torch.int8", "uint8": "torch.uint8",
                 "bool": "torch.bool"}
"""numpy dtype name -> torch's, as ``checkpoint.tensors_sha256`` writes it into the checksum."""


# --- the architecture's tensors, without torch ----------------------------------------------------
def _bn(prefix: str, channels: int) -> dict[str, tuple]:
    return {f"{prefix}.{k}": (channels,) for k in ("weight", "bias", "running_mean", "running_var")} | {
        f"{prefix}.num_batches_tracked": ()}


def expected_shapes(spec: ArchSpec) -> dict[str, tuple[int, ...]]:
    """Tensor name -> shape of the ``state_dict`` of ``model_from_spec(spec)``, computed without
    torch (a test compares it with torch's).

    Raises:
        ValueError: an unknown kind or head.
    """
    if spec.kind == "tiny":
        (c1, c2, c3), h, w = TINY_CONVS, spec.height, spec.width
        shapes: dict[str, tuple[int, ...]] = {}
        for name, cin, cout, k in (("conv1", spec.in_channels, c1, 3), ("conv2", c1, c2, 3), ("conv3", c2, c3, 3),
                                   ("policy_conv", c3, TINY_POLICY_FILTERS, 1),
                                   ("value_conv", c3, TINY_VALUE_FILTERS, 1)):
            shapes |= {f"{name}.weight": (cout, cin, k, k), f"{name}.bias": (cout,)}
        for name, fin, fout in (("policy_fc", TINY_POLICY_FILTERS * h * w, spec.num_actions),
                                ("value_fc1", TINY_VALUE_FILTERS * h * w, VALUE_HIDDEN), ("value_fc2", VALUE_HIDDEN, 1)):
            shapes |= {f"{name}.weight": (fout, fin), f"{name}.bias": (fout,)}
        return shapes
    if spec.kind != "tower":
        raise ValueError(f"unknown architecture kind {spec.kind!r}")
    if spec.head not in HEADS:
        raise ValueError(f"unknown policy head {spec.head!r}; one of {HEADS}")
    c, hc = spec.channels, TOWER_HEAD_CHANNELS
    shapes = {"stem.weight": (c, spec.in_channels + 1, 3, 3)} | _bn("stem_bn", c)
    pooled = global_pool_blocks(spec.blocks) if spec.global_pool else set()
    for i in range(spec.blocks):
        b = f"blocks.{i}"
        shapes |= {f"{b}.conv1.weight": (c, c, 3, 3), f"{b}.conv2.weight": (c, c, 3, 3)}
        shapes |= _bn(f"{b}.bn1", c) | _bn(f"{b}.bn2", c)
        if i in pooled:
            g = global_pool_channels(c)
            shapes |= {f"{b}.pool_conv.weight": (g, c, 3, 3), f"{b}.pool_fc.weight": (c, 2 * g),
                       f"{b}.pool_fc.bias": (c,)} | _bn(f"{b}.pool_bn", g)
    heads = [("policy_conv", "policy_bn", "policy_out", "pass_fc")]
    heads += [("opp_conv", "opp_bn", "opp_out", "opp_pass_fc")] if spec.opp_head else []
    for conv, bn, out, pass_fc in heads:
        shapes |= {f"{conv}.weight": (hc, c, 1, 1), f"{out}.weight": (1, hc, 1, 1), f"{out}.bias": (1,)}
        shapes |= _bn(bn, hc)
        if spec.head == HEAD_CELLS_PASS:
            shapes |= {f"{pass_fc}.weight": (1, 2 * hc), f"{pass_fc}.bias": (1,)}
    shapes |= {"value_conv.weight": (hc, c, 1, 1), "value_fc1.weight": (VALUE_HIDDEN, 2 * hc),
               "value_fc1.bias": (VALUE_HIDDEN,), "value_fc2.weight": (1, VALUE_HIDDEN), "value_fc2.bias": (1,)}
    if spec.own_head:
        shapes |= {"own_conv.weight": (hc, c, 1, 1), "own_out.weight": (1, hc, 1, 1), "own_out.bias": (1,),
                   "score_fc.weight": (1, VALUE_HIDDEN), "score_fc.bias": (1,)} | _bn("own_bn", hc)
    return shapes | _bn("value_bn", hc)


def tensors_sha256(tensors: dict[str, np.ndarray]) -> str:
    """``checkpoint.tensors_sha256`` over numpy arrays: hex SHA-256 of each tensor's name, torch
    dtype name, shape and little-endian bytes, in name order (the same digest torch computes)."""
    h = hashlib.sha256()
    for name in sorted(tensors):
        t = tensors[name]
        dtype = _TORCH_DTYPES.get(t.dtype.name, f"torch.{t.dtype.name}")
        h.update(f"{name}|{dtype}|{tuple(int(d) for d in t.shape)}|".encode())
        h.update(np.ascontiguousarray(t).astype(t.dtype.newbyteorder("<"), copy=False).tobytes())
    return h.hexdigest()


# --- the layers, channels-last ----------------------------------------------------------------
class _Conv:
    """A convolution (k = 1 or 3, stride 1, zero padding k // 2) with its batch norm folded in.

    Attributes:
        weight: float32 (k*k*C_in, C_out), rows ordered (dy, dx, c_in) as ``_im2col`` lays them;
            3x3: one more row, the bias, which ``_im2col``'s column of ones multiplies (the bias
            added inside the matrix product, not in a pass of its own).
        bias: float32 (C_out,).
    """

    __slots__ = ("k", "weight", "bias")

    def __init__(self, t: dict[str, np.ndarray], conv: str, bn: str | None = None):
        w = t[f"{conv}.weight"].astype(np.float64)  # (O, C, k, k)
        bias = t[f"{conv}.bias"].astype(np.float64) if f"{conv}.bias" in t else np.zeros(w.shape[0])
        if bn is not None:
            scale = t[f"{bn}.weight"].astype(np.float64) / np.sqrt(t[f"{bn}.running_var"].astype(np.float64) + BN_EPS)
            w = w * scale[:, None, None, None]
            bias = (bias - t[f"{bn}.running_mean"]) * scale + t[f"{bn}.bias"]
        self.k = w.shape[2]
        weight = w.transpose(2, 3, 1, 0).reshape(-1, w.shape[0])
        if self.k == 3:
            weight = np.concatenate([weight, bias[None, :]], axis=0)
        self.weight = np.ascontiguousarray(weight, dtype=np.float32)
        self.bias = bias.astype(np.float32)

    def __call__(self, x: np.ndarray, relu: bool = False) -> np.ndarray:
        """x float32 (B, H, W, C_in) -> float32 (B, H, W, C_out)."""
        b, h, w, c = x.shape
        if self.k == 1:
            y = x.reshape(-1, c) @ self.weight
            y += self.bias
        else:
            y = _im2col(x) @ self.weight
        if relu:
            np.maximum(y, 0.0, out=y)
        return y.reshape(b, h, w, -1)


_buffers = threading.local()  # per thread: two threads may evaluate at once (pbrain's warm-up)


def _im2col(x: np.ndarray) -> np.ndarray:
    """x float32 (B, H, W, C) -> float32 (B*H*W, 9*C + 1): each cell's 3x3 neighbourhood (zero
    outside the board), ordered (dy, dx, c), then a 1 (the bias's column).

    The buffer is kept per thread and shape: the parts outside the board stay zero from its
    allocation, so a call writes each neighbour once (no padded copy); the result is
    overwritten by the next call of the same shape in the same thread.
    """
    b, h, w, c = x.shape
    cache = getattr(_buffers, "cols", None)
    if cache is None:
        cache = _buffers.cols = {}
    cols = cache.get(x.shape)
    if cols is None:
        if len(cache) >= 8:  # a few batch sizes and widths in use at once; bound the memory
            cache.clear()
        cols = cache[x.shape] = np.zeros((b, h, w, 9 * c + 1), dtype=np.float32)
        cols[..., -1] = 1.0
    for dy in (-1, 0, 1):
        rows_out, rows_in = slice(max(0, -dy), h - max(0, dy)), slice(max(0, dy), h - max(0, -dy))
        for dx in (-1, 0, 1):
            cols_out, cols_in = slice(max(0, -dx), w - max(0, dx)), slice(max(0, dx), w - max(0, -dx))
            first = (3 * (dy + 1) + dx + 1) * c
            cols[:, rows_out, cols_out, first:first + c] = x[:, rows_in, cols_in, :]
    return cols.reshape(b * h * w, 9 * c + 1)


class _Dense:
    """y = x @ W.T + b; weight kept as float32 (in, out)."""

    __slots__ = ("weight", "bias")

    def __init__(self, t: dict[str, np.ndarray], name: str):
        self.weight = np.ascontiguousarray(t[f"{name}.weight"].T, dtype=np.float32)
        self.bias = t[f"{name}.bias"].astype(np.float32)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return x @ self.weight + self.bias


def _mean_max(x: np.ndarray) -> np.ndarray:
    """x (B, H, W, C) -> (B, 2C): the mean over the board, then the max (``ResTower``'s pooling)."""
    return np.concatenate([x.mean(axis=(1, 2), dtype=np.float32), x.max(axis=(1, 2))], axis=1)


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0, out=x)


class NumpyNet:
    """A ``TinyNet`` or ``ResTower`` in eval mode, in numpy (see the module docstring).

    Attributes:
        spec: its ``ArchSpec``; meta: the checkpoint's JSON record (None when built from tensors).

    ``forward(planes)`` maps planes float32 (B, C, H, W), from the side to move's view, to
    ``(logits float32 (B, num_actions), values float32 (B,) in [-1, 1] from the side to move)``,
    as the torch modules' ``forward`` does. The opponent-reply head of ``-opp`` nets and the
    score head of ``-own`` nets are not run by ``forward`` (search does not use them);
    ``ownership(planes)`` and ``score(planes)`` run those of ``-own`` nets (GTP's ``kata-analyze``:
    its ownership map and score fields).
    """

    def __init__(self, spec: ArchSpec, tensors: dict[str, np.ndarray], meta: dict | None = None):
        self.spec, self.meta = spec, meta
        self.own: tuple | None = None  # the ownership head's two convolutions (-own towers only)
        self.score_fc: _Dense | None = None  # the score head (-own towers only)
        t = tensors
        if spec.kind == "tiny":
            self.convs = [_Conv(t, name) for name in ("conv1", "conv2", "conv3")]
            self.policy_conv, self.value_conv = _Conv(t, "policy_conv"), _Conv(t, "value_conv")
            self.policy_fc = _Dense(t, "policy_fc")
        else:
            self.stem = _Conv(t, "stem", "stem_bn")
            pooled = global_pool_blocks(spec.blocks) if spec.global_pool else set()
            self.blocks = []
            for i in range(spec.blocks):
                b = f"blocks.{i}"
                pool = (_Conv(t, f"{b}.pool_conv", f"{b}.pool_bn"), _Dense(t, f"{b}.pool_fc")) if i in pooled else None
                self.blocks.append((_Conv(t, f"{b}.conv1", f"{b}.bn1"), _Conv(t, f"{b}.conv2", f"{b}.bn2"), pool))
            self.policy_conv = _Conv(t, "policy_conv", "policy_bn")
            self.policy_out = _Conv(t, "policy_out")
            self.pass_fc = _Dense(t, "pass_fc") if spec.head == HEAD_CELLS_PASS else None
            self.value_conv = _Conv(t, "value_conv", "value_bn")
            self.own = (_Conv(t, "own_conv", "own_bn"), _Conv(t, "own_out")) if spec.own_head else None
            self.score_fc = _Dense(t, "score_fc") if spec.own_head else None
        self.value_fc1, self.value_fc2 = _Dense(t, "value_fc1"), _Dense(t, "value_fc2")

    def _input(self, planes: np.ndarray) -> np.ndarray:
        """``planes`` (B, C, H, W) as the float32 (B, H, W, C) the layers read; ValueError on a
        wrong shape."""
        spec = self.spec
        planes = np.asarray(planes, dtype=np.float32)
        if planes.ndim != 4 or planes.shape[1] != spec.in_channels:
            raise ValueError(f"{spec.name} expects planes (B, {spec.in_channels}, H, W), got {planes.shape}")
        if spec.size_specific and planes.shape[2:] != (spec.height, spec.width):
            raise ValueError(f"{spec.name} was built for {spec.height}x{spec.width} boards, got "
                             f"{planes.shape[2]}x{planes.shape[3]}")
        return np.ascontiguousarray(planes.transpose(0, 2, 3, 1))

    def forward(self, planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """See the class docstring. Raises ValueError on planes of the wrong shape."""
        x = self._input(planes)
        return self._tiny(x) if self.spec.kind == "tiny" else self._tower(x)

    __call__ = forward

    def ownership(self, planes: np.ndarray) -> np.ndarray | None:
        """The ownership head of a ``-own`` net (KataGo, Wu 2019 section 3.3; ``ResTower.forward_aux``):
        float32 (B, H*W) in [-1, 1], the predicted final owner of each cell from the side to move's
        view (+1: its own), row-major as the planes; None for a net without the head. Raises
        ValueError on planes of the wrong shape."""
        if self.own is None:
            return None
        x = self._trunk(self._input(planes))
        own_conv, own_out = self.own
        return np.tanh(own_out(own_conv(x, relu=True))).reshape(x.shape[0], -1)

    def score(self, planes: np.ndarray) -> np.ndarray | None:
        """The score head of a ``-own`` net (KataGo's score-margin head, Wu 2019 section 3.3;
        ``ResTower.forward_aux``): float32 (B,), the predicted final score margin from the side to
        move's view, komi included, in board-area units (points / cells); None for a net without
        the head. Raises ValueError on planes of the wrong shape."""
        if self.score_fc is None:
            return None
        x = self._trunk(self._input(planes))
        hidden = _relu(self.value_fc1(_mean_max(self.value_conv(x, relu=True))))
        return self.score_fc(hidden)[:, 0]

    def _tiny(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        for conv in self.convs:
            x = conv(x, relu=True)
        b = x.shape[0]
        # the dense layers read torch's (C, H, W) flattening
        p = self.policy_conv(x, relu=True).transpose(0, 3, 1, 2).reshape(b, -1)
        v = self.value_conv(x, relu=True).transpose(0, 3, 1, 2).reshape(b, -1)
        return self.policy_fc(p), self._value(v)

    def _tower(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = self._trunk(x)
        b, h, w, _ = x.shape
        features = self.policy_conv(x, relu=True)
        cells = self.policy_out(features).reshape(b, h, w)
        if self.spec.head == HEAD_COLUMNS:  # a column's logit: log-sum-exp of its cells'
            top = cells.max(axis=1)
            logits = top + np.log(np.exp(cells - top[:, None, :]).sum(axis=1))
        elif self.pass_fc is not None:
            logits = np.concatenate([cells.reshape(b, -1), self.pass_fc(_mean_max(features))], axis=1)
        else:
            logits = cells.reshape(b, -1)
        return logits, self._value(_mean_max(self.value_conv(x, relu=True)))

    def _trunk(self, x: np.ndarray) -> np.ndarray:
        on_board = np.ones(x.shape[:3] + (1,), dtype=np.float32)  # ResTower's extra plane
        x = self.stem(np.concatenate([x, on_board], axis=3), relu=True)
        for conv1, conv2, pool in self.blocks:
            y = conv1(x)
            if pool is not None:  # KataGo's global pooling bias, before conv1's ReLU
                pool_conv, pool_fc = pool
                y += pool_fc(_mean_max(pool_conv(x, relu=True)))[:, None, None, :]
            y = conv2(_relu(y))
            y += x
            x = _relu(y)
        return x

    def _value(self, pooled: np.ndarray) -> np.ndarray:
        return np.tanh(self.value_fc2(_relu(self.value_fc1(pooled))))[:, 0]


def load_numpy_net(path: str | os.PathLike, *, game: Game | None = None, features: str | None = None) -> NumpyNet:
    """The net of the checkpoint at ``path``, checked as ``load_checkpoint`` checks it; no torch.

    Args:
        game: when given, the checkpoint must be for this game (a tower loads on any board size).
        features: when given, the feature set must match.

    Raises:
        CheckpointMismatchError: a valid checkpoint that does not fit ``game`` / ``features``.
        CheckpointError: missing, truncated, corrupt (checksum, a tensor of the wrong shape or
            dtype, a bad architecture record), or not a checkpoint. OSError passes through.
    """
    from safetensors.numpy import load as st_load

    where = os.fspath(path)
    data = _read(path)
    record = _parse(path, data)
    try:
        spec = ArchSpec.from_dict(record["arch"])
    except (KeyError, ValueError) as e:
        raise CheckpointError(f"checkpoint {where} has a bad architecture record: {e}") from None
    diffs = _differences(record, spec, game, features, None)
    if diffs:
        raise CheckpointMismatchError(path, diffs)
    if FEATURE_CHANNELS.get(record["features"]) != spec.in_channels:
        raise CheckpointError(f"checkpoint {where} is corrupt: feature set {record['features']!r} does not give "
                              f"the {spec.in_channels} planes of its architecture")
    try:
        tensors = st_load(data)
    except Exception as e:  # safetensors' own error types (and a dtype numpy lacks, bfloat16)
        raise CheckpointError(f"checkpoint {where} is corrupt or unreadable without torch: {e}") from None
    if tensors_sha256(tensors) != record.get("tensors_sha256"):
        raise CheckpointError(f"checkpoint {where} is corrupt: tensor data does not match its checksum")
    weights = {k: v for k, v in tensors.items() if not k.startswith(OPTIM_PREFIX)}
    try:
        expected = expected_shapes(spec)
    except ValueError as e:
        raise CheckpointError(f"checkpoint {where} has a bad architecture record: {e}") from None
    check_shapes(where, spec.name, expected, {k: tuple(v.shape) for k, v in weights.items()})
    floats = {k: v for k, v in weights.items() if not k.endswith("num_batches_tracked")}
    if any(v.dtype.kind != "f" for v in floats.values()) or not all(np.isfinite(v).all() for v in floats.values()):
        raise CheckpointError(f"checkpoint {where} is corrupt: non-float or non-finite weights")
    zero_denormals(floats)  # numpy computes with them at microcode speed (nn.denormal)
    return NumpyNet(spec, floats, record)


def masked_softmax(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """float32 (B, A) priors: softmax of ``logits`` over the ``legal`` (bool (B, A)) actions only,
    exactly 0 elsewhere; a row with no legal action (a terminal position) is all 0."""
    masked = np.where(legal, logits, -np.inf).astype(np.float32, copy=False)
    top = masked.max(axis=1, keepdims=True)
    top[~np.isfinite(top)] = 0.0
    priors = np.exp(masked - top)  # exp(-inf) = 0 on illegal actions
    total = priors.sum(axis=1, keepdims=True)
    np.divide(priors, total, out=priors, where=total > 0)
    return priors


class NumpyNetEvaluator:
    """Evaluates batches of leaves with a ``NumpyNet`` (``zeroplay.search.evaluator.Evaluator``),
    as ``NetEvaluator`` does with a torch model: same priors and values to float32 rounding.

    Args:
        net: the network; features: the feature set it was trained on.
        threads: BLAS threads for its matrix products (``limit_blas_threads``), None: leave as is.
    """

    def __init__(self, net: NumpyNet, features: str, threads: int | None = None):
        if features not in FEATURE_CHANNELS:
            raise ValueError(f"unknown feature set {features!r}; choose one of {tuple(FEATURE_CHANNELS)}")
        self.net, self.features = net, features
        self.threads = None if threads is None else limit_blas_threads(threads)
        self.calls = 0
        self.positions = 0

    def evaluate(self, batch) -> tuple[np.ndarray, np.ndarray]:
        """``(priors float32 (B, num_actions), values float32 (B,))`` for a ``LeafBatch``.

        priors: softmax over the legal actions only, 0 on illegal ones, rows summing to 1 (an
        all-illegal row is all 0). values: in [-1, 1], from the side to move's view.
        """
        return self.evaluate_planes(batch.planes(self.features), batch.legal)

    def evaluate_planes(self, planes: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Same as ``evaluate`` from planes float32 (B, C, H, W) and legal bool (B, A)."""
        logits, values = self.net.forward(planes)
        legal = np.asarray(legal, dtype=np.bool_)
        if logits.shape != legal.shape:
            raise ValueError(f"network gives {logits.shape} logits, legal mask is {legal.shape}")
        self.calls += 1
        self.positions += len(planes)
        return masked_softmax(logits, legal), np.clip(values, -1.0, 1.0).astype(np.float32, copy=False)

    def ownership(self, planes: np.ndarray) -> np.ndarray | None:
        """``NumpyNet.ownership``: float32 (B, H*W) in [-1, 1] from the side to move's view, or
        None for a net without an ownership head."""
        return self.net.ownership(planes)

    def score(self, planes: np.ndarray) -> np.ndarray | None:
        """``NumpyNet.score``: float32 (B,) score margin from the side to move's view in
        board-area units, or None for a net without a score head."""
        return self.net.score(planes)


def inference_threads() -> int:
    """Threads for play-time inference: half the cores, 1..4 (torch's and BLAS's alike).

    With every core busy, extra threads spin against each other: one b6c64 call on a batch of 16
    15x15 positions, 2 loaded cores, took 37 ms CPU with 1 thread and 810 ms with 2 (torch).
    """
    return max(1, min(4, (os.cpu_count() or 2) // 2))


def limit_blas_threads(n: int) -> int | None:
    """Set numpy's OpenBLAS to ``n`` threads for the whole process (every thread: OpenBLAS keeps one
    pool); returns ``n``, or None when numpy's BLAS is not an OpenBLAS found here (left as is).

    On a loaded 2-core machine BLAS threads that spin for a core they do not get slow every call
    down, as torch's did (``nn.evaluator.limit_inference_threads``).
    """
    import ctypes
    import glob

    libs_dir = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for lib in sorted(glob.glob(os.path.join(libs_dir, "*openblas*"))):
        try:
            handle = ctypes.CDLL(lib)
        except OSError:
            continue
        for symbol in ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
                       "openblas_set_num_threads64_", "openblas_set_num_threads"):
            setter = getattr(handle, symbol, None)
            if setter is not None:
                setter(ctypes.c_int(int(n)))
                return int(n)
    return None
