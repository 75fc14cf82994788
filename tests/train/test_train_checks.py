"""``zeroplay train`` / ``arena`` refusals: bad options, a busy or bad run directory, Ctrl-C.

Every refusal is one line on stderr with exit status 2, before anything is written to the run
directory (a new one is not created, an existing one is left byte for byte).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("torch", reason="torch is not installed: it is a zeroplay dependency (pip install -e '.[dev]')")

from zeroplay.cli import main  # noqa: E402

TINY = ["--game", "tictactoe", "--net", "tiny", "--playouts", "8", "--games-per-iteration", "2",
        "--parallel-games", "2", "--steps", "1", "--batch-size", "8", "--eval-games", "0",
        "--flush-games", "2", "--workers", "0", "--no-progress", "--threads", "1"]


def _train(run_dir, *extra):
    return main(["train", "--run-dir", str(run_dir), *TINY, *extra])


def _files(run_dir):
    """Every file under ``run_dir`` with its bytes."""
    return {p.relative_to(run_dir).as_posix(): p.read_bytes() for p in sorted(run_dir.rglob("*")) if p.is_file()}


def _refused(capsys, code, *needles):
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("zeroplay train: error: "), err
    for needle in needles:
        assert needle in lines[0], err
    return lines[0]


# --- 1. one process per run directory -------------------------------------------------------------
HOLDER = """
import sys, time
from zeroplay.train.runlock import RunLock
RunLock(sys.argv[1]).acquire()
print("ready", flush=True)
time.sleep(120)
"""


def test_a_second_process_on_the_run_dir_is_refused_until_the_first_dies(tmp_path, capsys):
    run = tmp_path / "run"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(HOLDER), str(run)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready", holder.stderr.read()
        line = _refused(capsys, _train(run, "--hours", "0"), str(run), "in use", f"pid {holder.pid}")
        assert "another --run-dir" in line
        assert not (run / "config.json").exists() and not (run / "checkpoints").exists()
    finally:
        os.kill(holder.pid, signal.SIGKILL)  # the kernel drops its lock
        holder.wait()
    assert _train(run, "--hours", "0") == 0
    assert (run / "checkpoints" / "iter-000000.safetensors").exists()


def test_the_lock_is_released_when_the_command_ends(tmp_path):
    from zeroplay.train.runlock import RunLock

    run = tmp_path / "run"
    assert _train(run, "--hours", "0") == 0
    assert not (run / "lock").exists()
    with RunLock(run):  # free again
        assert (run / "lock").read_text().strip() == str(os.getpid())
    assert _train(run, "--hours", "0") == 0


def test_self_play_workers_run_under_the_lock(tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["train", "--run-dir", str(run), *TINY, "--workers", "1", "--iterations", "1"]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["games_total"] == 2


# --- 2. the arena baseline is checked before any self-play -----------------------------------------
@pytest.mark.parametrize("baseline, needle", [("rolout:200", "neither a checkpoint file"),
                                              ("nope/iter-000001.safetensors", "not found"),
                                              ("uniform:x", "needs a whole number")])
def test_a_bad_baseline_is_refused_before_the_run_dir_is_created(tmp_path, capsys, baseline, needle):
    run = tmp_path / "run"
    _refused(capsys, _train(run, "--iterations", "1", "--eval-games", "2", "--baseline", baseline),
             f"--baseline {baseline}", needle)
    assert not run.exists()


def test_a_bad_baseline_on_a_resume_changes_nothing(tmp_path, capsys):
    from zeroplay.games import make
    from zeroplay.nn import build_model, save_checkpoint

    run = tmp_path / "run"
    assert _train(run, "--hours", "0") == 0
    before = _files(run)
    capsys.readouterr()
    _refused(capsys, _train(run, "--iterations", "1", "--eval-games", "2", "--baseline", "rollout-200"),
             "--baseline rollout-200")
    # a checkpoint of another game
    gomoku = make("gomoku", size=6, n_in_row=4)
    other = tmp_path / "gomoku.safetensors"
    save_checkpoint(other, build_model("tiny", gomoku, "basic", seed=0), game=gomoku, features="basic")
    _refused(capsys, _train(run, "--iterations", "1", "--eval-games", "2", "--baseline", str(other)),
             f"--baseline {other}")
    assert _files(run) == before


# --- 3. every option is checked before config.json is written --------------------------------------
@pytest.mark.parametrize("option, needle", [
    (["--net", "foo"], "unknown architecture 'foo'"),
    (["--lr", "0"], "--lr must be > 0"),
    (["--lr=-1e-3"], "--lr must be > 0"),
    (["--window", "0"], "--window must be >= 1"),
    (["--workers", "-1"], "--workers must be >= 0"),
    (["--threads", "0"], "--threads must be >= 1"),
    (["--resign-threshold", "5"], "--resign-threshold must be a root value Q in [-1, 1]"),
    (["--resign-threshold", "nan"], "--resign-threshold must be a finite number"),
    (["--games-per-iteration", "0"], "--games-per-iteration must be >= 1"),
    (["--steps", "0"], "--steps must be >= 1"),
    (["--batch-size", "0"], "--batch-size must be >= 1"),
    (["--eval-games", "-1"], "--eval-games must be >= 0"),
    (["--playouts", "0"], "--playouts must be >= 1"),
    (["--no-resign-fraction", "1.5"], "--no-resign-fraction must be a share in [0, 1]"),
    (["--full-search-prob", "0"], "--full-search-prob must be > 0"),
    (["--flush-games", "0"], "--flush-games must be >= 1"),
    (["--eval-playouts", "0"], "--eval-playouts must be >= 1"),
    (["--hours", "-1"], "--hours must be >= 0"),
    (["--seed", "-3"], "--seed must be >= 0"),
    (["--playouts", "1000000000000"], "--playouts must be <= 134,217,728"),
    (["--eval-playouts", "300000000"], "--eval-playouts must be <= 134,217,728"),
    # helper-79: 1,000 self-play processes on 2 cores, until the machine could fork no more
    (["--workers", "1000"], "--workers must be <= "),
    (["--workers", "1000", "--backend", "ray"], "--workers must be <= "),
    # helper-79: a 23 GB batch killed by the kernel, a crash in libgomp, overflows stored in config.json
    (["--batch-size", "100000000"], "--batch-size must be <= 8,192"),
    (["--threads", "100000"], "--threads must be <= "),
    (["--lr", "1e300"], "--lr must be <= 10.0"),
    (["--seed", "99999999999999999999999"], "--seed must be <= 4,611,686,018,427,387,904"),
    (["--eval-games", "1000000000000"], "--eval-games must be <= 1,000,000"),
])
def test_bad_options_are_refused_before_anything_is_written(tmp_path, capsys, option, needle):
    fresh = tmp_path / "fresh"
    _refused(capsys, _train(fresh, "--hours", "0", *option), needle)
    assert not fresh.exists()
    # on an existing run: refused the same way, the run directory untouched
    run = tmp_path / "run"
    assert _train(run, "--hours", "0") == 0
    before = _files(run)
    capsys.readouterr()
    # (a stored run names another --net as another setting)
    _refused(capsys, _train(run, "--hours", "0", *option), *([needle] if option[0] != "--net" else []))
    assert _files(run) == before


def test_a_typo_does_not_poison_the_run_dir(tmp_path, capsys):
    run = tmp_path / "run"
    _refused(capsys, _train(run, "--hours", "0", "--net", "tinny"), "tinny")
    assert _train(run, "--hours", "0", "--net", "tiny") == 0  # the corrected command just works


def test_a_resign_threshold_below_minus_one_still_means_never(tmp_path):
    run = tmp_path / "run"
    assert _train(run, "--hours", "0", "--resign-threshold", "-5") == 0
    assert json.loads((run / "config.json").read_text())["selfplay"]["resign_threshold"] is None


# --- 4. run directories that are not directories; a damaged config.json ---------------------------
def test_a_run_dir_that_is_a_file_or_cannot_be_created_is_a_clean_error(tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("keep me\n")
    _refused(capsys, _train(afile, "--hours", "0"), f"--run-dir {afile} is a file")
    _refused(capsys, _train(afile / "run", "--hours", "0"), f"is under the file {afile}")
    assert afile.read_text() == "keep me\n"
    locked = tmp_path / "ro"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("running as root (writes anywhere): no unwritable directory to test with")
        _refused(capsys, _train(locked / "run", "--hours", "0"), f"--run-dir {locked / 'run'}: cannot create")
    finally:
        locked.chmod(0o700)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc (a directory that cannot be created under)")
def test_an_uncreatable_run_dir_under_proc_is_a_clean_error(capsys):
    _refused(capsys, _train("/proc/zz", "--hours", "0"), "--run-dir /proc/zz: cannot create the directory")


def test_a_damaged_config_is_named_with_what_to_do(tmp_path, capsys):
    run = tmp_path / "run"
    assert _train(run, "--hours", "0") == 0
    (run / "config.json").write_text('{"version": 1,\n')
    before = _files(run)
    capsys.readouterr()
    line = _refused(capsys, _train(run, "--hours", "0"), f"{run / 'config.json'} is damaged", "restore it")
    # helper-79: it offered "move it away and rerun with the original settings", which is refused
    assert "move it" not in line and "rerun" not in line
    (run / "config.json").write_text('{"version": 1}\n')  # valid JSON, settings missing
    _refused(capsys, _train(run, "--hours", "0"), f"{run / 'config.json'} is damaged", "missing setting")
    before["config.json"] = b'{"version": 1}\n'
    assert _files(run) == before


# --- 5. --address needs --backend ray ------------------------------------------------------------
def test_address_without_ray_backend_is_refused(tmp_path, capsys):
    run = tmp_path / "run"
    _refused(capsys, _train(run, "--hours", "0", "--address", "auto"), "--address", "--backend ray")
    assert not run.exists()


def test_an_unreachable_ray_address_is_refused_at_once(tmp_path, capsys):
    """Ray alone retries a dead address for minutes; the run directory is not created."""
    pytest.importorskip("ray", reason="ray is not installed: pip install 'zeroplay[ray]' to run the Ray backend tests")
    import socket

    with socket.socket() as s:  # a port nothing listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        run = tmp_path / "run"
        _refused(capsys, _train(run, "--hours", "0", "--backend", "ray", "--address", f"127.0.0.1:{port}"),
                 f"no Ray cluster reachable at 127.0.0.1:{port}", "ray start --head")
    _refused(capsys, _train(run, "--hours", "0", "--backend", "ray", "--address", "headnode"),
             "--address must be auto, HOST:PORT or ray://HOST:PORT")
    assert not run.exists()


# --- 6. Ctrl-C in the arena ------------------------------------------------------------------------
def test_ctrl_c_in_the_arena_is_one_line_and_exit_130(monkeypatch, capsys):
    from zeroplay.engine import arena

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(arena, "play_match", interrupted)
    try:
        code = main(["arena", "uniform:2", "uniform:2", "--game", "tictactoe", "--games", "2", "--no-progress"])
    except KeyboardInterrupt:
        pytest.fail("zeroplay arena let KeyboardInterrupt through (a traceback for the user)")
    assert code == 130
    assert capsys.readouterr().err.strip() == "interrupted: the match was not finished, no result"


# --- 7. --workers and --threads are per call, not stored -----------------------------------------
def test_workers_and_threads_are_not_stored_and_default_on_each_call(tmp_path, capsys):
    from zeroplay.train.workers import default_workers

    run = tmp_path / "run"
    assert _train(run, "--hours", "0") == 0  # --workers 0 --threads 1
    config = json.loads((run / "config.json").read_text())
    assert "workers" not in json.dumps(config) and "threads" not in json.dumps(config)
    capsys.readouterr()
    assert main(["train", "--run-dir", str(run), "--hours", "0", "--no-progress", "--threads", "1"]) == 0
    err = capsys.readouterr().err
    assert f"{default_workers()} worker(s) (--workers not given: all cores; it is not stored in the run)" in err


# --- 8. structural changes are named as the options the user gave ---------------------------------
def test_a_changed_size_is_named_in_command_line_terms(tmp_path, capsys):
    run = tmp_path / "run"
    six = ["--game", "gomoku", "--size", "6", "--n-in-row", "4"]
    assert _train(run, "--hours", "0", *six) == 0
    before = _files(run)
    capsys.readouterr()
    line = _refused(capsys, main(["train", "--run-dir", str(run), "--size", "8", "--hours", "0"]),
                    "--size: run has 6, command gives 8")
    assert "n_in_row" not in line and "width" not in line
    _refused(capsys, main(["train", "--run-dir", str(run), "--n-in-row", "5", "--rule", "standard", "--hours", "0"]),
             "--n-in-row: run has 4, command gives 5; --rule: run has freestyle, command gives standard")
    assert _files(run) == before
    # options given that match the run are fine, also without the ones not given (--n-in-row)
    assert main(["train", "--run-dir", str(run), "--game", "gomoku", "--size", "6", "--hours", "0",
                 "--workers", "0", "--threads", "1", "--no-progress"]) == 0


# --- 9. the iteration line without an arena -----------------------------------------------------
def test_the_iteration_line_says_no_arena_instead_of_elo_none(tmp_path, capsys):
    assert _train(tmp_path / "run", "--iterations", "1") == 0  # --eval-games 0
    err = capsys.readouterr().err
    assert "iteration 1 done" in err and "no arena (--eval-games 0)" in err and "Elo None" not in err


@pytest.mark.alone  # times itself
@pytest.mark.parametrize("reply", [None, b"HTTP/1.1 400 Bad Request\r\n\r\n", b""])
def test_a_port_that_is_not_a_ray_head_is_refused(reply):
    """Something listens (silent, a web server, one that hangs up) but does not answer HTTP/2 as
    a Ray head's gRPC does: refused within the timeout instead of Ray's minutes of retries."""
    import socket
    import threading
    import time

    from zeroplay.train.ray_backend import check_reachable

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]

    def answer():
        conn, _ = server.accept()
        with conn:
            conn.recv(64)
            if reply:
                conn.sendall(reply)
            time.sleep(0.5 if reply else 0)

    if reply is not None:
        threading.Thread(target=answer, daemon=True).start()
    t0 = time.monotonic()
    words = "does not answer" if reply is None else "does not speak gRPC"
    with server, pytest.raises(ConnectionError, match=words):
        check_reachable(f"127.0.0.1:{port}", timeout=5.0)
    assert time.monotonic() - t0 < 4  # a silent port is given 2 s to answer, not the connect timeout


def test_a_port_out_of_range_is_refused_as_such():
    from zeroplay.train.ray_backend import check_reachable

    with pytest.raises(ValueError, match="out of range"):
        check_reachable("127.0.0.1:99999")


def test_an_http2_server_passes_the_probe():
    """The check accepts what answers the client preface with a SETTINGS frame (a gRPC server)."""
    import socket
    import threading

    from zeroplay.train.ray_backend import check_reachable

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    got = []

    def answer():
        conn, _ = server.accept()
        with conn:
            got.append(conn.recv(64))
            conn.sendall(b"\x00\x00\x06\x04\x00\x00\x00\x00\x00" + b"\x00\x03\x00\x00\x00\x64")

    threading.Thread(target=answer, daemon=True).start()
    with server:
        check_reachable(f"127.0.0.1:{port}", timeout=2.0)
    assert got and got[0].startswith(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")


def test_baseline_is_stored_in_canonical_form(tmp_path):
    # "uniform:08" and "uniform:8" are one player; the run names it as arena results do
    import json

    run = tmp_path / "run"
    assert _train(run, "--hours", "0", "--baseline", " uniform:08") == 0
    assert json.loads((run / "config.json").read_text())["loop"]["baseline"] == "uniform:8"


def test_a_relative_checkpoint_baseline_is_stored_absolute(tmp_path, monkeypatch):
    # helper-79: stored as typed, so a resume from another directory failed on "--baseline"
    import json

    assert _train(tmp_path / "base", "--hours", "0") == 0
    monkeypatch.chdir(tmp_path)
    relative = "base/checkpoints/iter-000000.safetensors"
    assert _train(tmp_path / "run", "--hours", "0", "--baseline", relative) == 0
    stored = json.loads((tmp_path / "run" / "config.json").read_text())["loop"]["baseline"]
    assert stored == str(tmp_path / relative)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert _train(tmp_path / "run", "--iterations", "1") == 0


def test_a_new_run_says_so_and_is_not_started_among_other_files(tmp_path, capsys):
    # helper-79: a mistyped --run-dir on a resume started a default run without a word, and
    # --run-dir runs/a/checkpoints wrote a new run among another run's checkpoints
    run = tmp_path / "run"
    assert _train(run, "--hours", "0") == 0
    assert f"new run {run} (no run was there): tictactoe" in capsys.readouterr().err
    assert _train(run, "--hours", "0") == 0
    assert "new run" not in capsys.readouterr().err
    inside = run / "checkpoints"
    before = _files(run)
    _refused(capsys, _train(inside, "--hours", "0"), f"--run-dir {inside} holds no run (config.json) but other files "
             "(iter-000000.safetensors)")
    assert _files(run) == before


# --- 4. a damaged run directory is refused before any work -------------------------------------------
def test_an_empty_run_dir_is_refused(tmp_path, capsys, monkeypatch):
    """``--run-dir ''`` (an unset $RUN) trained in the current directory."""
    monkeypatch.chdir(tmp_path)
    _refused(capsys, main(["train", "--run-dir", "", *TINY, "--iterations", "0"]), "--run-dir is empty")
    assert list(tmp_path.iterdir()) == []


def test_a_run_without_its_config_is_refused(tmp_path, capsys):
    """A resume without config.json rewrote it with default settings (15x15), then failed on the
    shards, and refused the run's true settings afterwards."""
    run = tmp_path / "run"
    assert _train(run, "--iterations", "1") == 0
    (run / "config.json").unlink()
    before = _files(run)
    capsys.readouterr()
    _refused(capsys, _train(run, "--iterations", "2"), "config.json is missing", "restore config.json")
    assert _files(run) == before


