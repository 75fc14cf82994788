"""One game's record (``GameRecord``) and its files: PSQ or SGF chosen by the suffix.

The formats are in ``games.records.psq`` and ``games.records.sgf``; see the package docstring.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from zeroplay.files.atomic import atomic_write_text
from zeroplay.games import Game, State


@dataclass
class GameRecord:
    """One game's moves and labels.

    Attributes:
        width, height: board shape.
        moves: cells ``row * width + col`` (row 0 at the top), Black first.
        black, white: player names ("" when unknown).
        result: SGF style: ``"B+"``, ``"W+"``, ``"B+R"`` / ``"W+R"`` (resignation), ``"0"``
            (draw), ``""`` unknown.
        times_ms: milliseconds per move (PSQ keeps them), or empty.
        comment: free text (SGF ``C`` of the root node).
        rule: the rule the game was played under ("freestyle", "standard", ...; "" unknown):
            SGF ``RU``, PSQ ``rule=`` line after the end marker.
        node_props: SGF properties zeroplay does not interpret, per position: index 0 the root
            node, index i the node of move i (e.g. the web board's analysis, ``play.review``);
            each the property's first value. Empty when none; PSQ keeps none.
    """

    width: int
    height: int
    moves: list[int]
    black: str = ""
    white: str = ""
    result: str = ""
    times_ms: list[int] = field(default_factory=list)
    comment: str = ""
    rule: str = ""
    node_props: list[dict[str, str]] = field(default_factory=list)

    @property
    def winner(self) -> int | None:
        """0 (Black) or 1 (White) from ``result``; None for a draw or unknown."""
        return 0 if self.result.startswith("B+") else 1 if self.result.startswith("W+") else None

    def replay(self, game: Game) -> State:
        """The final position on ``game`` (raises ValueError if the board shape differs)."""
        if (game.width, game.height) != (self.width, self.height):
            raise ValueError(f"record is {self.width}x{self.height}, game is {game.width}x{game.height}")
        return game.initial().play_many(self.moves)


def record_of_game(game: Game, moves: Sequence[int], *, black: str = "", white: str = "",
                   winner: int | None | str = "from-board", resigned: bool = False,
                   comment: str = "", rule: str = "") -> GameRecord:
    """A ``GameRecord`` of ``moves`` on ``game``; the result comes from the final position
    unless ``winner`` (0, 1, None for draw) is given, e.g. for a resigned game."""
    if winner == "from-board":
        final = game.initial().play_many(moves)
        winner = final.winner if final.is_terminal else "unknown"
    results: dict[int | str | None, str] = {0: "B+", 1: "W+", None: "0"}
    result = results.get(winner, "") if winner != "unknown" else ""
    if resigned and result in ("B+", "W+"):
        result += "R"
    return GameRecord(game.width, game.height, [int(m) for m in moves], black, white, result,
                      comment=comment, rule=rule)


def save_record(path, record: GameRecord) -> None:
    """Write ``record`` atomically as PSQ or SGF, chosen by the suffix ``.psq`` / ``.sgf``."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".psq", ".sgf"):
        raise ValueError(f"record file {path} must end in .psq or .sgf")
    from zeroplay.games.records.psq import write_psq
    from zeroplay.games.records.sgf import write_sgf

    atomic_write_text(path, write_psq(record) if suffix == ".psq" else write_sgf(record))


def load_record(path) -> GameRecord:
    """Read a ``.psq`` or ``.sgf`` file (by suffix), UTF-8 with or without a byte-order mark."""
    from zeroplay.games.records.psq import read_psq
    from zeroplay.games.records.sgf import read_sgf

    p = Path(path)
    text = p.read_text(encoding="utf-8-sig")
    if p.suffix.lower() == ".psq":
        return read_psq(text)
    if p.suffix.lower() == ".sgf":
        return read_sgf(text)
    raise ValueError(f"record file {path} must end in .psq or .sgf")
