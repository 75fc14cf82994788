"""The web board's tools through its HTTP API (issue 23): free position set-up with the side to
move chosen, engine against engine (the engine moves for either side), SGF records that keep the
whole variation tree and a set-up start, and the policy heat map only where it means something.
9x9 boards and a few playouts per search, so each test takes seconds."""

from __future__ import annotations

import json
import threading
import warnings

import numpy as np
import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note on httpx versions
    from fastapi.testclient import TestClient

from zeroplay.play import webanalysis
from zeroplay.play.server import _precheck, create_app
from zeroplay.play.webgame import GameConflictError, Options, WebGame
from zeroplay.play.webrecord import read_board_sgf


@pytest.fixture()
def client(warm):
    with TestClient(create_app(), raise_server_exceptions=False, base_url="http://127.0.0.1") as c:
        yield c


def events(response) -> list[tuple[str, dict]]:
    out, name = [], None
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            out.append((name, json.loads(line[6:])))
    return out


def cell(text: str, size: int = 9) -> int:
    """'e5' (column letter, row from the bottom) as a cell row * size + col (row 0 at the top)."""
    return (size - int(text[1:])) * size + "abcdefghi".index(text[0])


def new(client, **extra) -> dict:
    r = client.post("/api/games", json={"size": 9, "playouts": 16, **extra})
    assert r.status_code == 201, r.text
    return r.json()


def load(client, text: str, **extra) -> dict:
    r = client.post("/api/games/load", json={"text": text, "playouts": 16, **extra})
    assert r.status_code == 201, r.text
    return r.json()


# --- free set-up --------------------------------------------------------------------------------
def test_a_set_up_position_with_white_to_move_plays_and_exports_as_sgf(client):
    black, white = [cell(m) for m in ("e5", "f5", "g5")], [cell("a1")]
    g = new(client, setup={"black": black, "white": white, "to_play": "white"})
    assert g["setup"] == {"black": sorted(black), "white": white, "to_play": 1}
    assert g["to_play"] == 1 and g["cursor"] == 0 and g["line"] == [] and not g["your_turn"]  # the engine's turn
    assert g["board"].count(1) == 3 and g["board"].count(2) == 1
    r = client.post(f"/api/games/{g['id']}/engine")
    assert r.status_code == 200, r.text
    g = r.json()["game"]
    reply = g["line"][0]["cell"]
    assert g["cursor"] == 1 and g["board"][reply] == 2  # White's stone: the engine played White
    assert reply in (cell("d5"), cell("h5"))  # three in a row open at both ends: White blocks it
    assert client.post(f"/api/games/{g['id']}/move", json={"move": "b2"}).status_code == 200
    # PSQ has no set-up stones: SGF only; the SGF carries AB/AW/PL and loads back the same
    psq = client.get(f"/api/games/{g['id']}/record?format=psq")
    assert psq.status_code == 400 and "SGF" in psq.json()["detail"]
    sgf = client.get(f"/api/games/{g['id']}/record?format=sgf").text
    assert "AB[ee][fe][ge]" in sgf and "AW[ai]" in sgf and "PL[W]" in sgf
    back = load(client, sgf)
    assert back["setup"] == g["setup"] | {} and [m["cell"] for m in back["line"]] == [reply, cell("b2")]
    assert back["board"] == client.get(f"/api/games/{g['id']}").json()["board"]


def test_undo_and_the_move_list_follow_the_side_to_move_of_a_set_up_start(client):
    g = new(client, setup={"black": [cell("e5")], "white": [], "to_play": "black"})  # Black again
    assert g["to_play"] == 0 and g["your_turn"]
    g = client.post(f"/api/games/{g['id']}/move", json={"move": "d4"}).json()
    assert g["to_play"] == 1 and g["line"][0]["text"] == "d4"
    g = client.post(f"/api/games/{g['id']}/engine").json()["game"]
    g = client.post(f"/api/games/{g['id']}/undo").json()  # the person's move and the reply
    assert g["line"] == [] and g["to_play"] == 0 and g["board"].count(1) == 1


