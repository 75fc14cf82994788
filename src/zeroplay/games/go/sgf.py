"""Go SGF records (FF[4], GM[1]): main line only, read and written (SGF FF[4] specification,
red-bean.com/sgf/go.html).

Written::

    (;FF[4]GM[1]CA[UTF-8]AP[zeroplay:0.1.0]SZ[9]KM[7.5]RU[area]PB[..]PW[..]RE[B+3.5]
    AB[cc][gc]AW[ee]PL[W]
    ;W[dd];B[];W[ef] ...)

A point is two letters, column then row from the top (``a`` = 0), so ``aa`` is the top-left
corner (the same cell numbering as the game: ``row * width + col``). A pass is written ``B[]``
(FF[4]); ``B[tt]`` is read as a pass too on boards up to 19x19 (FF[3]). ``AB``/``AW``/``PL`` set up
stones and the side to move (handicap, problems). ``KM`` is the komi; ``RU`` is written as this
program's rule name (``area`` / ``territory``); read back, SGF's names count too (``Japanese``,
``Korean``: territory; ``Chinese``, ``AGA``, ``NZ``, ``Tromp-Taylor``: area; ``scoring_of_rules``),
and any other value is kept as text with the scoring left to the caller. ``RE``: ``B+3.5``,
``W+R`` (resignation), ``0`` (draw), or absent.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zeroplay import __version__
from zeroplay.games.api import IllegalMoveError, State
from zeroplay.games.go.game import MAX_SIZE, MIN_SIZE, Go
from zeroplay.games.records.sgf import _sgf_escape, _sgf_main_line

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


_AREA_RULES = {"area", "chinese", "aga", "nz", "new zealand", "tromp-taylor", "tromp taylor", "cgos"}
_TERRITORY_RULES = {"territory", "japanese", "korean"}


def scoring_of_rules(rules: str) -> str | None:
    """The scoring (``"area"`` / ``"territory"``) an SGF ``RU`` value names, None when it names
    none this program knows. SGF FF[4]'s own names: ``Japanese`` and ``Korean`` count territory,
    ``Chinese``, ``AGA``, ``NZ`` count area (AGA's pass stones make its count equal to area's);
    ``Tromp-Taylor`` is area; this program's ``area`` / ``territory`` too. Case is ignored."""
    name = rules.strip().lower()
    if name in _AREA_RULES:
        return "area"
    if name in _TERRITORY_RULES:
        return "territory"
    return None


@dataclass
class GoRecord:
    """One Go game as an SGF file holds it.

    Attributes:
        width, height: board shape (``MIN_SIZE``..``MAX_SIZE`` each: 2..19).
        komi: points for White (``KM``; 0 when absent).
        black_setup, white_setup: cells of the set-up stones (``AB``/``AW``), ``row * width + col``.
        to_play: 0 Black or 1 White to move first (``PL``; White after a handicap set-up by
            default when only Black stones are set up, as SGF viewers do).
        moves: actions from the set-up position, pass = ``width * height``; colours alternate
            unless ``colors`` gives them.
        black, white: player names; result: ``RE`` as written (``B+3.5``, ``W+R``, ``0``, ``""``).
        rules: ``RU`` as written; comment: the root's ``C``.
    """

    width: int
    height: int
    komi: float = 0.0
    black_setup: list[int] = field(default_factory=list)
    white_setup: list[int] = field(default_factory=list)
    to_play: int = 0
    moves: list[int] = field(default_factory=list)
    black: str = ""
    white: str = ""
    result: str = ""
    rules: str = ""
    comment: str = ""
    colors: list[int] | None = None
    """The colour (0 Black, 1 White) of each move, written as given: a record of moves out of turn
    (a GTP session's). None: colours alternate from ``to_play`` (what ``read_go_sgf`` reads)."""

    def game(self, **rules) -> Go:
        """The ``Go`` game of this record: its size and komi, scoring from ``RU`` when it names
        one (``area`` / ``territory``), other rules (``ko``, ``suicide``, ``scoring``) from ``rules``."""
        options: dict = {"komi": self.komi}
        scoring = scoring_of_rules(self.rules)
        if scoring is not None:
            options["scoring"] = scoring
        options.update(rules)
        return Go(self.width, self.height, **options)

    def replay(self, game: Go | None = None) -> State:
        """The final position: the set-up stones, then every move (raises IllegalMoveError on an
        illegal one, ValueError on a board of another shape)."""
        game = game if game is not None else self.game()
        if self.colors is not None and any(c != (self.to_play + i) % 2 for i, c in enumerate(self.colors)):
            raise ValueError("record has moves out of turn: replay it move by move with their colours")
        if (game.width, game.height) != (self.width, self.height):
            raise ValueError(f"record is {self.width}x{self.height}, game is {game.width}x{game.height}")
        state = (game.from_stones(self.black_setup, self.white_setup, self.to_play)
                 if self.black_setup or self.white_setup or self.to_play else game.initial())
        return state.play_many(self.moves)


def record_of_state(state: State, *, black: str = "", white: str = "", result: str | None = None,
                    comment: str = "") -> GoRecord:
    """The ``GoRecord`` of a Go game played from the start; ``result`` defaults to the score of
    a finished game (``Go.result_text``), else none."""
    game = state.game
    if not isinstance(game, Go):
        raise ValueError(f"a Go SGF record needs a Go game, not {game.name}")
    if result is None:
        result = game.result_text(state) if state.is_terminal else ""
    return GoRecord(game.width, game.height, game.rules.komi, moves=[int(m) for m in state.moves],
                    black=black, white=white, result=result, rules=game.rules.scoring, comment=comment)


