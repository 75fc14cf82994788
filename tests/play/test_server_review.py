"""The web board's review (issue 23, "Deliver — review and analysis") through its HTTP API:
stepping through a game, variations, the whole-game review, forced wins and records that keep the
analysis. 9x9 boards and a few playouts per search, so each test takes seconds."""

from __future__ import annotations

import json
import threading
import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note on httpx versions
    from fastapi.testclient import TestClient

from zeroplay.play.gametree import GameTree, TreeFullError
from zeroplay.play.review import mistake, move_drop, winning_line
from zeroplay.play.server import create_app
from zeroplay.play.webgame import GameConflictError, GameInputError, Options, WebGame
from zeroplay.play.weboptions import MAX_WEB_PLAYOUTS
from zeroplay.play.webstore import GameStore


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


def load(client, text: str, **extra) -> dict:
    r = client.post("/api/games/load", json={"text": text, "playouts": 16, **extra})
    assert r.status_code == 201, r.text
    return r.json()


def psq(*cells_xy: tuple[int, int], size: int = 9) -> str:
    """A PSQ record of moves given as (x, y) from the top-left, from 0."""
    return "\n".join([f"Piskvorky {size}x{size}, 11:11, 0", *(f"{x + 1},{y + 1},0" for x, y in cells_xy), "-1"]) + "\n"


FOUR_MOVES = psq((4, 4), (3, 3), (5, 4), (3, 5))  # e5 d6 f5 d4 (y from the top)


# --- the variation tree ----------------------------------------------------------------------
def test_the_tree_keeps_variations_reuses_taken_back_rows_and_is_bounded():
    t = GameTree(capacity=5)
    a = t.add(0, 40)
    b = t.add(a, 41)
    v = t.add(a, 50)  # a variation: the second child
    assert t.add(a, 41) == b and t.children(a) == [b, v] and t.moves(v) == [40, 50]
    assert t.on_main_line(b) and not t.on_main_line(v) and t.main_line_branch(v) == a
    t.promote(v)
    assert t.children(a) == [v, b] and t.on_main_line(v)
    t.add(v, 60)
    with pytest.raises(TreeFullError, match="full"):
        t.add(b, 61)
    t.remove(v)  # v and its child go back to the free list
    assert t.children(a) == [b] and len(t.free) == 2
    assert t.moves(t.add(b, 61)) == [40, 41, 61] and t.winrate(t.add(b, 62)) is None  # reused rows start clean


def test_mistakes_are_the_drop_of_the_movers_win_rate():
    t = GameTree()
    a = t.add(0, 40)
    b = t.add(a, 41)
    t.set_analysis(0, 0.55)
    t.set_analysis(a, 0.30)  # Black's move e5 lost 0.25 of Black's win rate
    t.set_analysis(b, 0.36)  # White's move lost 0.06 of White's
    assert move_drop(t, a, 1) == pytest.approx(0.25) and mistake(move_drop(t, a, 1)) == "blunder"
    assert move_drop(t, b, 2) == pytest.approx(0.06) and mistake(move_drop(t, b, 2)) == "inaccuracy"
    assert [mistake(d) for d in (0.199, 0.10, 0.0499, -0.3, None)] == ["mistake", "mistake", None, None, None]


def test_the_winning_line_is_the_run_through_the_last_move():
    board = [0] * 81
    for c in (20, 30, 40, 50, 60, 41):  # c3 d4 e5 f6 g7 diagonal (from the top-left) and one more
        board[c] = 1
    assert winning_line(board, 9, 9, 40, 5) == [20, 30, 40, 50, 60]
    assert winning_line(board, 9, 9, 41, 5) == [] and winning_line(board, 9, 9, None, 5) == []


