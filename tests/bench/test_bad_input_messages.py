"""Bad ``zeroplay bench`` and ``zeroplay solve`` inputs: one line ``zeroplay CMD: error: ...`` and
exit status 2, naming the option the user typed and its range, never a traceback or another
command's options. Every refusal here comes before any compiled code runs or any table is made."""

from __future__ import annotations

import math

import pytest

from zeroplay.cli import main


def _refused(capsys, argv) -> str:
    """stderr of ``zeroplay ARGV``, which must be refused with status 2 in one error line."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("error:") == 1, err
    return err


# --- 1. a --data file that is missing, a directory or not puzzles -------------------------------
def test_bench_vcf_data_missing_or_a_directory_is_an_error_line(tmp_path, capsys):
    err = _refused(capsys, ["bench", "vcf", "--data", str(tmp_path / "missing.jsonl")])
    assert err.startswith("zeroplay bench vcf: error: --data ") and "not found" in err
    err = _refused(capsys, ["bench", "vcf", "--data", str(tmp_path)])
    assert "--data " in err and "is a directory" in err


def test_bench_vcf_without_the_shared_data_is_an_error_line(tmp_path, monkeypatch, capsys):
    """Without --data it reads ../shared/data/gomoku/puzzles.jsonl: a checkout without it."""
    from zeroplay.bench import vcf

    monkeypatch.setattr(vcf, "DEFAULT_DATA", tmp_path / "shared" / "data" / "gomoku" / "puzzles.jsonl")
    err = _refused(capsys, ["bench", "vcf"])
    assert "--data " in err and "puzzles.jsonl" in err and "not found" in err


@pytest.mark.parametrize("text, said", [
    ("", "no puzzles in the file"),
    ("{not json\n", ":1: not JSON"),
    ("[1, 2]\n", ":1: not a puzzle"),
    ('{"id": "x"}\n', ":1: not a puzzle"),
])
def test_bench_vcf_data_that_is_not_puzzles_is_an_error_line(tmp_path, capsys, text, said):
    data = tmp_path / "puzzles.jsonl"
    data.write_text(text)
    assert said in _refused(capsys, ["bench", "vcf", "--data", str(data)])


def test_bench_vcf_and_tactics_data_that_is_not_text_is_an_error_line(tmp_path, capsys):
    data = tmp_path / "puzzles.jsonl"
    data.write_bytes(b"\xd0\xff\xfe binary\n")
    for what in ("vcf", "tactics"):
        assert f"--data {data}: " in _refused(capsys, ["bench", what, "--data", str(data)])


def test_bench_tactics_a_line_that_is_not_an_object_is_an_error_line(tmp_path, capsys):
    data = tmp_path / "puzzles.jsonl"
    data.write_text("[1, 2]\n")
    assert ":1: not a puzzle" in _refused(capsys, ["bench", "tactics", "--data", str(data)])


def test_bench_solve_a_score_that_is_not_a_number_names_the_file_and_line(tmp_path):
    from zeroplay.bench.solve import read_set

    data = tmp_path / "Test_L3_R1"
    data.write_text("4453 -3\n445 x\n")
    with pytest.raises(ValueError, match=r"Test_L3_R1:2: not '<moves> <score>'"):
        read_set(data)


# --- 2, 3. bench tt: --capacity-log2 and --ab-mib ------------------------------------------------
@pytest.fixture
def machine_16gib(monkeypatch):
    from zeroplay.bench import tt

    monkeypatch.setattr(tt, "_machine_bytes", lambda: float(16 << 30))


@pytest.mark.parametrize("value", ["-1", "0", "28", "40"])
def test_bench_tt_capacity_log2_out_of_range_names_the_option_and_range(machine_16gib, capsys, value):
    # 16 GiB: half of it holds 2^27 slots of 49 bytes (the table and its keys), not 2^28
    err = _refused(capsys, ["bench", "tt", "--capacity-log2", value])
    assert f"--capacity-log2 must be in 1..27 on this machine (at most half of its memory), got {value}" in err


def test_bench_tt_capacity_log2_range_is_the_node_tables_where_memory_is_unknown(monkeypatch):
    from zeroplay.bench import tt

    monkeypatch.setattr(tt, "_machine_bytes", lambda: math.inf)
    with pytest.raises(ValueError, match=r"--capacity-log2 must be in 1\.\.31, got 32$"):
        tt.check_options(32, 64, 1, 1)
    tt.check_options(31, 64, 1, 1)  # new_node_table's own bound: 2^31 slots


@pytest.mark.parametrize("value", ["999999999", "0", "nan", "8193"])
def test_bench_tt_ab_mib_too_large_names_ab_mib_not_the_train_options(machine_16gib, capsys, value):
    err = _refused(capsys, ["bench", "tt", "--ab-mib", value])
    assert "--ab-mib must be a size in MiB of at least 4.6e-05 (one bucket of 48 bytes) and at most 8,192 " \
           "(half of this machine's memory)" in err
    assert "--playouts" not in err and "--batch-size" not in err


def test_bench_tt_out_of_memory_names_its_own_options(monkeypatch, capsys):
    from zeroplay.bench import tt

    def no_memory(**_):
        raise MemoryError("Unable to allocate 7.28 TiB")

    monkeypatch.setattr(tt, "measure", no_memory)
    err = _refused(capsys, ["bench", "tt", "--ab-stores", "1000"])
    assert "lower --capacity-log2, --ab-mib or --ab-stores" in err and "--playouts" not in err


@pytest.mark.parametrize("flag,says", [("--ab-stores", "--ab-stores must be in 1.."), ("--repeats", "--repeats must be >= 1")])
def test_bench_tt_counts_below_1_are_refused(capsys, flag, says):
    err = _refused(capsys, ["bench", "tt", flag, "0"])
    assert says in err and err.rstrip().endswith("got 0")


# --- 4. bench memory: --sizes and --nodes ---------------------------------------------------------
@pytest.mark.parametrize("value", ["abc", "0", "9,x", "9,26", ",", "-9"])
def test_bench_memory_bad_sizes_name_sizes_and_the_range(capsys, value):
    err = _refused(capsys, ["bench", "memory", f"--sizes={value}"])
    assert f"--sizes must be comma-separated board sizes in 5..25 (e.g. 9,15,19), got {value!r}" in err


@pytest.mark.parametrize("value", ["99999999999999", "536870912", "63"])
def test_bench_memory_nodes_out_of_range_names_nodes_and_the_range(capsys, value):
    err = _refused(capsys, ["bench", "memory", "--nodes", value, "--sizes", "9"])
    assert f"--nodes must be in 64..536,870,911, got {int(value):,}" in err


def test_bench_memory_nodes_bound_is_the_statistics_pool():
    from zeroplay.bench.memory import STATS_PER_NODE
    from zeroplay.search.tree import MAX_POOL

    assert MAX_POOL // STATS_PER_NODE == 536_870_911


def test_bench_memory_negative_candidate_radius_names_the_option(capsys):
    err = _refused(capsys, ["bench", "memory", "--candidate-radius", "-1", "--sizes", "9"])
    assert "--candidate-radius must be >= 0, got -1" in err


# --- 5. solve gomoku --threats above what the table stores -----------------------------------------
@pytest.mark.parametrize("extra", [[], ["--method", "pns"]])
def test_solve_gomoku_threats_above_the_maximum_names_threats_and_the_range(capsys, extra):
    err = _refused(capsys, ["solve", "gomoku", "--moves", "h8 h7 i8", "--threats", "1000", *extra])
    assert "--threats must be in 1..255, got 1000" in err and "depth out of range" not in err


def test_solve_gomoku_threats_bound_is_the_tables_depth_and_the_help_says_it(capsys):
    from zeroplay.solvers.commands import MAX_THREATS
    from zeroplay.tt.ab_table import MAX_DEPTH

    assert MAX_THREATS == MAX_DEPTH == 255
    with pytest.raises(SystemExit):
        main(["solve", "gomoku", "--help"])
    assert f"1..{MAX_THREATS}" in capsys.readouterr().out
