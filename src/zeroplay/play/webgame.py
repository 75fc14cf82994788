"""The web board's games: one ``WebGame`` per game id, kept by a ``GameStore``.

No web framework here: ``server.py`` turns these objects into HTTP. Every method validates its
input and raises ``GameInputError`` (-> HTTP 400), ``GameConflictError`` (-> 409: not your
turn, engine busy, game over) or ``UnknownGameError`` (-> 404: unknown id).

Win rates in the JSON are Black's (player 0) expected score in [0, 1], whatever the side to move,
so the graph reads one way; per-move win rates in an analysis are the side to move's.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from zeroplay.engine.factory import PLAY_PLAYOUTS, Engine, default_n_in_row, describe, make_engine, resolve_model
from zeroplay.games import Game, IllegalMoveError, State, make, option_names
from zeroplay.games.gomoku import MAX_SIZE, MIN_SIZE

GAMES = ("gomoku", "tictactoe")
MIN_N_IN_ROW = 3
MAX_WEB_PLAYOUTS = 20000
"""Most playouts per move a web request may ask for (the board's own bound on a request's work;
``zeroplay serve --playouts`` is checked against it too)."""
TOP_MOVES = 10
PROGRESS_EVERY_S = 0.15
SEARCH_CONFIG = {"node_capacity": 1 << 15, "edge_capacity": 1 << 20, "eval_cache_size": 1 << 12}
"""Per game: ~3 MB of nodes and 20 MB of edge pool at most (pages are touched as used).

A game's whole search (node table and payload, edge pool, leaf batch, threat table, evaluation
cache) is ``WebGame.memory_bytes``, measured from its arrays: 27.5 MB on 9x9, 30.1 MB on 15x15,
37.4 MB on 25x25 (the cache holds one prior per action). That is the most a game can cost; pages
never touched (a short game) cost less."""
DEFAULT_MAX_GAMES = 100
"""``zeroplay serve --max-games``: games kept at once (the least recently used idle one goes)."""
DEFAULT_MAX_MEMORY = 1 << 30
"""``zeroplay serve --max-memory``: bytes of all games' search arrays together (1 GiB: 29 to 39
games, by board size), beside the server's own ~0.5 GB (Python, torch, compiled code, models)."""


class GameInputError(ValueError):
    """Bad input from the client: an illegal move, a bad option, an unreadable record."""


class GameConflictError(RuntimeError):
    """A valid request that cannot be done now: not your turn, the engine is busy, game over."""


class UnknownGameError(LookupError):
    """No game with this id (never created, or dropped from the store)."""


class StoreFullError(RuntimeError):
    """No room for another game: every game kept is busy searching (-> HTTP 503)."""


def held_bytes(obj, *, skip: tuple = ()) -> int:
    """Bytes of the numpy arrays ``obj`` holds: its own, and those of the tuples, lists, dicts and
    zeroplay objects it refers to (each counted once; ``skip``: objects not to enter, such as a
    shared evaluator). Array sizes, not pages touched: the most the object can cost."""
    seen = {id(x) for x in skip}
    todo, total = [obj], 0
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, np.ndarray):
            if isinstance(x.base, np.ndarray):  # a view: its owner, once
                todo.append(x.base)
            else:
                total += x.nbytes
        elif isinstance(x, (tuple, list)):
            todo.extend(x)
        elif isinstance(x, dict):
            todo.extend(x.values())
        elif type(x).__module__.startswith("zeroplay.") and hasattr(x, "__dict__"):
            todo.extend(vars(x).values())
    return total


