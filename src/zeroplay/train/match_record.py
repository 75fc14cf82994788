"""A match's finished games on disk, so that a stopped ``zeroplay arena`` resumes (``--record``).

The file is JSON lines. The first line names the match; each further line is one finished game:

    {"zeroplay_match": 1, "a": "vcf:m.safetensors", "b": "rollout:5000", "game": "gomoku",
     "options": {...}, "playouts": 800, "opening_moves": 2}
    {"game": 0, "a_is_black": true, "winner": 0, "moves": [112, 97, ...], "seconds": 41.2}

``game`` is the game's index in the match (A is Black in even ones, so a resumed match keeps its
colours balanced), ``winner`` is 0 (Black), 1 (White) or null (draw), ``moves`` are the game's
actions (flat indices, row-major from the top-left, as ``State.moves``), and ``seconds`` is the
match's playing time when the game ended, summed over runs (time spent on games that a stop cut
short is not counted).

A line is appended (and flushed to disk) as each game ends, so a kill loses only games in play. On
opening, an unfinished last line (the process was killed while writing it) is dropped; every
recorded game is replayed move by move, and must be legal and end as recorded.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from zeroplay.games import Game, IllegalMoveError
from zeroplay.nn.atomic_file import atomic_write_text

FORMAT = 1


class RecordError(ValueError):
    """The record file is unreadable, corrupt, or holds a different match; the message says which."""


@dataclass(frozen=True)
class RecordedGame:
    """One finished game: its index in the match, A's colour, the winner (0 / 1 / None), its moves."""

    index: int
    a_is_black: bool
    winner: int | None
    moves: tuple[int, ...]
    seconds: float


def match_header(a: str, b: str, game: Game, playouts: int, opening_moves: int) -> dict:
    """The first line of a record: everything that makes two runs the same match (not ``--games``)."""
    return {"zeroplay_match": FORMAT, "a": a, "b": b, "game": game.name, "options": dict(game.options),
            "playouts": int(playouts), "opening_moves": int(opening_moves)}


def _describe(h: dict) -> str:
    opts = ", ".join(f"{k}={v}" for k, v in sorted(h.get("options", {}).items()))
    return (f"{h.get('a')} vs {h.get('b')} on {h.get('game')} ({opts}), {h.get('playouts')} playouts, "
            f"{h.get('opening_moves')} opening moves")


class MatchRecord:
    """Open (or create) ``path`` for the match ``header``; ``games`` are the games it already holds.

    Raises:
        RecordError: the file is not a match record, holds another match, or a recorded game is
            corrupt or does not replay (illegal move, wrong winner).
        OSError: the file or its directory cannot be read or written.
    """

    def __init__(self, path: str | os.PathLike, header: dict, game: Game):
        self.path = Path(path)
        self.header = header
        self.games: dict[int, RecordedGame] = {}
        if self.path.exists():
            self._load(game)
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.path, json.dumps(header) + "\n")

    @property
    def seconds(self) -> float:
        """Playing time recorded so far (the largest ``seconds`` of a game line)."""
        return max((g.seconds for g in self.games.values()), default=0.0)

    def _load(self, game: Game) -> None:
        try:
            text = self.path.read_text()
        except UnicodeDecodeError:
            raise RecordError(f"{self.path} is not a match record (not text)") from None
        lines = text.split("\n")
        complete, tail = lines[:-1], lines[-1]  # tail: "" when the file ends with a newline
        if not complete:
            raise RecordError(f"{self.path} is not a match record (no header line)")
        try:
            found = json.loads(complete[0])
        except json.JSONDecodeError:
            raise RecordError(f"{self.path} is not a match record (line 1 is not JSON)") from None
        if not isinstance(found, dict) or found.get("zeroplay_match") != FORMAT:
            raise RecordError(f"{self.path} is not a zeroplay match record (format {FORMAT})")
        if found != self.header:
            raise RecordError(f"{self.path} records another match: {_describe(found)}; this one is "
                              f"{_describe(self.header)}. Use another --record file")
        for number, line in enumerate(complete[1:], start=2):
            if line.strip():
                g = self._parse(line, number, game)
                self.games[g.index] = g
        if tail:  # killed while writing the last line: keep the complete ones
            atomic_write_text(self.path, "\n".join(complete) + "\n")

    def _parse(self, line: str, number: int, game: Game) -> RecordedGame:
        where = f"{self.path} line {number}"
        try:
            d = json.loads(line)
            g = RecordedGame(int(d["game"]), bool(d["a_is_black"]), d["winner"],
                             tuple(int(m) for m in d["moves"]), float(d.get("seconds", 0.0)))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            raise RecordError(f"{where} is not a game record") from None
        if g.index < 0 or g.a_is_black != (g.index % 2 == 0):
            raise RecordError(f"{where}: game {g.index} has A as {'Black' if g.a_is_black else 'White'}, "
                              "but A is Black exactly in even-numbered games")
        if g.index in self.games:
            raise RecordError(f"{where}: game {g.index} is recorded twice")
        if g.winner not in (0, 1, None):
            raise RecordError(f"{where}: game {g.index} has winner {g.winner!r} (0, 1 or null)")
        state = game.initial()
        for ply, move in enumerate(g.moves):
            try:
                state = state.play(move)
            except IllegalMoveError as e:
                raise RecordError(f"{where}: game {g.index} does not replay: ply {ply + 1}: {e}") from None
        if not state.is_terminal or state.winner != g.winner:
            raise RecordError(f"{where}: game {g.index} does not replay to its recorded result")
        return g

    def append(self, index: int, a_is_black: bool, winner: int | None, moves, seconds: float) -> None:
        """Add one finished game, flushed to disk before returning."""
        g = RecordedGame(index, a_is_black, winner, tuple(int(m) for m in moves), round(seconds, 1))
        line = json.dumps({"game": g.index, "a_is_black": g.a_is_black, "winner": g.winner,
                           "moves": list(g.moves), "seconds": g.seconds})
        with self.path.open("a") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())
        self.games[index] = g
