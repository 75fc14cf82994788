"""The web board's HTTP API through FastAPI's TestClient: flows, streams, records, validation."""

from __future__ import annotations

import json
import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note on httpx versions
    from fastapi.testclient import TestClient

from zeroplay.play.server import create_app
from zeroplay.play.webstore import GameStore


@pytest.fixture()
def client(warm):
    with TestClient(create_app(), raise_server_exceptions=False,
                    base_url="http://127.0.0.1") as c:
        yield c


def new_game(client, **options):
    if options.get("game", "gomoku") == "gomoku":
        options.setdefault("size", 9)
    options.setdefault("playouts", 60)
    r = client.post("/api/games", json=options)
    assert r.status_code == 201, r.text
    return r.json()


def events(response) -> list[tuple[str, dict]]:
    out, name = [], None
    for line in response.iter_lines():
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            out.append((name, json.loads(line[6:])))
    return out


def test_page_and_static_files(client):
    r = client.get("/")
    assert r.status_code == 200 and "<svg id=\"board\"" in r.text
    for path in ("/static/app.js", "/static/style.css"):
        assert client.get(path).status_code == 200
    assert client.get("/api/health").json()["ok"] is True


def test_play_a_game_with_the_engine(client):
    g = new_game(client)
    assert g["your_turn"] and g["width"] == 9 and g["note"]
    g = client.post(f"/api/games/{g['id']}/move", json={"move": "e5"}).json()
    assert g["moves"][0] == {"cell": 40, "text": "e5", "gomocup": "4,4"} and not g["your_turn"]
    r = client.post(f"/api/games/{g['id']}/engine").json()
    search, g = r["search"], r["game"]
    assert len(g["moves"]) == 2 and g["your_turn"] and search["stopped_by"] == "playouts" and search["notes"] == []
    assert search["move"]["cell"] == g["moves"][1]["cell"]
    assert search["playouts"] == 60 and 0 <= search["winrate"] <= 1
    assert search["top"] and search["pv"] and len(search["policy"]) == 81
    assert abs(sum(search["policy"]) - 1) < 0.01
    assert g["winrates"] == [{"ply": 1, "black": search["black_winrate"]}]
    # moves as Gomocup x,y and as cell numbers
    g = client.post(f"/api/games/{g['id']}/move", json={"move": "0,0"}).json()
    assert g["moves"][2]["text"] == "a9"
    client.post(f"/api/games/{g['id']}/engine")
    g = client.post(f"/api/games/{g['id']}/move", json={"move": 80}).json()
    assert g["moves"][4]["text"] == "i1"


def test_engine_plays_first_when_you_are_white(client):
    g = new_game(client, color="white")
    assert not g["your_turn"]
    r = client.post(f"/api/games/{g['id']}/move", json={"move": "e5"})
    assert r.status_code == 409 and "engine's turn" in r.json()["detail"]
    g = client.post(f"/api/games/{g['id']}/engine").json()["game"]
    assert len(g["moves"]) == 1 and g["your_turn"]


def test_engine_stream_sends_progress_then_done(client):
    g = new_game(client, size=15, playouts=3000)
    client.post(f"/api/games/{g['id']}/move", json={"move": "h8"})
    with client.stream("GET", f"/api/games/{g['id']}/engine/stream") as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        evs = events(r)
    names = [n for n, _ in evs]
    assert names[-1] == "done" and set(names[:-1]) <= {"progress"}
    done = evs[-1][1]
    assert len(done["game"]["moves"]) == 2 and done["search"]["final"]
    for _, snap in evs[:-1]:
        assert not snap["final"] and snap["playouts"] <= 3000


def test_analysis_stream_plays_nothing(client):
    g = new_game(client)
    with client.stream("GET", f"/api/games/{g['id']}/analyze/stream?playouts=50") as r:
        evs = events(r)
    assert evs[-1][0] == "done"
    assert evs[-1][1]["game"]["moves"] == [] and evs[-1][1]["search"]["playouts"] == 50
    g = client.get(f"/api/games/{g['id']}").json()
    assert g["analysis"]["ply"] == 0 and g["winrates"][0]["ply"] == 0