@pytest.mark.parametrize("setup, status, words", [
    ({"black": [81]}, 400, "cell 0..80"),
    ({"black": [3, 3]}, 400, "twice"),
    ({"black": [0, 1, 2, 3, 4], "white": [9, 10, 11, 12, 13], "to_play": "black"}, 400, "both sides"),
    ({"black": [0, 1, 2], "white": []}, 400, "to_play"),  # counts that need the side to move
    ({"black": ["z99"]}, 400, "not a point of this board"),
    ({"black": ["e5" * 10]}, 422, "black"),  # text longer than any point's
    ({"black": [1], "to_play": "red"}, 422, "to_play"),
    ({"black": list(range(700))}, 422, "black"),
    ({"stones": [1]}, 422, "stones"),
])
def test_bad_set_ups_are_refused_with_a_message(client, setup, status, words):
    r = client.post("/api/games", json={"size": 9, "playouts": 16, "setup": setup})
    assert r.status_code == status and words in r.json()["detail"], r.text


def test_set_up_stones_may_be_written_as_points(client):
    """A new user's first try was Go's "E5": only cell numbers were taken (422)."""
    g = new(client, setup={"black": ["e5", "d4"], "white": ["7,7"], "to_play": "white"})
    assert g["setup"] == {"black": sorted([cell("e5"), cell("d4")]), "white": [7 * 9 + 7], "to_play": 1}
    r = client.post("/api/games", json={"game": "go", "size": 9, "playouts": 8,
                                        "setup": {"black": ["E5", "C3"], "white": ["G7"]}})
    assert r.status_code == 201, r.text
    assert sorted(r.json()["setup"]["black"]) == [40, 56] and r.json()["setup"]["white"] == [24]
    r = client.post("/api/games", json={"game": "go", "size": 9, "playouts": 8, "setup": {"black": ["pass"]}})
    assert r.status_code == 400 and "not a point" in r.json()["detail"]


def test_a_set_up_win_is_over_at_once(client):
    g = new(client, setup={"black": [cell(m) for m in ("a1", "b1", "c1", "d1", "e1")], "white": [cell("a9")],
                            "to_play": "white"})
    assert g["over"] and g["winner"] == 0


# --- engine against engine ----------------------------------------------------------------------
def test_the_engine_moves_for_either_side_only_when_asked(client):
    g = new(client)  # the person is Black, to move
    gid = g["id"]
    assert client.post(f"/api/games/{gid}/engine").status_code == 409
    assert client.get(f"/api/games/{gid}/engine/stream").status_code == 409
    moves = []
    for _ in range(3):  # Black, White, Black: all the engine's, each search kept for the graph
        with client.stream("GET", f"/api/games/{gid}/engine/stream?either_side=true") as r:
            assert r.status_code == 200
            name, data = events(r)[-1]
        assert name == "done" and "move" in data["search"]
        moves.append(data["search"]["move"]["cell"])
    g = client.get(f"/api/games/{gid}").json()
    assert [m["cell"] for m in g["line"]] == moves and g["to_play"] == 1
    assert [w["ply"] for w in g["winrates"]] == [0, 1, 2]  # each move's search, stored as it went


