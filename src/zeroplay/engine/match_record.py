"""A match's finished games on disk, so that a stopped ``zeroplay arena`` resumes (``--record``).

The file is JSON lines. The first line names the match; each further line is one finished game:

    {"zeroplay_match": 1, "a": "vcf:m.safetensors", "b": "rollout:5000", "game": "gomoku",
     "options": {...}, "playouts": 800, "opening_moves": 2,
     "a_player": "vcf:sha256:9f2c...", "b_player": "rollout:5000"}
    {"game": 0, "a_is_black": true, "winner": 0, "moves": [112, 97, ...], "seconds": 41.2}

``a`` and ``b`` are the player specs as typed, in their canonical form (``arena.canonical_spec``:
``uniform:08`` is written ``uniform:8``); ``a_player`` and ``b_player`` say who plays: a
checkpoint by the SHA-256 of its file (so the same net under another path is the same player, and
a file overwritten at the same path is not), other kinds by their canonical spec (so
``uniform:08`` resumes a match recorded as ``uniform:8``, and a record written before specs were
canonical still matches). ``playouts`` is recorded only where a checkpoint player uses it (null
otherwise). A ``pbrain:COMMAND`` engine is known by its command text and time controls alone.

``openings`` (in the header) is null, or what ``arena_openings.Openings.describe`` says of the
openings the match starts its games from (``{"random_plies": 4, "seed": 0}``, or a file's name,
SHA-256 and count); each game then also has ``"opening": K``, the number of its first ``moves``
that the opening played, not the players.

``game`` is the game's index in the match (A is Black in even ones, so a resumed match keeps its
colours balanced), ``winner`` is 0 (Black), 1 (White) or null (draw), ``moves`` are the game's
actions as ``State.moves`` holds them (cells for Gomoku, columns for Connect Four), and
``seconds`` is the match's playing time when the game ended, summed over runs (time spent on
games that a stop cut short is not counted).

A line is appended and flushed to disk as each game ends, so a kill loses only the games in play.
The file is locked (``flock``) while a match uses it: a second process is refused, since two
writers would record the same game twice. On opening, every recorded game is replayed move by move
and must be legal and end as recorded; a last line cut off mid-write (no newline, not JSON, not
ending in ``}``) is dropped (``dropped_tail``), a whole last line or header missing only its newline
gets it, and nothing else is ever changed. A write is whole or not at all: one that fails (a full
disk) is undone and raises OSError.

The opening plies a search player samples come from its seed and the game's index alone
(``SearchPlayer.game_rng``), so a resumed match does not repeat the games it already has.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from zeroplay.games import Game, IllegalMoveError

FORMAT = 1


class RecordError(ValueError):
    """The record file is unusable (not a record, corrupt, another match, in use); the message says which."""


@dataclass(frozen=True)
class RecordedGame:
    """One finished game: its index in the match, A's colour, the winner (0 / 1 / None), its moves,
    and the match's playing seconds when it ended."""

    index: int
    a_is_black: bool
    winner: int | None
    moves: tuple[int, ...]
    seconds: float
    opening: int = 0


def player_identity(spec: str) -> str:
    """Who ``spec`` is: ``[vcf:]sha256:HEX`` of a checkpoint file (``arena.checkpoint_file``), the
    canonical spec (``arena.canonical_spec``) for other kinds.

    Raises:
        OSError: the checkpoint file cannot be read.
        ValueError: a malformed spec (``uniform:0``).
    """
    from zeroplay.engine.arena import canonical_spec, checkpoint_file

    spec = canonical_spec(spec)
    path = checkpoint_file(spec)
    if path is not None:
        prefix = "vcf:" if spec.startswith("vcf:") else ""  # vcf:PATH, vcf:NAME
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        return f"{prefix}sha256:{digest.hexdigest()}"
    return spec


def match_header(a: str, b: str, game: Game, playouts: int | None, opening_moves: int, *,
                 a_player: str | None = None, b_player: str | None = None, openings: dict | None = None) -> dict:
    """The first line of a record: everything that makes two runs the same match (not ``--games``).

    ``playouts``: None where no player uses it (no checkpoint player). ``a_player`` / ``b_player``:
    ``player_identity`` of the specs (computed when not given). ``a`` and ``b`` are written in
    their canonical form (``arena.canonical_spec``). ``openings``: ``Openings.describe()`` of the
    match's openings, None for games from the initial position.

    Raises:
        ValueError: a malformed spec (``uniform:0``).
    """
    from zeroplay.engine.arena import canonical_spec

    a, b = canonical_spec(a), canonical_spec(b)
    return {"zeroplay_match": FORMAT, "a": a, "b": b, "game": game.name, "options": dict(game.options),
            "playouts": None if playouts is None else int(playouts), "opening_moves": int(opening_moves),
            "a_player": a_player if a_player is not None else player_identity(a),
            "b_player": b_player if b_player is not None else player_identity(b),
            "openings": openings}