@dataclass
class Options:
    """A game's settings as the client chose them (validated by ``Options.check``).

    ``n_in_row`` (Gomoku: stones in a row that win) None means the default for the board size:
    ``engine.default_n_in_row`` (4 on 6x6, the shipped 6x6 model's game, else 5).
    """

    game: str = "gomoku"
    size: int = 15
    rule: str = "freestyle"
    color: str = "black"
    playouts: int = PLAY_PLAYOUTS
    n_in_row: int | None = None

    def __post_init__(self):
        if self.n_in_row is None:
            self.n_in_row = default_n_in_row(self.size)

    def check(self) -> Options:
        if self.game not in GAMES:
            raise GameInputError(f"game must be one of {', '.join(GAMES)}, not {self.game!r}")
        sized = "size" in option_names(self.game)  # a game with the board options (Gomoku)
        if sized and not MIN_SIZE <= self.size <= MAX_SIZE:
            raise GameInputError(f"size must be {MIN_SIZE}..{MAX_SIZE}, not {self.size}")
        if sized and not MIN_N_IN_ROW <= self.n_in_row <= self.size:
            raise GameInputError(f"n_in_row (stones in a row) must be {MIN_N_IN_ROW}..{self.size} on a "
                                 f"{self.size}x{self.size} board, not {self.n_in_row}")
        if self.rule not in ("freestyle", "standard", "renju"):
            raise GameInputError(f"rule must be freestyle, standard or renju, not {self.rule!r}")
        if sized and self.rule == "renju" and self.n_in_row != 5:
            raise GameInputError(f"renju is played five in a row, not {self.n_in_row}")
        if self.color not in ("black", "white"):
            raise GameInputError(f"color must be black or white, not {self.color!r}")
        if not 1 <= self.playouts <= MAX_WEB_PLAYOUTS:
            raise GameInputError(f"playouts must be 1..{MAX_WEB_PLAYOUTS}, not {self.playouts}")
        return self

    def make_game(self) -> Game:
        if self.game == "tictactoe":
            return make("tictactoe")
        return make("gomoku", width=self.size, height=self.size, n_in_row=self.n_in_row, rule=self.rule)


_ENGINES: dict[tuple[Game, str | None], Engine] = {}
_ENGINES_LOCK = threading.Lock()


def engine_for(game: Game, model: str | None = None) -> Engine:
    """One Engine (evaluator) per game kind and model, shared by all web games of that kind.

    ``model`` (a path or a shipped model's name, ``zeroplay serve --model``) plays every game;
    None: the shipped model for the game's setting, else search only (``engine.make_engine``).

    Raises:
        GameInputError: ``model`` cannot play ``game`` (another board, rule or game), or does not
            load: ``make_engine``'s message, the one ``zeroplay play --model`` prints.
    """
    key = (game, None if model is None else str(model))
    with _ENGINES_LOCK:
        if key not in _ENGINES:
            try:
                _ENGINES[key] = make_engine(game, model)
            except ValueError as e:  # CheckpointError: worded by engine.check_model / load_model
                if model is None:
                    raise  # the shipped default failed: a bug, not the client's input
                raise GameInputError(str(e)) from None
        return _ENGINES[key]


