"""``zeroplay serve``: the web analysis board (FastAPI + uvicorn, a static page, no build step).

HTTP API (JSON unless said otherwise; every game is addressed by its id, so several browser tabs
play independent games)::

    GET  /                                  the board (static/index.html, app.js, style.css)
    GET  /api/defaults                      what a new game gets where a request leaves options out
                                            {game, size, n_in_row, rule, playouts, model,
                                            n_in_row_by_size}
    POST /api/games                         new game {game, size, n_in_row, rule, komi and scoring
                                            (Go: points for White, area|territory), color, playouts,
                                            seconds (the engine's time per move, 0..60; null:
                                            playouts per move), model (null: the setting's default,
                                            "search": no network, or a shipped model's name from
                                            the game's "models"), setup (a set-up start: {black:
                                            [cells or points such as "e5"], white: [...],
                                            to_play: black|white|null}),
                                            vary_opening (default true: the engine's moves at
                                            plies 1-5 are drawn among its near-best; false: its
                                            most visited move always), engine_resigns
                                            (default true: in Go the engine resigns once
                                            its win rate has been under 3 % at 3 of its
                                            moves in a row; false: it plays to the end)}
                                            -> 201 game
    POST /api/games/load                    new game from a record {text, format: psq|sgf|auto,
                                            game (of an SGF collection, from 1; 400 naming how
                                            many when it holds several and none is chosen),
                                            n_in_row, rule, color, playouts, seconds, model,
                                            vary_opening, engine_resigns}
                                            -> 201 game (SGF: every variation, a set-up start)
    GET  /api/games/{id}                    the game
    POST /api/games/{id}/move               the person's move {move: "h8" | "7,7" | cell,
                                            either_side: true to set up a position (the engine's
                                            side too, the engine waits)} -> game
    POST /api/games/{id}/engine             the engine moves (waits for the search) -> {game, search};
                                            ?either_side=true: also on the person's turn (engine
                                            against engine: the board asks for each move)
    GET  /api/games/{id}/engine/stream      the same as server-sent events: "progress" events
                                            (search snapshots), then "done" {game, search};
                                            closing the stream stops the search, nothing is played
    GET  /api/games/{id}/analyze/stream     analysis of the position (nothing is played), events
                                            as above; ?playouts=N
    POST /api/games/{id}/undo               take back the person's last move and the reply (or
                                            a resignation) -> game
    POST /api/games/{id}/resign             the person resigns at the end of the line, on either
                                            side's turn -> game ("over", "resigned": the player
                                            who did, 0 Black 1 White; "result" "White wins W+R" /
                                            "Black wins B+R"; the engine's own resignation reads
                                            the same, its search's JSON has "resigned" instead
                                            of "move"; SGF RE[W+R], which a load keeps)
    POST /api/games/{id}/goto               show a position {ply: n} of the line or {node: id} of the
                                            variation tree -> game (analysis follows the position)
    POST /api/games/{id}/mainline           back to the main line (where the variation left it)
    POST /api/games/{id}/promote            make the shown line the main line
    GET  /api/games/{id}/review/stream      review: analyse every position of the line with
                                            ?playouts=N each (1..5000, default 200; at most 300 s,
                                            one review per game); events "progress" {done, total,
                                            ply, black} per position, then "done" {game, review}
    POST /api/games/{id}/review/cancel      stop the review (what it found is kept)
    GET  /api/games/{id}/record?format=psq|sgf   the game record as a file: PSQ the line shown;
                                            SGF the whole variation tree and a set-up start
                                            (``play.webrecord``; loads back with its variations)

A move at a position before the end of the line (after ``goto``) makes a variation, for either
side: the game keeps a small tree of positions (``gametree``, at most 2,048), each with what its
analysis found; the game JSON gives the ``line`` (each move with its win-rate ``drop`` and
``mistake`` class, ``play.review``), the ``cursor`` ply, ``next`` (the moves from here, main
first), ``winning_line`` at the end, and ``stored`` (the kept analysis of the shown position).

``n_in_row`` (Gomoku: stones in a row that win, 3..size) left out means 5, or 4 on a 6x6 board,
the game of the shipped 6x6 model; a game's JSON reports it under ``options`` and describes the
game in ``title`` ("gomoku 6x6 freestyle, 4 in a row"). ``playouts`` left out means the server's
``--playouts`` (default ``PLAY_PLAYOUTS``, 800, as ``zeroplay play``). With ``zeroplay serve
--model M`` the model plays every game and the options left out come from its game, as in
``zeroplay play --model M``; settings it cannot play are refused (400) in ``zeroplay play``'s
words.

Bounds: a request body over ``guards.MAX_BODY_BYTES`` (2 MiB) is refused with 413 before it is
read; a ``Host`` header that names neither this machine nor the address or ``--allow-host`` names
the server answers to is refused with 421 (DNS rebinding); the games kept are bounded by
``--max-games`` and ``--max-memory`` (``GameStore``: the least recently used idle game is evicted
first, and a new game is refused with 503 when every game kept is searching).

Errors: 400 bad input (illegal move, unreadable record, n_in_row longer than the board, size /
n_in_row / rule for a game other than Gomoku, settings the ``--model`` cannot play), 404
unknown game id, 409 not now (not your turn, game over, engine busy), 422 malformed request (wrong
types, size or n_in_row outside 5..25 / 3..25); the body is ``{"detail": message}``. Bad input
never produces a 500.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path
from typing import Annotated, Literal

from fastapi import FastAPI, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

from zeroplay import __version__
from zeroplay.engine.factory import PLAY_PLAYOUTS
from zeroplay.games import option_names
from zeroplay.games.go.sgf import scoring_of_rules
from zeroplay.games.gomoku import MAX_SIZE, MIN_N_IN_ROW, MIN_SIZE
from zeroplay.play.guards import LOCAL_NAMES, MAX_BODY_BYTES, BodyLimit, HostCheck
from zeroplay.play.review import DEFAULT_REVIEW_PLAYOUTS, MAX_REVIEW_PLAYOUTS
from zeroplay.play.webgo import read_go_record, sgf_game_number
from zeroplay.play.weboptions import (
    DEFAULT_MAX_GAMES,
    DEFAULT_MAX_MEMORY,
    MAX_SECONDS_PER_MOVE,
    MAX_WEB_PLAYOUTS,
    GameConflictError,
    GameInputError,
    StoreFullError,
    UnknownGameError,
)
from zeroplay.play.webstore import GameStore, game_of_collection, record_from_text

STATIC = Path(__file__).resolve().parent / "static"


# options left out (None) are the store's defaults (GameStore.options: the --model's game, else
# gomoku 15x15 free-style, 5 in a row, 4 on 6x6; the server's --playouts); an explicit null is
# refused as before
class SetupIn(BaseModel):
    """A set-up start position: the stones of each side (cells, or points as the game writes
    them: "h8", "7,7", Go's "E5") and the side to move."""
    model_config = ConfigDict(extra="forbid")
    black: list[StrictInt | Annotated[StrictStr, Field(max_length=12)]] = Field(
        default_factory=list, max_length=MAX_SIZE * MAX_SIZE)
    white: list[StrictInt | Annotated[StrictStr, Field(max_length=12)]] = Field(
        default_factory=list, max_length=MAX_SIZE * MAX_SIZE)
    to_play: Literal["black", "white"] | None = None  # None: White when Black has one stone more


class NewGameIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game: Literal["gomoku", "tictactoe", "go"] = None
    size: StrictInt = Field(None, ge=MIN_SIZE, le=MAX_SIZE)
    komi: StrictFloat | StrictInt | None = Field(None, ge=-150, le=150)  # Go: points for White
    scoring: Literal["area", "territory"] = None  # Go
    n_in_row: StrictInt | None = Field(None, ge=MIN_N_IN_ROW, le=MAX_SIZE)
    rule: Literal["freestyle", "standard", "renju"] = None
    color: Literal["black", "white"] = "black"
    playouts: StrictInt = Field(None, ge=1, le=MAX_WEB_PLAYOUTS)
    seconds: StrictFloat | StrictInt | None = Field(None, gt=0, le=MAX_SECONDS_PER_MOVE)
    model: StrictStr | None = Field(None, max_length=100)
    setup: SetupIn | None = None
    vary_opening: StrictBool = True  # the engine's first moves drawn among its near-best (Options.vary_opening)
    engine_resigns: StrictBool = True  # Go: the engine resigns a lost game (Options.engine_resigns)


class MoveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    move: StrictInt | StrictStr = Field(..., description="'h8', '7,7' (x,y from the top-left) or a cell number")
    either_side: StrictBool = False  # set-up: also the engine's side at the end of the line


class GotoIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ply: StrictInt | None = Field(None, ge=0, le=3 * MAX_SIZE * MAX_SIZE)  # Go's repetition cap: 3 x cells
    node: StrictInt | None = Field(None, ge=0, le=1 << 20)


class LoadIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: StrictStr = Field(..., max_length=200_000)
    format: Literal["psq", "sgf", "auto"] = "auto"
    game: StrictInt | None = Field(None, ge=1, le=1_000_000)
    n_in_row: StrictInt | None = Field(None, ge=MIN_N_IN_ROW, le=MAX_SIZE)
    rule: Literal["freestyle", "standard", "renju"] = None
    color: Literal["black", "white"] = "black"
    playouts: StrictInt = Field(None, ge=1, le=MAX_WEB_PLAYOUTS)
    seconds: StrictFloat | StrictInt | None = Field(None, gt=0, le=MAX_SECONDS_PER_MOVE)
    model: StrictStr | None = Field(None, max_length=100)
    vary_opening: StrictBool = True
    engine_resigns: StrictBool = True


def create_app(store: GameStore | None = None, *, model: str | None = None,
               playouts: int = PLAY_PLAYOUTS, allowed_hosts: tuple[str, ...] = LOCAL_NAMES,
               any_ip: bool = False, max_body: int = MAX_BODY_BYTES) -> FastAPI:
    """The ASGI app: a fresh game store unless one is given, whose games ``model`` plays (a path or
    a shipped model's name; None: the shipped model per setting) at ``playouts`` per move unless a
    request says otherwise.

    ``allowed_hosts``: the ``Host`` names answered besides this machine's (``guards.HostCheck``;
    ``any_ip`` also any address literal); ``max_body``: the request-body cap in bytes."""
    app = FastAPI(title="zeroplay web board", version=__version__, docs_url=None, redoc_url=None)
    games = store if store is not None else GameStore(model=model, playouts=playouts)
    app.state.games = games
    app.add_middleware(BodyLimit, max_bytes=max_body)
    app.add_middleware(HostCheck, allowed=allowed_hosts, any_ip=any_ip)  # added last: runs first

    @app.exception_handler(StoreFullError)
    async def _full(request: Request, exc: StoreFullError):
        return JSONResponse({"detail": str(exc)}, status_code=503, headers={"Retry-After": "5"})

    @app.exception_handler(GameInputError)
    async def _bad_input(request: Request, exc: GameInputError):
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.exception_handler(GameConflictError)
    async def _conflict(request: Request, exc: GameConflictError):
        return JSONResponse({"detail": str(exc)}, status_code=409)

    @app.exception_handler(UnknownGameError)
    async def _unknown(request: Request, exc: UnknownGameError):
        return JSONResponse({"detail": "unknown game id (games are kept in memory: a restart forgets them, and past "
                                       "--max-games / --max-memory the least recently used idle game is evicted; start "
                                       "a new one)"}, status_code=404)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        parts = []
        for err in exc.errors():
            where = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
            parts.append(f"{where}: {err.get('msg', 'invalid')}" if where else err.get("msg", "invalid"))
        return JSONResponse({"detail": "; ".join(parts) or "invalid request"}, status_code=422)

    @app.get("/", include_in_schema=False)
    async def index():
        return FileResponse(STATIC / "index.html", media_type="text/html")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon():  # the page names /static/favicon.svg; this is for clients that do not look
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/health")
    async def health():
        return {"ok": True, "version": __version__, "games": len(games), "max_games": games.max_games,
                "memory_bytes": games.memory_bytes, "max_memory": games.max_memory, "evicted": games.evicted}

    @app.get("/api/defaults")
    async def defaults():
        return games.defaults()

    @app.post("/api/games", status_code=201)
    def new_game(body: NewGameIn | None = None):
        body = body or NewGameIn()
        options = games.options(body.game, body.size, body.n_in_row, body.rule, body.color, body.playouts,
                                body.seconds, body.model, komi=body.komi, scoring=body.scoring,
                                vary_opening=body.vary_opening, engine_resigns=body.engine_resigns)
        takes = option_names(options.game)  # as zeroplay play: no silently ignored options
        given = sorted(k for k in {"size", "n_in_row", "rule"} & body.model_fields_set if k not in takes)
        if given:
            raise GameInputError(f"{', '.join(given)}: Gomoku options; {options.game} has none")
        given = sorted(k for k in {"komi", "scoring"} & body.model_fields_set if k not in takes)
        if given:
            raise GameInputError(f"{', '.join(given)}: Go options; {options.game} has none")
        setup = None
        if body.setup is not None:
            to_play = None if body.setup.to_play is None else int(body.setup.to_play == "white")
            setup = (body.setup.black, body.setup.white, to_play)
        g = games.new(options, setup=setup)
        return g.to_json()

    @app.post("/api/games/load", status_code=201)
    def load_game(body: LoadIn):
        # a file's byte-order mark (Windows Notepad's) that a client sent on: no part of the record
        text = game_of_collection(body.text.removeprefix("\ufeff"), body.game, body.format)
        if body.format != "psq" and sgf_game_number(text) == 1:  # Go (GM[1]): its own reader
            rec = read_go_record(text)
            options = games.options("go", rec.width, color=body.color, playouts=body.playouts, seconds=body.seconds,
                                    model=body.model, komi=rec.komi, vary_opening=body.vary_opening,
                                    engine_resigns=body.engine_resigns,
                                    scoring=scoring_of_rules(rec.rules))
            setup = (rec.black_setup, rec.white_setup, rec.to_play) if rec.black_setup or rec.white_setup else None
            g = games.new(options, tuple(rec.moves), setup)
            g.resigned_at_end(rec.result)  # RE[W+R]: the game ended by a resignation there
            return g.to_json()
        rec = record_from_text(text, body.format)
        rule = body.rule
        if rule is None and rec.rule:  # the record's own (its reader refuses an unknown one), unless chosen
            rule = rec.rule
        options = games.options("gomoku", rec.width, body.n_in_row, rule, body.color, body.playouts, body.seconds,
                                body.model, vary_opening=body.vary_opening, engine_resigns=body.engine_resigns)
        setup = (rec.black, rec.white, rec.to_play) if rec.set_up else None
        g = games.new(options, tuple(rec.main_line()), setup)
        g.load_record(rec)  # the variations and the analysis
        return g.to_json()

    def _changed(game_id: str, change) -> dict:
        """The game `game_id` after `change(game)`; unknown id -> 404, a refused change -> its own status."""
        g = games.get(game_id)
        change(g)
        return g.to_json()

    @app.get("/api/games/{game_id}")
    def get_game(game_id: str):
        return games.get(game_id).to_json()

    @app.post("/api/games/{game_id}/move")
    def move(game_id: str, body: MoveIn):
        return _changed(game_id, lambda g: g.play_human(body.move, either_side=body.either_side))

    @app.post("/api/games/{game_id}/undo")
    def undo(game_id: str):
        return _changed(game_id, lambda g: g.undo())

    @app.post("/api/games/{game_id}/resign")
    def resign(game_id: str):
        return _changed(game_id, lambda g: g.resign())

    @app.post("/api/games/{game_id}/goto")
    def goto(game_id: str, body: GotoIn):
        return _changed(game_id, lambda g: g.goto(ply=body.ply, node=body.node))

    @app.post("/api/games/{game_id}/mainline")
    def main_line(game_id: str):
        return _changed(game_id, lambda g: g.main_line())

    @app.post("/api/games/{game_id}/promote")
    def promote(game_id: str):
        return _changed(game_id, lambda g: g.promote())

    @app.get("/api/games/{game_id}/review/stream")
    async def review_stream(game_id: str, playouts: int = Query(DEFAULT_REVIEW_PLAYOUTS, ge=1, le=MAX_REVIEW_PLAYOUTS)):
        g = games.get(game_id)
        if g.busy.locked() and not g._gives_way():
            raise GameConflictError("the engine is busy in this game (a move or a review)")
        return _stream(g, play=False, playouts=playouts, review=True)

    @app.post("/api/games/{game_id}/review/cancel")
    def review_cancel(game_id: str):
        g = games.get(game_id)
        return {"cancelled": g.cancel_review(), "review": g.review}

    @app.post("/api/games/{game_id}/engine")
    def engine_move(game_id: str, either_side: bool = False):
        g = games.get(game_id)
        search = g.think(play=True, either_side=either_side)
        return {"game": g.to_json(), "search": search}

    @app.get("/api/games/{game_id}/engine/stream")
    async def engine_stream(game_id: str, either_side: bool = False):
        g = games.get(game_id)
        _precheck(g, play=True, either_side=either_side)
        return _stream(g, play=True, playouts=None, either_side=either_side)

    @app.get("/api/games/{game_id}/analyze/stream")
    async def analyze_stream(game_id: str, playouts: int | None = Query(None, ge=1, le=MAX_WEB_PLAYOUTS)):
        g = games.get(game_id)
        _precheck(g, play=False)
        return _stream(g, play=False, playouts=playouts)

    @app.get("/api/games/{game_id}/record")
    def record(game_id: str, format: Literal["psq", "sgf"] = "psq"):
        g = games.get(game_id)
        text = g.record(format)
        return PlainTextResponse(text, headers={
            "Content-Disposition": f'attachment; filename="zeroplay-{g.id}.{format}"'})

    return app


def _precheck(g, *, play: bool, either_side: bool = False) -> None:
    """Refuse a stream with a status code before any event is sent."""
    s = g.state
    if g.over:
        raise GameConflictError("the game is over")
    if play and s.to_play == g.human and not either_side:
        raise GameConflictError("it is your turn, not the engine's")
    if g.busy.locked() and not g._gives_way():  # an analysis or a cancelled search makes way
        raise GameConflictError("the engine is already thinking in this game")


def _event(name: str, data: dict) -> str:
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def _stream(g, *, play: bool, playouts: int | None, review: bool = False,
            either_side: bool = False) -> StreamingResponse:
    """Run the search (or with ``review`` the whole-game review) in a worker thread; stream its
    snapshots (review: its status after each position) as server-sent events."""
    loop = asyncio.get_running_loop()
    events: asyncio.Queue = asyncio.Queue()
    cancel = threading.Event()

    def progress(snap: dict) -> None:
        loop.call_soon_threadsafe(events.put_nowait, ("progress", snap))

    def work():
        try:
            if review:
                status = g.run_review(playouts=playouts, progress=progress, cancel=cancel)
                return "done", {"game": g.to_json(), "review": status}
            search = g.think(play=play, playouts=playouts, progress=progress, cancel=cancel,
                             either_side=either_side)
            return "done", {"game": g.to_json(), "search": search}
        except (GameConflictError, GameInputError) as e:
            return "failed", {"detail": str(e)}

    async def body():
        task = asyncio.ensure_future(run_in_threadpool(work))
        task.add_done_callback(lambda t: events.put_nowait(("finished", None)))
        try:
            while True:
                name, data = await events.get()
                if name == "finished":
                    break
                yield _event(name, data)
            try:
                name, data = task.result()
            except Exception as e:  # a bug: say so on the stream rather than cut it
                name, data = "failed", {"detail": f"internal error: {type(e).__name__}"}
            yield _event(name, data)
        finally:
            cancel.set()  # the client went away: stop the search, play nothing

    return StreamingResponse(body(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def _warm_up() -> None:
    """Compile the search before the first visitor needs it (about 20 s once per environment)."""
    try:
        from zeroplay.engine.factory import warm_up

        warm_up()
    except Exception as e:  # the first search will compile (or fail) on its own
        print(f"zeroplay serve: warm-up failed: {e}", flush=True)


def is_loopback(address: str) -> bool:
    """Whether the bound ``address`` (an IP address as ``getsockname`` gives it) is reachable only
    from this machine: 127.0.0.0/8, ::1 (also as ::ffff:127.x.x.x)."""
    import ipaddress

    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return bool(ip.is_loopback or (mapped is not None and mapped.is_loopback))


def fixed_mmap_threshold(threshold: int = 128 * 1024) -> bool:
    """Keep glibc's malloc from raising its mmap threshold; True when set (glibc only).

    glibc raises the threshold after each large free (up to 32 MiB); from then on a game's search
    arrays come from the heap, where ``calloc`` zeroes, so touches, all of them at once, and a
    freed game's memory mostly stays in the process. Measured with ``scripts/load_check.py`` (10
    clients, 9x9, --max-memory 128): RSS peaked at 631 MiB over a 187 MiB base without this and
    ``WebGame.close`` on eviction, at 225 MiB with both. A
    fixed threshold keeps each large array in its own mapping: pages never used cost nothing,
    and an evicted game's memory goes back to the system."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return bool(libc.mallopt(-3, threshold))  # -3: M_MMAP_THRESHOLD
    except (OSError, AttributeError):
        return False


MIN_SERVE_MEMORY = 40 << 20
"""The least ``--max-memory`` (bytes) ``serve`` starts with: one game's search on the largest board
with a model's evaluation cache (``--max-memory``'s help: 27-38 MiB a game by board size)."""


def serve(host: str = "127.0.0.1", port: int = 8000, *, model: str | None = None,
          playouts: int = PLAY_PLAYOUTS, max_games: int = DEFAULT_MAX_GAMES,
          max_memory: int = DEFAULT_MAX_MEMORY, allow_hosts: tuple[str, ...] = ()) -> int:
    """Run the web board until Ctrl-C; returns 0, or 2 for a bad option (a ``model`` that does not
    load or that the board cannot play, playouts, games or memory out of range; told before
    anything binds) or an address that cannot be bound. ``model`` plays every game (None: the
    shipped model per setting); ``playouts`` is the engine's playouts per move unless a game
    chooses its own; ``max_games`` and ``max_memory`` (bytes) bound the games kept (``GameStore``);
    ``allow_hosts``: ``Host`` names answered besides this machine's and ``host`` (a server bound to
    every interface, 0.0.0.0 or ::, also answers to any address literal)."""
    import ipaddress
    import socket

    import uvicorn

    if not 0 <= port <= 65535:
        print(f"zeroplay serve: error: --port must be in 0..65535, got {port}", file=sys.stderr)
        return 2
    if max_memory < MIN_SERVE_MEMORY:
        # every game would be refused, each with a 400 that blames the client (helper-68)
        print(f"zeroplay serve: error: --max-memory must be at least {MIN_SERVE_MEMORY >> 20} MiB, room for one "
              f"game on any board (27-38 MiB), got {max_memory / 2**20:g}", file=sys.stderr)
        return 2
    fixed_mmap_threshold()
    try:
        store = GameStore(max_games, max_memory=max_memory, model=model, playouts=playouts)
    except ValueError as e:
        print(f"zeroplay serve: error: {e}", file=sys.stderr)
        return 2
    try:
        if model is not None or not 1 <= playouts <= MAX_WEB_PLAYOUTS:
            store.check()  # loads the model: the message zeroplay play --model gives, before binding
    except ValueError as e:
        print(f"zeroplay serve: error: {e}", file=sys.stderr)
        return 2
    # bind here, so that a busy port or a bad host is a one-line error before any URL is printed
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as e:
        print(f"zeroplay serve: error: cannot listen on {host}:{port}: {e.strerror or e}", file=sys.stderr)
        return 2
    address, port = sock.getsockname()[:2]
    if not is_loopback(address):
        print(f"zeroplay serve: warning: listening on {host} ({address}), not only on this machine: the "
              f"board has no authentication, anyone who reaches port {port} can play and use its CPU",
              file=sys.stderr, flush=True)
    print(f"zeroplay web board: http://{host}:{port}/  (Ctrl-C stops it)", flush=True)
    threading.Thread(target=_warm_up, name="serve-warm-up", daemon=True).start()
    try:
        wildcard = ipaddress.ip_address(address.split("%", 1)[0]).is_unspecified
    except ValueError:
        wildcard = False
    app = create_app(store, allowed_hosts=(*LOCAL_NAMES, host, address, *allow_hosts), any_ip=wildcard)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0
