"""``zeroplay plot`` that cannot write: one line, and the charts already there stay whole."""

from __future__ import annotations

import errno

import pytest

pytest.importorskip("matplotlib", reason="matplotlib (the plots) is not installed: pip install matplotlib")

from zeroplay.cli import main  # noqa: E402
from zeroplay.engine.elo import elo_estimate  # noqa: E402
from zeroplay.train import MetricsLog  # noqa: E402


@pytest.fixture
def run(tmp_path):
    run = tmp_path / "run"
    log = MetricsLog(run / "metrics.jsonl")
    for it in (1, 2):
        e = elo_estimate(6, 1, 3)
        log.append("arena", iteration=it, opponent="rollout:200", elo=e.elo, elo_low=e.elo_low, elo_high=e.elo_high)
    return run


def test_an_out_that_is_a_file_is_one_line(run, tmp_path, capsys):
    blocker = tmp_path / "afile"
    blocker.write_text("mine")
    assert main(["plot", str(run), "--out", str(blocker)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"zeroplay plot: error: cannot create the directory {blocker}: File exists"]
    assert blocker.read_text() == "mine"


def test_a_failed_write_keeps_the_old_chart_and_says_where_else(run, capsys, monkeypatch):
    """A read-only run directory or a full disk gave a 33-line traceback."""
    from matplotlib.figure import Figure

    assert main(["plot", str(run)]) == 0
    old = (run / "plots" / "elo.png").read_bytes()
    capsys.readouterr()

    def full(self, fname, **kw):
        open(fname, "wb").write(b"half a png")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", full)
    assert main(["plot", str(run)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"zeroplay plot: error: cannot write {run / 'plots' / 'elo.png'}: No space left on device; "
                   "give --out DIR to write them elsewhere"]
    assert (run / "plots" / "elo.png").read_bytes() == old
    assert sorted(p.name for p in (run / "plots").iterdir()) == ["elo.png"]