class WebGame:
    """One game of the web board: moves, the engine's tree, win rates, the last analysis."""

    def __init__(self, game_id: str, options: Options, moves: tuple[int, ...] = (), model: str | None = None):
        self.id = game_id
        self.options = options
        self.game = options.make_game()
        self.engine = engine_for(self.game, model)
        self.searcher = self.engine.new_searcher(**SEARCH_CONFIG)
        self.memory_bytes = held_bytes(self, skip=(self.engine, self.searcher.evaluator))
        """The most this game's search can cost, in bytes (see SEARCH_CONFIG)."""
        s = self.game.initial()
        for i, m in enumerate(moves):
            try:
                s = s.play(m)
            except IllegalMoveError as e:  # name the move by its place in the record, not its cell
                why = str(e).split(": ", 1)[-1]
                raise IllegalMoveError(f"move {i + 1} ({self.game.format_move(int(m))}): {why}") from None
        self.state: State = s
        self.human = 0 if options.color == "black" else 1
        self.winrates: dict[int, float] = {}
        self.analysis: dict | None = None
        self.busy = threading.Lock()
        self._analysis_cancel: threading.Event | None = None  # set: stop the running analysis
        self.touched = time.monotonic()
        self.closed = False

    def close(self) -> bool:
        """Free the search arrays now (an evicted game), unless the game is busy; True when done.

        The game keeps ``busy`` held from then on, so no request can start on it; a request that
        found the game just before gets ``UnknownGameError``, as after the eviction."""
        if not self.busy.acquire(blocking=False):
            return False
        self.closed = True
        self.searcher = None  # the arrays go now, not at the next cyclic garbage collection
        return True

    def _check_open(self) -> None:
        if self.closed:
            raise UnknownGameError(self.id)

    # --- views ------------------------------------------------------------------------------
    def fmt(self, move: int) -> str:
        return self.game.format_move(int(move))

    def to_json(self) -> dict:
        s, g = self.state, self.game
        if s.is_terminal:
            result = "draw" if s.winner is None else ("Black wins" if s.winner == 0 else "White wins")
        else:
            result = None
        return {
            "id": self.id,
            "options": {"game": self.options.game, "size": g.width, "n_in_row": g.n_in_row,
                        "rule": self.options.rule, "color": self.options.color,
                        "playouts": self.options.playouts},
            "title": describe(g),
            "width": g.width,
            "height": g.height,
            "engine": self.engine.name,
            "note": self.engine.note,
            "board": [int(v) for v in s.board.reshape(-1)],
            "moves": [{"cell": int(m), "text": self.fmt(m), "gomocup": g.format_move(int(m), "gomocup")}
                      for m in s.moves],
            "last_move": s.last_move,
            # renju: the empty cells the side to move may not play (Black's forbidden points)
            "forbidden": [int(c) for c in g.forbidden_moves(s)],
            "to_play": s.to_play,
            "human": self.human,
            "your_turn": (not s.is_terminal) and s.to_play == self.human,
            "over": s.is_terminal,
            "winner": s.winner,
            "result": result,
            "winrates": [{"ply": p, "black": round(w, 4)} for p, w in sorted(self.winrates.items())
                         if p <= s.ply],
            "analysis": self.analysis if self.analysis and self.analysis.get("ply") == s.ply else None,
            "busy": self.busy.locked(),
        }

    # --- moves ------------------------------------------------------------------------------
    def play_human(self, move) -> None:
        """Play the person's move (text ``h8`` / ``x,y`` or a cell number)."""
        if isinstance(move, bool) or not isinstance(move, (int, str)):
            raise GameInputError("move must be a cell number or text such as 'h8' or '7,7'")
        if isinstance(move, str) and len(move) > 20:
            raise GameInputError("move text too long")
        with self._exclusive():
            s = self.state
            if s.is_terminal:
                raise GameConflictError("the game is over")
            if s.to_play != self.human:
                raise GameConflictError("it is the engine's turn")
            try:
                self.state = s.play(move)
            except IllegalMoveError as e:
                raise GameInputError(str(e)) from None
            self.touched = time.monotonic()

    def _exclusive(self):
        """Hold ``busy`` for a change of the game; GameConflictError if the engine is thinking."""
        game = self

        class _Hold:
            def __enter__(self):
                game._check_open()
                if game.busy.acquire(blocking=False):
                    return
                analysis = game._analysis_cancel
                if analysis is not None:  # an analysis gives way to the person at once
                    analysis.set()
                    if game.busy.acquire(timeout=5.0):
                        return
                raise GameConflictError("the engine is thinking")

            def __exit__(self, *exc):
                game.busy.release()

        return _Hold()

    def undo(self) -> None:
        """Take back the person's last move and everything after it."""
        with self._exclusive():
            moves = list(self.state.moves)
            mine = [i for i in range(len(moves)) if i % 2 == self.human]
            if not mine:
                raise GameConflictError("nothing to undo")
            self.state = self.game.initial().play_many(moves[: mine[-1]])
            self.winrates = {p: w for p, w in self.winrates.items() if p <= self.state.ply}
            self.analysis = None
            self.touched = time.monotonic()

    # --- search -----------------------------------------------------------------------------
    def think(self, *, play: bool, playouts: int | None = None,
              progress: Callable[[dict], None] | None = None, cancel: threading.Event | None = None) -> dict:
        """Search the current position; with ``play`` the engine then plays its move.

        ``progress(snapshot)`` is called every PROGRESS_EVERY_S seconds from this thread;
        ``cancel`` stops the search early (a closed browser tab) and plays nothing.

        Returns the final snapshot (see ``snapshot``) with ``"move"`` when a move was played.
        """
        self._check_open()
        if not self.busy.acquire(blocking=False):
            raise GameConflictError("the engine is already thinking in this game")
        if cancel is None:
            cancel = threading.Event()
        if not play:
            self._analysis_cancel = cancel
        try:
            s = self.state
            if s.is_terminal:
                raise GameConflictError("the game is over")
            if play and s.to_play == self.human:
                raise GameConflictError("it is your turn, not the engine's")
            from zeroplay.search import Limits

            limit = int(playouts or self.options.playouts)
            searcher = self.searcher
            searcher.start(s, Limits(playouts=limit))
            last = time.monotonic()
            while not searcher.done and not cancel.is_set():
                if searcher.gather():
                    try:
                        priors, values = searcher.evaluate_queued()
                    except BaseException:
                        searcher.abandon()
                        raise
                    searcher.finish(priors, values)
                if progress is not None and time.monotonic() - last >= PROGRESS_EVERY_S:
                    last = time.monotonic()
                    progress(self.snapshot(searcher.result(), final=False))
            result = searcher.result()
            snap = self.snapshot(result, final=True)
            cancelled = cancel.is_set()
            if not cancelled:
                self.winrates[s.ply] = snap["black_winrate"]
                self.analysis = snap
                if play:
                    move = int(result.best_move)
                    self.state = s.play(move)
                    snap["move"] = {"cell": move, "text": self.fmt(move)}
            self.touched = time.monotonic()
            snap["cancelled"] = cancelled
            return snap
        finally:
            self._analysis_cancel = None
            self.busy.release()

    def snapshot(self, result, *, final: bool) -> dict:
        """Search statistics for the client (win rates: side to move's, except ``black_winrate``)."""
        s = self.state
        mover = s.to_play
        wr = float(result.win_rate)
        priors = self.searcher.root_priors() if result.moves else np.zeros(self.game.num_actions, np.float32)
        top = []
        for m in result.moves[:TOP_MOVES]:
            if m.visits == 0:
                break
            top.append({"cell": int(m.move), "text": self.fmt(m.move), "visits": int(m.visits),
                        "winrate": round((m.q + 1.0) / 2.0, 4), "prior": round(float(m.prior), 4),
                        "proven": m.proven})
        return {
            "ply": s.ply,
            "to_play": mover,
            "final": final,
            "playouts": int(result.playouts),
            "visits": int(result.root_visits),
            "seconds": round(float(result.seconds), 3),
            "winrate": round(wr, 4),
            "black_winrate": round(wr if mover == 0 else 1.0 - wr, 4),
            "best": None if result.best_move is None else {"cell": int(result.best_move),
                                                           "text": self.fmt(result.best_move)},
            "pv": [{"cell": int(m), "text": self.fmt(m)} for m in result.pv[:12]],
            "top": top,
            "policy": [round(float(p), 4) for p in priors],
            "proven": result.proven,
            # "full": the game's search tables filled before the playouts asked for (the search
            # plays its best move so far); the notes say so in words
            "stopped_by": result.stopped_by,
            "notes": list(result.notes),
        }

    # --- records ----------------------------------------------------------------------------
    def record(self, fmt: str) -> str:
        from zeroplay.games.records import record_of_game, write_psq, write_sgf

        names = ("you", "zeroplay") if self.human == 0 else ("zeroplay", "you")
        rec = record_of_game(self.game, self.state.moves, black=names[0], white=names[1])
        if fmt == "psq":
            return write_psq(rec)
        if fmt == "sgf":
            return write_sgf(rec)
        raise GameInputError(f"format must be psq or sgf, not {fmt!r}")