def test_a_stopped_engine_search_makes_way_for_the_next_request(warm, monkeypatch):
    """The flake of ``test_board_tools_in_chromium``: after engine against engine's Stop the
    board asks at once for the engine's next move (or starts an analysis) while the search it
    cancelled still holds the game. That request was refused as "already thinking"; on the
    stream the board got a ``failed`` event and waited for ever. A cancelled search now makes
    way: the request waits for it to wind down (up to 5 s), and the precheck lets it through."""
    monkeypatch.setattr(webanalysis, "PROGRESS_EVERY_S", 0.0)
    g = WebGame("s", Options(size=9, playouts=2000))
    started, release = threading.Event(), threading.Event()
    cancel = threading.Event()

    def held(snapshot):  # the stopped search, still in its loop
        started.set()
        release.wait(10)

    first = threading.Thread(target=lambda: g.think(play=True, either_side=True, progress=held, cancel=cancel))
    first.start()
    try:
        assert started.wait(60)
        with pytest.raises(GameConflictError, match="already thinking"):  # a live search is not stopped
            _precheck(g, play=True, either_side=True)
        cancel.set()  # the client went away
        _precheck(g, play=True, either_side=True)
        threading.Timer(0.3, release.set).start()
        snap = g.think(play=True, either_side=True, playouts=8)
    finally:
        release.set()
        first.join(30)
    assert "move" in snap and not snap["cancelled"]
    assert len(g.to_json()["line"]) == 1  # the cancelled search played nothing, the next one its move


# --- SGF with every variation -------------------------------------------------------------------
def test_variations_go_out_in_sgf_and_come_back(client):
    g = load(client, "(;GM[4]SZ[9];B[ee];W[dd];B[ff];W[gg])")
    gid = g["id"]
    client.post(f"/api/games/{gid}/goto", json={"ply": 2})
    client.post(f"/api/games/{gid}/move", json={"move": "a1"})  # Black's variation at ply 3
    client.post(f"/api/games/{gid}/goto", json={"ply": 1})
    client.post(f"/api/games/{gid}/move", json={"move": "i9"})  # White's variation at ply 2
    client.post(f"/api/games/{gid}/move", json={"move": "h1"})
    before = client.post(f"/api/games/{gid}/mainline").json()
    sgf = client.get(f"/api/games/{gid}/record?format=sgf").text
    assert sgf.count("(") == 5 and "(;B[ai])" in sgf and "(;W[ia];B[hi])" in sgf
    back = load(client, sgf)
    assert back["tree_size"] == before["tree_size"] == 8
    assert [m["text"] for m in back["line"]] == [m["text"] for m in before["line"]]  # the main line shown
    for ply, nexts in ((1, ["d6 (main)", "i9"]), (2, ["f4 (main)", "a1"])):
        at = client.post(f"/api/games/{back['id']}/goto", json={"ply": ply}).json()
        assert [v["text"] + (" (main)" if v["main"] else "") for v in at["next"]] == nexts
    assert client.get(f"/api/games/{back['id']}/record?format=sgf").text == sgf


def test_a_hand_written_tree_loads_with_its_variations_and_analysis(client):
    text = "(;GM[4]SZ[9]ZW[0.5];B[ee](;W[dd]ZW[0.6];B[cc])(;W[ff]C[note];B[gg])(;W[aa]))"
    g = load(client, text)
    assert [m["text"] for m in g["line"]] == ["e5", "d6", "c7"] and g["tree_size"] == 7
    at = client.post(f"/api/games/{g['id']}/goto", json={"ply": 1}).json()
    assert [v["text"] for v in at["next"]] == ["d6", "f4", "a9"]
    assert {w["ply"]: w["black"] for w in at["winrates"]} == {0: 0.5, 2: 0.6}


@pytest.mark.parametrize("text, words", [
    ("(;GM[4]SZ[9];B[ee](;W[dd])(;B[ff]))", "out of turn"),
    ("(;GM[4]SZ[9];B[ee](;W[ee]))", "e5"),
    ("(;GM[4]SZ[9];B[ee];W[])", "pass"),
    ("(;GM[4]SZ[9];B[ee];AB[aa])", "root node only"),
    ("(;GM[4]SZ[9]AB[aa][ab][ac][ad][ae]AW[ia][ib][ic][id][ie]PL[B])", "both sides"),
    ("(;GM[4]SZ[9]PL[X])", "PL"),
    ("(;GM[4]SZ[9];B[ee];W[zz])", "not a point"),
    ("(;GM[2]SZ[8];B[ee])", "GM[2]"),  # Othello: not a game the board plays (GM[1], Go, is; test_server_go.py)
])
def test_bad_trees_are_400_with_the_reason(client, text, words):
    r = client.post("/api/games/load", json={"text": text, "playouts": 16})
    assert r.status_code == 400 and words in r.json()["detail"], r.text


