"""``zeroplay bench vcf --mcts N``: every N >= 1 splits its positions between the targets with a
VCF and those without (an odd one, or what one group lacks, from the other), and a file without
positions to time the cost on still reports. Once, ``--mcts 1`` divided by the empty half."""

from __future__ import annotations

import json

import pytest

from zeroplay.bench import vcf
from zeroplay.cli import main

WITH_VCF = {"id": "intro_1move_vcf_001", "collection": "intro_1move_vcf", "to_move": "black",
            "black": [[7, 7], [2, 8], [6, 8], [3, 9], [5, 9]], "white": [[8, 6], [3, 7], [4, 8], [5, 8], [4, 9]],
            "freestyle_winning_four_moves": [[4, 10, 5]]}


def _without(i: int) -> dict:
    """A target whose side to move has no VCF (a lone stone; its winning move is a made-up label)."""
    return {"id": f"no_vcf_{i}", "collection": "quiet", "to_move": "black",
            "black": [[7, 7]], "white": [[i, 0]], "freestyle_winning_four_moves": [[7, 8, 99]]}


def _groups(table) -> list[str]:
    return [entry["group"] for entry in table]


@pytest.mark.parametrize("positions, groups", [
    (1, ["vcf"]),  # the odd one goes to the VCF group; the other half is empty
    (2, ["vcf", "no_vcf"]),
    (3, ["vcf", "no_vcf", "no_vcf"]),  # one VCF target only: the group without VCF makes up for it
    (9, ["vcf", "no_vcf", "no_vcf"]),  # more than there are: all of them
])
def test_every_mcts_count_splits_over_both_groups(positions, groups):
    rows = [WITH_VCF, _without(0), _without(1)]
    assert _groups(vcf.mcts_on_off(rows, positions=positions, playouts=8)) == groups


def test_mcts_zero_positions_is_an_empty_table():
    assert vcf.mcts_on_off([WITH_VCF, _without(0)], positions=0, playouts=8) == []


def test_mcts_cost_without_a_position_lacking_a_vcf_still_reports():
    out = vcf.mcts_cost([WITH_VCF], playouts=8)
    assert out["positions"] == 0 and "off" not in out and out["quiet"]["off"]["playouts_per_cpu_s"] > 0


@pytest.fixture
def small(tmp_path) -> list[str]:
    """``bench vcf`` options for a two-position file, VCF only: a run of a moment."""
    data = tmp_path / "puzzles.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in (WITH_VCF, _without(0))))
    return ["--data", str(data), "--vct-nodes", "0", "--vct-nodes-others", "0"]


def test_bench_vcf_mcts_1_runs_on_a_file_with_positions_without_a_vcf(small, capsys):
    assert main(["bench", "vcf", "--json", *small, "--limit", "1", "--mcts", "1", "--playouts", "8"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert _groups(out["mcts"]) == ["vcf"] and out["mcts_cost"]["positions"] == 1


@pytest.mark.parametrize("argv, said", [
    (["--mcts", "-1"], "argument --mcts: must be >= 0, got -1"),
    (["--mcts", "1", "--playouts", "0"], "argument --playouts: must be >= 1, got 0"),
    (["--mcts", "1", "--playouts", "-3"], "argument --playouts: must be >= 1, got -3"),
])
def test_bench_vcf_mcts_below_0_or_playouts_below_1_are_refused(small, capsys, argv, said):
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "vcf", *small, *argv])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert said in err and err.count("error:") == 1 and "Traceback" not in err
