"""Gomoku game records a person can replay: PSQ (Piskvork) and SGF, written and read back.

PSQ (the Piskvork / Gomocup manager's format)::

    Piskvorky 15x15, 11:11, 0        header: board width x height, then fields kept as is
    8,8,0                            one move per line: x,y,ms -- column and row from the TOP,
    9,8,0                            both counted from 1 (Gomocup's 0-based x,y plus one)
    Black's name                     optional player lines
    White's name
    -1                               end marker

SGF (FF[4], GM[4] = Gomoku)::

    (;FF[4]GM[4]CA[UTF-8]AP[zeroplay:0.1.0]SZ[15]PB[..]PW[..]RE[B+];B[hh];W[ih])

with a move's letters = column then row from the top (``a`` = 0), ``SZ[w:h]`` on non-square
boards, and ``RE`` = ``B+`` / ``W+`` (``B+R``: by resignation) / ``0`` (draw) / absent.
Readers take the main line only (the first variation at each branch).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from zeroplay import __version__
from zeroplay.games import Game, State
from zeroplay.nn.atomic_file import atomic_write_text

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_PSQ_HEADER = re.compile(r"^\s*Piskvorky\s+(\d+)\s*x\s*(\d+)\s*(.*)$", re.IGNORECASE)
_PSQ_MOVE = re.compile(r"^\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*(-?\d+)\s*)?$")


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
    """

    width: int
    height: int
    moves: list[int]
    black: str = ""
    white: str = ""
    result: str = ""
    times_ms: list[int] = field(default_factory=list)
    comment: str = ""

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
                   comment: str = "") -> GameRecord:
    """A ``GameRecord`` of ``moves`` on ``game``; the result comes from the final position
    unless ``winner`` (0, 1, None for draw) is given, e.g. for a resigned game."""
    if winner == "from-board":
        final = game.initial().play_many(moves)
        winner = final.winner if final.is_terminal else "unknown"
    result = {0: "B+", 1: "W+", None: "0"}.get(winner, "") if winner != "unknown" else ""
    if resigned and result in ("B+", "W+"):
        result += "R"
    return GameRecord(game.width, game.height, [int(m) for m in moves], black, white, result,
                      comment=comment)


# --- PSQ ------------------------------------------------------------------------------------
def write_psq(record: GameRecord) -> str:
    """PSQ text of ``record`` (coordinates from 1; names on their own lines; ``-1`` ends it)."""
    lines = [f"Piskvorky {record.width}x{record.height}, 11:11, 0"]
    for i, cell in enumerate(record.moves):
        x, y = cell % record.width + 1, cell // record.width + 1
        ms = record.times_ms[i] if i < len(record.times_ms) else 0
        lines.append(f"{x},{y},{ms}")
    if record.black or record.white:
        lines += [_one_line(record.black), _one_line(record.white)]
    lines.append("-1")
    return "\n".join(lines) + "\n"


def read_psq(text: str) -> GameRecord:
    """Parse PSQ text: the header, then ``x,y[,ms]`` lines up to the first other line; the next
    two non-numeric lines, if any, are taken as the players' names.

    Raises:
        ValueError: no header, or a move off the board or repeated (the message names the line).
    """
    lines = text.splitlines()
    m = _PSQ_HEADER.match(lines[0]) if lines else None
    if not m:
        raise ValueError("not a PSQ record: the first line must be 'Piskvorky WxH, ...'")
    width, height = int(m.group(1)), int(m.group(2))
    moves, times, seen = [], [], set()
    i = 1
    while i < len(lines) and (mv := _PSQ_MOVE.match(lines[i])):
        x, y = int(mv.group(1)), int(mv.group(2))
        if not (1 <= x <= width and 1 <= y <= height):
            raise ValueError(f"PSQ line {i + 1}: move {x},{y} is off the {width}x{height} board (counts from 1)")
        cell = (y - 1) * width + (x - 1)
        if cell in seen:
            raise ValueError(f"PSQ line {i + 1}: cell {x},{y} is played twice")
        seen.add(cell)
        moves.append(cell)
        times.append(int(mv.group(3) or 0))
        i += 1
    rest = [ln.strip() for ln in lines[i:] if ln.strip() and not re.fullmatch(r"-?\d+(,.*)?", ln.strip())]
    black, white = (rest + ["", ""])[:2]
    return GameRecord(width, height, moves, black, white, "", times)


# --- SGF ------------------------------------------------------------------------------------
def write_sgf(record: GameRecord) -> str:
    """SGF text of ``record`` (one line per 10 moves, for people reading the file)."""
    if max(record.width, record.height) > len(_LETTERS):
        raise ValueError(f"SGF letters cover boards up to {len(_LETTERS)} wide")
    size = str(record.width) if record.width == record.height else f"{record.width}:{record.height}"
    root = f"(;FF[4]GM[4]CA[UTF-8]AP[zeroplay:{__version__}]SZ[{size}]"
    for key, value in (("PB", record.black), ("PW", record.white), ("RE", record.result),
                       ("C", record.comment)):
        if value:
            root += f"{key}[{_sgf_escape(value)}]"
    nodes = []
    for i, cell in enumerate(record.moves):
        colour = "B" if i % 2 == 0 else "W"
        nodes.append(f";{colour}[{_LETTERS[cell % record.width]}{_LETTERS[cell // record.width]}]")
    body = "\n".join("".join(nodes[i : i + 10]) for i in range(0, len(nodes), 10))
    return root + ("\n" + body if body else "") + ")\n"


