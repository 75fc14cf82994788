"""The web board's games by id (``GameStore``: bounded by count and memory, least recently used
idle game evicted first) and records read for loading (``moves_from_record``)."""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from dataclasses import replace
from pathlib import Path

from zeroplay.engine.factory import PLAY_PLAYOUTS, Engine, resolve_model
from zeroplay.games import IllegalMoveError, board_sizes, option_names
from zeroplay.games.gomoku import MAX_SIZE, MIN_SIZE
from zeroplay.games.records.sgftree import sgf_game_trees
from zeroplay.play.webgame import WebGame
from zeroplay.play.weboptions import (
    DEFAULT_MAX_GAMES,
    DEFAULT_MAX_MEMORY,
    GAMES,
    MAX_WEB_PLAYOUTS,
    GameInputError,
    Options,
    StoreFullError,
    UnknownGameError,
    engine_for,
)
from zeroplay.play.webrecord import BoardRecord, from_game_record, read_board_sgf


def record_from_text(text: str, fmt: str = "auto") -> BoardRecord:
    """The record of a PSQ or SGF text the web board can play (SGF: every variation and a set-up
    start, ``play.webrecord``); ``fmt`` "auto" looks at the text.

    Raises:
        GameInputError: unreadable, unsupported format, bad board size.
    """
    from zeroplay.games.records import read_psq

    if fmt == "auto":
        fmt = "sgf" if _looks_sgf(text) else "psq"
    if fmt not in ("psq", "sgf"):
        raise GameInputError(f"format must be psq, sgf or auto, not {fmt!r}")
    try:
        rec = from_game_record(read_psq(text)) if fmt == "psq" else read_board_sgf(text)
    except (ValueError, IndexError, KeyError) as e:
        raise GameInputError(f"cannot read the {fmt.upper()} record: {e}") from None
    if not (MIN_SIZE <= rec.width <= MAX_SIZE and MIN_SIZE <= rec.height <= MAX_SIZE):
        raise GameInputError(f"record board {rec.width}x{rec.height}: the web board plays {MIN_SIZE}..{MAX_SIZE}")
    if rec.width != rec.height:
        raise GameInputError(f"record board {rec.width}x{rec.height}: the web board plays square boards")
    return rec


def _looks_sgf(text: str) -> bool:
    # a text with '[' is SGF, even one whose '(' was lost (it then gets the SGF reader's error,
    # not "not a PSQ record"), unless it starts as PSQ does: an engine's name may hold one
    # ("Embryo [21]" was read as SGF; helper-77)
    start = text.removeprefix("\ufeff").lstrip()
    if start[:9].lower() == "piskvorky":
        return False
    return start.startswith("(") or "[" in text


def game_of_collection(text: str, game: int | None = None, fmt: str = "auto") -> str:
    """The text of game ``game`` (counted from 1, as SGF viewers number them; None: the only one)
    of an SGF collection, that tree alone (text around it dropped); ``text`` itself for a PSQ record
    or a text with no ``(;``.

    Raises:
        GameInputError: a collection of several games and no ``game`` (the message names how many:
            a file of three loaded its first without a word; helper-75), a ``game`` it does not
            hold.
    """
    sgf = fmt == "sgf" or (fmt == "auto" and _looks_sgf(text))
    trees = sgf_game_trees(text) if sgf else []
    count = max(len(trees), 1)
    if game is None:
        if count > 1:
            raise GameInputError(f"the SGF file holds {count} games: choose one, 1..{count} (\"game\")")
        game = 1
    if not 1 <= game <= count:
        raise GameInputError(f"game {game}: the file holds {'one game' if count == 1 else f'{count} games'}")
    # the tree alone: a "(copy)" before it was read as the game and refused (helper-78)
    return text[slice(*trees[game - 1])] if trees else text


def moves_from_record(text: str, fmt: str = "auto") -> tuple[int, int, list[int]]:
    """(width, height, moves) of a PSQ or SGF record (``record_from_text``)."""
    rec = record_from_text(text, fmt)
    return rec.width, rec.height, rec.main_line()


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
                rule: str | None = None, color: str = "black", playouts: int | None = None,
                seconds: float | None = None, model: str | None = None, komi: float | None = None,
                scoring: str | None = None, vary_opening: bool = True, engine_resigns: bool = True) -> Options:
        """A game's Options, those not given from the model's game, else the defaults
        (``terminal.game_settings``, as ``zeroplay play``; a sized game without a line length,
        Go, gets its own default size); playouts from the store's default."""
        return replace(self._options(game, size, n_in_row, rule, color, playouts, seconds, model, komi, scoring),
                       vary_opening=bool(vary_opening), engine_resigns=bool(engine_resigns))

    def _options(self, game, size, n_in_row, rule, color, playouts, seconds, model, komi, scoring) -> Options:
        from zeroplay.play.terminal import game_settings

        name, size, n_in_row, rule = game_settings(self.model_info, game, size, n_in_row, rule)
        playouts = self.playouts if playouts is None else playouts
        takes = option_names(name)
        if "n_in_row" in takes:  # game_settings fills the Gomoku options for Gomoku
            assert size is not None and rule is not None
            return Options(name, size, rule, color, playouts, seconds, n_in_row=n_in_row, model=model)
        if "size" in takes:
            if size is None:
                from zeroplay.games import make

                size = make(name).width
            return Options(name, size, color=color, playouts=playouts, seconds=seconds, model=model,
                           komi=komi, scoring=scoring)
        return Options(name, color=color, playouts=playouts, seconds=seconds, model=model)

    def defaults(self) -> dict:
        """What a request that gives nothing gets, for the page's form: ``game``, ``size``,
        ``n_in_row``, ``rule``, ``playouts``, ``model`` (the ``--model`` file's name, or None) and
        ``n_in_row_by_size`` (the line length when only the size is chosen, for each size where it
        is not 5), ``board_sizes`` (each web game with a size choice -> ``[smallest, largest]``
        side, the game's own ``Game.board_sizes``: the page's size menu)."""
        o = self.options()
        by_size = {size: self.options("gomoku", size).n_in_row for size in range(MIN_SIZE, MAX_SIZE + 1)}
        model = None if self.model is None else Path(self.model).name  # the file's name, not where it lies
        return {"game": o.game, "size": o.size, "n_in_row": o.n_in_row, "rule": o.rule,
                "playouts": o.playouts, "model": model,
                "n_in_row_by_size": {str(k): v for k, v in by_size.items() if v != 5},
                "board_sizes": {name: list(sizes) for name in GAMES if (sizes := board_sizes(name)) is not None}}

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

    def new(self, options: Options, moves: tuple[int, ...] = (), setup: tuple | None = None) -> WebGame:
        """A new game kept under a fresh id (``WebGame``'s ``moves`` and ``setup``); the least
        recently used idle games are evicted to make room.

        Raises:
            GameInputError: bad options or set-up, an illegal move, a game over --max-memory;
            StoreFullError: every game kept is searching.
        """
        if options.model is not None and self.model is not None:
            raise GameInputError(f"this server plays its --model {Path(self.model).name} in every game: "
                                 f"no model to choose")
        options.check()
        try:
            g = WebGame(secrets.token_hex(8), options, tuple(moves), self.model or options.model, setup)
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
