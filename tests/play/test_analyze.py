"""``zeroplay analyze``: the JSON-lines analysis interface (issue 23), as a transcript."""

from __future__ import annotations

import io
import json

import pytest

from zeroplay.play.analyze import MAX_LINE_BYTES
from zeroplay.play.analyze_session import run


def _answers(*lines: str, **options) -> list[dict]:
    out: list[str] = []
    run(io.StringIO("".join(line + "\n" for line in lines)), out.append, **options)
    return [json.loads(line) for line in out]


def test_a_query_gets_top_moves_with_visits_win_rate_prior_and_pv(warm):
    (a,) = _answers(json.dumps({"id": "q1", "size": 9, "moves": ["e5", "e4"], "playouts": 120, "top": 3}))
    assert a["id"] == "q1" and a["turnNumber"] == 2 and a["currentPlayer"] == "B"
    assert a["rootInfo"]["playouts"] == 120 and 0 <= a["rootInfo"]["winrate"] <= 1
    infos = a["moveInfos"]
    assert 1 <= len(infos) <= 3 and [m["order"] for m in infos] == list(range(len(infos)))
    assert infos == sorted(infos, key=lambda m: -m["visits"])
    assert sum(m["visits"] for m in infos) <= a["rootInfo"]["visits"] - 1
    for m in infos:
        assert m["pv"][0] == m["move"] and 0 <= m["winrate"] <= 1 and 0 <= m["prior"] <= 1
        assert m["gomocup"].count(",") == 1
    assert a["engine"].startswith("search only")  # 9x9 has no shipped model


def test_a_win_in_one_is_found_and_proven(warm):
    moves = ["e5", "e4", "d5", "d4", "c5", "c4", "b5", "b4"]  # Black: b5..e5; a5 or f5 wins
    (a,) = _answers(json.dumps({"id": "w", "size": 9, "moves": moves, "playouts": 50}))
    assert a["moveInfos"][0]["move"] in ("a5", "f5") and a["rootInfo"]["proven"] == "win"


def test_a_root_proven_before_any_playout_names_its_move_and_line(warm):
    # helper-68: an open three to extend (h8 h9 h10) was answered "proven": "win" with no move;
    # the threat solver proves the root before a playout, so no move had a visit
    (a,) = _answers(json.dumps({"id": "p", "size": 9, "moves": ["e3", "a1", "e4", "a2", "e5", "a3"],
                                "playouts": 50}))
    assert a["rootInfo"]["proven"] == "win"
    best = a["moveInfos"][0]
    assert best["move"] in ("e2", "e6") and best["winrate"] == 1.0 and best["pv"][0] == best["move"]
    assert len(best["pv"]) >= 3  # the four, the block, the five


def test_bad_queries_get_an_error_and_the_next_query_is_answered(warm):
    lines = ["not json", "[" * 50_000, json.dumps([1, 2]), json.dumps({"moves": []}),
             json.dumps({"id": "x" * 201}), json.dumps({"id": "u", "bogus": 1}),
             json.dumps({"id": "p", "playouts": 10**9}), json.dumps({"id": "s", "size": 26}),
             json.dumps({"id": "r", "rule": "caro"}), json.dumps({"id": "o", "moves": ["h8", "h8"]}),
             json.dumps({"id": "t", "moves": [7]}), json.dumps({"id": "n", "n_in_row": True}),
             "x" * (MAX_LINE_BYTES + 10),
             json.dumps({"id": "ok", "size": 5, "n_in_row": 4, "playouts": 10})]
    answers = _answers(*lines)
    assert len(answers) == len(lines)
    assert all("error" in a for a in answers[:-1]) and "error" not in answers[-1]
    assert [a["id"] for a in answers[:5]] == [None] * 5
    assert "unknown field bogus" in answers[5]["error"] and "1..100000" in answers[6]["error"]
    assert "occupied" in answers[9]["error"] and "over 65536 bytes" in answers[12]["error"]


def test_the_playouts_cap_is_an_option(warm):
    (a,) = _answers(json.dumps({"id": "c", "size": 5, "playouts": 11}), max_playouts=10)
    assert a["error"] == "playouts must be a whole number 1..10, got 11"