def read_sgf(text: str) -> GameRecord:
    """Parse the main line of an SGF Gomoku record.

    Raises:
        ValueError: malformed SGF, another game's (``GM`` other than 4; none is taken as
            Gomoku), no ``SZ``, set-up stones (``AB``/``AW``), moves off the board, out of turn or
            repeated.
    """
    nodes = _sgf_main_line(text)
    if not nodes:
        raise ValueError("not an SGF record: no '(;' game tree")
    root = nodes[0]
    game = root.get("GM", ["4"])[0].strip()
    if not game.isdigit() or int(game) != 4:  # Go (GM[1]) or another game would load as Gomoku
        raise ValueError(f"SGF record of game GM[{game}], not Gomoku (GM[4])")
    if "SZ" not in root:
        raise ValueError("SGF record has no board size (SZ)")
    sz = root["SZ"][0]
    w, _, h = sz.partition(":")
    try:
        width, height = int(w), int(h or w)
    except ValueError:
        raise ValueError(f"SGF board size SZ[{sz}] is not a number") from None
    if not (1 <= width <= len(_LETTERS) and 1 <= height <= len(_LETTERS)):
        raise ValueError(f"SGF board size SZ[{sz}] is outside 1..{len(_LETTERS)}")
    moves, seen = [], set()
    for n, node in enumerate(nodes):
        if "AB" in node or "AW" in node:
            raise ValueError("SGF set-up stones (AB/AW) are not supported")
        for colour in ("B", "W"):
            for value in node.get(colour, []):
                expected = "B" if len(moves) % 2 == 0 else "W"
                if colour != expected:
                    raise ValueError(f"SGF node {n}: {colour} moves out of turn ({expected} to move)")
                if len(value) != 2 or value[0] not in _LETTERS[:width] or value[1] not in _LETTERS[:height]:
                    raise ValueError(f"SGF node {n}: move {colour}[{value}] is not on the {width}x{height} board")
                cell = _LETTERS.index(value[1]) * width + _LETTERS.index(value[0])
                if cell in seen:
                    raise ValueError(f"SGF node {n}: move {colour}[{value}] is played twice")
                seen.add(cell)
                moves.append(cell)
    def first(key):
        return root.get(key, [""])[0]

    return GameRecord(width, height, moves, first("PB"), first("PW"), first("RE"), comment=first("C"))


def _sgf_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _one_line(text: str) -> str:
    return " ".join(text.split()) or "-"


def _sgf_main_line(text: str) -> list[dict[str, list[str]]]:
    """Nodes of the main line (root sequence, then always the first variation), each a dict
    property -> list of unescaped values.

    Read with an explicit stack, never by recursion: a record nested thousands of levels deep
    (``"(" * 3000``) is a ``ValueError`` like any other malformed record, not a RecursionError.
    The stack holds one entry per open ``(``, so it is bounded by the text's length.
    """
    i = text.find("(")
    if i < 0:
        return []
    nodes: list[dict[str, list[str]]] = []
    # open[k]: whether the k-th enclosing game tree is on the main line (the first variation of a
    # main-line tree, all the way up); only main-line nodes are kept
    open_trees = [True]
    first_child_seen = [False]
    i += 1
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch == ";":
            node, i = _node(text, i + 1)
            if first_child_seen[-1]:
                raise ValueError(f"malformed SGF at offset {i}: a node after a variation")
            if open_trees[-1]:
                nodes.append(node)
        elif ch == "(":
            main = open_trees[-1] and not first_child_seen[-1]
            first_child_seen[-1] = True
            open_trees.append(main)
            first_child_seen.append(False)
            i += 1
        elif ch == ")":
            open_trees.pop()
            first_child_seen.pop()
            i += 1
            if not open_trees:
                return nodes
        else:
            raise ValueError(f"malformed SGF at offset {i}: unexpected {ch!r}")
    raise ValueError("malformed SGF: a game tree is not closed with ')'")


def _node(text: str, i: int) -> tuple[dict[str, list[str]], int]:
    """Properties ``IDENT[value]...`` from text[i]; returns (properties, index after them)."""
    props: dict[str, list[str]] = {}
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        if not text[i].isalpha():
            return props, i
        j = i
        while j < len(text) and text[j].isalpha():
            j += 1
        ident = "".join(c for c in text[i:j] if c.isupper())  # FF[3] allowed lower-case letters
        i = j
        values = props.setdefault(ident, [])
        while True:
            while i < len(text) and text[i].isspace():
                i += 1
            if i >= len(text) or text[i] != "[":
                break
            i, value = _read_value(text, i)
            values.append(value)
        if not values:
            raise ValueError(f"malformed SGF: property {ident} has no value")
    return props, i


def _read_value(text: str, i: int) -> tuple[int, str]:
    """(index after the closing ']', unescaped value) for the value starting at text[i] == '['."""
    out, j = [], i + 1
    while j < len(text):
        c = text[j]
        if c == "\\" and j + 1 < len(text):
            out.append(text[j + 1])
            j += 2
            continue
        if c == "]":
            return j + 1, "".join(out)
        out.append(c)
        j += 1
    raise ValueError("malformed SGF: a property value is not closed with ']'")


def save_record(path, record: GameRecord) -> None:
    """Write ``record`` atomically as PSQ or SGF, chosen by the suffix ``.psq`` / ``.sgf``."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".psq", ".sgf"):
        raise ValueError(f"record file {path} must end in .psq or .sgf")
    atomic_write_text(path, write_psq(record) if suffix == ".psq" else write_sgf(record))


def load_record(path) -> GameRecord:
    """Read a ``.psq`` or ``.sgf`` file (by suffix)."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    if p.suffix.lower() == ".psq":
        return read_psq(text)
    if p.suffix.lower() == ".sgf":
        return read_sgf(text)
    raise ValueError(f"record file {path} must end in .psq or .sgf")