def _point(cell: int, width: int) -> str:
    return _LETTERS[cell % width] + _LETTERS[cell // width]


def write_go_sgf(record: GoRecord) -> str:
    """SGF text of ``record`` (one line per 10 moves)."""
    w, h = record.width, record.height
    size = str(w) if w == h else f"{w}:{h}"
    root = f"(;FF[4]GM[1]CA[UTF-8]AP[zeroplay:{__version__}]SZ[{size}]KM[{record.komi:g}]"
    for key, value in (("RU", record.rules), ("PB", record.black), ("PW", record.white),
                       ("RE", record.result), ("C", record.comment)):
        if value:
            root += f"{key}[{_sgf_escape(value)}]"
    for key, cells in (("AB", record.black_setup), ("AW", record.white_setup)):
        if cells:
            root += key + "".join(f"[{_point(c, w)}]" for c in cells)
    if record.black_setup or record.white_setup or record.to_play:
        root += f"PL[{'BW'[record.to_play]}]"
    nodes = []
    for i, a in enumerate(record.moves):
        colour = "BW"[record.colors[i] if record.colors is not None else (record.to_play + i) % 2]
        nodes.append(f";{colour}[{'' if a == w * h else _point(a, w)}]")
    body = "\n".join("".join(nodes[i : i + 10]) for i in range(0, len(nodes), 10))
    return root + ("\n" + body if body else "") + ")\n"


def read_go_sgf(text: str, *, sizes: tuple[int, int] = (MIN_SIZE, MAX_SIZE), any_order: bool = False) -> GoRecord:
    """Parse the main line of an SGF Go record.

    Args:
        sizes: the board sides (inclusive) the reader takes: the rules' 2..19 by default, a
            front-end's own (``Go.board_sizes``) to word its refusal.
        any_order: moves out of turn are taken (a GTP session's record: ``play b`` twice), each
            with its colour in ``colors``; by default they are refused.

    Raises:
        ValueError: malformed SGF, another game's (``GM`` other than 1; an absent ``GM`` is Go,
            SGF's default), a size outside ``sizes``, a bad ``KM``, points off the board, set-up
            stones after the root, colours that do not alternate.
    """
    nodes = _sgf_main_line(text)
    if not nodes:
        raise ValueError("not an SGF record: no '(;' game tree")
    root = nodes[0]

    def first(key):
        return root.get(key, [""])[0].strip()

    gm = first("GM") or "1"
    if gm != "1":
        raise ValueError(f"SGF record of game GM[{gm}], not Go (GM[1])")
    sz = first("SZ") or "19"
    w_text, _, h_text = sz.partition(":")
    try:
        width, height = int(w_text), int(h_text or w_text)
    except ValueError:
        raise ValueError(f"SGF board size SZ[{sz}] is not a number") from None
    lo, hi = sizes
    if not (lo <= width <= hi and lo <= height <= hi):
        raise ValueError(f"SGF board size SZ[{sz}] is outside {lo}..{hi}")
    try:
        komi = float(first("KM") or 0)
    except ValueError:
        raise ValueError(f"SGF komi KM[{first('KM')}] is not a number") from None
    cells = width * height

    def cell_of(value: str, n: int, what: str) -> int:
        if len(value) != 2 or value[0] not in _LETTERS[:width] or value[1] not in _LETTERS[:height]:
            raise ValueError(f"SGF node {n}: {what}[{value}] is not on the {width}x{height} board")
        return _LETTERS.index(value[1]) * width + _LETTERS.index(value[0])

    setup = {key: [cell_of(v, 0, key) for v in root.get(key, [])] for key in ("AB", "AW")}
    pl = first("PL").upper()
    if pl not in ("", "B", "W"):
        raise ValueError(f"SGF PL[{pl}] is not B or W")
    to_play = 1 if pl == "W" or (not pl and setup["AB"] and not setup["AW"]) else 0
    moves: list[int] = []
    colors: list[int] = []
    for n, node in enumerate(nodes):
        if n > 0 and ("AB" in node or "AW" in node or "AE" in node):
            raise ValueError(f"SGF node {n}: set-up stones after the root are not supported")
        for colour in ("B", "W"):
            for value in node.get(colour, []):
                expected = "BW"[(to_play + len(moves)) % 2]
                if not moves and colour != expected and not pl:
                    to_play = "BW".index(colour)  # no PL: the first move says who starts
                    expected = colour
                if colour != expected and not any_order:
                    raise ValueError(f"SGF node {n}: {colour} moves out of turn ({expected} to move)")
                colors.append("BW".index(colour))
                v = value.strip().lower()
                if v in ("", "tt"):  # tt: FF[3]'s pass, off every board up to 19x19
                    moves.append(cells)
                else:
                    moves.append(cell_of(v, n, colour))
    return GoRecord(width, height, komi, setup["AB"], setup["AW"], to_play, moves, first("PB"), first("PW"),
                    first("RE"), first("RU"), first("C"), colors if any_order else None)


def load_go_sgf(text: str, **rules) -> State:
    """The final position of an SGF Go record (``GoRecord.replay``), rules as ``GoRecord.game``.

    Raises:
        ValueError: see ``read_go_sgf``; IllegalMoveError (a ValueError) for an illegal move.
    """
    record = read_go_sgf(text)
    try:
        return record.replay(record.game(**rules))
    except IllegalMoveError as e:
        raise IllegalMoveError(f"SGF record: {e}") from None
