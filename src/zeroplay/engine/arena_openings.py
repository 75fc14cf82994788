"""Start positions for arena matches, so that deterministic players play distinct games.

Two deterministic players (alpha-beta at a node budget, MCTS without noise, most engines over a
protocol) repeat one game per colour order: a 100-game match between them holds 2 distinct games
and no Elo can be read from it. An ``Openings`` gives each *pair* of games (match games 2k and
2k + 1, where the first player is Black in the even one) one opening, a list of actions played
from the initial position before the players take over, so each opening is played once with each
colour order (the usual fair-match rule: Fishtest's and cutechess's "repeat" openings).

Two sources:

* ``RandomOpenings(plies, seed)``: ``plies`` uniformly random legal actions, drawn from
  ``numpy.random.default_rng([seed, pair])``: the same for a pair and for a rerun (a resumed
  match replays the openings it had). An opening that would end the game is drawn again.
* ``FileOpenings(path, game)``: one opening a line, moves in the game's notation (what
  ``State.play`` takes: ``7g7f 3c3d`` for shogi, ``h8 i9`` for Gomoku) separated by spaces;
  blank lines and ``#`` comments are skipped. Pair k plays line k mod (number of lines). Every
  line is played out when the file is read: an illegal move, or a line whose play ends the game,
  is refused with its line number.

``describe()`` is what a match record's header keeps (``match_record.match_header``): the kind,
and the seed or the file's SHA-256, so a resumed match is known to use the same openings.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

from zeroplay.games import Game, IllegalMoveError

MAX_RANDOM_PLIES = 64
"""Longest random opening: longer ones stop being openings (and cost a draw per redraw)."""
MAX_FILE_BYTES = 16 << 20
MAX_FILE_LINES = 100_000
_REDRAWS = 1000


class Openings:
    """The opening of each match game (see the module docstring)."""

    def actions(self, game: Game, index: int) -> list[int]:
        """The actions played before the players take over in match game ``index`` (pair
        ``index // 2``)."""
        raise NotImplementedError

    def describe(self) -> dict:
        """What identifies these openings in a match record's header."""
        raise NotImplementedError

    def start(self, game: Game, index: int):
        """The state where the players take over in game ``index`` (its ``moves`` hold the opening)."""
        return game.initial().play_many(self.actions(game, index))


class RandomOpenings(Openings):
    """``plies`` uniformly random legal actions per pair of games, from ``seed`` and the pair.

    Raises:
        ValueError: ``plies`` outside 1..``MAX_RANDOM_PLIES``.
    """

    def __init__(self, plies: int, seed: int = 0):
        if isinstance(plies, bool) or not isinstance(plies, (int, np.integer)) or not 1 <= plies <= MAX_RANDOM_PLIES:
            raise ValueError(f"random opening plies must be a whole number in 1..{MAX_RANDOM_PLIES}, got {plies!r}")
        self.plies, self.seed = int(plies), int(seed)

    def actions(self, game: Game, index: int) -> list[int]:
        rng = np.random.default_rng([self.seed, int(index) // 2])
        for _ in range(_REDRAWS):
            state, moves = game.initial(), []
            for _ in range(self.plies):
                legal = state.legal_moves()
                if state.is_terminal or not len(legal):
                    break
                moves.append(int(legal[rng.integers(len(legal))]))
                state = state.play(moves[-1])
            if len(moves) == self.plies and not state.is_terminal:
                return moves
        raise ValueError(f"no {self.plies}-ply random opening of {game.name} that leaves the game open "
                         f"in {_REDRAWS} draws; use fewer plies")

    def describe(self) -> dict:
        return {"random_plies": self.plies, "seed": self.seed}


class FileOpenings(Openings):
    """The openings of a file, one a line (see the module docstring), checked against ``game``.

    Raises:
        ValueError: the file is missing, unreadable, too large (``MAX_FILE_BYTES``,
            ``MAX_FILE_LINES``), not UTF-8 (a leading byte-order mark is allowed), holds no
            opening, or a line does not play (its number and the move say why).
    """

    def __init__(self, path: str | os.PathLike, game: Game):
        self.path = Path(path)
        try:
            with open(self.path, "rb") as f:
                data = f.read(MAX_FILE_BYTES + 1)
        except OSError as e:
            raise ValueError(f"openings file {self.path}: {e.strerror or e}") from None
        if len(data) > MAX_FILE_BYTES:
            raise ValueError(f"openings file {self.path} is over {MAX_FILE_BYTES >> 20} MiB")
        self.sha256 = hashlib.sha256(data).hexdigest()
        try:
            text = data.decode("utf-8-sig")  # a leading BOM, as Windows Notepad saves, is no move
        except UnicodeDecodeError:
            raise ValueError(f"openings file {self.path} is not UTF-8 text") from None
        self.lines: list[list[int]] = []
        for number, line in enumerate(text.splitlines(), start=1):
            moves = line.split("#", 1)[0].split()
            if not moves:
                continue
            if len(self.lines) >= MAX_FILE_LINES:
                raise ValueError(f"openings file {self.path} holds over {MAX_FILE_LINES:,} openings")
            state = game.initial()
            for ply, move in enumerate(moves, start=1):
                try:
                    state = state.play(move)
                except IllegalMoveError as e:
                    raise ValueError(f"openings file {self.path} line {number}, ply {ply}: {e}") from None
            if state.is_terminal:
                raise ValueError(f"openings file {self.path} line {number}: the game is over after it")
            self.lines.append([int(m) for m in state.moves])
        if not self.lines:
            raise ValueError(f"openings file {self.path} holds no opening (one a line, moves separated by spaces)")

    def actions(self, game: Game, index: int) -> list[int]:
        return list(self.lines[(int(index) // 2) % len(self.lines)])

    def describe(self) -> dict:
        return {"file": self.path.name, "sha256": self.sha256, "count": len(self.lines)}