def test_undo_takes_back_your_move_and_the_reply(client):
    g = new_game(client)
    gid = g["id"]
    client.post(f"/api/games/{gid}/move", json={"move": "e5"})
    client.post(f"/api/games/{gid}/engine")
    g = client.post(f"/api/games/{gid}/undo").json()
    assert g["moves"] == [] and g["your_turn"] and g["winrates"] == []
    r = client.post(f"/api/games/{gid}/undo")
    assert r.status_code == 409 and "nothing to undo" in r.json()["detail"]


def test_games_are_independent(client):
    a, b = new_game(client), new_game(client, size=15)
    assert a["id"] != b["id"]
    client.post(f"/api/games/{a['id']}/move", json={"move": "e5"})
    assert client.get(f"/api/games/{b['id']}").json()["moves"] == []
    assert client.get(f"/api/games/{a['id']}").json()["moves"][0]["text"] == "e5"


def test_export_and_load_records(client):
    g = new_game(client)
    gid = g["id"]
    for move in ("e5", "d4"):
        client.post(f"/api/games/{gid}/move", json={"move": move})
        client.post(f"/api/games/{gid}/engine")
    moves = [m["cell"] for m in client.get(f"/api/games/{gid}").json()["moves"]]
    psq = client.get(f"/api/games/{gid}/record?format=psq")
    assert psq.status_code == 200 and "attachment" in psq.headers["content-disposition"]
    assert psq.text.startswith("Piskvorky 9x9") and psq.text.splitlines()[1].startswith("5,5,")  # from 1
    sgf = client.get(f"/api/games/{gid}/record?format=sgf").text
    assert sgf.startswith("(;FF[4]GM[4]") and "SZ[9]" in sgf
    for text in (psq.text, sgf):
        r = client.post("/api/games/load", json={"text": text, "playouts": 30})
        assert r.status_code == 201, r.text
        loaded = r.json()
        assert [m["cell"] for m in loaded["moves"]] == moves and loaded["id"] != gid


def test_6x6_defaults_to_four_in_a_row_with_the_shipped_model(client):
    g = new_game(client, size=6)
    assert g["options"]["n_in_row"] == 4 and g["title"] == "gomoku 6x6 freestyle, 4 in a row"
    assert "gomoku-6x6-4-freestyle" in g["engine"] and "shipped" in g["engine"] and not g["note"]
    client.post(f"/api/games/{g['id']}/move", json={"move": "c3"})
    r = client.post(f"/api/games/{g['id']}/engine")
    assert r.status_code == 200 and len(r.json()["game"]["moves"]) == 2
    # the same default for a loaded 6x6 record; other sizes default to five
    r = client.post("/api/games/load", json={"text": "Piskvorky 6x6, 11:11, 0\n3,3,0\n-1\n", "playouts": 30})
    assert r.status_code == 201, r.text
    assert r.json()["options"]["n_in_row"] == 4 and "gomoku-6x6-4-freestyle" in r.json()["engine"]
    assert new_game(client, size=7)["options"]["n_in_row"] == 5


def test_6x6_with_five_in_a_row_plays_without_a_model(client):
    g = new_game(client, size=6, n_in_row=5)
    assert g["options"]["n_in_row"] == 5 and g["title"] == "gomoku 6x6 freestyle, 5 in a row"  # not the default there
    assert g["engine"].startswith("search only") and "model for gomoku 6x6 freestyle, 5 in a row" in g["note"]
    assert "--model" not in g["note"]  # a command-line hint means nothing in the browser


def test_n_in_row_out_of_range_is_refused_with_a_clear_message(client):
    r = client.post("/api/games", json={"size": 6, "n_in_row": 7})
    assert r.status_code == 400
    assert r.json()["detail"] == "n_in_row (stones in a row) must be 3..6 on a 6x6 board, not 7"
    r = client.post("/api/games", json={"n_in_row": 2})
    assert r.status_code == 422 and r.json()["detail"].startswith("n_in_row: ")
    r = client.post("/api/games", json={"n_in_row": "4"})
    assert r.status_code == 422 and "n_in_row" in r.json()["detail"]


