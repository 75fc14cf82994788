"""Go behind the Game API: ``make("go", size=9, komi=7.5, ko="simple", suicide="off", scoring="area")``.

Actions: the cells (``row * width + col``, row 0 at the top) and pass = ``cells``; so
``num_actions = cells + 1``. Notation is GTP's (GTP v2 section 2.11): a column letter from the
left skipping ``I`` (A..H, J..Z), then the row number counted from the bottom -- ``D4``, ``J9``
-- or ``pass``. Players: 0 = Black moves first, 1 = White.

``state.ply`` counts actions (passes included) since the start or set-up position;
``state.winner`` after the end: the side with the higher score (``game.score(state)``), None for
a draw (integer komi). Rules: see ``zeroplay.games.go.kernels``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from zeroplay.games.api import FastPosition, Game, IllegalMoveError, State
from zeroplay.games.go import kernels as K
from zeroplay.games.go.contract import KERNELS
from zeroplay.games.go.layout import (
    GO_RECENT_MOVES,
    I_CAPS0,
    I_KO,
    I_PASSES,
    I_PREV1,
    I_PREV2,
    I_SCORE2,
    I_STONES0,
    KO_POSITIONAL,
    KO_SIMPLE,
    KO_SITUATIONAL,
    P_KO,
    P_KOMI2,
    P_MAX_PLIES,
    P_PASS,
    P_SCORING,
    P_SUICIDE,
    SCORING_AREA,
    SCORING_TERRITORY,
    SUICIDE_MULTI,
    SUICIDE_OFF,
    Z_BAN,
    Z_MISC,
    Z_RECENT,
    ZKEY_ROWS,
)
from zeroplay.games.layout import I_LAST, I_TERMINAL, I_TO_PLAY, I_WINNER, INFO_SIZE
from zeroplay.games.symmetry import Symmetry, board_symmetries
from zeroplay.hashing import last_move_keys, stone_keys
from zeroplay.hashing.zobrist import ZOBRIST_SEED, splitmix64_stream

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
"""GTP column letters (no I), A = leftmost."""
MIN_SIZE, MAX_SIZE = 2, 19
_VERTEX = re.compile(r"^\s*([A-Za-z])(\d{1,2})\s*$")
_KO_RULES = {"simple": KO_SIMPLE, "positional": KO_POSITIONAL, "situational": KO_SITUATIONAL}
_SUICIDE_RULES = {"off": SUICIDE_OFF, "multi": SUICIDE_MULTI}
_SCORINGS = {"area": SCORING_AREA, "territory": SCORING_TERRITORY}
GO_KEY_SEED = ZOBRIST_SEED ^ 0x676F  # "go": ko-ban and pass keys, a stream apart from the stones'
"""Seed of the SplitMix64 stream of Go's extra keys (ban keys per cell, then the pass key)."""


@dataclass(frozen=True)
class GoRules:
    """The rule options of a Go game.

    Attributes:
        ko: ``"simple"`` (no immediate single-stone recapture), ``"positional"`` (no move may
            repeat an earlier board: Tromp-Taylor, Chinese), ``"situational"`` (no repeat of a
            board with the same side to move: AGA, New Zealand).
        suicide: ``"off"`` or ``"multi"`` (a multi-stone suicide is legal, Tromp-Taylor and New
            Zealand; a single-stone one never is).
        scoring: ``"area"`` (stones + surrounded empty points, Tromp-Taylor) or ``"territory"``
            (surrounded empty points + prisoners; no dead-stone removal: a finished game only).
        komi: points added to White's score, a multiple of 0.5 in [-150, 150].
    """

    ko: str = "simple"
    suicide: str = "off"
    scoring: str = "area"
    komi: float = 7.5

    def __post_init__(self):
        for name, value, allowed in (("ko", self.ko, _KO_RULES), ("suicide", self.suicide, _SUICIDE_RULES),
                                     ("scoring", self.scoring, _SCORINGS)):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
        komi = float(self.komi)
        if not -150 <= komi <= 150 or komi * 2 != int(komi * 2):
            raise ValueError(f"komi must be a multiple of 0.5 in [-150, 150], got {self.komi!r}")
        object.__setattr__(self, "komi", komi)