def test_a_best_net_that_does_not_load_is_refused_before_self_play(tmp_path, capsys):
    """The arena's best checkpoint missing (a clone keeps only some): every rerun self-played and
    trained, then died at the arena."""
    run = tmp_path / "run"
    assert _train(run, "--iterations", "2") == 0
    newest = run / "evals" / "iter-000002.json"
    record = json.loads(newest.read_text())
    newest.write_text(json.dumps({**record, "best_after": 1}))
    (run / "checkpoints" / "iter-000001.safetensors").unlink()
    before = _files(run)
    capsys.readouterr()
    assert _train(run, "--iterations", "3", "--eval-games", "2") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("zeroplay train: error: the arena's best net, iteration 1 (evals/iter-000002.json)")
    assert "iter-000001.safetensors" in err[-1] and "Traceback" not in "".join(err)
    changed = {k for k in set(before) | set(_files(run)) if before.get(k) != _files(run).get(k)}
    assert changed <= {"config.json"}  # at most the new --eval-games, stored as a resume stores it
    assert not (run / "checkpoints" / "iter-000003.safetensors").exists()


def test_a_damaged_best_after_is_named(tmp_path, capsys):
    run = tmp_path / "run"
    assert _train(run, "--iterations", "1") == 0
    newest = run / "evals" / "iter-000001.json"
    newest.write_text(json.dumps({**json.loads(newest.read_text()), "best_after": "x"}))
    capsys.readouterr()
    assert _train(run, "--iterations", "2", "--eval-games", "2") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("zeroplay train: error: ") and "iter-000001.json is damaged (best_after 'x')" in err[-1]


