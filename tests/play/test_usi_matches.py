"""USI matches run by ``python -m cshogi.cli`` (cshogi's match runner): alpha-beta against MCTS
and against GNU Shogi at depth 1 (Debian ``gnushogi`` through ``zeroplay.engine.gnushogi_usi``;
skipped when absent). Our engines have no main time, so cshogi books a time loss for any move of
1 s or more (cshogi does not refill byoyomi: a move's time comes off the main time, with 1 s of
grace); the CSA records are checked for illegal moves and time losses.

Slow (minutes): ``pytest -m slow tests/play/test_usi_matches.py``. The same matches from the
shell: docs/STRENGTH.md, "Shogi".
"""

from __future__ import annotations

import os
import shutil
import sys

import pytest

pytestmark = pytest.mark.slow

GNUSHOGI = "/usr/games/gnushogi"


def _script(tmp_path, name, command):
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\nexec {command}\n")
    path.chmod(0o755)
    return str(path)


def _usi(tmp_path, name, engine):
    env = f"PYTHONPATH={os.pathsep.join(sys.path)}"
    # options through the engine's own setoption: cshogi.cli passes the dicts below
    return _script(tmp_path, name, f"env {env} {sys.executable} -m zeroplay usi")


def _match(tmp_path, engine1, engine2, options1, options2, byoyomi, games=2, draw=80, time=0):
    from cshogi import cli

    csa = tmp_path / "csa"
    csa.mkdir(exist_ok=True)
    cli.main(engine1, engine2, options1=options1, options2=options2, games=games, byoyomi=byoyomi, time=time,
             draw=draw, csa=str(csa), print_summary=False)
    records = [p.read_text() for p in sorted(csa.glob("*.csa"))]
    assert len(records) == games
    return records


def test_alphabeta_against_mcts(tmp_path):
    engine = _usi(tmp_path, "zp.sh", None)
    records = _match(tmp_path, engine, engine, {"Engine": "AlphaBeta", "USI_Hash": 32},
                     {"Engine": "MCTS", "Playouts": 200}, byoyomi=1000)
    for r in records:
        assert "%ILLEGAL_MOVE" not in r and "%TIME_UP" not in r and "ILLEGAL_ACTION" not in r, r[-400:]


@pytest.mark.skipif(not os.path.exists(GNUSHOGI) or shutil.which("sh") is None,
                    reason=f"GNU Shogi is not installed at {GNUSHOGI} (apt-get install gnushogi)")
def test_alphabeta_against_gnushogi_at_depth_1(tmp_path):
    # the settings of docs/STRENGTH.md's match: ours strictly timed (main time 0, byoyomi 500 ms,
    # so every move under 1 s of wall time), GNU Shogi at its weakest (depth 1) with 300 s of main
    # time that only absorbs a loaded machine's latency (its depth-1 moves do not use time)
    ours = _usi(tmp_path, "zp.sh", None)
    env = f"PYTHONPATH={os.pathsep.join(sys.path)}"
    gnu = _script(tmp_path, "gnu.sh", f"env {env} {sys.executable} -m zeroplay.engine.gnushogi_usi --depth 1")
    records = _match(tmp_path, ours, gnu, {"USI_Hash": 32}, {}, byoyomi=[500, 1000], time=[0, 300_000])
    for r in records:
        assert "%ILLEGAL_MOVE" not in r and "%TIME_UP" not in r and "ILLEGAL_ACTION" not in r, r[-400:]
        moves = [line for line in r.splitlines() if line[:1] in "+-" and len(line) == 7]
        assert len(moves) >= 10  # a game, not an early failure
