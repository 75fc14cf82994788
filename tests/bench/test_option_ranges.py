"""``zeroplay bench`` options out of their range are refused with a line naming the option and
the range (exit status 2) instead of running with a meaningless value: a node budget, a count, a
--limit below 1 or a negative seed, a threat count the solver's table cannot store, a
--collections or --sets that names nothing or something unknown, a --table-mib that holds no
bucket or does not fit in memory."""

from __future__ import annotations

import json

import pytest

from zeroplay.cli import build_parser, main


def _refused(capsys, argv) -> str:
    """stderr of ``zeroplay ARGV``, which must be refused with status 2 in one error line."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("error:") == 1, err
    return err


# --- counts, budgets and seeds: refused as the arguments are parsed --------------------------------
@pytest.mark.parametrize("argv", [
    ["vcf", "--nodes", "0"], ["vcf", "--nodes", "-1"], ["vcf", "--vct-nodes", "-1"],
    ["vcf", "--vct-nodes-others", "-1"], ["vcf", "--pns-nodes", "-1"], ["vcf", "--pns-nodes-others", "-1"],
    ["vcf", "--limit", "0"], ["vcf", "--limit", "-5"],
    ["tactics", "--limit", "0"], ["tactics", "--limit", "-1"],
    ["solve", "--limit", "0"], ["solve", "--limit", "-1"],
    ["tt", "--seed", "-1"], ["go", "--seed", "-1"], ["rules", "--seed", "-1"],
    ["shogi", "--ab-nodes", "0"], ["shogi", "--playouts", "0"], ["shogi", "--batch-size", "0"],
    ["mcts", "--playouts", "0"], ["mcts", "--searches", "-1"], ["mcts", "--batch-size", "0"],
    ["ray_selfplay", "--playouts", "0"], ["ray_selfplay", "--parallel-games", "0"],
    ["ray_selfplay", "--games", "0"], ["ray_selfplay", "--rounds", "0"],
], ids=" ".join)
def test_a_count_or_seed_below_its_least_names_the_option_and_the_least(capsys, argv):
    what, flag, value = argv
    least = 0 if flag == "--seed" or (what == "vcf" and flag not in ("--nodes", "--limit")) else 1
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["bench", *argv])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"zeroplay bench {what}: error: argument {flag}: must be >= {least}, got {value}" in err


@pytest.mark.parametrize("argv", [
    ["vcf", "--nodes", "99999999999999999999"], ["vcf", "--nodes", "9223372036854775808"],
    ["vcf", "--playouts", "99999999999999999999"], ["tactics", "--candidate-radius", "99999999999999999999"],
    ["tactics", "--candidate-radius", "-1"], ["tactics", "--playouts", "0"], ["tactics", "--skip", "-1"],
], ids=" ".join)
def test_a_number_past_what_the_compiled_code_holds_is_refused_by_the_parser(capsys, argv):
    # helper-75: these ended in OverflowError or numba's "Int value is too large" tracebacks, and
    # --candidate-radius -1 named the setting (candidate_radius), not the option
    what, flag, value = argv
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["bench", *argv])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"zeroplay bench {what}: error: argument {flag}: must be " in err and value in err


def test_bench_tt_ab_stores_past_memory_names_the_option(capsys):
    # helper-75: numpy's "Maximum allowed dimension exceeded", naming nothing
    err = _refused(capsys, ["bench", "tt", "--ab-stores", "99999999999999999999"])
    assert "--ab-stores must be in 1.." in err


@pytest.mark.parametrize("argv", [["vcf", "--vct-nodes", "0", "--vct-nodes-others", "0", "--pns-nodes", "0",
                                   "--pns-nodes-others", "0", "--mcts", "0"], ["tt", "--seed", "0"],
                                  ["vcf", "--limit", "1", "--nodes", "1"]])
def test_zero_is_still_taken_where_it_means_off(argv):
    build_parser().parse_args(["bench", *argv])


# --- bench vcf --threats and --pns-threats: 1..255, as solve gomoku --threats --------------------
@pytest.fixture
def puzzles(tmp_path) -> str:
    """A one-position puzzle file: a run of ``bench vcf`` on it, VCF only, takes a moment."""
    row = {"id": "intro_1move_vcf_001", "collection": "intro_1move_vcf", "to_move": "black",
           "black": [[7, 7], [2, 8], [6, 8], [3, 9], [5, 9]], "white": [[8, 6], [3, 7], [4, 8], [5, 8], [4, 9]],
           "freestyle_winning_four_moves": [[4, 10, 5]]}
    data = tmp_path / "puzzles.jsonl"
    data.write_text(json.dumps(row) + "\n")
    return str(data)


@pytest.mark.parametrize("flag", ["--threats", "--pns-threats"])
@pytest.mark.parametrize("value", ["-1", "0", "256", "1000"])
def test_bench_vcf_threats_out_of_range_names_the_option_and_the_range(capsys, puzzles, flag, value):
    err = _refused(capsys, ["bench", "vcf", "--data", puzzles, "--vct-nodes", "0", "--vct-nodes-others", "0",
                            flag, value])
    assert f"{flag} must be in 1..255, got {value}" in err


def test_bench_vcf_threats_bound_is_solve_gomokus_and_the_help_says_it(capsys):
    from zeroplay.solvers.commands import MAX_THREATS

    with pytest.raises(SystemExit):
        main(["bench", "vcf", "--help"])
    assert capsys.readouterr().out.count(f"1..{MAX_THREATS}") == 2


# --- bench tactics --collections -----------------------------------------------------------------
@pytest.fixture
def targets(tmp_path) -> str:
    rows = [{"id": f"{c}_{i}", "collection": c, "to_move": "black", "black": [[7, 7]], "white": [[0, 0]],
             "freestyle_winning_four_moves": [[7, 8, 9]]} for c in ("intro_1move_vcf", "white_vcf") for i in (1, 2)]
    data = tmp_path / "puzzles.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(data)


@pytest.mark.parametrize("value", ["nosuch", "white_vcf,nosuch"])
def test_bench_tactics_unknown_collection_names_the_known_ones(capsys, targets, value):
    err = _refused(capsys, ["bench", "tactics", "--data", targets, "--engine", "search-only", "--playouts", "8",
                            "--collections", value])
    assert "--collections: unknown collection 'nosuch'; known in " in err
    assert err.rstrip().endswith(": intro_1move_vcf, white_vcf")


@pytest.mark.parametrize("value", [",", " , ", ""])
def test_bench_tactics_collections_naming_none_is_refused(capsys, targets, value):
    err = _refused(capsys, ["bench", "tactics", "--data", targets, "--engine", "search-only", "--playouts", "8",
                            "--collections", value])
    assert "--collections must name at least one collection" in err


def test_tactics_limit_and_collections_are_checked_past_the_limit(targets):
    from pathlib import Path

    from zeroplay.bench.tactics import measure, read_targets

    assert [p["id"] for p in read_targets(Path(targets), 1, {"white_vcf"})] == ["white_vcf_1"]
    with pytest.raises(ValueError, match="unknown collection 'nosuch'"):  # after the limit's one target
        read_targets(Path(targets), 1, {"intro_1move_vcf", "nosuch"})
    for limit in (0, -1):
        with pytest.raises(ValueError, match=f"--limit must be >= 1, got {limit}"):
            read_targets(Path(targets), limit)
        with pytest.raises(ValueError, match=f"--limit must be >= 1, got {limit}"):
            measure(data=Path(targets), limit=limit, skip=3, engine="search-only")


# --- bench solve: --sets, --table-mib, memory ----------------------------------------------------
@pytest.fixture
def sets(tmp_path) -> str:
    """A two-position Test_L3_R1 (its first two lines, see shared/data/connect4/README.md)."""
    (tmp_path / "Test_L3_R1").write_text("2252576253462244111563365343671351441 -1\n7422341735647741166133573473242566 1\n")
    return str(tmp_path)


@pytest.fixture
def machine_16gib(monkeypatch):
    from zeroplay.bench import tt

    monkeypatch.setattr(tt, "_machine_bytes", lambda: float(16 << 30))


@pytest.mark.parametrize("value", [",", " , ", ""])
def test_bench_solve_sets_naming_none_is_refused(capsys, sets, value):
    err = _refused(capsys, ["bench", "solve", "--data", sets, "--sets", value])
    assert "--sets must name at least one set; known: Test_L3_R1, Test_L2_R1, " in err


def test_bench_solve_unknown_set_names_sets(capsys, sets):
    err = _refused(capsys, ["bench", "solve", "--data", sets, "--sets", "Test_L3_R1,Test_L9"])
    assert "--sets: unknown set 'Test_L9'; known: Test_L3_R1, " in err


@pytest.mark.parametrize("value", ["0", "-1", "nan", "8193", "1000000"])
def test_bench_solve_table_mib_out_of_range_names_the_option_and_the_range(machine_16gib, capsys, sets, value):
    err = _refused(capsys, ["bench", "solve", "--data", sets, "--sets", "Test_L3_R1", "--table-mib", value])
    assert "--table-mib must be a size in MiB of at least 4.6e-05 (one bucket of 48 bytes) and at most 8,192 " \
           "(half of this machine's memory)" in err
    assert "size_mib" not in err and "--playouts" not in err


def test_bench_solve_out_of_memory_names_table_mib_not_the_train_options(monkeypatch, capsys, sets):
    from zeroplay.bench import solve

    def no_memory(**_):
        raise MemoryError("Unable to allocate 7.28 TiB")

    monkeypatch.setattr(solve, "measure_connect4", no_memory)
    err = _refused(capsys, ["bench", "solve", "--data", sets])
    assert "out of memory (Unable to allocate 7.28 TiB): lower --table-mib" in err and "--playouts" not in err


def test_bench_solve_limit_still_runs_a_set(capsys, sets):
    assert main(["bench", "solve", "--json", "--data", sets, "--sets", "Test_L3_R1", "--limit", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sets"]["Test_L3_R1"]["positions"] == 1 and out["mismatches"] == 0


@pytest.mark.parametrize("argv, needle", [
    # helper-79: a process per worker, unbounded (train's --workers 1000 exhausted the machine)
    (["selfplay", "--workers", "1000"], "--workers must be <= "),
    (["ray_selfplay", "--workers", "1,1000"], "--workers must be <= "),
    (["ray_selfplay", "--workers", "1,x"], "--workers takes whole numbers separated by commas"),
    (["ray_selfplay", "--workers", "0"], "--workers takes counts >= 1"),
])
def test_worker_counts_are_bounded_by_the_cores(capsys, argv, needle):
    assert needle in _refused(capsys, ["bench", *argv])


def test_memory_nodes_that_cannot_fit_in_half_the_memory_are_refused(capsys):
    # helper-80: up to 536,870,911 nodes were taken, a search growing towards 100+ GB
    err = _refused(capsys, ["bench", "memory", "--nodes", "536870911", "--sizes", "25"])
    assert "--nodes 536,870,911 needs up to" in err and "lower --nodes" in err
