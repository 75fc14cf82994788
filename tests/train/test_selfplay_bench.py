"""``zeroplay bench selfplay``: the figures it promises, from a short run."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")


def test_bench_selfplay_reports_its_keys():
    from zeroplay.bench.selfplay import measure

    out = measure(workers=1, playouts=16, parallel_games=2, seconds=2.0, precision="fp32")
    assert {"moves_per_s", "games_per_hour", "net_positions_per_s", "search_overhead"} <= set(out)
    assert out["moves_per_s"] > 0 and out["net_positions_per_s"] > 0
    assert out["search_overhead"] < 1
    d = out["details"]
    assert d["workers"] == 1 and d["playouts"] == 16 and d["moves"] > 0


def test_bench_is_discovered_by_the_cli():
    from zeroplay.cli import build_parser

    args = build_parser().parse_args(["bench", "selfplay", "--seconds", "1", "--workers", "1", "--json"])
    assert args.what == "selfplay" and args.seconds == 1.0 and args.design == "per-worker"