@pytest.mark.parametrize("n_in_row,over", [(4, True), (5, False)])
def test_four_in_a_row_wins_when_n_in_row_is_4(client, n_in_row, over):
    # Black a9 b9 c9, White a5 b5 c5 (Gomocup x,y from 1 in PSQ); Black to move plays d9
    psq = "Piskvorky 9x9, 11:11, 0\n1,1,0\n1,5,0\n2,1,0\n2,5,0\n3,1,0\n3,5,0\n-1\n"
    r = client.post("/api/games/load", json={"text": psq, "n_in_row": n_in_row, "playouts": 30})
    assert r.status_code == 201, r.text
    g = r.json()
    assert g["options"]["n_in_row"] == n_in_row and g["your_turn"] and not g["over"]
    g = client.post(f"/api/games/{g['id']}/move", json={"move": "d9"}).json()
    assert g["over"] is over
    if over:
        assert g["winner"] == 0 and g["result"] == "Black wins" and not g["your_turn"]
        assert client.post(f"/api/games/{g['id']}/engine").status_code == 409
    else:
        assert g["winner"] is None and not g["your_turn"]


BAD_REQUESTS = [
    # (method, path (GAME = a real id), json body, expected status)
    ("post", "/api/games", {"size": 4}, 422),
    ("post", "/api/games", {"size": 26}, 422),
    ("post", "/api/games", {"size": "15"}, 422),
    ("post", "/api/games", {"size": 15.5}, 422),
    ("post", "/api/games", {"size": None}, 422),
    ("post", "/api/games", {"rule": "caro"}, 422),
    ("post", "/api/games", {"color": "red"}, 422),
    ("post", "/api/games", {"playouts": 0}, 422),
    ("post", "/api/games", {"playouts": 10**9}, 422),
    ("post", "/api/games", {"game": "chess"}, 422),
    ("post", "/api/games", {"unknown": 1}, 422),
    ("post", "/api/games", {"n_in_row": 2}, 422),
    ("post", "/api/games", {"n_in_row": 26}, 422),
    ("post", "/api/games", {"n_in_row": "4"}, 422),
    ("post", "/api/games", {"n_in_row": 4.0}, 422),
    ("post", "/api/games", {"n_in_row": True}, 422),
    ("post", "/api/games", {"size": 6, "n_in_row": 7}, 400),
    ("post", "/api/games", {"size": 9, "n_in_row": 10}, 400),
    ("post", "/api/games", [1, 2], 422),
    ("post", "/api/games/GAME/move", {"move": "z99"}, 400),
    ("post", "/api/games/GAME/move", {"move": "e55"}, 400),
    ("post", "/api/games/GAME/move", {"move": "9,9"}, 400),
    ("post", "/api/games/GAME/move", {"move": "-1,0"}, 400),
    ("post", "/api/games/GAME/move", {"move": 81}, 400),
    ("post", "/api/games/GAME/move", {"move": -1}, 400),
    ("post", "/api/games/GAME/move", {"move": 10**30}, 400),
    ("post", "/api/games/GAME/move", {"move": ""}, 400),
    ("post", "/api/games/GAME/move", {"move": "x" * 10_000}, 400),
    ("post", "/api/games/GAME/move", {"move": "\u0000\ud7ff"}, 400),
    ("post", "/api/games/GAME/move", {"move": 1.5}, 422),
    ("post", "/api/games/GAME/move", {"move": True}, 422),
    ("post", "/api/games/GAME/move", {"move": None}, 422),
    ("post", "/api/games/GAME/move", {"move": [4, 4]}, 422),
    ("post", "/api/games/GAME/move", {}, 422),
    ("post", "/api/games/GAME/move", "h8", 422),
    ("post", "/api/games/GAME/engine", None, 409),  # your turn, not the engine's
    ("get", "/api/games/GAME/engine/stream", None, 409),
    ("get", "/api/games/GAME/analyze/stream?playouts=0", None, 422),
    ("get", "/api/games/GAME/analyze/stream?playouts=abc", None, 422),
    ("get", "/api/games/GAME/record?format=doc", None, 422),
    ("post", "/api/games/GAME/undo", None, 409),
    ("get", "/api/games/nope", None, 404),
    ("get", "/api/games/" + "a" * 5000, None, 404),
    ("post", "/api/games/nope/move", {"move": "e5"}, 404),
    ("post", "/api/games/nope/engine", None, 404),
    ("post", "/api/games/nope/undo", None, 404),
    ("get", "/api/games/nope/engine/stream", None, 404),
    ("get", "/api/games/nope/analyze/stream", None, 404),
    ("get", "/api/games/nope/record", None, 404),
    ("post", "/api/games/load", {"text": "garbage"}, 400),
    ("post", "/api/games/load", {"text": ""}, 400),
    ("post", "/api/games/load", {"text": "Piskvorky 30x30, 11:11, 0\n1,1,0\n-1\n"}, 400),
    ("post", "/api/games/load", {"text": "Piskvorky 9x9, 11:11, 0\n10,1,0\n-1\n"}, 400),
    ("post", "/api/games/load", {"text": "Piskvorky 9x9, 11:11, 0\n1,1,0\n1,1,0\n-1\n"}, 400),
    ("post", "/api/games/load", {"text": "Piskvorky 9x7, 11:11, 0\n1,1,0\n-1\n"}, 400),
    ("post", "/api/games/load", {"text": "(;FF[4]GM[4]SZ[9];B[ee];B[ff])"}, 400),
    ("post", "/api/games/load", {"text": "(;FF[4]GM[4]SZ[9];B[zz])"}, 400),
    ("post", "/api/games/load", {"text": "(;FF[4]GM[4]SZ[x])"}, 400),
    ("post", "/api/games/load", {"text": "(;FF[4]GM[4])"}, 400),
    ("post", "/api/games/load", {"text": "((((;"}, 400),
    ("post", "/api/games/load", {"text": "(;SZ[9]" + ";B[aa];W[ba];B[ab];W[bb];B[ac];W[bc];B[ad];W[bd];B[ae];W[be];B[af])"}, 400),
    ("post", "/api/games/load", {"text": "x", "format": "doc"}, 422),
    ("post", "/api/games/load", {"text": "Piskvorky 9x9, 11:11, 0\n1,1,0\n-1\n", "n_in_row": 10}, 400),
    ("post", "/api/games/load", {"text": "Piskvorky 9x9, 11:11, 0\n1,1,0\n-1\n", "n_in_row": 2}, 422),
    ("post", "/api/games/load", {"text": "Piskvorky 9x9, 11:11, 0\n1,1,0\n-1\n", "n_in_row": "5"}, 422),
    ("post", "/api/games/load", {"text": "x" * 300_000}, 422),
    ("post", "/api/games/load", {}, 422),
]