# --- stepping through a game and variations --------------------------------------------------
def test_step_through_a_game_and_keep_both_lines_of_a_variation(client):
    g = load(client, FOUR_MOVES)
    gid = g["id"]
    assert g["cursor"] == 4 and g["at_end"] and [m["text"] for m in g["line"]] == ["e5", "d6", "f5", "d4"]
    g = client.post(f"/api/games/{gid}/goto", json={"ply": 1}).json()
    assert g["cursor"] == 1 and len(g["moves"]) == 1 and not g["at_end"] and len(g["line"]) == 4
    assert g["board"].count(0) == 80 and g["to_play"] == 1 and g["your_turn"]  # either side, mid-line
    # White's different reply from here: a variation, both lines kept
    g = client.post(f"/api/games/{gid}/move", json={"move": "a1"}).json()
    assert [m["text"] for m in g["line"]] == ["e5", "a1"] and not g["main_line"] and g["branch_ply"] == 1
    assert g["line"][1]["alternatives"] == 1
    g = client.post(f"/api/games/{gid}/goto", json={"ply": 1}).json()
    assert [n["text"] for n in g["next"]] == ["d6", "a1"] and g["next"][0]["main"]
    variation = g["next"][1]["node"]
    g = client.post(f"/api/games/{gid}/mainline").json()
    assert g["main_line"] and g["cursor"] == 1 and len(g["line"]) == 4
    g = client.post(f"/api/games/{gid}/goto", json={"node": variation}).json()
    assert g["cursor"] == 2 and [m["text"] for m in g["line"]] == ["e5", "a1"]
    g = client.post(f"/api/games/{gid}/promote").json()
    assert g["main_line"]
    g = client.post(f"/api/games/{gid}/goto", json={"ply": 1}).json()
    assert [n["text"] for n in g["next"]] == ["a1", "d6"]
    g = client.post(f"/api/games/{gid}/goto", json={"ply": 0}).json()
    assert g["moves"] == [] and g["cursor"] == 0 and len(g["line"]) == 2
    for body, status in (({"ply": 9}, 400), ({"node": 5000}, 400), ({}, 400), ({"ply": 1, "node": 1}, 400),
                         ({"ply": -1}, 422), ({"ply": "1"}, 422), ({"node": 2**40}, 422)):
        r = client.post(f"/api/games/{gid}/goto", json=body)
        assert r.status_code == status and r.json()["detail"], (body, r.text)


def test_analysis_follows_the_shown_position_and_the_engine_plays_only_at_the_end(client):
    g = load(client, FOUR_MOVES)
    gid = g["id"]
    client.post(f"/api/games/{gid}/goto", json={"ply": 2})
    with client.stream("GET", f"/api/games/{gid}/analyze/stream?playouts=20") as r:
        done = events(r)[-1]
    assert done[0] == "done" and done[1]["search"]["ply"] == 2 and done[1]["game"]["cursor"] == 2
    g = client.get(f"/api/games/{gid}").json()
    assert g["analysis"]["node"] == g["node"] and g["stored"]["visits"] >= 20
    assert [w["ply"] for w in g["winrates"]] == [2]
    r = client.post(f"/api/games/{gid}/engine")  # Black (the person) to move, and not the end
    assert r.status_code == 409
    g = client.post(f"/api/games/{gid}/goto", json={"ply": 3}).json()
    assert not g["your_turn"] or not g["at_end"]
    r = client.post(f"/api/games/{gid}/engine")
    assert r.status_code == 409 and "end of the line" in r.json()["detail"]


# --- the whole-game review -------------------------------------------------------------------
def test_review_analyses_every_position_and_marks_the_moves(client):
    g = load(client, FOUR_MOVES)
    gid = g["id"]
    with client.stream("GET", f"/api/games/{gid}/review/stream?playouts=12") as r:
        assert r.status_code == 200
        evs = events(r)
    names = [n for n, _ in evs]
    assert names == ["progress"] * 5 + ["done"]
    assert [d["done"] for _, d in evs[:-1]] == [1, 2, 3, 4, 5] and evs[0][1]["total"] == 5
    review = evs[-1][1]["review"]
    assert review["stopped_by"] == "done" and review["budget"] == 60 and not review["running"]
    g = client.get(f"/api/games/{gid}").json()
    assert [w["ply"] for w in g["winrates"]] == [0, 1, 2, 3, 4]
    for m in g["line"]:
        assert m["drop"] is not None and m["mistake"] in (None, "inaccuracy", "mistake", "blunder")
        assert m["mistake"] == mistake(m["drop"])
    for q in ("?playouts=0", "?playouts=5001", "?playouts=x"):
        assert client.get(f"/api/games/{gid}/review/stream{q}").status_code == 422
    assert client.post(f"/api/games/{gid}/review/cancel").json()["cancelled"] is False
    assert client.get("/api/games/nope/review/stream").status_code == 404