def moves_from_record(text: str, fmt: str = "auto") -> tuple[int, int, list[int]]:
    """(width, height, moves) of a PSQ or SGF record; ``fmt`` "auto" looks at the text.

    Raises:
        GameInputError: unreadable, unsupported format, bad board size.
    """
    from zeroplay.games.records import read_psq, read_sgf

    if fmt == "auto":
        fmt = "sgf" if text.lstrip().startswith("(") else "psq"
    if fmt not in ("psq", "sgf"):
        raise GameInputError(f"format must be psq, sgf or auto, not {fmt!r}")
    try:
        rec = read_psq(text) if fmt == "psq" else read_sgf(text)
    except (ValueError, IndexError, KeyError) as e:
        raise GameInputError(f"cannot read the {fmt.upper()} record: {e}") from None
    if not (MIN_SIZE <= rec.width <= MAX_SIZE and MIN_SIZE <= rec.height <= MAX_SIZE):
        raise GameInputError(f"record board {rec.width}x{rec.height}: the web board plays {MIN_SIZE}..{MAX_SIZE}")
    if rec.width != rec.height:
        raise GameInputError(f"record board {rec.width}x{rec.height}: the web board plays square boards")
    return rec.width, rec.height, list(rec.moves)


class GameStore:
    """Games by id, bounded by count (``max_games``) and by memory (``max_memory`` bytes, the sum
    of the games' ``memory_bytes``); a new game first evicts the least recently used idle games
    until it fits, and is refused (``StoreFullError``) when only busy games are left to evict.

    ``model`` (``zeroplay serve --model``: a path or a shipped model's name) plays every game, and
    the settings a request leaves out come from its game, as in ``zeroplay play --model``;
    ``playouts`` is the engine's playouts per move where a request gives none (``zeroplay serve
    --playouts``; default ``PLAY_PLAYOUTS``, as ``zeroplay play``).

    Raises (constructor):
        ValueError: ``max_games`` < 1 or ``max_memory`` < 1 MB.
    """

    def __init__(self, max_games: int = DEFAULT_MAX_GAMES, *, max_memory: int = DEFAULT_MAX_MEMORY,
                 model: str | None = None, playouts: int = PLAY_PLAYOUTS):
        from zeroplay.play.terminal import model_game

        if max_games < 1:
            raise ValueError(f"--max-games must be >= 1, got {max_games}")
        if max_memory < 1 << 20:
            raise ValueError(f"--max-memory must be at least 1 MiB, got {max_memory} bytes")
        self.max_games = max_games
        self.max_memory = max_memory
        self.model = None if model is None else resolve_model(str(model))  # a shipped name: its file
        self.model_info = model_game(model)  # None without a model, or one that does not read
        self.playouts = playouts
        self._games: OrderedDict[str, WebGame] = OrderedDict()
        self._lock = threading.Lock()
        self.evicted = 0

    def __len__(self) -> int:
        return len(self._games)

    @property
    def memory_bytes(self) -> int:
        """The games' ``memory_bytes`` together (at most ``max_memory``)."""
        with self._lock:
            return sum(g.memory_bytes for g in self._games.values())

    def options(self, game: str | None = None, size: int | None = None, n_in_row: int | None = None,
                rule: str | None = None, color: str = "black", playouts: int | None = None) -> Options:
        """A game's Options, those not given from the model's game, else the defaults
        (``terminal.game_settings``, as ``zeroplay play``); playouts from the store's default."""
        from zeroplay.play.terminal import game_settings

        name, size, n_in_row, rule = game_settings(self.model_info, game, size, n_in_row, rule)
        playouts = self.playouts if playouts is None else playouts
        if "size" in option_names(name):
            return Options(name, size, rule, color, playouts, n_in_row=n_in_row)
        return Options(name, color=color, playouts=playouts)

    def defaults(self) -> dict:
        """What a request that gives nothing gets, for the page's form: ``game``, ``size``,
        ``n_in_row``, ``rule``, ``playouts``, ``model`` (the ``--model`` file's name, or None) and
        ``n_in_row_by_size`` (the line length when only the size is chosen, for each size where it
        is not 5)."""
        o = self.options()
        by_size = {size: self.options("gomoku", size).n_in_row for size in range(MIN_SIZE, MAX_SIZE + 1)}
        model = None if self.model is None else Path(self.model).name  # the file's name, not where it lies
        return {"game": o.game, "size": o.size, "n_in_row": o.n_in_row, "rule": o.rule,
                "playouts": o.playouts, "model": model,
                "n_in_row_by_size": {str(k): v for k, v in by_size.items() if v != 5}}

    def check(self) -> Engine:
        """The engine of the default game, made now: a ``--model`` that does not load, or whose game
        the web board does not play, is told before the server starts.

        Raises:
            ValueError: the model's problem in ``zeroplay play``'s words (``GameInputError``), or
                a game the web board does not play; the playouts out of range.
        """
        if not 1 <= self.playouts <= MAX_WEB_PLAYOUTS:
            raise ValueError(f"--playouts must be 1..{MAX_WEB_PLAYOUTS} on the web board, "
                             f"got {self.playouts}")
        options = self.options()
        if options.game not in GAMES:
            raise ValueError(f"{self.model} is a {options.game} model: the web board plays "
                             f"{' and '.join(GAMES)} (zeroplay play --model plays it in the terminal)")
        return engine_for(options.check().make_game(), self.model)

    def new(self, options: Options, moves: tuple[int, ...] = ()) -> WebGame:
        options.check()
        try:
            g = WebGame(secrets.token_hex(8), options, tuple(moves), self.model)
        except IllegalMoveError as e:
            hint = ""
            if "n_in_row" in option_names(options.game) and "over" in str(e):
                hint = (f" (records do not store the line length: this game plays {options.n_in_row} "
                        f"in a row; give n_in_row if the record's game used another)")
            raise GameInputError(f"the record's moves cannot be replayed: {e}{hint}") from None
        if g.memory_bytes > self.max_memory:
            raise GameInputError(f"this game needs {g.memory_bytes / 2**20:.0f} MiB, more than the server's "
                                 f"--max-memory {self.max_memory / 2**20:.0f} MiB")
        with self._lock:
            used = sum(v.memory_bytes for v in self._games.values())
            while len(self._games) >= self.max_games or used + g.memory_bytes > self.max_memory:
                victim = next((k for k, v in self._games.items() if v.close()), None)
                if victim is None:
                    raise StoreFullError("the server is full: every game it keeps is searching; try again "
                                         "in a moment")
                used -= self._games.pop(victim).memory_bytes
                self.evicted += 1
            self._games[g.id] = g
        return g

    def get(self, game_id: str) -> WebGame:
        with self._lock:
            g = self._games.get(game_id)
            if g is None or g.closed:
                raise UnknownGameError(game_id)
            self._games.move_to_end(game_id)
            return g
