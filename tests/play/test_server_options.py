"""``zeroplay serve --model`` / ``--playouts`` and the warning for a non-loopback ``--host``.

A model given to the server plays every web game, and the settings a request leaves out come
from its game, as ``zeroplay play --model`` takes them; settings it cannot play, and a model that
does not load, are refused in ``zeroplay play``'s words (one function words both:
``zeroplay.engine.factory.check_model``). The default playouts are ``zeroplay play``'s.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import urllib.request
import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note on httpx versions
    from fastapi.testclient import TestClient

from play_helpers import start_serve

from zeroplay.engine.factory import PLAY_PLAYOUTS
from zeroplay.play.server import create_app, is_loopback

EIGHT = "gomoku-8x8-5-freestyle"


def play_error(capsys, *args: str) -> str:
    """What ``zeroplay play ARGS`` says on stderr about its options (without the prefix); asserts
    that it refused them with one line and exit status 2."""
    from zeroplay.play.commands import add_play_commands
    from zeroplay.play.terminal import run

    parser = argparse.ArgumentParser(prog="zeroplay")
    add_play_commands(parser.add_subparsers(dest="command"))
    capsys.readouterr()
    assert run(parser.parse_args(["play", *args]), inp=lambda _: "quit") == 2
    err = capsys.readouterr().err
    assert err.startswith("zeroplay play: error: ") and err.count("\n") == 1, err
    return err[len("zeroplay play: error: "):].rstrip("\n")


@pytest.fixture(scope="module")
def eight(warm):
    """A client of a server started with ``--model gomoku-8x8-5-freestyle --playouts 40``."""
    with TestClient(create_app(model=EIGHT, playouts=40), raise_server_exceptions=False,
                    base_url="http://127.0.0.1") as c:
        yield c


# --- playouts ------------------------------------------------------------------------------------------
def test_default_playouts_are_zeroplay_plays(warm):
    with TestClient(create_app(), raise_server_exceptions=False,
                    base_url="http://127.0.0.1") as c:
        assert c.get("/api/defaults").json()["playouts"] == PLAY_PLAYOUTS == 800
        r = c.post("/api/games", json={"size": 9})
        assert r.status_code == 201 and r.json()["options"]["playouts"] == PLAY_PLAYOUTS
        r = c.post("/api/games/load", json={"text": "Piskvorky 9x9, 11:11, 0\n5,5,0\n-1\n"})
        assert r.status_code == 201 and r.json()["options"]["playouts"] == PLAY_PLAYOUTS
    from zeroplay.play.commands import add_play_commands

    parser = argparse.ArgumentParser(prog="zeroplay")
    add_play_commands(parser.add_subparsers(dest="command"))
    assert parser.parse_args(["serve"]).playouts == PLAY_PLAYOUTS
    assert "default 800" in parser._subparsers._group_actions[0].choices["play"].format_help()


def test_the_servers_playouts_are_the_default_and_a_game_may_choose(warm):
    with TestClient(create_app(playouts=37), raise_server_exceptions=False,
                    base_url="http://127.0.0.1") as c:
        assert c.get("/api/defaults").json()["playouts"] == 37
        g = c.post("/api/games", json={"size": 9, "color": "white"}).json()
        assert g["options"]["playouts"] == 37
        search = c.post(f"/api/games/{g['id']}/engine").json()["search"]
        assert search["playouts"] == 37
        g = c.post("/api/games", json={"size": 9, "playouts": 12}).json()  # the API's own option stays
        assert g["options"]["playouts"] == 12


def test_a_game_may_turn_the_varied_opening_off(warm):
    """The web board varied the engine's first moves always; ``zeroplay play`` has
    --deterministic. A game's ``vary_opening`` false plays the most visited move at every ply."""
    app = create_app(playouts=40)
    with TestClient(app, raise_server_exceptions=False, base_url="http://127.0.0.1") as c:
        on = c.post("/api/games", json={"size": 9}).json()
        assert on["options"]["vary_opening"] is True
        assert app.state.games.get(on["id"]).rng is not None
        off = c.post("/api/games", json={"size": 9, "vary_opening": False}).json()
        assert off["options"]["vary_opening"] is False
        assert app.state.games.get(off["id"]).rng is None
        for move in ("e5", "d4"):
            c.post(f"/api/games/{off['id']}/move", json={"move": move}).json()
            r = c.post(f"/api/games/{off['id']}/engine").json()
            assert r["search"]["move"]["cell"] == r["search"]["best"]["cell"]
        assert c.post("/api/games", json={"size": 9, "vary_opening": "no"}).status_code == 422
        loaded = c.post("/api/games/load", json={"text": "[record]\n", "vary_opening": False})
        assert loaded.status_code in (201, 400)  # a bad record or not: the option itself is accepted


def test_serve_refuses_playouts_out_of_the_web_range(capsys):
    from zeroplay.play.server import serve

    assert serve("127.0.0.1", 0, playouts=10**6) == 2
    captured = capsys.readouterr()
    assert captured.err == "zeroplay serve: error: --playouts must be 1..20000 on the web board, got 1000000\n"
    assert captured.out == ""