def test_a_review_is_one_per_game_bounded_and_cancellable(warm):
    g = WebGame("r", Options(size=9, playouts=8), (40, 30, 41))
    with pytest.raises(GameInputError, match="1..5000"):
        g.run_review(playouts=0)
    cancel = threading.Event()
    cancel.set()
    status = g.run_review(playouts=8, cancel=cancel)
    assert status["stopped_by"] == "cancelled" and status["done"] == 0
    assert g.run_review(playouts=8, max_seconds=0.0)["stopped_by"] == "seconds"
    # while a review holds the game, moves and searches are refused with a clear reason
    started, release = threading.Event(), threading.Event()

    def slow(status):
        started.set()
        release.wait(10)

    worker = threading.Thread(target=lambda: g.run_review(playouts=8, progress=slow))
    worker.start()
    try:
        assert started.wait(30)
        with pytest.raises(GameConflictError, match="reviewed"):
            g.play_human("a1")
        with pytest.raises(GameConflictError, match="reviewed"):
            g.run_review(playouts=8)
        g.goto(ply=1)  # browsing goes on during a review
        assert g.to_json()["cursor"] == 1 and g.to_json()["review"]["running"]
        assert g.cancel_review()
    finally:
        release.set()
        worker.join(30)
    assert g.review["stopped_by"] == "cancelled" and not g.review["running"]


# --- forced wins and the end of the game ------------------------------------------------------
def test_a_proven_win_is_sent_with_its_line_and_the_end_shows_the_five(client):
    # Black e5 f5 g5 h5 (an open four), White elsewhere; Black to move wins in one
    g = load(client, psq((4, 4), (0, 0), (5, 4), (0, 8), (6, 4), (8, 0), (7, 4), (8, 8)))
    gid = g["id"]
    with client.stream("GET", f"/api/games/{gid}/analyze/stream?playouts=50") as r:
        search = events(r)[-1][1]["search"]
    assert search["proven"] == "win" and search["proven_distance"] == 1
    assert search["pv"][0]["text"] in ("d5", "i5") and search["black_winrate"] == 1.0
    assert search["top"][0]["pv"][0] == search["pv"][0]
    g = client.post(f"/api/games/{gid}/move", json={"move": search["pv"][0]["text"]}).json()
    assert g["over"] and g["winner"] == 0 and len(g["winning_line"]) == 5
    assert g["winrates"][-1] == {"ply": 9, "black": 1.0}  # the result, not a stale 50 %


def _cell(text: str) -> int:
    """'e5' on 9x9 (column letter, row from the bottom) as the cell row * 9 + col."""
    return (9 - int(text[1:])) * 9 + "abcdefghi".index(text[0])


@pytest.mark.parametrize("black, white, to_play, proven, plies", [
    # Black's open three d5 e5 f5, Black to move: c5 (or g5) makes an open four, a block, the five
    (("d5", "e5", "f5"), ("a1", "a9", "i9"), "black", "win", 3),
    # two open threes crossing at e5, White to move: one block, an open four, a block, the five
    (("d5", "e5", "f5", "e4", "e6"), ("a1", "a9", "i9", "i1"), "white", "loss", 4),
    # an open four, White to move: one end blocked, the other makes five
    (("c5", "d5", "e5", "f5"), ("a1", "a9", "i9"), "white", "loss", 2),
])
def test_a_proven_result_is_sent_with_its_whole_line_to_the_five(client, black, white, to_play, proven, plies):
    """The issue: the search proved a win in 3 plies but the analysis sent ['c5'] alone, so the
    board drew one numbered stone under "Black wins in 2". The line goes to the five, for wins
    and losses, and the proven move's own line in the top moves is the same."""
    r = client.post("/api/games", json={"size": 9, "playouts": 800, "setup": {
        "black": [_cell(c) for c in black], "white": [_cell(c) for c in white], "to_play": to_play}})
    assert r.status_code == 201, r.text
    g = r.json()
    with client.stream("GET", f"/api/games/{g['id']}/analyze/stream?playouts=800") as resp:
        search = events(resp)[-1][1]["search"]
    assert search["proven"] == proven and search["proven_distance"] == plies
    line = [m["cell"] for m in search["pv"]]
    assert len(line) == plies, [m["text"] for m in search["pv"]]
    game = Options(size=9).make_game()
    s = game.from_stones([_cell(c) for c in black], [_cell(c) for c in white], to_play=0 if to_play == "black" else 1)
    mover = s.to_play
    for i, m in enumerate(line):
        assert not s.is_terminal and m in set(s.legal_moves().tolist()), (i, search["pv"])
        s = s.play(m)
    assert s.is_terminal and s.winner == (mover if proven == "win" else 1 - mover)
    assert len(winning_line(s.board.reshape(-1), 9, 9, s.last_move, 5)) >= 5  # the last move makes five
    proven_top = [t for t in search["top"] if t["cell"] == line[0]]
    assert not proven_top or [m["cell"] for m in proven_top[0]["pv"]] == line