# --- a loss weight for a head the net lacks -------------------------------------------------------
@pytest.mark.parametrize(("flag", "head"), [("--ownership-weight", "--ownership-head"),
                                            ("--score-weight", "--ownership-head"),
                                            ("--opp-reply-weight", "--opp-reply-head")])
def test_a_head_weight_without_its_head_is_refused(tmp_path, capsys, flag, head):
    run = tmp_path / "run"
    line = _refused(capsys, _train(run, flag, "2.0"), flag, "tiny", head)
    assert not run.exists(), line


def test_a_diverged_training_writes_no_checkpoint_and_says_to_lower_the_lr(tmp_path, capsys, monkeypatch):
    # helper-79: --lr 1e308 trained to NaN losses without a word and saved the NaN net
    from zeroplay.nn.trainer import Trainer

    step = Trainer.train_step

    def diverging(self, *args, **kwargs):
        out = step(self, *args, **kwargs)
        return {**out, "value_loss": float("nan")}

    run = tmp_path / "run"
    assert _train(run, "--iterations", "0") == 0
    monkeypatch.setattr(Trainer, "train_step", diverging)
    capsys.readouterr()
    assert _train(run, "--iterations", "1") == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith("zeroplay train: error: iteration 1: the training diverged (value_loss not finite"), last
    assert last.endswith("rerun with a lower --lr"), last
    assert not (run / "checkpoints" / "iter-000001.safetensors").exists()
    monkeypatch.setattr(Trainer, "train_step", step)
    assert _train(run, "--iterations", "1") == 0  # the games played stay; the rerun trains
    assert (run / "checkpoints" / "iter-000001.safetensors").exists()


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_sigterm_and_sighup_end_the_run_as_ctrl_c_does(tmp_path, capsys, monkeypatch, signame):
    # helper-79: they ended zeroplay train without the "rerun the same command" line
    import time

    from zeroplay.train.loop import TrainingRun

    signum = getattr(signal, signame)
    before = signal.getsignal(signum)

    def stopped(self, iterations=None, hours=None):
        os.kill(os.getpid(), signum)
        time.sleep(30)
        raise AssertionError("the signal did not stop the run")

    monkeypatch.setattr(TrainingRun, "run", stopped)
    assert _train(tmp_path / "run", "--iterations", "1") == 128 + signum
    assert f"interrupted ({signame}): rerun the same command to continue" in capsys.readouterr().err
    assert signal.getsignal(signum) == before