_FIELDS = {"a_player": "player A", "b_player": "player B", "game": "game", "options": "game options",
           "playouts": "playouts", "opening_moves": "opening moves", "openings": "openings"}


def _canonical_identity(identity):
    """A recorded ``a_player`` / ``b_player`` in today's canonical form (``uniform:08`` ->
    ``uniform:8``): a record written before specs were canonical matches the same player."""
    from zeroplay.engine.arena import canonical_spec

    if not isinstance(identity, str):
        return identity
    try:
        return canonical_spec(identity)
    except ValueError:
        return identity


def _differences(found: dict, wanted: dict) -> list[str]:
    diffs = []
    for key, name in _FIELDS.items():
        there = _canonical_identity(found.get(key)) if key.endswith("_player") else found.get(key)
        if json.dumps(there, sort_keys=True) != json.dumps(wanted.get(key), sort_keys=True):  # 2.0 != 2
            there, here = found.get(key), wanted.get(key)
            if key.endswith("_player"):  # say it with the specs people typed
                side = key[0]
                there = f"{found.get(side)} ({there})" if there != found.get(side) else there
                here = f"{wanted.get(side)} ({here})" if here != wanted.get(side) else here
            diffs.append(f"{name}: {there} there, {here} here")
    extra = sorted(set(found) - set(wanted))
    if extra:
        diffs.append(f"fields this zeroplay does not write: {', '.join(extra)}")
    return diffs