# --- records keep the analysis ------------------------------------------------------------------
def test_records_carry_result_rule_and_analysis_and_load_them_back(client):
    g = load(client, FOUR_MOVES, rule="standard")
    gid = g["id"]
    with client.stream("GET", f"/api/games/{gid}/review/stream?playouts=10") as r:
        events(r)
    before = client.get(f"/api/games/{gid}").json()
    sgf = client.get(f"/api/games/{gid}/record?format=sgf").text
    assert "RU[standard]" in sgf and sgf.count("ZW[") == 5 and sgf.count("ZB[") == 5 and "C[Black " in sgf
    back = load(client, sgf)
    assert back["options"]["rule"] == "standard"  # the record's rule, as none was chosen
    assert [m["drop"] for m in back["line"]] == [m["drop"] for m in before["line"]]
    assert back["stored"]["best"] == before["stored"]["best"] and back["winrates"] == before["winrates"]
    text = client.get(f"/api/games/{gid}/record?format=psq").text
    assert "rule=standard" in text
    finished = load(client, psq((4, 4), (0, 0), (5, 4), (0, 8), (6, 4), (8, 0), (7, 4), (8, 8), (3, 4)))
    out = client.get(f"/api/games/{finished['id']}/record?format=psq").text
    assert "result=B+" in out and "rule=freestyle" in out
    assert "RE[B+]" in client.get(f"/api/games/{finished['id']}/record?format=sgf").text
    # analysis properties that do not read are skipped, never an error
    junk = "(;GM[4]SZ[9]ZW[2.5]ZB[zz];B[ee]ZW[nan]ZV[x]ZP[zzzz];W[dd]ZW[0.4]ZB[e]ZV[-5]ZP[e])"
    g = load(client, junk)
    assert [w["ply"] for w in g["winrates"]] == [2] and g["stored"]["best"] is None


# --- bad input on the new routes: 4xx, never a 500 -----------------------------------------------
def test_fuzz_the_review_routes_and_analysis_records_never_give_a_500(client):
    import random

    from zeroplay.play.fuzz_web import random_record, random_request

    rng = random.Random(5)
    ids = [load(client, FOUR_MOVES)["id"], client.post("/api/games", json={"size": 5, "playouts": 2}).json()["id"]]
    seen: dict[int, int] = {}
    for i in range(1000):
        method, path, headers, body = random_request(rng, ids)
        if not any(k in path for k in ("goto", "mainline", "promote", "review")):
            continue
        r = client.request(method, path, headers=headers, content=body)
        seen[r.status_code] = seen.get(r.status_code, 0) + 1
        assert r.status_code < 500, (i, method, path, body[:200], r.text[:300])
    assert sum(seen.values()) >= 80 and seen.get(200, 0) >= 5, seen
    for _ in range(20):  # each loaded game allocates its search: test_server_bounds fuzzes records more
        r = client.post("/api/games/load", json={"text": random_record(rng)[:200_000], "playouts": 1})
        assert r.status_code in (201, 400, 422), r.text[:300]
    assert client.get("/favicon.ico").headers["content-type"].startswith("image/svg+xml")


def test_undo_removes_only_leaves_and_keeps_a_loaded_game_and_its_variations(client):
    g = load(client, FOUR_MOVES)
    gid = g["id"]
    client.post(f"/api/games/{gid}/goto", json={"ply": 1})
    r = client.post(f"/api/games/{gid}/undo")
    assert r.status_code == 409 and "end of the line" in r.json()["detail"]
    client.post(f"/api/games/{gid}/move", json={"move": "a1"})  # White's move in a variation
    g = client.post(f"/api/games/{gid}/move", json={"move": "a2"}).json()  # and Black's
    assert [m["text"] for m in g["line"]] == ["e5", "a1", "a2"]
    g = client.post(f"/api/games/{gid}/undo").json()  # a2; then a1 stays (the person is to move)
    assert [m["text"] for m in g["line"]] == ["e5", "a1"] and g["cursor"] == 2
    g = client.post(f"/api/games/{gid}/mainline").json()
    assert [m["text"] for m in g["line"]] == ["e5", "d6", "f5", "d4"]  # the record is whole