def test_checkpoints_that_do_not_fit_an_edited_config_are_named(tmp_path, capsys):
    # helper-79: config.json's "net" edited by hand: "holds replay shards but no checkpoint"
    import json

    run = tmp_path / "run"
    assert _train(run, "--iterations", "1") == 0
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "net": "b2c16"}))
    capsys.readouterr()
    assert _train(run, "--iterations", "2", "--net", "b2c16") == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "holds 2 checkpoints but none loads for the run's settings in config.json (net b2c16" in last, last


@pytest.mark.parametrize("section, key, value", [
    ("train", "lr", 1e30), ("loop", "batch_size", 100_000_000), ("loop", "eval_games", 10**12), (None, "seed", 10**23),
])
def test_a_stored_config_past_the_options_bounds_is_refused(tmp_path, capsys, section, key, value):
    # helper-81: a hand-edited config.json brought back what the options refuse (lr 1e30: a torch
    # traceback; batch_size 1e8: out of memory)
    import json

    run = tmp_path / "run"
    assert _train(run, "--hours", "0") == 0
    config = json.loads((run / "config.json").read_text())
    if section is None:
        config[key] = value
    else:
        config[section][key] = value
    (run / "config.json").write_text(json.dumps(config))
    before = _files(run)
    capsys.readouterr()
    code = main(["train", "--run-dir", str(run), "--iterations", "1", "--workers", "0", "--threads", "1",
                 "--no-progress"])
    _refused(capsys, code, f"config.json: {section + '.' if section else ''}{key} must be <= ")
    assert _files(run) == before
