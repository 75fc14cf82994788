"""Compiled encoders of network input planes for batches of positions (see ``State.planes``).

Feature sets: ``"basic"`` and ``"alphazero-gomoku"`` fit every board game; ``"go"`` is Go's own
(``games.go.planes``: liberties, ko, last three moves, komi and rules). A game names the sets it
can encode in ``Game.feature_sets`` (the first is its default).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from zeroplay.games.go.layout import GO_RECENT_MOVES
from zeroplay.games.go.planes import GO_PLANES
from zeroplay.games.go.planes import encode as go_encode
from zeroplay.games.layout import I_LAST, I_TO_PLAY, P_CELLS, P_WIDTH

FEATURES_BASIC = 0
FEATURES_ALPHAZERO_GOMOKU = 1
FEATURES_GO = 2
FEATURE_IDS = {"basic": FEATURES_BASIC, "alphazero-gomoku": FEATURES_ALPHAZERO_GOMOKU, "go": FEATURES_GO}

THREATS_SUFFIX = "+threats"
"""Appended to a feature set's name (``basic+threats``): the game's eight threat planes follow the
set's own planes (``Game.write_threat_planes``; Gomoku: ``games/gomoku/threats.py``), for games
that list it in ``Game.feature_sets``. Only ``basic`` takes it for now."""
THREAT_CHANNELS = 8
"""Threat planes a ``+threats`` feature set adds (four shapes for each side)."""

FEATURE_CHANNELS = {"basic": 3, "alphazero-gomoku": 4, "go": GO_PLANES, "basic" + THREATS_SUFFIX: 3 + THREAT_CHANNELS}
"""Input planes of each feature set (the number a net's first layer reads)."""


RECENT_MOVES_SHOWN = {"alphazero-gomoku": 1, "go": GO_RECENT_MOVES}
"""Base feature set -> how many of the last moves its planes mark (one plane each)."""


def recent_moves_shown(features: str | None) -> int:
    """How many of the last moves the feature set ``features`` (with or without ``+threats``)
    marks on planes: two positions with the same stones but other recent moves then get other
    evaluations, so a search must fold these moves into its node keys
    (``SearchParams.key_recent_moves``): ``alphazero-gomoku`` 1, ``go`` 3 (planes 4-6 of
    ``games.go.planes``), 0 for ``None`` (an evaluator that reads no planes, e.g. random
    rollouts), the other sets, or a set of another game's encoder."""
    if features is None:
        return 0
    return RECENT_MOVES_SHOWN.get(features.removesuffix(THREATS_SUFFIX), 0)


def shows_last_move(features: str | None) -> bool:
    """True when the feature set ``features`` has a plane marking the last move
    (``recent_moves_shown`` > 0)."""
    return recent_moves_shown(features) > 0


def split_features(features: str) -> tuple[str, bool]:
    """``(base set, with threat planes)`` of a feature set name: ``"basic+threats"`` ->
    ``("basic", True)``; raises ValueError for an unknown name."""
    if features not in FEATURE_CHANNELS:
        raise ValueError(f"unknown feature set {features!r}; choose one of {tuple(FEATURE_CHANNELS)}")
    if features.endswith(THREATS_SUFFIX):
        return features[: -len(THREATS_SUFFIX)], True
    return features, False


def feature_id(features: str) -> int:
    """Numeric id of a feature set's base planes (``split_features``); raises ValueError for an unknown one."""
    return FEATURE_IDS[split_features(features)[0]]


def check_features(game, features: str) -> None:
    """Raise ValueError unless ``game`` encodes the feature set ``features``."""
    if features not in game.feature_sets:
        raise ValueError(f"feature set {features!r} is not one of {game.name}'s: {', '.join(game.feature_sets)}")


@njit(cache=True)
def encode_planes(params, board, info, fid, out):
    """Write one position's planes into ``out`` float32 (C, H, W), side to move's view."""
    if fid == FEATURES_GO:
        go_encode(params, board, info, out)
        return
    w = params[P_WIDTH]
    cells = params[P_CELLS]
    me = info[I_TO_PLAY] + 1
    out[:] = 0.0
    for c in range(cells):
        s = board[c]
        if s == 0:
            continue
        y = c // w
        x = c % w
        if s == me:
            out[0, y, x] = 1.0
        else:
            out[1, y, x] = 1.0
    first = 1.0 if info[I_TO_PLAY] == 0 else 0.0
    if fid == FEATURES_BASIC:
        out[2, :, :] = first
    else:
        last = info[I_LAST]
        if last >= 0:
            out[2, last // w, last % w] = 1.0
        out[3, :, :] = first


@njit(cache=True)
def encode_batch(params, boards, infos, fid, out):
    """Planes of a batch: boards int8 (B, cells), infos int64 (B, INFO_SIZE) -> out (B, C, H, W)."""
    for b in range(boards.shape[0]):
        encode_planes(params, boards[b], infos[b], fid, out[b])


def planes_batch(game, boards: np.ndarray, infos: np.ndarray, features: str) -> np.ndarray:
    """float32 (B, C, H, W) planes of a batch of positions (same result as ``State.planes``).

    Raises:
        ValueError: an unknown feature set, or one the game does not encode (``Game.feature_sets``).
    """
    base, threats = split_features(features)
    check_features(game, features)
    out = np.empty((boards.shape[0], FEATURE_CHANNELS[features], game.height, game.width), dtype=np.float32)
    if not threats:
        encode_batch(game.params, boards, infos, FEATURE_IDS[base], out)
        return out
    split = FEATURE_CHANNELS[base]
    own = np.empty((boards.shape[0], split, game.height, game.width), dtype=np.float32)
    encode_batch(game.params, boards, infos, FEATURE_IDS[base], own)
    out[:, :split] = own
    game.write_threat_planes(boards, infos, out[:, split:])
    return out