def test_the_engines_move_lands_where_its_search_started(warm, monkeypatch):
    from zeroplay.play import webanalysis

    monkeypatch.setattr(webanalysis, "PROGRESS_EVERY_S", 0.0)  # a progress call after every round
    g = WebGame("e", Options(size=9, playouts=64), (40,))  # Black (the person) played e5
    started = threading.Event()

    def stepped_away(snapshot):
        if not started.is_set():
            started.set()
            g.goto(ply=0)  # the person looks at the start while the engine thinks

    g.think(play=True, progress=stepped_away)
    j = g.to_json()
    assert started.is_set() and len(j["line"]) == 2 and j["cursor"] == 0 and j["line"][1]["node"] != 0
    assert g.to_json()["line"][0]["text"] == "e5" and j["next"][0]["text"] == "e5"


# --- the engine panel: time per move ----------------------------------------------------------
def test_the_engine_can_think_for_a_time_per_move_instead_of_playouts(client):
    r = client.post("/api/games", json={"size": 9, "seconds": 1.0, "playouts": 10})
    assert r.status_code == 201 and r.json()["options"]["seconds"] == 1.0
    gid = r.json()["id"]
    client.post(f"/api/games/{gid}/move", json={"move": "e5"})
    search = client.post(f"/api/games/{gid}/engine").json()["search"]
    # the time governs, not the 10 playouts; an idle machine can reach the board's own cap on a
    # request's work (MAX_WEB_PLAYOUTS) first
    capped = search["stopped_by"] == "playouts" and search["playouts"] >= MAX_WEB_PLAYOUTS
    assert (search["stopped_by"] in ("seconds", "proven", "full") or capped) and search["seconds"] < 3.0
    assert search["playouts"] > 10 or search["stopped_by"] != "seconds"
    for bad in (0, -1, 61, "1", True):
        assert client.post("/api/games", json={"size": 9, "seconds": bad}).status_code == 422
    assert client.post("/api/games/load", json={"text": FOUR_MOVES, "seconds": 1}).json()["options"]["seconds"] == 1


def test_a_game_may_choose_a_shipped_model_or_the_search_alone(client):
    g = client.post("/api/games", json={"size": 6, "model": "search", "playouts": 8}).json()
    assert g["options"]["model"] == "search" and g["engine"].startswith("search only")
    assert "gomoku-6x6-4-freestyle" in g["models"]
    g = client.post("/api/games", json={"size": 6, "model": "gomoku-6x6-4-freestyle", "playouts": 8}).json()
    assert "gomoku-6x6-4-freestyle" in g["engine"]
    r = client.post("/api/games", json={"size": 7, "model": "gomoku-6x6-4-freestyle"})
    assert r.status_code == 400 and "choose one of search" in r.json()["detail"]
    for bad, status in (("../../etc/passwd", 400), ("x" * 101, 422), (5, 422)):
        assert client.post("/api/games", json={"size": 9, "model": bad}).status_code == status


def test_a_server_with_a_model_offers_no_model_choice(warm):
    store = GameStore(model="gomoku-6x6-4-freestyle")
    with TestClient(create_app(store), raise_server_exceptions=False, base_url="http://127.0.0.1") as c:
        r = c.post("/api/games", json={"model": "search"})
        assert r.status_code == 400 and "no model to choose" in r.json()["detail"]
        assert c.post("/api/games", json={"playouts": 4}).json()["models"] == []


def test_set_up_a_position_by_placing_stones_for_both_sides(client):
    g = client.post("/api/games", json={"size": 9, "playouts": 8}).json()
    gid = g["id"]
    client.post(f"/api/games/{gid}/move", json={"move": "e5"})
    r = client.post(f"/api/games/{gid}/move", json={"move": "d4"})  # White's stone: the engine's side
    assert r.status_code == 409 and "engine's turn" in r.json()["detail"]
    for move in ("d4", "f5", "a1"):
        r = client.post(f"/api/games/{gid}/move", json={"move": move, "either_side": True})
        assert r.status_code == 200, r.text
    g = r.json()
    assert [m["text"] for m in g["line"]] == ["e5", "d4", "f5", "a1"] and g["your_turn"] and g["at_end"]
    assert client.post(f"/api/games/{gid}/move", json={"move": "b1", "either_side": 1}).status_code == 422
