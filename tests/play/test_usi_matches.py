"""USI matches run by ``python -m cshogi.cli`` (cshogi's match runner): alpha-beta against MCTS
and against GNU Shogi (Debian ``gnushogi`` through ``zeroplay.engine.gnushogi_usi``; skipped when
absent). Our engines think with 1 s byoyomi and no main time, so cshogi books a time loss for
any move over 1 s (its 1 s grace ends at 0 ms main time); the CSA records are checked for
illegal moves and time losses, and every game must end by the rules or the move limit.

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


def _match(tmp_path, engine1, engine2, options1, options2, byoyomi, games=2, draw=80):
    from cshogi import cli

    csa = tmp_path / "csa"
    csa.mkdir(exist_ok=True)
    cli.main(engine1, engine2, options1=options1, options2=options2, games=games, byoyomi=byoyomi, time=0,
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


@pytest.mark.skipif(not os.path.exists(GNUSHOGI) or shutil.which("sh") is None, reason="gnushogi not installed")
def test_alphabeta_against_gnushogi(tmp_path):
    ours = _usi(tmp_path, "zp.sh", None)
    env = f"PYTHONPATH={os.pathsep.join(sys.path)}"
    gnu = _script(tmp_path, "gnu.sh", f"env {env} {sys.executable} -m zeroplay.engine.gnushogi_usi")
    # GNU Shogi gets 30 s a move (its own clock is about 1 s; a busy machine slows it): only ours is timed
    records = _match(tmp_path, ours, gnu, {"USI_Hash": 32}, {}, byoyomi=[1000, 30000])
    for i, r in enumerate(records):
        ours_black = i % 2 == 0
        assert "%ILLEGAL_MOVE" not in r or _loser(r) != ("+" if ours_black else "-"), r[-400:]
        assert "%TIME_UP" not in r or _loser(r) != ("+" if ours_black else "-"), r[-400:]


def _loser(record: str) -> str:
    """'+' or '-': the side whose move ends the record (the side to move when it ended)."""
    moves = [line for line in record.splitlines() if line[:1] in "+-" and len(line) == 7]
    return "-" if len(moves) % 2 else "+"
