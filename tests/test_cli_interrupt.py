"""Ctrl-C while ``zeroplay`` starts (its modules load, its arguments are parsed), before a command
handles Ctrl-C itself: one line and exit status 130, no traceback."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

import zeroplay.cli
from zeroplay.cli import main

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a process: POSIX only")


def default_sigint() -> None:
    """``preexec_fn`` of a child that the test interrupts: SIGINT back to its default action.
    An ignored signal stays ignored across exec, so under ``make test &`` or a CI runner that
    ignores SIGINT the child would never see the test's Ctrl-C (issue 23)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)

SIGINT_ON_IMPORT = """
import os, runpy, signal, sys

module = sys.argv.pop(1)


class SigintOnImport:
    # a real SIGINT, as Ctrl-C sends, the moment `module` starts loading: no timing involved
    def find_spec(self, name, path=None, target=None):
        if name == module:
            os.kill(os.getpid(), signal.SIGINT)
        return None


sys.meta_path.insert(0, SigintOnImport())
runpy.run_module("zeroplay", run_name="__main__", alter_sys=True)  # python -m zeroplay ARGS
"""


@POSIX
@pytest.mark.parametrize("module", [
    "zeroplay.cli",              # python -m zeroplay loading the command line module
    "numpy",                     # a heavy import while the parser is built
    "zeroplay.train.commands",   # the train/arena/export parsers
])
def test_ctrl_c_while_starting_is_one_line_and_exit_130(module):
    proc = subprocess.run([sys.executable, "-c", SIGINT_ON_IMPORT, module, "train", "--help"],
                          capture_output=True, text=True, timeout=120, preexec_fn=default_sigint)
    assert "Traceback" not in proc.stderr and "KeyboardInterrupt" not in proc.stderr, proc.stderr
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr.strip() == "interrupted"
    assert "usage" not in proc.stdout  # interrupted before the help was printed


def test_ctrl_c_while_the_parser_is_built(monkeypatch, capsys):
    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(zeroplay.cli, "build_parser", interrupted)
    assert main(["random-game"]) == 130
    assert capsys.readouterr().err.strip() == "interrupted"


def test_ctrl_c_in_a_command_without_its_own_handling(monkeypatch, capsys):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(zeroplay.cli, "_cmd_random_game", interrupted)
    try:
        code = main(["random-game", "--seed", "1"])
    except KeyboardInterrupt:
        pytest.fail("zeroplay let KeyboardInterrupt through (a traceback for the user)")
    assert code == 130
    assert capsys.readouterr().err.strip() == "interrupted"
