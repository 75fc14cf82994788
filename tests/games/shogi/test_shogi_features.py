"""Our dlshogi input planes equal cshogi's ``cshogi.dlshogi.make_input_features``."""

from __future__ import annotations

import numpy as np
import pytest

from test_shogi_keys_labels import random_positions
from zeroplay.games import make
from zeroplay.games.shogi.features import FEATURES1, FEATURES2, NUM_PLANES


def test_planes_equal_cshogi_dlshogi_on_random_positions():
    dlshogi = pytest.importorskip("cshogi.dlshogi", reason="this cshogi has no cshogi.dlshogi features: pip install -U cshogi")
    assert (dlshogi.FEATURES1_NUM, dlshogi.FEATURES2_NUM) == (FEATURES1, FEATURES2)
    positions = random_positions(300, seed=4)
    positions.append(make("shogi").from_sfen("4k4/9/9/9/9/9/9/9/4K4 b 18P4L4N4S4G2B2R 1"))  # full hands
    positions.append(make("shogi").from_sfen("4k4/9/9/9/9/9/9/9/4K4 w 18p4l4n4s4g2b2r 1"))
    for s in positions:
        ours = s.planes("dlshogi")
        assert ours.shape == (NUM_PLANES, 9, 9) and ours.dtype == np.float32
        f1 = np.zeros((FEATURES1, 9, 9), np.float32)
        f2 = np.zeros((FEATURES2, 9, 9), np.float32)
        dlshogi.make_input_features(s.cshogi_board(), f1, f2)
        np.testing.assert_array_equal(ours[:FEATURES1], f1, err_msg=s.sfen())
        np.testing.assert_array_equal(ours[FEATURES1:], f2, err_msg=s.sfen())


def test_unknown_feature_set_is_refused():
    with pytest.raises(ValueError, match="dlshogi"):
        make("shogi").initial().planes("basic")
