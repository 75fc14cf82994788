"""docs/STRENGTH.md promises commands anyone can rerun: every file its tables play must be committed.

The 15x15 "previous model" row once played iteration 23, whose checkpoint was never committed, so
the published command failed on a fresh clone.
"""

import importlib.util
import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _strength():
    spec = importlib.util.spec_from_file_location("strength", ROOT / "training" / "strength.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tracked(path: str) -> bool:
    out = subprocess.run(["git", "ls-files", "--error-unmatch", path], cwd=ROOT, capture_output=True)
    return out.returncode == 0


def _files_played(argv: list[str]) -> list[str]:
    players = argv[2:4]
    return [p.removeprefix("vcf:") for p in players if p.removeprefix("vcf:").endswith(".safetensors")]


@pytest.fixture(scope="module")
def in_git_checkout():
    if subprocess.run(["git", "rev-parse"], cwd=ROOT, capture_output=True).returncode != 0:
        pytest.skip("not a git checkout: the test asks git which model files are committed")


@pytest.mark.parametrize("key", sorted(_strength().MODELS))
def test_every_match_of_a_model_plays_committed_files(key, in_git_checkout):
    strength = _strength()
    for label, argv in strength.matches(key, 100):
        for path in _files_played(argv):
            assert _tracked(path), f"{key}: {label}: {path} is not committed"


def test_every_checkpoint_a_strength_command_names_is_committed(in_git_checkout):
    # the tables' rows (prose may name a file with the command that restores it from history)
    rows = "\n".join(line for line in (ROOT / "docs" / "STRENGTH.md").read_text().splitlines()
                     if line.startswith("| "))
    commands = re.findall(r"`(\.venv/bin/(?:zeroplay arena|python training/arena\.py) [^`]+)`", rows)
    assert len(commands) >= 20  # six rows for each of the three models, two for 11x11
    for command in commands:
        for path in _files_played(shlex.split(command)):
            assert _tracked(path), f"{path} (in `{command}`) is not committed"


def test_previous_model_falls_back_to_the_newest_kept_checkpoint(in_git_checkout):
    strength = _strength()
    # the run's best before the shipped iteration 25 was 23, whose checkpoint was not kept
    assert strength.previous_iteration("gomoku-15x15-freestyle") == 22
    assert strength.previous_iteration("gomoku-8x8-5-freestyle") == 149


def test_files_the_prose_restores_from_history_are_there(in_git_checkout):
    text = " ".join((ROOT / "docs" / "STRENGTH.md").read_text().split())  # commands may wrap
    shows = re.findall(r"git show ([0-9a-f]{7,40}:\S+?\.safetensors)", text)
    assert shows  # the 8x8 iteration 134 row
    shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT, capture_output=True, text=True)
    if shallow.stdout.strip() == "true":
        pytest.skip("a shallow clone has no history to restore from")
    for spec in shows:
        out = subprocess.run(["git", "cat-file", "-e", spec], cwd=ROOT, capture_output=True)
        assert out.returncode == 0, f"{spec} is not in the repository's history"