class MatchRecord:
    """The record at ``path`` of the match ``header``, opened and locked; ``games`` are the games it
    already holds (index -> ``RecordedGame``). Close it (or use ``with``) to release the lock.

    Raises:
        RecordError: not a regular file, not a match record, another match, a recorded game
            corrupt or not replaying (illegal move, wrong result), or in use by another process.
        OSError: the file or its directory cannot be created, read or written (checked here, before
            any game is played).
    """

    def __init__(self, path: str | os.PathLike, header: dict, game: Game):
        import fcntl

        self.path = Path(path)
        self.header = header
        self.games: dict[int, RecordedGame] = {}
        self.dropped_tail: str | None = None
        for parent in self.path.parents:
            if parent.exists() and not parent.is_dir():
                raise RecordError(f"{self.path}: {parent} is a file, not a directory")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        self._file = os.fdopen(fd, "r+b", buffering=0)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise RecordError(f"{self.path} is not a regular file")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise RecordError(f"{self.path} is in use by another zeroplay arena; wait for it to finish "
                                  "or use another --record file") from None
            self._open(game)
        except BaseException:
            self._file.close()
            raise

    def __enter__(self) -> MatchRecord:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Release the lock and close the file."""
        self._file.close()

    def seconds(self, games: int | None = None) -> float:
        """Playing time recorded so far (of the games with index < ``games``, when given)."""
        return max((g.seconds for g in self.games.values() if games is None or g.index < games), default=0.0)

    def _open(self, game: Game) -> None:
        data = self._file.read()
        try:
            text = data.decode("utf-8-sig")  # a header saved by Windows Notepad starts with a BOM
        except UnicodeDecodeError:
            raise RecordError(f"{self.path} is not a match record (not text)") from None
        lines = text.split("\n")
        complete, tail = lines[:-1], lines[-1]  # tail: "" when the file ends with a newline
        if not data:  # new (or created empty)
            self._rewrite(json.dumps(self.header) + "\n")
            return
        header_newline = not complete  # one line, no newline: a hand-edited header (or not a record)
        if header_newline:
            complete, tail = [tail], ""
        found = _json(complete[0])
        if not isinstance(found, dict):
            raise RecordError(f"{self.path} is not a match record (line 1 is not a JSON object)")
        if not _whole(found.get("zeroplay_match")) or found["zeroplay_match"] != FORMAT:
            raise RecordError(f"{self.path} is not a zeroplay match record (format {FORMAT})")
        if not any(line.strip() for line in complete[1:]) and (not tail.strip() or _cut_off(tail)):
            # a header and no game (at most a first game line cut short): a match whose players did
            # not start (helper-76: a mistyped engine command left its header, and the corrected
            # command was refused as another match); nothing is lost by writing this header over it
            if _differences(found, self.header):
                self._rewrite(json.dumps(self.header) + "\n")
                return
        if diffs := _differences(found, self.header):
            raise RecordError(f"{self.path} records another match ({'; '.join(diffs)}): use another --record file")
        for number, line in enumerate(complete[1:], start=2):
            if line.strip():
                self._add(self._parse(line, number, game), number)
        if header_newline:
            self._write_at_end(b"\n")
        elif tail.strip():
            if _cut_off(tail):  # killed while writing it: keep the complete lines
                self.dropped_tail = tail
                self._file.truncate(len(data) - len(tail.encode("utf-8")))
            else:  # a whole line without its newline (a hand edit): keep it
                self._add(self._parse(tail, len(lines), game), len(lines))
                self._write_at_end(b"\n")

    def _rewrite(self, text: str) -> None:
        self._file.truncate(0)
        self._write_at_end(text.encode("utf-8"))

    def _write_at_end(self, data: bytes) -> None:
        """Append ``data`` whole and fsync it, or leave the file as it was and raise OSError (a
        full disk can take part of a write without an error: the rest is written in a loop,
        whose next write reports it)."""
        fd = self._file.fileno()
        end = os.lseek(fd, 0, os.SEEK_END)
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                if n <= 0:
                    raise OSError(f"wrote {n} bytes")
                view = view[n:]
            os.fsync(fd)
        except OSError:
            try:
                os.ftruncate(fd, end)
            except OSError:
                pass
            raise

    def _add(self, g: RecordedGame, number: int) -> None:
        if g.index in self.games:
            raise RecordError(f"{self.path} line {number}: game {g.index} is recorded twice")
        self.games[g.index] = g

    def _parse(self, line: str, number: int, game: Game) -> RecordedGame:
        where = f"{self.path} line {number}"
        d = _json(line)
        if not isinstance(d, dict) or not {"game", "a_is_black", "winner", "moves", "seconds"} <= set(d):
            raise RecordError(f"{where} is not a game record")
        index, black, winner, moves, seconds = (d[k] for k in ("game", "a_is_black", "winner", "moves", "seconds"))
        if not _whole(index) or index < 0:
            raise RecordError(f"{where}: game index {index!r} is not a whole number >= 0")
        if not isinstance(black, bool) or black != (index % 2 == 0):
            raise RecordError(f"{where}: game {index} has a_is_black {black!r}, but A is Black exactly in "
                              "even-numbered games")
        if winner is not None and (not _whole(winner) or winner not in (0, 1)):
            raise RecordError(f"{where}: game {index} has winner {winner!r} (0, 1 or null)")
        if not isinstance(moves, list) or not all(_whole(m) for m in moves):
            raise RecordError(f"{where}: game {index}: moves must be a list of whole numbers")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) \
                or seconds < 0:
            raise RecordError(f"{where}: game {index} has seconds {seconds!r} (a number >= 0)")
        opening = d.get("opening", 0)
        if not _whole(opening) or not 0 <= opening <= len(moves):
            raise RecordError(f"{where}: game {index} has opening {opening!r} (a whole number of its first moves)")
        state = game.initial()
        for ply, move in enumerate(moves):
            try:
                state = state.play(move)
            except IllegalMoveError as e:
                raise RecordError(f"{where}: game {index} does not replay: ply {ply + 1}: {e}") from None
        if not state.is_terminal or state.winner != winner:
            raise RecordError(f"{where}: game {index} does not replay to its recorded result")
        return RecordedGame(index, black, winner, tuple(moves), float(seconds), opening)

    def append(self, index: int, a_is_black: bool, winner: int | None, moves, seconds: float, opening: int = 0) -> None:
        """Add one finished game, flushed to disk before returning. ``opening``: how many of its
        first ``moves`` the match's opening played (written when the header has openings).

        Raises:
            OSError: the write failed (a full disk); the lines written before stay as they were.
        """
        g = RecordedGame(index, a_is_black, winner, tuple(int(m) for m in moves), round(seconds, 1), int(opening))
        fields = {"game": g.index, "a_is_black": g.a_is_black, "winner": g.winner, "moves": list(g.moves),
                  "seconds": g.seconds}
        if self.header.get("openings") is not None:
            fields["opening"] = g.opening
        line = json.dumps(fields) + "\n"
        self._write_at_end(line.encode("utf-8"))  # whole, or not at all
        self.games[index] = g


def _whole(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _json(line: str):
    try:
        return json.loads(line, parse_constant=_no_constant)
    except (json.JSONDecodeError, RecursionError, ValueError):
        return None


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _cut_off(tail: str) -> bool:
    """Whether an unterminated last line is a write cut short rather than a whole line: not JSON,
    and not ending in the ``}`` that ends every line this module writes (a line that does and is
    still not JSON was edited, and is refused as corrupt)."""
    if tail.rstrip().endswith("}"):
        return False
    try:
        json.loads(tail)
        return False
    except (json.JSONDecodeError, RecursionError, ValueError):
        return True
