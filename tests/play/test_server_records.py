"""Records loaded into the web board keep what they say about the game."""

from __future__ import annotations

import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note on httpx versions
    from fastapi.testclient import TestClient

from zeroplay.play.server import create_app


@pytest.fixture()
def client():
    with TestClient(create_app(), raise_server_exceptions=False, base_url="http://127.0.0.1") as c:
        yield c


@pytest.mark.parametrize("text", [
    "(;FF[4]GM[4]CA[UTF-8]AP[zeroplay:0.1.0]SZ[15]RU[renju]\n;B[hh];W[hg];B[jf])",
    "Piskvorky 15x15, 11:11, 0\n8,8,0\n8,7,0\n10,6,0\nyou\nzeroplay\n-1\nrule=renju\n",
])
def test_a_renju_record_loads_as_renju(client, text):
    """The board's own export of a renju game (SGF ``RU[renju]``, PSQ ``rule=renju``) loaded back
    as a free-style game: only freestyle and standard were taken from the record."""
    r = client.post("/api/games/load", json={"text": text, "playouts": 8})
    assert r.status_code == 201, r.text
    g = r.json()
    assert g["options"]["rule"] == "renju" and g["title"] == "gomoku 15x15 renju"
    assert len(g["moves"]) == 3


def test_the_chosen_rule_still_overrides_the_record(client):
    text = "(;FF[4]GM[4]SZ[15]RU[renju];B[hh];W[hg])"
    r = client.post("/api/games/load", json={"text": text, "rule": "freestyle", "playouts": 8})
    assert r.status_code == 201, r.text
    assert r.json()["options"]["rule"] == "freestyle"


@pytest.mark.parametrize("text", [
    "\ufeff(;FF[4]GM[4]SZ[15]RU[renju];B[hh];W[hg];B[jf])",
    "\ufeffPiskvorky 15x15, 11:11, 0\n8,8,0\n8,7,0\n10,6,0\n",
    "\ufeff(;GM[1]SZ[9]KM[6.5];B[ee];W[cc];B[ce])",
])
def test_a_record_text_with_a_byte_order_mark_loads(client, text):
    """A client that sends a Notepad-saved file as it is: the SGF was taken for PSQ and refused."""
    r = client.post("/api/games/load", json={"text": text, "playouts": 8})
    assert r.status_code == 201, r.text
    assert len(r.json()["moves"]) == 3


@pytest.mark.parametrize("text, fmt, needle", [
    ("Piskvorky 15x15, 11:11, 0\n8,8,0\nfoo\n9,9,0\n-1\n", "psq", "PSQ line 3: 'foo' is not a move"),
    ("Piskvorky 15x15, 11:11, 0\n8,8,0\n9,9,x\n-1\n", "psq", "PSQ line 3: move '9,9,x' is malformed"),
    ("(;GM[4]SZ[15]RU[renju2];B[hh])", "auto", "SGF RU: unknown rule 'renju2'; zeroplay knows freestyle, standard and renju"),
])
def test_a_record_that_would_load_with_a_part_dropped_is_refused(client, text, fmt, needle):
    """A stray line among a PSQ's moves dropped every move after it, and an unknown ``RU`` loaded
    as free-style, each with 201."""
    r = client.post("/api/games/load", json={"text": text, "format": fmt, "playouts": 8})
    assert r.status_code == 400 and needle in r.json()["detail"], r.text


COLLECTION = ("(;FF[4]GM[4]SZ[15]C[first (1)];B[hh];W[hg])\n"
              "(;FF[4]GM[4]SZ[15]C[second \\] (2)];B[aa];W[bb];B[cc])\n"
              "(;FF[4]GM[1]SZ[9]KM[7];B[ee])\n")


def test_a_collection_of_games_asks_which_one_and_loads_the_chosen(client):
    """helper-75: a file of several games loaded its first without a word."""
    r = client.post("/api/games/load", json={"text": COLLECTION, "playouts": 8})
    assert r.status_code == 400 and "holds 3 games: choose one, 1..3" in r.json()["detail"], r.text
    for game, moves, title in ((1, 2, "gomoku 15x15"), (2, 3, "gomoku 15x15"), (3, 1, "go 9x9")):
        r = client.post("/api/games/load", json={"text": COLLECTION, "game": game, "playouts": 8})
        assert r.status_code == 201, r.text
        assert len(r.json()["moves"]) == moves and r.json()["title"].startswith(title)
    r = client.post("/api/games/load", json={"text": COLLECTION, "game": 4, "playouts": 8})
    assert r.status_code == 400 and "holds 3 games" in r.json()["detail"], r.text


def test_a_single_game_loads_with_or_without_its_number(client):
    psq = "Piskvorky 15x15, 11:11, 0\n8,8,0\nengine (v2)\n(other)\n-1\n"
    for text in ("(;GM[4]SZ[15];B[hh])", psq):
        for extra in ({}, {"game": 1}):
            r = client.post("/api/games/load", json={"text": text, "playouts": 8, **extra})
            assert r.status_code == 201, r.text
        r = client.post("/api/games/load", json={"text": text, "game": 2, "playouts": 8})
        assert r.status_code == 400 and "holds one game" in r.json()["detail"], r.text


@pytest.mark.parametrize("text, moves", [
    ("(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc])\n(c) 2024 someone", 2),
    ("(;GM[4]FF[4]SZ[15];B[hh];W[ii])\n(c) me\n(;GM[4]SZ[15];B[aa])", 2),
    ("Piskvorky 15x15, 11:11, 0\n8,8,0\n9,9,0\nEmbryo [21]\nYixin2018 (v1.2) [beta]\n-1\n", 2),
    # session 34: a blank line or a byte-order mark before the header
    ("\n\nPiskvorky 15x15, 11:11, 0\n8,8,0\nEmbryo [21]\n-1\n", 1),
    ("\ufeffPiskvorky 15x15, 11:11, 0\n8,8,0\nEmbryo [21]\n-1\n", 1),
    # helper-78: text before the game with a "(" in it was counted as a game, and then refused
    ("Game from server (copy)\n(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc])", 2),
    ("(c) 2024 someone\n( ;GM[4]SZ[15];B[hh])", 1),
])
def test_text_around_one_game_is_no_second_game(client, text, moves):
    # helper-77: a copyright line "(c) ..." counted as a second game; "[" in a PSQ name read as SGF
    r = client.post("/api/games/load", json={"text": text, "playouts": 8})
    assert r.status_code == 201, r.text
    assert len(r.json()["moves"]) == moves
