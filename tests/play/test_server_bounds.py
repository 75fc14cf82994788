"""The web board's bounds (issue 23): games by count and memory with LRU eviction, request-body
cap, Host check (DNS rebinding), deep records, and a fuzz of malformed requests: never a 500."""

from __future__ import annotations

import asyncio
import random
import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note on httpx versions
    from fastapi.testclient import TestClient

from zeroplay.play.fuzz_web import random_record, random_request
from zeroplay.play.guards import BodyLimit, HostCheck, host_name
from zeroplay.play.server import create_app
from zeroplay.play.webgame import Options, StoreFullError, WebGame, held_bytes
from zeroplay.play.webstore import GameStore

LOCAL = "http://127.0.0.1"


@pytest.fixture()
def client(warm):
    with TestClient(create_app(), raise_server_exceptions=False, base_url=LOCAL) as c:
        yield c


# --- memory per game and the store's bounds -------------------------------------------------
def test_a_games_memory_is_the_bytes_of_its_search_arrays(warm):
    g = WebGame("x", Options(size=9, playouts=1))
    tree = g.searcher.tree
    assert g.memory_bytes >= sum(a.nbytes for a in tree) + sum(a.nbytes for a in g.searcher.table)
    assert 20e6 < g.memory_bytes < 40e6  # the figures in webgame.SEARCH_CONFIG's docstring
    assert WebGame("y", Options(size=25, playouts=1)).memory_bytes > g.memory_bytes  # more actions cached


def test_held_bytes_counts_each_array_once_and_views_by_their_owner():
    import numpy as np

    a = np.zeros(1000, np.int64)
    assert held_bytes((a, a, a[10:], [a[:5]], {"k": a})) == 8000
    assert held_bytes(a[::2]) == 8000  # a view keeps its whole owner alive


def test_the_store_evicts_the_least_recently_used_idle_game_to_stay_under_its_memory(warm):
    one = WebGame("probe", Options(size=5, playouts=1)).memory_bytes
    store = GameStore(max_games=100, max_memory=int(2.5 * one))
    a = store.new(Options(size=5, playouts=1))
    b = store.new(Options(size=5, playouts=1))
    store.get(a.id)  # a is now the most recent
    c = store.new(Options(size=5, playouts=1))
    assert store.memory_bytes <= store.max_memory and len(store) == 2 and store.evicted == 1
    assert store.get(a.id) is a and store.get(c.id) is c
    with pytest.raises(LookupError):
        store.get(b.id)


def test_a_busy_game_is_never_evicted_and_a_full_store_refuses_with_503(warm):
    store = GameStore(max_games=1)
    a = store.new(Options(size=5, playouts=1))
    with a.busy:
        with pytest.raises(StoreFullError):
            store.new(Options(size=5, playouts=1))
        assert store.get(a.id) is a
        with TestClient(create_app(store), raise_server_exceptions=False, base_url=LOCAL) as c:
            r = c.post("/api/games", json={"size": 5, "playouts": 1})
            assert r.status_code == 503 and "full" in r.json()["detail"] and r.headers["retry-after"]
    assert store.new(Options(size=5, playouts=1)) is not a and len(store) == 1


def test_a_game_larger_than_the_whole_budget_is_refused_and_options_are_checked(warm):
    store = GameStore(max_memory=1 << 20)
    with pytest.raises(ValueError, match="more than the server's --max-memory 1 MiB"):
        store.new(Options(size=5, playouts=1))
    with pytest.raises(ValueError, match="--max-games"):
        GameStore(max_games=0)
    with pytest.raises(ValueError, match="--max-memory"):
        GameStore(max_memory=1000)


def test_serve_takes_the_bounds_from_its_options():
    import argparse

    from zeroplay.play.commands import add_play_commands

    parser = argparse.ArgumentParser(prog="zeroplay")
    add_play_commands(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["serve", "--max-games", "7", "--max-memory", "300", "--allow-host", "board.lan"])
    assert (args.max_games, args.max_memory, args.allow_host) == (7, 300, ["board.lan"])
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--max-memory", "0"])


def test_serve_refuses_a_memory_bound_no_game_fits_before_it_binds(capsys):
    # helper-68: --max-memory 1 started a server whose every new game was a 400
    from zeroplay.play.server import serve

    assert serve(port=0, max_memory=1 << 20) == 2
    err = capsys.readouterr().err
    assert "--max-memory must be at least 40 MiB" in err and "got 1" in err


def test_health_reports_the_bounds(client):
    client.post("/api/games", json={"size": 5, "playouts": 1})
    h = client.get("/api/health").json()
    assert h["games"] == 1 and 0 < h["memory_bytes"] <= h["max_memory"] and h["max_games"] >= 1


