"""The Game API every game implements: ``Game`` (rules and constants) and immutable ``State``.

Conventions (see shared/README.md): cells are flat ``row * width + col`` with row 0 at the top;
players are 0 (first player, Black) and 1 (second, White); moves are *actions*
(``0 <= a < game.num_actions``), which for Gomoku are cells.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from zeroplay.games.layout import (
    I_KEY,
    I_LAST,
    I_PLY,
    I_TERMINAL,
    I_TO_PLAY,
    I_WINNER,
    INFO_SIZE,
    P_ACTIONS,
    P_CELLS,
    P_EMPTY_KEY,
    P_FAMILY,
    P_HEIGHT,
    P_SIDE_KEY,
    P_WIDTH,
    PARAMS_SIZE,
)
from zeroplay.games.symmetry import Symmetry
from zeroplay.hashing import EMPTY_KEY, SIDE_KEY, zobrist_key

FEATURE_SETS = ("basic", "alphazero-gomoku")
"""Network input feature sets every board game encodes; see ``State.planes`` (a game may add its
own: ``Game.feature_sets``)."""


class IllegalMoveError(ValueError):
    """A move that cannot be played here: occupied, out of range, game over, or malformed text.

    The message names the move. The state it was tried on is unchanged.
    """


class FastPosition:
    """Mutable arrays of one position for the compiled in-place path (search only).

    Attributes (layout in ``zeroplay.games.layout``): ``board`` int8 (cells,), ``info`` int64
    (INFO_SIZE,), ``stack`` int32 (max_plies + 1,), ``aux`` uint8 ``game.aux_shape`` (the game's
    own incremental state; Gomoku: winning-move masks).
    """

    __slots__ = ("board", "info", "stack", "aux")

    def __init__(self, board, info, stack, aux):
        self.board = board
        self.info = info
        self.stack = stack
        self.aux = aux


class FastKernels(NamedTuple):
    """A game's compiled kernels: what the search calls per playout (``games/fast.py``).

    Each is a numba ``@njit`` function over the arrays of ``FastPosition`` and the game's
    ``params`` / ``zkeys``; none allocates, none touches a Python object. Moves are legal (the
    ``State`` validates them before they reach a kernel).

    Attributes:
        apply: ``(params, zkeys, board, info, stack, aux, action) -> None`` plays ``action`` in
            place: key, ply, side to move, last move, terminal and winner included.
        undo: ``(params, zkeys, board, info, stack, aux) -> int`` takes back the last action and
            returns it (the search restores positions by copying; undo serves the solvers).
        legal_moves: ``(params, board, info, aux, out) -> int`` writes the legal actions,
            ascending, into ``out`` (int64, >= num_actions); 0 when the game is over.
        winning_moves: ``(params, board, info, aux, player, out) -> int`` the actions that win at
            once for ``player``, ascending (0 for a game without such a notion).
        num_winning_moves: ``(params, board, info, aux, player) -> int`` their count, in O(1)
            where the game keeps it (0 when the game is over).
        rollout: ``(params, board, info, rng) -> int`` finishes the game from (board, info) with
            uniformly random legal moves on these scratch copies and returns the winner (0, 1)
            or -1 for a draw; ``rng`` is uint64 (1,) xorshift64* state (never 0), advanced.
    """

    apply: Callable
    undo: Callable
    legal_moves: Callable
    winning_moves: Callable
    num_winning_moves: Callable
    rollout: Callable


class Game(ABC):
    """Rules and constants of one game with its options fixed (e.g. 15x15 freestyle Gomoku).

    Attributes:
        name: registry name (``"gomoku"``, ``"tictactoe"``, ...).
        options: the options it was made with, as ``make(name, **options)`` takes them.
        height, width: board shape; ``cells = height * width``.
        num_actions: length of every policy vector.
        params: int64 (PARAMS_SIZE,) constants for the compiled path.
        zkeys: int64 (rows, cells) Zobrist keys for the compiled path (uint64 bits).
        symmetries: the board's symmetry group, identity first.
        kernels: the game's compiled kernels (``FastKernels``), or None for a game whose rules
            are not compiled (the compiled search then does not take it).
        max_plies: the most moves a game can last (sizes ``stack`` and the search's paths).
        aux_shape: shape of the position's ``aux`` array.
        policy_layout: ``"cells"``, ``"columns"`` or ``"cells+pass"`` (see below).
    """

    name: str
    options: dict
    height: int
    width: int
    cells: int
    num_actions: int
    params: np.ndarray
    zkeys: np.ndarray
    symmetries: tuple[Symmetry, ...]
    kernels: FastKernels | None = None
    threat_space: bool = False
    """True when Gomoku's threat-space solvers (VCF/VCT: fours and threes) apply to this game."""
    threat_planes: bool = False
    """True when the game writes the eight threat input planes of the ``+threats`` feature sets
    (``write_threat_planes``; Gomoku: five, open four, four, open three for each side)."""
    value_only_options: tuple[str, ...] = ()
    """Options that change no rule of play, only the final result's margin (Go's komi): a net
    trained under one value still loads under another (its values lean; front-ends say so)."""
    exact_solver: bool = False
    """True when ``zeroplay.solvers.connect4_solver`` (Pons' bitboard negamax) solves this game
    exactly, so a player may answer with it: 7 x 6 Connect Four."""
    heuristic: str | None = None
    """The window-count heuristic of ``zeroplay.engine.heuristic`` that guides the search-only
    engine: ``"cells"`` (n-in-a-row windows over cells; actions are cells), ``"columns"``
    (windows through each column's landing cell; actions are columns), ``"go"`` (Go's
    local-knowledge priors with random-rollout values, ``engine.go_prior``), or None (uniform
    priors)."""
    play_search_options: tuple[tuple[str, object], ...] = ()
    """``SearchConfig`` fields (name, value) the game's play engines search with
    (``engine.factory.make_engine``), e.g. Gomoku's ``(("threat_solver", True),)``."""
    notation: str = "cells"
    """How a person types a move: ``"cells"`` (a cell, ``h8`` or Gomocup ``x,y``) or
    ``"columns"`` (a column digit ``1``..``width``)."""
    player_names: tuple[str, str] = ("Black", "White")
    """What the two players are called, player 0 first (Connect Four: the marks ``X``, ``O``)."""
    max_plies: int
    aux_shape: tuple[int, int]
    aux_is_history: bool = False
    """True when ``aux`` row k belongs to ply k alone (a history: Go's boards for superko) and
    ``apply`` at ply p writes only row p + 1: the rows up to a position's ply never change below
    it, so the search restores its root by ``board`` and ``info`` alone, without copying ``aux``
    back after each playout (9x9 Go: 20 KB a playout, measured in docs/BENCHMARKS.md)."""
    feature_sets: tuple[str, ...] = FEATURE_SETS
    """The network input feature sets this game encodes (``games.planes``), its default first
    (what ``zeroplay train`` uses when ``--features`` is not given)."""
    policy_layout: str = "cells"
    """How actions map onto the board, for a fully convolutional policy head (``nn/arch.py``):
    ``"cells"`` (action = cell, ``num_actions = cells``), ``"columns"`` (action = column, gravity
    games, ``num_actions = width``), ``"cells+pass"`` (the cells, then one pass action last,
    ``num_actions = cells + 1``: Othello, Go)."""

    @property
    def max_legal_moves(self) -> int:
        """The most legal moves any position of this game has (>= 1): the search reserves this
        many edges per node when it is sized for a number of playouts
        (``SearchConfig.for_playouts``), so that no search of that size runs out of edges.
        Default ``num_actions``, a bound for every game whose actions are its moves; a game with
        far fewer legal moves than policy entries may say less."""
        return self.num_actions

    def final_score_text(self, state: State) -> str | None:
        """The score of a finished game in words for front-ends (Go: ``"B+4.5"``), or None for a
        game decided without a score (the default)."""
        return None

    board_sizes: tuple[int, int] | None = None
    """The square board sides (inclusive, points) a person may choose for this game in a
    front-end with a size choice (the web board's menu, its checks and errors), read from the
    class before a game is made (``games.board_sizes``); None: a game without a size option (the
    default). Gomoku 5..25, Go 5..19."""

    sgf_game: int | None = None
    """The SGF ``GM`` number of the game's own SGF module (Go: 1, ``games.go.sgf``), or None: the
    shared records (``games.records``: PSQ, SGF ``GM[4]``)."""
    pass_action: int | None = None
    """The action that passes (Go: ``cells``), or None in games without a pass."""
    resigns: bool = False
    """Whether a front-end's engine resigns a game it has lost (``engine.resign``): Go, where an
    engine playing on fills its own eyes; False (the default) where a lost game ends by itself."""

    def star_points(self) -> list[int] | None:
        """Cells a board diagram marks with a dot (Go's hoshi), or None: the front-end's own choice
        (the default)."""
        return None

    def column_labels(self) -> str | None:
        """The column letters of the game's notation, leftmost first (Go: GTP's, without I), or
        None for ``a``, ``b``, ``c``, ... (the default)."""
        return None

    def score_details(self, state: State) -> dict | None:
        """What a front-end shows of a scored game's count, or None for a game decided without a
        score (the default). Go: see ``Go.score_details``."""
        return None

    def opening_prior(self) -> np.ndarray | None:
        """What is known of good first moves, as a prior the search may mix into its root priors
        early in a game (``SearchConfig.opening_prior``): float32 (num_actions,) summing to 1, or
        None when the game offers none (the default)."""
        return None

    def write_threat_planes(self, boards: np.ndarray, infos: np.ndarray, out: np.ndarray) -> None:
        """Write the threat planes of a batch: boards int8 (B, cells), infos int64 (B, INFO_SIZE)
        -> ``out`` float32 (B, 8, height, width), side to move's planes first. Games with
        ``threat_planes`` override it.

        Raises:
            ValueError: the game has no threat planes.
        """
        raise ValueError(f"{self.name} has no threat planes")

    # --- compiled hooks, through the game's kernels -----------------------------------------
    def _apply(self, pos: FastPosition, action: int) -> None:
        """Play a legal ``action`` in place (the game's ``kernels.apply``)."""
        assert self.kernels is not None  # a game without kernels has no compiled hooks
        self.kernels.apply(self.params, self.zkeys, pos.board, pos.info, pos.stack, pos.aux, action)

    def _undo(self, pos: FastPosition) -> int:
        """Take back the last action in place; returns it."""
        assert self.kernels is not None  # a game without kernels has no compiled hooks
        return int(self.kernels.undo(self.params, self.zkeys, pos.board, pos.info, pos.stack, pos.aux))

    def _legal_moves(self, pos: FastPosition) -> np.ndarray:
        """int64 array of legal actions, ascending."""
        out = np.empty(self.num_actions, dtype=np.int64)
        assert self.kernels is not None  # a game without kernels has no compiled hooks
        return out[: self.kernels.legal_moves(self.params, pos.board, pos.info, pos.aux, out)]

    def _winning_moves(self, pos: FastPosition, player: int) -> np.ndarray:
        """int64 array of the actions that win at once for ``player``."""
        out = np.empty(self.num_actions, dtype=np.int64)
        assert self.kernels is not None  # a game without kernels has no compiled hooks
        return out[: self.kernels.winning_moves(self.params, pos.board, pos.info, pos.aux, player, out)]

    def _num_winning_moves(self, pos: FastPosition, player: int) -> int:
        """How many actions win at once for ``player`` (0 when the game is over)."""
        assert self.kernels is not None  # a game without kernels has no compiled hooks
        return int(self.kernels.num_winning_moves(self.params, pos.board, pos.info, pos.aux, player))

    def _shared_params(self) -> np.ndarray:
        """A writable params array with the shared fields filled in (``games.layout``); the game
        adds its own from ``P_GAME0`` on and freezes it. Needs ``width``, ``height``, ``cells``,
        ``num_actions`` and ``kernels`` set."""
        from zeroplay.games.registry import family_id

        params = np.zeros(PARAMS_SIZE, dtype=np.int64)
        params[P_FAMILY] = family_id(self.kernels) if self.kernels is not None else -1
        params[P_WIDTH] = self.width
        params[P_HEIGHT] = self.height
        params[P_CELLS] = self.cells
        params[P_ACTIONS] = self.num_actions
        params[P_EMPTY_KEY] = as_int64(EMPTY_KEY)
        params[P_SIDE_KEY] = as_int64(SIDE_KEY)
        return params

    @abstractmethod
    def _check_action(self, pos: FastPosition, action: int, text: str) -> None:
        """Raise IllegalMoveError naming ``text`` if ``action`` is not legal here."""

    @abstractmethod
    def _new_position(self) -> FastPosition:
        """Arrays of the initial position."""

    @abstractmethod
    def parse_move(self, text: str) -> int:
        """Action from text; raises IllegalMoveError for malformed or off-board text."""

    @abstractmethod
    def format_move(self, action: int, style: str = "algebraic") -> str:
        """Text of an action; ``parse_move(format_move(a, style)) == a`` for every style."""

    if TYPE_CHECKING:  # every game defines it (not abstract: declared for the type checker only)
        def render(self, state: State) -> str:
            """The position as text, ``str(state)``."""

    def move_help(self) -> str:
        """How a person types a move, one sentence for front-ends (``zeroplay play``'s help).

        The default names a legal first move in the game's own notation; games override it
        to explain their notation."""
        first = self.initial().legal_moves()
        example = self.format_move(int(first[0])) if len(first) else "?"
        return f"Type a move in {self.name}'s notation, e.g. {example}."

    # --- shared API ------------------------------------------------------------------------
    def initial(self) -> State:
        """The start position, first player (0) to move."""
        return State(self, self._new_position(), ())

    def action_to_cell(self, action: int) -> int:
        """Cell an action places on in the empty-board sense (Gomoku: the same number)."""
        return int(action)

    def cell_to_action(self, cell: int) -> int:
        """Action that targets ``cell`` (Gomoku: the same number)."""
        return int(cell)

    def __eq__(self, other) -> bool:
        return isinstance(other, Game) and (self.name, self.options) == (other.name, other.options)

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.options.items()))))

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"make({self.name!r}{', ' if opts else ''}{opts})"

    def forbidden_moves(self, state: State, player: int | None = None) -> np.ndarray:
        """int64 empty cells ``player`` (default: the side to move) may not play (renju's
        forbidden points for Black), ascending, for boards that mark them; empty in games without
        such points (the default)."""
        return np.empty(0, dtype=np.int64)

    def describe(self) -> str:
        """The game in a few words for people, e.g. ``"connect4 7x6"`` (games with options say
        those that matter: ``"gomoku 15x15 freestyle"``)."""
        return f"{self.name} {self.width}x{self.height}"