def test_a_tree_larger_than_a_game_holds_is_refused():
    many = "(;GM[4]SZ[9];B[ee]" + "".join(f"(;W[{a}{b}])" for a in "abcd" for b in "abcdefghi") + ")"
    assert len(read_board_sgf(many).move) == 38
    with pytest.raises(ValueError, match="more than 20 positions"):
        read_board_sgf(many, max_positions=20)


# --- the heat map only where the policy means something -----------------------------------------
def test_the_policy_is_left_out_when_uniform_or_solved(warm):
    g = WebGame("t", Options(size=9, playouts=16, model="search"))
    s = g.state
    uniform = np.zeros(81, np.float32)
    uniform[s.legal_moves()] = 1 / len(s.legal_moves())
    assert g._policy(uniform, s, None)["policy"] is None
    assert "uniform" in g._policy(uniform, s, None)["policy_note"]
    varied = uniform.copy()
    varied[40] *= 3
    shown = g._policy(varied, s, None)
    assert shown["policy"][40] > shown["policy"][0] > 0 and shown["policy_source"] == "heuristic"
    solved = g._policy(varied, s, "win")
    assert solved["policy"] is None and "solved" in solved["policy_note"]


def test_a_solved_position_streams_no_heat_map(client):
    # Black to move with four in a row open at one end: a win in one, proven
    g = load(client, "(;GM[4]SZ[9];B[ae];W[ai];B[be];W[bi];B[ce];W[ci];B[de];W[hh])")
    with client.stream("GET", f"/api/games/{g['id']}/analyze/stream?playouts=50") as r:
        search = events(r)[-1][1]["search"]
    assert search["proven"] == "win" and search["policy"] is None and "solved" in search["policy_note"]
    g = new(client)
    with client.stream("GET", f"/api/games/{g['id']}/analyze/stream?playouts=16") as r:
        search = events(r)[-1][1]["search"]
    assert search["proven"] is None and (search["policy"] is None) == (search["policy_note"] is not None)


def test_mistakes_after_a_set_up_start_are_charged_to_the_side_that_moved(client):
    from zeroplay.play.gametree import GameTree
    from zeroplay.play.review import move_drop

    t = GameTree(capacity=4)
    a = t.add(0, 10)
    t.set_analysis(0, 0.5)
    t.set_analysis(a, 0.8)  # Black's win rate rose by 0.3 with the first move
    assert move_drop(t, a, 1) == pytest.approx(-0.3)  # Black moved first: a good move
    assert move_drop(t, a, 1, first_mover=1) == pytest.approx(0.3)  # White moved first: a blunder
    g = new(client, setup={"black": [cell("e5"), cell("f5")], "white": [cell("a1")], "to_play": "white"})
    gid = g["id"]
    client.post(f"/api/games/{gid}/engine")  # White (the engine)
    client.post(f"/api/games/{gid}/move", json={"move": "a9"})  # Black (the person) wastes a move
    with client.stream("GET", f"/api/games/{gid}/review/stream?playouts=16") as r:
        assert events(r)[-1][0] == "done"
    g = client.get(f"/api/games/{gid}").json()
    assert [w["ply"] for w in g["winrates"]] == [0, 1, 2] and all(m["drop"] is not None for m in g["line"])
    first = g["line"][0]  # White's move: its drop is White's loss of win rate (Black's rise)
    assert first["drop"] == pytest.approx(g["winrates"][1]["black"] - g["winrates"][0]["black"], abs=1e-3)