# --- --model ---------------------------------------------------------------------------------------------
def test_the_models_game_is_the_default(eight):
    d = eight.get("/api/defaults").json()
    assert (d["game"], d["size"], d["n_in_row"], d["rule"], d["playouts"]) == ("gomoku", 8, 5, "freestyle", 40)
    assert d["model"] == f"{EIGHT}.safetensors" and d["n_in_row_by_size"] == {"6": 4}
    g = eight.post("/api/games", json={}).json()
    assert g["width"] == 8 and g["title"] == "gomoku 8x8 freestyle" and g["options"]["playouts"] == 40
    assert g["engine"].startswith(f"model {EIGHT}.safetensors (shipped")
    assert g["note"] is None  # the default of its own board since 2026-12-05
    r = eight.post(f"/api/games/{g['id']}/move", json={"move": "d5"})
    assert r.status_code == 200
    r = eight.post(f"/api/games/{g['id']}/engine")
    assert r.status_code == 200 and len(r.json()["game"]["moves"]) == 2 and r.json()["search"]["playouts"] == 40
    # a loaded 8x8 record: the model's game too
    r = eight.post("/api/games/load", json={"text": "Piskvorky 8x8, 11:11, 0\n4,4,0\n-1\n"})
    assert r.status_code == 201 and EIGHT in r.json()["engine"]


def test_settings_the_model_cannot_play_are_refused_in_plays_words(eight, capsys):
    r = eight.post("/api/games", json={"n_in_row": 4})
    assert r.status_code == 400
    assert r.json()["detail"] == play_error(capsys, "--model", EIGHT, "--n-in-row", "4")
    r = eight.post("/api/games", json={"game": "tictactoe"})
    assert r.status_code == 400
    assert r.json()["detail"] == play_error(capsys, "--model", EIGHT, "--game", "tictactoe")
    # the b4c32 net is fully convolutional: a 9x9 record loads, with the note that 9x9 is unmeasured
    r = eight.post("/api/games/load", json={"text": "Piskvorky 9x9, 11:11, 0\n5,5,0\n-1\n"})
    assert r.status_code == 201 and "not measured on 9x9" in r.json()["note"]
    assert eight.get("/api/health").json()["ok"]  # nothing broke


def test_serve_refuses_a_bad_model_before_it_binds(capsys, tmp_path):
    """The message is ``zeroplay play --model``'s, and it comes before the port is tried: a busy
    port is not what is reported."""
    from zeroplay.play.server import serve

    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    garbage = tmp_path / "notes.safetensors"
    garbage.write_text("these are notes, not a model\n")
    try:
        for model in ("no-such-model", str(tmp_path / "missing.safetensors"), str(garbage)):
            said = play_error(capsys, "--model", model)
            assert serve("127.0.0.1", busy.getsockname()[1], model=model) == 2
            captured = capsys.readouterr()
            assert captured.err == f"zeroplay serve: error: {said}\n" and captured.out == ""
    finally:
        busy.close()


def test_serve_refuses_a_model_of_a_game_the_board_does_not_play(capsys):
    from zeroplay.play import webstore
    from zeroplay.play.server import serve

    store = webstore.GameStore(model=EIGHT)
    store.model_info = {"name": "connect4", "options": {}}  # a Connect Four model's header
    with pytest.raises(ValueError, match=r"is a connect4 model: the web board plays gomoku and tictactoe"):
        store.check()
    assert serve("127.0.0.1", 0, model=EIGHT, playouts=0) == 2  # playouts first: nothing loads
    assert capsys.readouterr().err.startswith("zeroplay serve: error: --playouts must be")


def test_serve_command_line_refuses_a_bad_model_with_one_line():
    proc = subprocess.run([sys.executable, "-m", "zeroplay", "serve", "--port", "0", "--model", "no-such-model"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("zeroplay serve: error: no checkpoint at no-such-model (give a path, or a shipped "
                                  "model's name: ") and proc.stderr.count("\n") == 1


def test_serve_with_a_model_and_playouts_end_to_end(warm):
    printed: list[str] = []
    proc, url = start_serve("--model", EIGHT, "--playouts", "33", stdout_lines=printed)
    try:
        with urllib.request.urlopen(url + "/api/defaults", timeout=30) as r:
            defaults = json.loads(r.read())
        assert (defaults["size"], defaults["n_in_row"], defaults["playouts"]) == (8, 5, 33)
        request = urllib.request.Request(url + "/api/games", data=b"{}", method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as r:
            g = json.loads(r.read())
        assert g["width"] == 8 and EIGHT in g["engine"] and g["options"]["playouts"] == 33
    finally:
        proc.terminate()
        try:
            out, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
    assert b"warning" not in err  # a loopback address: nothing to warn about
    assert printed == [f"zeroplay web board: {url}/  (Ctrl-C stops it)\n"] and out == b""  # the port it bound


# --- --host ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("address,loopback", [("127.0.0.1", True), ("127.0.1.1", True), ("::1", True),
                                              ("::ffff:127.0.0.1", True), ("0.0.0.0", False), ("::", False),
                                              ("192.168.1.20", False), ("10.0.0.1", False),
                                              ("fe80::1%eth0", False), ("", False)])
def test_is_loopback(address, loopback):
    assert is_loopback(address) is loopback


@pytest.mark.parametrize("loopback", [True, False])
def test_a_host_other_than_loopback_is_warned_about_on_stderr(monkeypatch, capsys, loopback):
    """The server itself is not run (its ``run`` is replaced): the test binds 127.0.0.1 only and
    makes the address look like another."""
    import uvicorn

    from zeroplay.play import server

    ran = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: ran.append(sockets))
    monkeypatch.setattr(server, "_warm_up", lambda: None)
    monkeypatch.setattr(server, "is_loopback", lambda address: loopback)
    assert server.serve("127.0.0.1", 0) == 0 and len(ran) == 1
    captured = capsys.readouterr()
    if loopback:
        assert captured.err == ""
    else:
        assert captured.err.count("\n") == 1
        assert captured.err.startswith("zeroplay serve: warning: listening on 127.0.0.1 (127.0.0.1), not only "
                                       "on this machine: the board has no authentication")
    assert captured.out.startswith("zeroplay web board: http://127.0.0.1:")