class State:
    """An immutable position. ``play`` returns a new State; nothing here changes in place.

    Attributes:
        game: the Game.
        moves: tuple of the actions played since ``game.initial()`` or ``game.from_stones``.
    """

    __slots__ = ("game", "_pos", "moves")

    def __init__(self, game: Game, pos: FastPosition, moves: tuple):
        self.game = game
        self._pos = pos
        self.moves = moves
        for a in (pos.board, pos.info, pos.stack, pos.aux):
            a.setflags(write=False)

    # --- fields ---------------------------------------------------------------------------
    @property
    def to_play(self) -> int:
        """Side to move: 0 = first player (Black), 1 = second (White)."""
        return int(self._pos.info[I_TO_PLAY])

    @property
    def ply(self) -> int:
        """Stones on the board (set-up stones included)."""
        return int(self._pos.info[I_PLY])

    @property
    def key(self) -> int:
        """64-bit Zobrist key in [0, 2^64), side to move included."""
        return int(self._pos.info[I_KEY : I_KEY + 1].view(np.uint64)[0])

    @property
    def is_terminal(self) -> bool:
        """True when the game is over (a win or a full board)."""
        return bool(self._pos.info[I_TERMINAL])

    @property
    def winner(self) -> int | None:
        """0 or 1 for a won game, None otherwise (terminal with None is a draw)."""
        w = int(self._pos.info[I_WINNER])
        return None if w < 0 else w

    @property
    def last_move(self) -> int | None:
        """Cell of the last move, None when unknown (initial or set-up without ``last_move``)."""
        m = int(self._pos.info[I_LAST])
        return None if m < 0 else m

    @property
    def board(self) -> np.ndarray:
        """int8 (height, width): 0 empty, 1 Black (player 0), 2 White (player 1). Read-only."""
        return self._pos.board.reshape(self.game.height, self.game.width)

    def stones(self, player: int) -> np.ndarray:
        """int64 cells holding ``player``'s stones, ascending."""
        return np.flatnonzero(self._pos.board == player + 1)

    def legal_moves(self) -> np.ndarray:
        """int64 array of legal actions, ascending (row-major cells for Gomoku); empty if over."""
        return self.game._legal_moves(self._pos)

    def winning_moves(self, player: int | None = None) -> np.ndarray:
        """int64 actions that win at once for ``player`` (default: the side to move).

        Kept up to date incrementally by the compiled path (only lines through the last move
        change). Empty in a terminal position.
        """
        if player is None:
            player = self.to_play
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        return self.game._winning_moves(self._pos, player)

    def num_winning_moves(self, player: int) -> int:
        """How many actions win at once for ``player`` (Gomoku: cells, Connect Four: columns; 0 when terminal), in O(1)."""
        if self.is_terminal:
            return 0
        return self.game._num_winning_moves(self._pos, player)

    # --- moves ----------------------------------------------------------------------------
    def play(self, move: int | str) -> State:
        """The state after ``move`` (an action or its text, ``"h8"`` / ``"7,7"``).

        Raises:
            IllegalMoveError: game over, occupied or off-board cell, malformed text. This state
                is unchanged.
        """
        game = self.game
        if isinstance(move, str):
            text = move
            action = game.parse_move(move)
        else:
            text = repr(move)
            if isinstance(move, bool) or not isinstance(move, (int, np.integer)):
                raise IllegalMoveError(f"move {text}: not an action number or move text")
            action = int(move)
        if self.is_terminal:
            raise IllegalMoveError(f"move {text}: the game is over")
        if not 0 <= action < game.num_actions:
            raise IllegalMoveError(f"move {text}: out of range 0..{game.num_actions - 1}")
        game._check_action(self._pos, action, text)
        pos = self.fast()
        game._apply(pos, action)
        return State(game, pos, self.moves + (action,))

    def play_many(self, moves: Iterable[int | str]) -> State:
        """Play several moves in order (see ``play``)."""
        s = self
        for m in moves:
            s = s.play(m)
        return s

    def fast(self) -> FastPosition:
        """Writable copies of this position's arrays for the compiled in-place path."""
        p = self._pos
        return FastPosition(p.board.copy(), p.info.copy(), p.stack.copy(), p.aux.copy())

    # --- network input --------------------------------------------------------------------
    def planes(self, features: str = "basic") -> np.ndarray:
        """Network input, float32 (C, height, width), from the side to move's point of view.

        ``"basic"`` (C = 3): own stones, opponent stones, all ones when the first player is to
        move. No history, so transposed positions get identical input.
        ``"alphazero-gomoku"`` (C = 4): own stones, opponent stones, last move (one-hot, all
        zero when unknown), all ones when the first player is to move -- the AlphaZero Gomoku
        design (junxiaosong/AlphaZero_Gomoku), with plane indexing fixed for width != height.
        A game's own sets (``Game.feature_sets``, e.g. Go's ``"go"``) come from its compiled
        encoder in ``games.planes``.

        Raises:
            ValueError: unknown feature set, or one the game does not encode.
        """
        g = self.game
        if features not in FEATURE_SETS:
            from zeroplay.games.planes import planes_batch

            p = self._pos
            return planes_batch(g, p.board[None], p.info[None], features)[0]
        board = self._pos.board.reshape(g.height, g.width)
        me = self.to_play + 1
        if features == "basic":
            out = np.zeros((3, g.height, g.width), dtype=np.float32)
            out[2] = 1.0 if self.to_play == 0 else 0.0
        elif features == "alphazero-gomoku":
            out = np.zeros((4, g.height, g.width), dtype=np.float32)
            last = self.last_move
            if last is not None:
                out[2, last // g.width, last % g.width] = 1.0
            out[3] = 1.0 if self.to_play == 0 else 0.0
        else:
            raise ValueError(f"unknown feature set {features!r}; choose one of {FEATURE_SETS}")
        out[0] = board == me
        out[1] = board == 3 - me
        return out

    # --- comparisons and display ----------------------------------------------------------
    def __eq__(self, other) -> bool:
        return (
            isinstance(other, State)
            and self.game == other.game
            and self.to_play == other.to_play
            and np.array_equal(self._pos.board, other._pos.board)
        )

    def __hash__(self) -> int:
        return self.key

    def __str__(self) -> str:
        return self.game.render(self)

    def __repr__(self) -> str:
        status = (
            "draw" if self.is_terminal and self.winner is None
            else f"winner={self.winner}" if self.is_terminal
            else f"to_play={self.to_play}"
        )
        return f"<State {self.game!r} ply={self.ply} {status}>"


def new_info() -> np.ndarray:
    """A blank info array: first player to move, no winner, no last move."""
    info = np.zeros(INFO_SIZE, dtype=np.int64)
    info[I_WINNER] = -1
    info[I_LAST] = -1
    return info


def setup_info(black, white, to_play: int, cells: int) -> np.ndarray:
    """Info array of a set-up position: side to move, ply = stones on the board, and the Zobrist
    key computed from scratch (``zeroplay.hashing.zobrist_key``) as int64 bits."""
    info = new_info()
    info[I_TO_PLAY] = to_play
    info[I_PLY] = len(black) + len(white)
    info[I_KEY : I_KEY + 1].view(np.uint64)[0] = zobrist_key(black, white, to_play, cells)
    return info


def as_int64(u: int) -> int:
    """uint64 bits in [0, 2^64) as the signed int64 value with the same bits (keys in arrays)."""
    return u - (1 << 64) if u >= 1 << 63 else u