def test_the_command_keeps_stdout_for_answers_and_says_ready_on_stderr(warm):
    # a new user's first query went unanswered for minutes with no word on either stream
    import subprocess
    import sys

    query = json.dumps({"id": "r", "size": 5, "playouts": 4}) + "\n"
    proc = subprocess.run([sys.executable, "-m", "zeroplay", "analyze"], input=query, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "ready" in proc.stderr
    (line,) = proc.stdout.splitlines()
    assert json.loads(line)["id"] == "r"


def test_a_bad_model_is_one_line_and_exit_2_before_ready(capsys, tmp_path):
    """``zeroplay analyze --model nosuch`` printed "ready" and then failed every query."""
    from zeroplay.cli import main
    from zeroplay.games import make
    from zeroplay.nn import build_model, save_checkpoint

    assert main(["analyze", "--model", "nosuch"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "ready" not in captured.err
    # the words of zeroplay play --model nosuch (engine.factory.check_model), shipped names included
    assert captured.err.startswith("zeroplay analyze: error: no checkpoint at nosuch (give a path, or a shipped")
    connect4 = make("connect4")
    path = tmp_path / "c4.safetensors"
    save_checkpoint(path, build_model("tiny", connect4, "basic", seed=0), game=connect4, features="basic")
    assert main(["analyze", "--model", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"zeroplay analyze: error: {path} is a connect4 model: zeroplay analyze analyses Gomoku positions\n"


def test_a_query_file_saved_with_a_byte_order_mark_is_read():
    """``zeroplay analyze < queries.jsonl`` from Windows Notepad: line 1 was "not a JSON object"."""
    query = json.dumps({"id": "b", "bogus": 1})  # answered without a search
    first, second = _answers("\ufeff" + query, "\ufeff" + query)
    assert first == {"id": "b", "error": "unknown field bogus"}
    assert second["id"] is None  # a BOM further on is no file's start: the line is refused


def test_the_default_playouts_are_capped_at_max_playouts(warm):
    # the user never asked for 800: a query without playouts was refused under --max-playouts 50
    (a,) = _answers(json.dumps({"id": "x", "size": 5, "n_in_row": 4, "top": 1}), max_playouts=50)
    assert "error" not in a, a
    assert a["rootInfo"]["playouts"] <= 50 and len(a["moveInfos"]) == 1


class _Pipe:
    """A stdin fed line by line while ``run`` answers (a front-end that sends as it goes)."""

    def __init__(self, **options):
        import os
        import threading

        read_fd, self._write_fd = os.pipe()
        self.out: list[str] = []
        self._stdin = os.fdopen(read_fd, "r")
        self._thread = threading.Thread(target=run, args=(self._stdin, self.out.append), kwargs=options, daemon=True)
        self._thread.start()

    def send(self, query: dict) -> None:
        import os

        os.write(self._write_fd, (json.dumps(query) + "\n").encode())

    def close(self, timeout: float = 60.0) -> list[dict]:
        import os

        os.close(self._write_fd)
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "run did not end"
        return [json.loads(line) for line in self.out]

    def wait_for(self, count: int, timeout: float = 60.0) -> None:
        import time

        end = time.monotonic() + timeout
        while len(self.out) < count and time.monotonic() < end:
            time.sleep(0.02)


HEAVY = {"size": 15, "playouts": 100_000, "moves": ["h8", "h9"]}


def test_terminate_stops_a_running_query_which_answers_with_what_it_found(warm):
    # helper-76: a 100,000-playout query could not be stopped but by killing the process
    import time

    p = _Pipe()
    p.send({"id": "q1", **HEAVY})
    time.sleep(1.0)
    started = time.monotonic()
    p.send({"id": "t", "action": "terminate", "terminateId": "q1"})
    p.wait_for(2)
    assert time.monotonic() - started < 20
    p.send({"id": "q1", "size": 7, "n_in_row": 4, "playouts": 20})  # the id again: a new query, not stopped
    ack, answer, again = p.close()
    assert ack == {"id": "t", "action": "terminate", "terminateId": "q1"}
    assert answer["id"] == "q1" and answer["terminated"] is True and answer["moveInfos"]
    assert answer["rootInfo"]["playouts"] < 100_000
    assert "terminated" not in again and again["rootInfo"]["playouts"] == 20


def test_terminate_all_stops_the_running_query_and_those_queued(warm):
    import time

    p = _Pipe()
    for qid in ("a", "b", "c"):
        p.send({"id": qid, **HEAVY})
    time.sleep(1.0)
    p.send({"id": "all", "action": "terminate_all"})
    answers = p.close()
    by_id = {a["id"]: a for a in answers}
    assert by_id["all"] == {"id": "all", "action": "terminate_all"}
    assert by_id["a"]["terminated"] is True
    assert by_id["b"] == {"id": "b", "error": "terminated before its search began"} == {**by_id["c"], "id": "b"}
    assert [a["id"] for a in answers if "action" not in a] == ["a", "b", "c"]  # answers keep their order


def test_seconds_bounds_a_query_and_bad_actions_are_refused(warm):
    (timed,) = _answers(json.dumps({"id": "s", **HEAVY, "seconds": 0.5}))
    assert timed["rootInfo"]["seconds"] < 5 and timed["rootInfo"]["playouts"] < 100_000
    bad = _answers(json.dumps({"id": "x", "seconds": 0}), json.dumps({"id": "y", "seconds": "1"}),
                   json.dumps({"id": "z", "action": "stop"}), json.dumps({"id": "w", "action": "terminate"}),
                   json.dumps({"id": "v", "action": "terminate_all", "terminateId": "q"}),
                   json.dumps({"id": "lone\ud800"}), '{"id": "n", "playouts": ' + "9" * 5000 + "}")
    # (an action is answered when read; queries in their turn, after the search before them)
    error = {a["id"]: a["error"] for a in bad if a["id"] is not None}
    assert "seconds must be a number > 0" in error["x"] and "seconds must be" in error["y"]
    assert "action must be terminate or terminate_all" in error["z"]
    assert "terminateId must be a string" in error["w"] and "takes no terminateId" in error["v"]
    assert {"id": None, "error": "id must be Unicode text (no lone surrogates)"} in bad
    assert len(bad) == 7 and any("integer string conversion" in a["error"] and a["error"].endswith("increase the limit")
                                 for a in bad if a["id"] is None), bad


def test_an_over_long_line_is_answered_in_compact_json_in_its_turn():
    out: list[str] = []
    run(io.StringIO("x" * (MAX_LINE_BYTES + 10) + "\n" + json.dumps({"id": "b", "bogus": 1}) + "\n"), out.append)
    assert out == ['{"id":null,"error":"query line over 65536 bytes"}', '{"id":"b","error":"unknown field bogus"}']


def test_ctrl_c_after_the_end_of_the_input_answers_every_query_and_exits_130(warm, tmp_path):
    # helper-77: SIGINT while the worker searched after EOF aborted the process (SIGABRT), no answer
    import signal
    import subprocess
    import sys
    import time

    queries = tmp_path / "q.jsonl"
    queries.write_text("".join(json.dumps({"id": f"q{i}", **HEAVY, "seconds": 60}) + "\n" for i in range(3)))
    err = tmp_path / "err.txt"
    with open(queries) as stdin, open(err, "w") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "zeroplay", "analyze"], stdin=stdin, stdout=subprocess.PIPE,
                                stderr=stderr, text=True)
        end = time.monotonic() + 300
        while "ready" not in err.read_text() and time.monotonic() < end:
            time.sleep(0.1)
        time.sleep(3.0)  # q1 searching, q2 and q3 queued, the input at its end
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
    answers = [json.loads(line) for line in out.splitlines()]
    assert proc.returncode == 130, err.read_text()
    assert [a["id"] for a in answers] == ["q0", "q1", "q2"], answers
    assert answers[0].get("terminated") is True or "error" in answers[0]
    assert answers[2] == {"id": "q2", "error": "terminated before its search began"}


def test_a_query_read_after_a_terminate_of_its_id_runs(warm):
    # helper-77: the id stayed stopped, so a later query with it was "terminated before its search began"
    import time

    p = _Pipe()
    p.send({"id": "q1", **HEAVY})
    p.send({"id": "q1", **HEAVY})  # queued, read before the terminate: stopped too
    time.sleep(1.0)
    p.send({"id": "t", "action": "terminate", "terminateId": "q1"})
    p.send({"id": "q1", "size": 7, "n_in_row": 4, "playouts": 20})
    answers = p.close()
    first, second, third = (a for a in answers if "action" not in a)
    assert first["terminated"] is True and second == {"id": "q1", "error": "terminated before its search began"}
    assert "error" not in third and "terminated" not in third and third["rootInfo"]["playouts"] == 20


def test_a_closed_output_ends_the_run_with_broken_pipe_and_no_traceback(warm, capsys):
    def write(text):
        raise BrokenPipeError(32, "Broken pipe")

    lines = "".join(json.dumps({"id": f"q{i}", **HEAVY}) + "\n" for i in range(3))
    with pytest.raises(BrokenPipeError):
        run(io.StringIO(lines), write)
    assert "Traceback" not in capsys.readouterr().err


def test_a_terminate_id_that_is_not_unicode_text_is_refused():
    (a,) = _answers(json.dumps({"id": "u", "action": "terminate", "terminateId": "q\ud800"}))
    assert a["id"] == "u" and "terminateId must be a string" in a["error"]


def test_a_closed_output_ends_the_process_while_its_input_stays_open(warm, tmp_path):
    # session 33: with stdout closed and stdin open and idle, the process lived on until the next
    # input line, although nothing could be answered any more
    import subprocess
    import sys
    import time

    err = tmp_path / "err.txt"
    with open(err, "w") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "zeroplay", "analyze"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=stderr, text=True)
        end = time.monotonic() + 300
        while "ready" not in err.read_text() and time.monotonic() < end:
            time.sleep(0.1)
        proc.stdout.close()
        proc.stdin.write(json.dumps({"id": "q", "size": 7, "n_in_row": 4, "playouts": 4}) + "\n")
        proc.stdin.flush()
        try:
            code = proc.wait(timeout=60)
        finally:
            proc.stdin.close()
            proc.kill()
    assert code == 141, err.read_text()
    assert "Traceback" not in err.read_text()
