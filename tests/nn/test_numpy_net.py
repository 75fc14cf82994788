"""The torch-free play-time net (``zeroplay.nn.numpy_net``) against torch's, the reference: every
architecture and head, each feature set a game's net reads, and every shipped model."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

from zeroplay.games import make
from zeroplay.nn import NetEvaluator, build_model, load_checkpoint, save_checkpoint
from zeroplay.nn.numpy_net import (
    NumpyNetEvaluator,
    expected_shapes,
    load_numpy_net,
    masked_softmax,
    tensors_sha256,
)
from zeroplay.nn.record import CheckpointError, CheckpointMismatchError
from zeroplay.nn.shipped import model_files

TOLERANCE = 1e-4  # max |diff| of priors and values (the brief of issue 20's torch-free path)

CASES = [  # (game, options, architecture, feature set): each head, block kind and feature set
    ("gomoku", {"size": 9}, "tiny", "basic"),
    ("gomoku", {"size": 9}, "b2c16", "alphazero-gomoku"),
    ("gomoku", {"size": 9}, "b3c16-gpool-opp", "basic+threats"),
    ("connect4", {}, "b2c16", "basic"),  # columns: log-sum-exp over a column's cells
    ("connect4", {}, "tiny", "alphazero-gomoku"),
    ("othello", {}, "b3c16-gpool", "basic"),  # cells + pass
    ("go", {"size": 7}, "b2c16", "go"),
]


def _random_bn(model: torch.nn.Module, seed: int) -> None:
    """Batch norms with non-trivial statistics, so that folding them into the convolutions shows."""
    gen = torch.Generator().manual_seed(seed)
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            n = module.num_features
            module.running_mean.copy_(torch.randn(n, generator=gen) * 0.3)
            module.running_var.copy_(torch.rand(n, generator=gen) + 0.5)
            module.weight.data.copy_(torch.rand(n, generator=gen) + 0.5)
            module.bias.data.copy_(torch.randn(n, generator=gen) * 0.2)


def _positions(game, count: int, seed: int):
    """Random-play positions of every length, the initial one and a terminal one if reached."""
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        state = game.initial()
        for _ in range(int(rng.integers(0, game.cells))):
            if state.is_terminal:
                break
            state = state.play(int(rng.choice(state.legal_moves())))
        states.append(state)
    return states


def _compare(path, game, features, leaf_batch, seed: int = 0) -> None:
    states = _positions(game, 12, seed)
    batch = leaf_batch(game, states)
    torch_eval = NetEvaluator(load_checkpoint(path, game=game).model, features)
    numpy_eval = NumpyNetEvaluator(load_numpy_net(path, game=game), features)
    p_t, v_t = torch_eval.evaluate(batch)
    p_n, v_n = numpy_eval.evaluate(batch)
    assert p_n.dtype == v_n.dtype == np.float32 and p_n.shape == p_t.shape and v_n.shape == v_t.shape
    assert np.abs(p_n - p_t).max() <= TOLERANCE
    assert np.abs(v_n - v_t).max() <= TOLERANCE
    assert np.array_equal(p_n > 0, p_t > 0)  # zero exactly on the same (illegal) moves


@pytest.mark.parametrize("name,options,arch,features", CASES)
def test_matches_torch(tmp_path, leaf_batch, name, options, arch, features):
    game = make(name, **options)
    model = build_model(arch, game, features, seed=3)
    _random_bn(model, seed=4)
    path = save_checkpoint(tmp_path / "net.safetensors", model, game=game, features=features)
    torch_shapes = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    assert expected_shapes(model.spec) == torch_shapes
    _compare(path, game, features, leaf_batch)


@pytest.mark.parametrize("path", model_files(), ids=lambda p: p.stem)
def test_shipped_models_match_torch(path, leaf_batch):
    meta = load_checkpoint(path).meta
    game = make(meta["game"]["name"], **meta["game"]["options"])
    _compare(path, game, meta["features"], leaf_batch, seed=1)


def test_checksum_is_torchs(tmp_path, game6):
    model = build_model("b1c8", game6, "basic", seed=0)
    path = save_checkpoint(tmp_path / "n.safetensors", model, game=game6, features="basic")
    from safetensors.numpy import load_file

    assert tensors_sha256(load_file(path)) == load_checkpoint(path).meta["tensors_sha256"]


def test_bad_files_are_refused_as_torch_refuses_them(tmp_path, game6):
    model = build_model("b1c8", game6, "basic", seed=0)
    path = save_checkpoint(tmp_path / "n.safetensors", model, game=game6, features="basic")
    with pytest.raises(CheckpointMismatchError, match="game option n_in_row"):
        load_numpy_net(path, game=make("gomoku", size=6, n_in_row=5))
    with pytest.raises(CheckpointMismatchError, match="feature set"):
        load_numpy_net(path, features="alphazero-gomoku")
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF  # one weight's byte
    damaged = tmp_path / "damaged.safetensors"
    damaged.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="checksum"):
        load_numpy_net(damaged)
    with pytest.raises(CheckpointError, match="no checkpoint"):
        load_numpy_net(tmp_path / "absent.safetensors")
    net = load_numpy_net(path)
    with pytest.raises(ValueError, match="expects planes"):
        net.forward(np.zeros((1, 4, 6, 6), dtype=np.float32))


def test_masked_softmax_zero_rows_and_illegal_moves():
    logits = np.array([[1.0, 2.0, 3.0], [5.0, 5.0, 5.0]], dtype=np.float32)
    legal = np.array([[True, False, True], [False, False, False]])
    priors = masked_softmax(logits, legal)
    assert priors[0, 1] == 0.0 and abs(priors[0].sum() - 1.0) < 1e-6 and not priors[1].any()
    assert priors[0, 2] / priors[0, 0] == pytest.approx(np.e ** 2, rel=1e-5)


def test_loading_and_evaluating_never_import_torch(tmp_path):
    """The point of the module: a process that plays with it never pays torch's memory."""
    path = model_files()[0]
    code = (
        "import sys, numpy as np\n"
        "from zeroplay.nn.numpy_net import load_numpy_net\n"
        f"net = load_numpy_net({str(path)!r})\n"
        "h = net.meta['board']['height']; w = net.meta['board']['width']\n"
        "net.forward(np.zeros((2, net.spec.in_channels, h, w), dtype=np.float32))\n"
        "print('torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_ownership_head_matches_torch(tmp_path):
    # kata-analyze's ownership map of a -own net: numpy's head against torch's forward_aux
    game = make("go", size=7)
    model = build_model("b2c16-own", game, "go", seed=5)
    _random_bn(model, seed=6)
    path = save_checkpoint(tmp_path / "net.safetensors", model, game=game, features="go")
    planes = np.stack([s.planes("go") for s in _positions(game, 6, seed=2)])
    want = NetEvaluator(load_checkpoint(path, game=game).model, "go").ownership(planes)
    got = NumpyNetEvaluator(load_numpy_net(path, game=game), "go").ownership(planes)
    assert got.shape == want.shape == (6, 49) and got.dtype == np.float32
    assert np.abs(got - want).max() <= TOLERANCE and np.abs(want).max() <= 1
    plain = save_checkpoint(tmp_path / "plain.safetensors", build_model("b2c16", game, "go", seed=5), game=game,
                            features="go")
    assert NumpyNetEvaluator(load_numpy_net(plain, game=game), "go").ownership(planes) is None
    assert NetEvaluator(load_checkpoint(plain, game=game).model, "go").ownership(planes) is None
    tiny_game = make("gomoku", size=9)  # a tiny net has no such head either (it raised AttributeError)
    tiny = save_checkpoint(tmp_path / "tiny.safetensors", build_model("tiny", tiny_game, "basic", seed=5),
                           game=tiny_game, features="basic")
    tiny_planes = np.stack([tiny_game.initial().planes("basic")])
    assert NumpyNetEvaluator(load_numpy_net(tiny, game=tiny_game), "basic").ownership(tiny_planes) is None
    assert NetEvaluator(load_checkpoint(tiny, game=tiny_game).model, "basic").ownership(tiny_planes) is None
    # the score head (kata-analyze's score fields) likewise
    want = NetEvaluator(load_checkpoint(path, game=game).model, "go").score(planes)
    got = NumpyNetEvaluator(load_numpy_net(path, game=game), "go").score(planes)
    assert got.shape == want.shape == (6,) and got.dtype == np.float32
    assert np.abs(got - want).max() <= TOLERANCE and np.abs(want).max() > 0
    assert NumpyNetEvaluator(load_numpy_net(plain, game=game), "go").score(planes) is None
    assert NetEvaluator(load_checkpoint(plain, game=game).model, "go").score(planes) is None
    assert NumpyNetEvaluator(load_numpy_net(tiny, game=tiny_game), "basic").score(tiny_planes) is None