# --- request bodies -------------------------------------------------------------------------
def _call(app, headers: list[tuple[bytes, bytes]], chunks, path: str = "/api/games/load"):
    """Run one request through the ASGI ``app``; returns (status, chunks the app read)."""
    scope = {"type": "http", "method": "POST", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"), *headers],
             "http_version": "1.1", "scheme": "http", "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 1),
             "root_path": "", "app": app}
    read, sent = [0], []

    async def receive():
        read[0] += 1
        chunk = next(chunks, None)
        return {"type": "http.request", "body": chunk or b"", "more_body": chunk is not None}

    async def send(message):
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    return sent[0]["status"], read[0]


def test_a_300_mb_body_is_refused_before_it_is_read():
    def endless():
        raise AssertionError("the body was read")
        yield b""

    app = create_app(GameStore())
    status, read = _call(app, [(b"content-length", str(300 << 20).encode())], endless())
    assert (status, read) == (413, 0)


def test_a_chunked_body_is_refused_once_it_passes_the_cap():
    chunks = (b"x" * (1 << 20) for _ in range(300))  # 300 MB if read whole
    status, read = _call(BodyLimit(create_app(GameStore()), max_bytes=2 << 20), [], chunks)
    assert status == 413 and read <= 3


def test_a_body_under_the_cap_is_served(client):
    text = "Piskvorky 9x9, 11:11, 0\n5,5,0\n-1\n" + " " * 150_000
    assert client.post("/api/games/load", json={"text": text}).status_code == 201
    assert client.post("/api/games/load", content=b"x" * (3 << 20),
                       headers={"content-type": "application/json"}).status_code == 413


# --- Host ---------------------------------------------------------------------------------
@pytest.mark.parametrize("header, name", [("127.0.0.1:8000", "127.0.0.1"), ("[::1]:8000", "::1"),
                                          ("LocalHost.", "localhost"), ("board.lan", "board.lan")])
def test_host_name_drops_port_case_and_trailing_dot(header, name):
    assert host_name(header) == name


def test_a_foreign_host_is_refused_dns_rebinding(client):
    for host in ("evil.example", "evil.example:8000", "localhost.evil.example", "127.0.0.1.nip.io"):
        r = client.get("/api/health", headers={"host": host})
        assert r.status_code == 421 and "does not answer to host" in r.json()["detail"], host
    for host in ("localhost:8000", "127.0.0.1", "[::1]:8000"):
        assert client.get("/api/health", headers={"host": host}).status_code == 200, host


def test_the_bound_address_and_allowed_names_are_answered():
    check = HostCheck(None, ("192.168.1.5", "board.lan"))
    assert check.allows("192.168.1.5:8000") and check.allows("BOARD.LAN") and not check.allows("10.0.0.1")
    wildcard = HostCheck(None, ("0.0.0.0",), any_ip=True)
    assert wildcard.allows("10.0.0.1:8000") and wildcard.allows("[fe80::1]") and not wildcard.allows("evil.example")


# --- records and the fuzz -----------------------------------------------------------------
@pytest.mark.parametrize("text", ["(" * 3000, "(;SZ[15]" + "(;B[hh]" * 3000, "[" * 100_000])
def test_a_deeply_nested_record_is_a_400(client, text):
    r = client.post("/api/games/load", json={"text": text})
    assert r.status_code == 400 and "cannot read" in r.json()["detail"]


def test_deeply_nested_json_is_refused_not_a_500(client):
    r = client.post("/api/games", content=b"[" * 100_000 + b"]" * 100_000,
                    headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500


def _fuzz(client, count: int, seed: int) -> dict:
    rng = random.Random(seed)
    made = [client.post("/api/games", json={"size": s, "playouts": 2}).json()["id"] for s in (5, 9)]
    made.append(client.post("/api/games", json={"game": "tictactoe", "playouts": 2}).json()["id"])
    statuses: dict[int, int] = {}
    for i in range(count):
        method, path, headers, body = random_request(rng, made)
        r = client.request(method, path, headers=headers, content=body)
        statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
        assert r.status_code < 500 or r.status_code == 503, (i, method, path, body[:200], r.text[:300])
    return statuses


def test_fuzz_malformed_requests_never_give_a_500(client):
    statuses = _fuzz(client, 150, seed=1)
    # valid-looking requests get through to the app, malformed ones are refused by it
    assert statuses.get(200, 0) + statuses.get(201, 0) >= 8 and statuses.get(400, 0) + statuses.get(422, 0) >= 40


def test_fuzz_records_alone_never_give_a_500(client):
    rng = random.Random(2)
    for _ in range(100):
        text = random_record(rng)
        r = client.post("/api/games/load", json={"text": text[:200_000], "playouts": 1})
        assert r.status_code in (201, 400, 422), (text[:200], r.text[:300])


@pytest.mark.slow
def test_fuzz_full_count_2500_requests_and_2000_records(client):
    _fuzz(client, 2500, seed=3)
    rng = random.Random(4)
    for _ in range(2000):
        r = client.post("/api/games/load", json={"text": random_record(rng)[:200_000], "playouts": 1})
        assert r.status_code in (201, 400, 422), r.text[:300]