class Go(Game):
    """Go on a width x height board (2..19 each; 9x9 the focus), with ``GoRules`` options.

    Compiled path (``zeroplay.games.go.layout``): ``max_plies = 3 * cells`` (the repetition cap:
    the game is scored there), ``aux_shape = (max_plies + 1, cells + 4)`` (board history).
    """

    policy_layout = "cells+pass"
    aux_is_history = True
    board_sizes = (5, MAX_SIZE)
    """The sides a person plays on (the web board's choice, checks and errors; issue 22: 5..19).
    The rules themselves run on MIN_SIZE..MAX_SIZE (perft on 3x3 and 4x4, GTP ``boardsize 2``)."""
    heuristic = "go"  # the search-only engine's priors: zeroplay.engine.go_prior
    sgf_game = 1  # records: games.go.sgf
    resigns = True  # front-ends: the engine resigns a lost game rather than fill its own eyes
    feature_sets = ("go", "basic", "alphazero-gomoku")
    value_only_options = ("komi",)  # the planes say who receives komi, not how much

    def __init__(self, width: int = 9, height: int = 9, komi: float = 7.5, ko: str = "simple",
                 suicide: str = "off", scoring: str = "area"):
        for name, v in (("width", width), ("height", height)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not MIN_SIZE <= v <= MAX_SIZE:
                raise ValueError(f"{name} must be an integer in {MIN_SIZE}..{MAX_SIZE}, got {v!r}")
        self.rules = GoRules(ko=ko, suicide=suicide, scoring=scoring, komi=komi)
        self.name = "go"
        self.width, self.height = int(width), int(height)
        self.options = {"width": self.width, "height": self.height, "komi": self.rules.komi, "ko": ko,
                        "suicide": suicide, "scoring": scoring}
        self.cells = self.width * self.height
        self.num_actions = self.cells + 1
        self.pass_action: int = self.cells
        self.max_plies = 3 * self.cells
        self.aux_shape = (self.max_plies + 1, self.cells + 4)
        self.kernels = KERNELS
        params = self._shared_params()
        params[P_KO] = _KO_RULES[ko]
        params[P_SUICIDE] = _SUICIDE_RULES[suicide]
        params[P_SCORING] = _SCORINGS[scoring]
        params[P_KOMI2] = int(self.rules.komi * 2)
        params[P_MAX_PLIES] = self.max_plies
        params[P_PASS] = self.cells
        params.setflags(write=False)
        self.params = params
        zkeys = np.zeros((ZKEY_ROWS, self.cells), dtype=np.uint64)
        zkeys[:2] = stone_keys(self.cells)
        zkeys[Z_RECENT] = last_move_keys(self.cells)
        # ban keys, the pass key, then the older recent-move rows: the stream's first cells + 1
        # keys are those Go had before the recent-move rows came (State.key unchanged)
        extra = splitmix64_stream(GO_KEY_SEED, self.cells + 1 + (GO_RECENT_MOVES - 1) * self.cells)
        zkeys[Z_BAN] = extra[: self.cells]
        zkeys[Z_MISC, 0] = extra[self.cells]
        older = extra[self.cells + 1:].reshape(GO_RECENT_MOVES - 1, self.cells)
        zkeys[Z_RECENT + 1: Z_RECENT + GO_RECENT_MOVES] = older
        self.zkeys = zkeys.view(np.int64)
        self.zkeys.setflags(write=False)
        self.symmetries = tuple(
            Symmetry(s.name, s.cell_perm, np.append(s.cell_perm, self.cells), self.height, self.width)
            for s in board_symmetries(self.height, self.width)
        )

    # --- compiled hooks -------------------------------------------------------------------
    def _blank(self, board: np.ndarray, to_play: int, prisoners: tuple[int, int] = (0, 0)) -> FastPosition:
        info = np.zeros(INFO_SIZE, dtype=np.int64)
        info[I_TO_PLAY] = to_play
        info[I_CAPS0], info[I_CAPS0 + 1] = prisoners
        info[I_WINNER] = -1
        info[I_LAST] = -1
        info[I_KO] = -1
        info[I_PREV1] = -1
        info[I_PREV2] = -1
        info[I_STONES0] = int(np.count_nonzero(board == 1))
        info[I_STONES0 + 1] = int(np.count_nonzero(board == 2))
        aux = np.zeros(self.aux_shape, dtype=np.uint8)
        K.write_history(aux, 0, board, info[I_STONES0], info[I_STONES0 + 1])
        K.refresh(self.params, self.zkeys, board, info, aux)
        return FastPosition(board, info, np.full(self.max_plies + 1, -1, dtype=np.int32), aux)

    def _new_position(self) -> FastPosition:
        return self._blank(np.zeros(self.cells, dtype=np.int8), 0)

    def _fast_arrays(self, pos: FastPosition):
        """(board, info, stack, aux) of a position, as the compiled kernels take them."""
        return pos.board, pos.info, pos.stack, pos.aux

    def _check_action(self, pos, action, text):
        if action == self.pass_action:
            return
        if pos.board[action] != 0:
            raise IllegalMoveError(f"move {text}: {self.format_move(action)} is occupied")
        if action == pos.info[I_KO]:
            rule = "" if self.rules.ko == "simple" else f": repeats an earlier position ({self.rules.ko} superko)"
            raise IllegalMoveError(f"move {text}: retakes the ko at once{rule}")
        queue = np.empty(self.cells, np.int32)
        mark = np.zeros(self.cells, np.uint8)
        if K.basic_legality(self.params, pos.board, pos.info, action, queue, mark) == K.NOT_LEGAL:
            raise IllegalMoveError(f"move {text}: suicide")
        if self.rules.ko != "simple":
            banned = np.zeros(self.cells, np.uint8)
            K.superko_banned(self.params, pos.board, pos.info, pos.aux, banned, queue, mark)
            if banned[action]:
                raise IllegalMoveError(f"move {text}: repeats an earlier position ({self.rules.ko} superko)")

    # --- set-up ---------------------------------------------------------------------------
    def from_stones(self, black, white, to_play: int | None = 0, *, prisoners: tuple[int, int] = (0, 0)) -> State:
        """A position with the given stones (handicap, problems); its history starts here.

        Args:
            black, white: cells or GTP vertices (``"D4"``).
            to_play: 0 (Black) or 1 (White) to move; None: White after a handicap (Black stones
                only), else Black.
            prisoners: (stones Black has captured, stones White has captured) so far: a game
                carried on from another position keeps them (territory scoring counts them).

        Raises:
            IllegalMoveError: a malformed or off-board vertex, a point listed twice.
            ValueError: a chain without liberties, a bad ``to_play``.
        """
        if to_play is None:
            to_play = 1 if len(black) and not len(white) else 0
        if to_play not in (0, 1):
            raise ValueError(f"to_play must be 0 or 1, got {to_play!r}")
        caps = (int(prisoners[0]), int(prisoners[1]))
        if min(caps) < 0:
            raise ValueError(f"prisoners must be >= 0, got {prisoners!r}")
        board = np.zeros(self.cells, dtype=np.int8)
        for stone, cells in ((1, black), (2, white)):
            for c in cells:
                a = self.parse_move(c) if isinstance(c, str) else int(c)
                if not 0 <= a < self.cells:
                    raise IllegalMoveError(f"point {c!r} is not on the {self.width}x{self.height} board")
                if board[a] != 0:
                    raise IllegalMoveError(f"point {self.format_move(a)} is listed twice")
                board[a] = stone
        queue = np.empty(self.cells, np.int32)
        mark = np.zeros(self.cells, np.uint8)
        for c in np.flatnonzero(board):
            if not K.chain_has_liberty(board, self.width, int(c), -1, queue, mark):
                raise ValueError(f"the chain at {self.format_move(int(c))} has no liberty")
        return State(self, self._blank(board, to_play, caps), ())

    # --- results --------------------------------------------------------------------------
    def score(self, state: State) -> float:
        """Black's score minus White's under the game's scoring, komi included, of the board as
        it stands (every stone counted alive). The final result once ``state.is_terminal``."""
        info = state._pos.info
        if info[I_TERMINAL]:
            return info[I_SCORE2] / 2
        mark = np.zeros(self.cells, np.uint8)
        queue = np.empty(self.cells, np.int32)
        return K.score2(self.params, state._pos.board, info, mark, queue) / 2

    def result_text(self, state: State) -> str:
        """SGF / GTP result of the board as it stands: ``B+3.5``, ``W+0.5``, ``0`` (draw)."""
        s = self.score(state)
        return "0" if s == 0 else f"{'B' if s > 0 else 'W'}+{abs(s):g}"

    def final_score_text(self, state: State) -> str | None:
        """``result_text`` of a finished game (``Game.final_score_text``), None before the end."""
        return self.result_text(state) if state.is_terminal else None

    def prisoners(self, state: State) -> tuple[int, int]:
        """(stones Black has captured, stones White has captured)."""
        info = state._pos.info
        return int(info[I_CAPS0]), int(info[I_CAPS0 + 1])

    def passes(self, state: State) -> int:
        """Consecutive passes just played (2 ends the game)."""
        return int(state._pos.info[I_PASSES])

    def ko_point(self, state: State) -> int | None:
        """The immediate single-stone recapture point banned for the side to move (under every ko
        rule; superko may ban more points), None if none."""
        k = int(state._pos.info[I_KO])
        return None if k < 0 else k

    def empty_regions(self, board: np.ndarray):
        """Each empty region of ``board`` (int8 (cells,), 0 empty, 1 Black, 2 White): (its points,
        a list of cells; the colours it reaches, a bit set: 1 Black, 2 White; the stones bordering
        it, a set of cells)."""
        w, cells = self.width, self.cells
        seen = board != 0
        for start in range(cells):
            if seen[start]:
                continue
            region, reaches, border, todo = [], 0, set(), [start]
            seen[start] = True
            while todo:
                c = todo.pop()
                region.append(c)
                for nb in K.neighbors(c, w, cells):
                    if nb < 0:
                        continue
                    if board[nb] == 0 and not seen[nb]:
                        seen[nb] = True
                        todo.append(nb)
                    elif board[nb] != 0:
                        reaches |= int(board[nb])
                        border.add(nb)
            yield region, reaches, border

    def final_ownership(self, state: State) -> np.ndarray:
        """int8 (cells,) the owner of each point under area counting of the board as it stands
        (Tromp-Taylor: a stone owns its point, an empty region reaching only one colour belongs to
        it), from Black's view: +1 Black, -1 White, 0 neither (an empty region reaching both).
        Every stone counts as alive, so it is the final ownership once ``state.is_terminal`` (self-
        play plays on until dead stones are captured). The target of the ownership head (KataGo)."""
        board = state._pos.board
        own = np.where(board == 1, 1, np.where(board == 2, -1, 0)).astype(np.int8)
        for region, reaches, _ in self.empty_regions(board):
            if reaches in (1, 2):
                own[region] = 1 if reaches == 1 else -1
        return own

    def score_details(self, state: State) -> dict:
        """The count of the board as it stands (every stone alive: no dead-stone removal), for
        front-ends: ``{"scoring": "area" | "territory", "komi", "ko", "stones": [B, W],
        "territory": [B, W]`` (empty regions that reach only that colour), ``"prisoners": [B, W]``
        (stones each side has captured), ``"points": [B, W]`` (what the scoring counts: area =
        stones + territory; territory = territory + prisoners; komi not included), ``"score"``
        (Black's points - White's - komi: ``score``), ``"passes"`` (consecutive, 2 ends the
        game), ``"result"`` (``B+4.5`` / ``W+0.5`` / ``0`` once the game is over, else None)}."""
        board = state._pos.board
        territory = [0, 0]
        for region, reaches, _ in self.empty_regions(board):
            if reaches in (1, 2):
                territory[reaches - 1] += len(region)
        stones = [int(np.count_nonzero(board == 1)), int(np.count_nonzero(board == 2))]
        prisoners = list(self.prisoners(state))
        if self.rules.scoring == "area":
            points = [stones[0] + territory[0], stones[1] + territory[1]]
        else:
            points = [territory[0] + prisoners[0], territory[1] + prisoners[1]]
        return {"scoring": self.rules.scoring, "komi": self.rules.komi, "ko": self.rules.ko,
                "stones": stones, "territory": territory, "prisoners": prisoners, "points": points,
                "score": self.score(state), "passes": self.passes(state),
                "result": self.result_text(state) if state.is_terminal else None}

    def star_points(self) -> list[int]:
        """The hoshi: 3-3 points on boards of 7..12 lines, 4-4 from 13 (side points on odd boards
        from 13, the centre on odd boards from 7), as Go boards print them; none below 7."""
        def lines(n):  # (corner-point lines, the middle line or None)
            if n < 7:
                return [], None
            d = 2 if n < 13 else 3
            return [d, n - 1 - d], (n // 2 if n % 2 else None)

        xs, cx = lines(self.width)
        ys, cy = lines(self.height)
        pts = [(x, y) for x in xs for y in ys]
        if cx is not None and cy is not None:
            pts.append((cx, cy))
            if self.width >= 13 and self.height >= 13:
                pts += [(cx, y) for y in ys] + [(x, cy) for x in xs]
        return sorted(y * self.width + x for x, y in pts)

    def column_labels(self) -> str:
        """GTP's column letters of this board (no I)."""
        return COLUMNS[: self.width]

    # --- notation -------------------------------------------------------------------------
    def parse_move(self, text: str) -> int:
        """Action of a GTP vertex (``"D4"``, any case) or ``"pass"``.

        Raises:
            IllegalMoveError: malformed text, the letter I, a point off the board.
        """
        if not isinstance(text, str):
            raise IllegalMoveError(f"move {text!r}: expected a vertex such as 'D4' or 'pass'")
        if text.strip().lower() == "pass":
            return self.pass_action
        m = _VERTEX.match(text)
        if not m or m.group(1).upper() == "I":
            raise IllegalMoveError(f"move {text!r}: expected a vertex such as 'D4' (no letter I) or 'pass'")
        x = COLUMNS.index(m.group(1).upper())
        row = int(m.group(2))
        if x >= self.width or not 1 <= row <= self.height:
            raise IllegalMoveError(f"move {text!r}: off the {self.width}x{self.height} board")
        return (self.height - row) * self.width + x

    def format_move(self, action: int, style: str = "gtp") -> str:
        """GTP vertex of an action (``"D4"``), ``"pass"`` for the pass action."""
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise ValueError(f"action {action!r} out of range 0..{self.num_actions - 1}")
        if style not in ("gtp", "algebraic", "gomocup"):
            raise ValueError(f"unknown move style {style!r}; use 'gtp'")
        if a == self.pass_action:
            return "pass"
        if style == "gomocup":  # x,y from the top-left, as the web board's API names cells
            return f"{a % self.width},{a // self.width}"
        return f"{COLUMNS[a % self.width]}{self.height - a // self.width}"

    def move_help(self) -> str:
        """How moves are written, for front-ends."""
        return ("moves are GTP vertices: a column letter A..T without I, then the row from the bottom "
                "(D4, J9), or 'pass'")

    def render(self, state: State) -> str:
        """The board with GTP coordinates: X Black, O White, ')' after the last move, prisoners
        and whose turn (or the result)."""
        letters = "   " + " ".join(COLUMNS[: self.width])
        lines = [letters]
        b = state.board
        last = state.last_move
        for y in range(self.height):
            row = f"{self.height - y:2d} "
            for x in range(self.width):
                row += ".XO"[b[y, x]] + (")" if y * self.width + x == last else " ")
            lines.append(row + f"{self.height - y:2d}")
        lines.append(letters)
        caps = self.prisoners(state)
        lines.append(f"prisoners: Black {caps[0]}, White {caps[1]}")
        if state.is_terminal:
            lines.append(f"game over: {self.result_text(state)}")
        else:
            lines.append(f"{'Black (X)' if state.to_play == 0 else 'White (O)'} to move")
        return "\n".join(lines)
