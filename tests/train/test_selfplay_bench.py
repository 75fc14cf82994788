"""``zeroplay bench selfplay``: the figures it promises, from a short run."""

from __future__ import annotations

import pytest

pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")


def test_bench_selfplay_reports_its_keys():
    from zeroplay.bench.selfplay import measure

    out = measure(workers=1, playouts=16, parallel_games=2, seconds=2.0, precision="fp32")
    assert {"moves_per_s", "games_per_hour", "net_positions_per_s", "search_overhead"} <= set(out)
    assert out["moves_per_s"] > 0 and out["net_positions_per_s"] > 0
    assert out["search_overhead"] < 1
    d = out["details"]
    assert d["workers"] == 1 and d["playouts"] == 16 and d["moves"] > 0


@pytest.mark.parametrize("design", ["per-worker", "shared"])
def test_bench_selfplay_of_go_uses_the_go_net_and_planes(design):
    """Issue 22's "NN search >= 0.85 of the net's batched limit, as for Gomoku": the same figures
    for 9x9 Go with the shipped Go net's shape."""
    from zeroplay.bench.selfplay import measure

    out = measure(workers=1, playouts=16, parallel_games=2, seconds=2.0, precision="fp32", game="go", design=design)
    d = out["details"]
    assert d["board"].startswith("9x9 Go") and "b4c48-gpool-own" in d["board"]
    assert d["moves"] > 0 and out["net_positions_per_s"] > 0 and out["search_overhead"] < 1
    if design == "per-worker":  # the net alone on real batches during the run (probes)
        assert d["net_positions_per_cpu_s_interleaved"] > 0 and d["search_overhead_cpu_interleaved"] < 1
        # the headline is the in-run figure (the wall-second one after the run was -0.12 for a
        # new user while the interleaved one said 0.14)
        assert out["search_overhead"] == d["search_overhead_cpu_interleaved"]
    else:  # the inference process serves the workers: no probes there
        assert d["net_positions_per_cpu_s_interleaved"] is None
        assert out["search_overhead"] == d["search_overhead_cpu"]
    assert "search_overhead_wall" in d
    if d["games"] == 0:  # no game ended in 2 s: no rate, rather than 0 games an hour
        assert out["games_per_hour"] is None and d["mean_game_moves"] is None


def test_bench_selfplay_takes_the_shipped_models_shapes():
    """Issue 20's "NN search >= 0.85 of the net's batched limit" depends on the net: ``--net`` and
    ``--size`` measure the 15x15 model's shape (b6c64) as well as the default tiny 8x8 one."""
    from zeroplay.bench.selfplay import measure

    out = measure(workers=1, playouts=16, parallel_games=2, seconds=2.0, precision="fp32", net="b2c16", size=9)
    d = out["details"]
    assert d["board"] == "9x9 five-in-row freestyle, b2c16 net (random weights), basic planes"
    assert d["moves"] > 0 and out["net_positions_per_s"] > 0 and out["search_overhead"] < 1


def test_bench_is_discovered_by_the_cli():
    from zeroplay.cli import build_parser

    args = build_parser().parse_args(["bench", "selfplay", "--seconds", "1", "--workers", "1", "--json"])
    assert args.what == "selfplay" and args.seconds == 1.0 and args.design == "per-worker" and args.game == "gomoku"


@pytest.mark.parametrize("option, needle", [
    (["--workers", "0"], "--workers must be >= 1, got 0"),
    (["--playouts", "0"], "--playouts must be >= 1, got 0"),
    (["--seconds", "-5"], "--seconds must be a finite number > 0, got -5.0"),
    (["--parallel-games", "0"], "--parallel-games must be >= 1, got 0"),
    (["--playouts", "1000000000000"], "--playouts must be <= 134,217,728, got 1,000,000,000,000"),
    # a new user's huge values grew past 5 GB in 7 s before anything refused them
    (["--search-batch", "2000000"], "--search-batch must be <= 1024, got 2,000,000"),
    (["--parallel-games", "100000"], "--parallel-games must be <= 1024, got 100,000"),
    (["--size", "4"], "--size must be 5..19, got 4"),
    (["--game", "go", "--size", "15"], "--size 15: the benchmark's Go is 9x9"),
    # the size's default was gomoku's 8, so `--game go --size 8` ran 9x9 silently
    (["--game", "go", "--size", "8"], "--size 8: the benchmark's Go is 9x9"),
    (["--net", "b9"], "unknown architecture 'b9'"),
])
def test_bad_options_are_one_line_before_any_process_starts(option, needle, capsys):
    """``--playouts 0`` made the worker raise and the parent wait for ever; ``--seconds -5``
    printed figures; ``--workers 0`` silently meant all cores."""
    from zeroplay.cli import main

    assert main(["bench", "selfplay", *option]) == 2
    assert capsys.readouterr().err.startswith(f"zeroplay bench selfplay: error: {needle}")


def test_a_worker_that_dies_is_an_error_not_a_hang():
    from zeroplay.bench.selfplay import BenchProcessDied, measure

    with pytest.raises(BenchProcessDied, match="a benchmark process died"):
        measure(workers=1, playouts=0, parallel_games=2, seconds=1.0, precision="fp32")


def test_go_takes_its_own_size_and_a_run_too_short_for_the_rates_is_an_error(capsys):
    """``--game go --size 9`` was refused (the size's default was gomoku's 8); ``--seconds 0.01``
    printed a search overhead of 1.0 from one net call."""
    from zeroplay.bench.selfplay import run
    from zeroplay.cli import build_parser

    args = build_parser().parse_args(["bench", "selfplay", "--game", "go", "--size", "9", "--workers", "1",
                                      "--seconds", "0.01", "--playouts", "16", "--parallel-games", "2",
                                      "--precision", "fp32"])
    with pytest.raises(ValueError, match=r"--seconds 0.01 is too short: a worker made \d net call"):
        run(args)