@pytest.mark.parametrize("method,path,body,status", BAD_REQUESTS)
def test_bad_input_gets_a_4xx_with_a_message(client, method, path, body, status):
    g = new_game(client)
    path = path.replace("GAME", g["id"])
    kwargs = {} if body is None else {"json": body}
    r = getattr(client, method)(path, **kwargs)
    assert r.status_code == status, (r.status_code, r.text)
    assert isinstance(r.json()["detail"], str) and r.json()["detail"]


def test_malformed_json_and_occupied_cells_and_finished_games(client):
    g = new_game(client, game="tictactoe")
    gid = g["id"]
    r = client.post(f"/api/games/{gid}/move", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422
    client.post(f"/api/games/{gid}/move", json={"move": "a1"})
    client.post(f"/api/games/{gid}/engine")
    r = client.post(f"/api/games/{gid}/move", json={"move": "a1"})
    assert r.status_code == 400 and "occupied" in r.json()["detail"]
    # play the game out; then every move and engine request is refused with 409
    while not client.get(f"/api/games/{gid}").json()["over"]:
        g = client.get(f"/api/games/{gid}").json()
        if g["your_turn"]:
            cell = g["board"].index(0)
            client.post(f"/api/games/{gid}/move", json={"move": cell})
        else:
            client.post(f"/api/games/{gid}/engine")
    g = client.get(f"/api/games/{gid}").json()
    assert g["result"] in ("draw", "Black wins", "White wins")
    assert client.post(f"/api/games/{gid}/engine").status_code == 409
    if 0 in g["board"]:
        assert client.post(f"/api/games/{gid}/move", json={"move": g["board"].index(0)}).status_code == 409


def test_the_store_drops_the_oldest_idle_game():
    from zeroplay.play.webgame import Options

    store = GameStore(max_games=2)
    a = store.new(Options(size=5, playouts=1))
    b = store.new(Options(size=5, playouts=1))
    store.get(a.id)  # a is now the most recent
    store.new(Options(size=5, playouts=1))
    assert store.get(a.id) is a and len(store) == 2
    with pytest.raises(LookupError):
        store.get(b.id)


def test_serve_refuses_a_bad_or_busy_port_with_one_line(capsys):
    import socket

    from zeroplay.play.server import serve

    assert serve("127.0.0.1", 99999) == 2
    assert "--port must be in 0..65535" in capsys.readouterr().err
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    try:
        assert serve("127.0.0.1", busy.getsockname()[1]) == 2
        captured = capsys.readouterr()
        assert "cannot listen on 127.0.0.1:" in captured.err and captured.out == ""
    finally:
        busy.close()


def test_a_6x6_five_in_a_row_record_reloads_only_with_its_line_length(client):
    """Records store no line length: a 6x6 record of a five-in-a-row game replayed as four in a
    row (the 6x6 default) ends early; the error names the move by its place (it used to give the
    cell number: "move 7") and says what to give."""
    sgf = "(;FF[4]GM[4]SZ[6];B[aa];W[ff];B[ab];W[fe];B[ac];W[fd];B[ad];W[bb])"
    r = client.post("/api/games/load", json={"text": sgf, "playouts": 30})
    assert r.status_code == 400
    detail = r.json()["detail"]
    assert "move 8 (b5): the game is over" in detail and "give n_in_row" in detail
    r = client.post("/api/games/load", json={"text": sgf, "playouts": 30, "n_in_row": 5})
    assert r.status_code == 201 and len(r.json()["moves"]) == 8


def test_a_search_that_fills_its_tables_recycles_and_says_so(client, monkeypatch):
    from zeroplay.play import webgame

    monkeypatch.setattr(webgame, "GAME_MEMORY_BYTES", 3_400_000)  # the threat solver takes 3 MiB: a few hundred nodes on 9x9
    g = new_game(client, color="white", playouts=2000)
    r = client.post(f"/api/games/{g['id']}/engine").json()["search"]
    assert r["stopped_by"] == "playouts" and r["playouts"] == 2000
    assert any("recycled" in n for n in r["notes"])


def test_tictactoe_refuses_gomoku_options(client):
    """The terminal refuses --size for tic-tac-toe; the API used to ignore it (a 3x3 game)."""
    r = client.post("/api/games", json={"game": "tictactoe", "size": 6})
    assert r.status_code == 400 and r.json()["detail"] == "size: Gomoku options; tictactoe has none"
    r = client.post("/api/games", json={"game": "tictactoe", "n_in_row": 4, "rule": "standard"})
    assert r.status_code == 400 and r.json()["detail"].startswith("n_in_row, rule: Gomoku options")
    r = client.post("/api/games", json={"game": "tictactoe", "playouts": 30})
    assert r.status_code == 201 and r.json()["width"] == 3


def test_an_sgf_that_lost_its_parenthesis_is_read_as_sgf(client):
    """A new user's record without its '(' was refused as "not a PSQ record": PSQ has no '[', so
    the automatic format is SGF and the error names what is wrong with the SGF."""
    r = client.post("/api/games/load", json={"text": ";FF[4]GM[4]SZ[15];B[hh];W[hi])"})
    assert r.status_code == 400
    detail = r.json()["detail"]
    assert "SGF" in detail and "PSQ" not in detail and "'(;'" in detail
