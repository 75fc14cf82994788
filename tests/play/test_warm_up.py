"""The set-up compile (``make venv`` runs ``warm_up(print, solvers=True)``): a line per stage."""

from __future__ import annotations


def test_warm_up_reports_each_stage_for_the_set_up_progress(warm):
    from zeroplay.engine.factory import warm_up

    lines: list[str] = []
    assert warm_up(lines.append, solvers=True) >= 0
    assert lines[0] == "compiling 1/4: rules (first run only, cached after) ..."
    assert len(lines) == 8 and lines[-1].startswith("compiling 4/4: VCT solver (proof-number) done in ")
