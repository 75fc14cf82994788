"""The web board's settings and errors: ``Options`` (a game's settings, checked), the errors that
``server.py`` turns into status codes, one shared ``Engine`` per game kind, and the bytes a game
holds. No web framework here.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from zeroplay.engine.factory import PLAY_PLAYOUTS, Engine, default_n_in_row, describe, make_engine
from zeroplay.games import Game, board_sizes, make, option_names
from zeroplay.games.gomoku import MIN_N_IN_ROW

GAMES = ("gomoku", "tictactoe", "go")
MAX_WEB_PLAYOUTS = 20000
"""Most playouts per move a web request may ask for (the board's own bound on a request's work;
``zeroplay serve --playouts`` is checked against it too)."""
SEARCH_ONLY = "search"
"""``Options.model`` for the search without a network (the window-count heuristic)."""
MAX_SECONDS_PER_MOVE = 60.0
"""Most seconds a web game's engine may think per move (``Options.seconds``)."""
DEFAULT_MAX_GAMES = 100
"""``zeroplay serve --max-games``: games kept at once (the least recently used idle one goes)."""
DEFAULT_MAX_MEMORY = 1 << 30
"""``zeroplay serve --max-memory``: bytes of all games' search arrays together (1 GiB: 41 to 43
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
    seconds: float | None = None
    """The engine's time per move in seconds (0 < s <= MAX_SECONDS_PER_MOVE); None: ``playouts``
    per move. With a time, the engine's move stops at the time or MAX_WEB_PLAYOUTS, whichever
    comes first; analyses keep to playouts."""
    n_in_row: int | None = None
    model: str | None = None
    """The engine's model: None the default for the setting (the shipped model measured there,
    else the search alone), SEARCH_ONLY, or a shipped model's name that loads for the game
    (``engine.fitting_models``)."""

    komi: float | None = None
    """Go: points for White (None: the game's default, 7.5)."""
    scoring: str | None = None
    """Go: ``"area"`` or ``"territory"`` (None: the game's default, area)."""
    vary_opening: bool = True
    """The engine draws its first moves among those rated about as good as its best
    (``search.choice.varied_move``: plies 1-5), so that a game cannot be won again by replaying
    it; False: always its most visited move (``zeroplay play --deterministic``)."""
    engine_resigns: bool = True
    """In a game whose ``Game.resigns`` is set (Go), the engine resigns once its win rate has
    been under 3 % at 3 of its moves in a row (``engine.resign``, KataGo's rule); False: it plays
    every game to its end (``zeroplay play --no-resign``)."""

    def __post_init__(self):
        if self.n_in_row is None:
            self.n_in_row = default_n_in_row(self.size)

    def check(self) -> Options:
        if self.game not in GAMES:
            raise GameInputError(f"game must be one of {', '.join(GAMES)}, not {self.game!r}")
        sizes = board_sizes(self.game)  # the game's own sides (Gomoku 5..25, Go 5..19), None: no choice
        lines = "n_in_row" in option_names(self.game)  # the n-in-a-row options (Gomoku)
        if sizes is not None and not sizes[0] <= self.size <= sizes[1]:
            raise GameInputError(f"size must be {sizes[0]}..{sizes[1]} for {self.game}, not {self.size}")
        n_in_row = default_n_in_row(self.size) if self.n_in_row is None else self.n_in_row
        if lines and not MIN_N_IN_ROW <= n_in_row <= self.size:
            raise GameInputError(f"n_in_row (stones in a row) must be {MIN_N_IN_ROW}..{self.size} on a "
                                 f"{self.size}x{self.size} board, not {self.n_in_row}")
        if self.rule not in ("freestyle", "standard", "renju"):
            raise GameInputError(f"rule must be freestyle, standard or renju, not {self.rule!r}")
        if lines and self.rule == "renju" and n_in_row != 5:
            raise GameInputError(f"renju is played five in a row, not {n_in_row}")
        if self.color not in ("black", "white"):
            raise GameInputError(f"color must be black or white, not {self.color!r}")
        if not 1 <= self.playouts <= MAX_WEB_PLAYOUTS:
            raise GameInputError(f"playouts must be 1..{MAX_WEB_PLAYOUTS}, not {self.playouts}")
        if self.seconds is not None and not 0 < self.seconds <= MAX_SECONDS_PER_MOVE:
            raise GameInputError(f"seconds per move must be in (0, {MAX_SECONDS_PER_MOVE:g}], not {self.seconds}")
        try:  # the game's own checks (Go: komi in half points, the scoring's name)
            game = self.make_game()
        except ValueError as e:
            raise GameInputError(str(e)) from None
        if self.model is not None and self.model != SEARCH_ONLY:
            from zeroplay.engine.factory import fitting_models

            fits = fitting_models(game)
            if self.model not in fits:
                choice = ", ".join([SEARCH_ONLY, *fits])
                raise GameInputError(f"model {self.model[:80]!r} does not play {describe(game)}: choose one of {choice}")
        return self

    def make_game(self) -> Game:
        """The game of these settings: each option the game takes (``option_names``) passes on."""
        takes = option_names(self.game)
        options: dict[str, object] = {"width": self.size, "height": self.size} if "size" in takes else {}
        if "n_in_row" in takes:
            options.update(n_in_row=self.n_in_row, rule=self.rule)
        for name in ("komi", "scoring"):
            if name in takes and getattr(self, name) is not None:
                options[name] = getattr(self, name)
        return make(self.game, **options)


_ENGINES: dict[tuple[Game, str | None], Engine] = {}
_ENGINES_LOCK = threading.Lock()


def engine_for(game: Game, model: str | None = None) -> Engine:
    """One Engine (evaluator) per game kind and model, shared by all web games of that kind.

    ``model`` (a path or a shipped model's name, ``zeroplay serve --model`` or a game's choice);
    SEARCH_ONLY: the search alone; None: the shipped model for the game's setting, else search
    only (``engine.make_engine``).

    Raises:
        GameInputError: ``model`` cannot play ``game`` (another board, rule or game), or does not
            load: ``make_engine``'s message, the one ``zeroplay play --model`` prints.
    """
    key = (game, None if model is None else str(model))
    with _ENGINES_LOCK:
        if key not in _ENGINES:
            try:
                if model == SEARCH_ONLY:
                    _ENGINES[key] = make_engine(game, None, use_shipped=False)
                else:
                    _ENGINES[key] = make_engine(game, model)
            except ValueError as e:  # CheckpointError: worded by engine.check_model / load_model
                if model is None:
                    raise  # the shipped default failed: a bug, not the client's input
                raise GameInputError(str(e)) from None
        return _ENGINES[key]
