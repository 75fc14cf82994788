"""The GNU Shogi USI adapter: its move parsing, and (when ``gnushogi`` is installed) a real
exchange at GNU Shogi's weakest setting (``--depth 1``)."""

from __future__ import annotations

import os

import pytest

from zeroplay.engine.gnushogi_usi import _MOVE, GnuShogi, serve

GNUSHOGI = "/usr/games/gnushogi"


def test_move_line_after_the_depth_prompt():
    # GNU Shogi's "depth = " prompt and its first move share a line when it moves first (the
    # anchored pattern missed it: 30 s, then "bestmove resign")
    assert _MOVE.search("depth = 1. ... 1g1f 299990").group(1) == "1g1f"
    assert _MOVE.search("1. ... 8h2b+ 300000").group(1) == "8h2b+"
    assert _MOVE.search("2. 3c3d 300000") is None  # an echoed move of ours, not GNU's


def test_depth_out_of_range_is_refused():
    with pytest.raises(ValueError, match="depth"):
        GnuShogi(GNUSHOGI, "512 8", depth=0)


@pytest.mark.skipif(not os.path.exists(GNUSHOGI), reason=f"GNU Shogi is not installed at {GNUSHOGI} (apt-get install gnushogi)")
def test_adapter_plays_legal_moves_at_depth_1():
    from zeroplay.games.shogi import Shogi

    out = []
    lines = ["usi", "isready", "position startpos", "go btime 0 wtime 0 byoyomi 1000",
             "position startpos moves 7g7f 3c3d", "go btime 0 wtime 0 byoyomi 1000", "quit"]
    assert serve(iter(line + "\n" for line in lines), out.append, path=GNUSHOGI, level="512 8", depth=1,
                 timeout=20) == 0
    best = [line.split()[1] for line in out if line.startswith("bestmove")]
    assert len(best) == 2 and "resign" not in best, out
    game = Shogi()
    game.initial().parse_move(best[0])  # legal for Black at the start
    game.from_usi("startpos moves 7g7f 3c3d").parse_move(best[1])
    assert all(line.startswith("info depth 1 score cp") for line in out if line.startswith("info"))
