"""SGF (FF[4], GM[4] = Gomoku) records, main line only (see ``games.records``)."""

from __future__ import annotations

from zeroplay import __version__
from zeroplay.games.gomoku.game import RULES as GAME_RULES
from zeroplay.games.records.record import GameRecord

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_READ_ROOT = frozenset({"FF", "GM", "CA", "AP", "SZ", "PB", "PW", "RE", "C", "RU"})
"""Root properties ``read_sgf`` interprets; others go to ``GameRecord.node_props[0]``."""


def write_sgf(record: GameRecord) -> str:
    """SGF text of ``record`` (one line per 10 moves, for people reading the file)."""
    if max(record.width, record.height) > len(_LETTERS):
        raise ValueError(f"SGF letters cover boards up to {len(_LETTERS)} wide")
    size = str(record.width) if record.width == record.height else f"{record.width}:{record.height}"
    root = f"(;FF[4]GM[4]CA[UTF-8]AP[zeroplay:{__version__}]SZ[{size}]"
    for key, value in (("PB", record.black), ("PW", record.white), ("RE", record.result),
                       ("RU", record.rule), ("C", record.comment)):
        if value:
            root += f"{key}[{_sgf_escape(value)}]"
    root += _props(record.node_props[0] if record.node_props else {})
    nodes = []
    for i, cell in enumerate(record.moves):
        colour = "B" if i % 2 == 0 else "W"
        extra = _props(record.node_props[i + 1]) if i + 1 < len(record.node_props) else ""
        nodes.append(f";{colour}[{_LETTERS[cell % record.width]}{_LETTERS[cell // record.width]}]{extra}")
    body = "\n".join("".join(nodes[i : i + 10]) for i in range(0, len(nodes), 10))
    return root + ("\n" + body if body else "") + ")\n"


def read_sgf(text: str) -> GameRecord:
    """Parse the main line of an SGF Gomoku record.

    Raises:
        ValueError: malformed SGF, another game's (``GM`` other than 4; none is taken as
            Gomoku), no ``SZ``, an unknown ``RU``, set-up stones (``AB``/``AW``), moves off the
            board, out of turn or repeated.
    """
    nodes = _sgf_main_line(text)
    if not nodes:
        raise ValueError("not an SGF record: no '(;' game tree")
    root = nodes[0]
    width, height = gomoku_board_size(root)
    moves: list[int] = []
    seen: set[int] = set()
    node_props = [{k: v[0] for k, v in root.items() if k and k not in _READ_ROOT and k not in ("B", "W") and v}]
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
                node_props.append({k: v[0] for k, v in node.items() if k and k not in ("B", "W") and v} if n else {})

    def first(key):
        return root.get(key, [""])[0]

    if not any(node_props):
        node_props = []
    return GameRecord(width, height, moves, first("PB"), first("PW"), first("RE"), comment=first("C"),
                      rule=gomoku_rule(first("RU"), "SGF RU"), node_props=node_props)


def _props(props: dict[str, str]) -> str:
    """``KEY[value]...`` of extra properties (keys: upper-case letters only, as SGF names them)."""
    out = []
    for key, value in props.items():
        if not key.isalpha() or not key.isupper() or key in ("B", "W"):
            raise ValueError(f"SGF property name {key!r}: upper-case letters, not B or W")
        out.append(f"{key}[{_sgf_escape(value)}]")
    return "".join(out)


def _sgf_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


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
    if not text[i + 1 :].lstrip().startswith(";"):
        # the same rule and words as ``sgftree.read_sgf_tree`` (a Go record "(((;GM[1]..." was read
        # here while the web board's reader refused it)
        raise ValueError(f"malformed SGF: the game tree at character {i + 1} does not begin with "
                         f"a node ('(;'), it begins with {text[i:i + 2]!r}")
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


RULES = tuple(GAME_RULES)
"""The Gomoku rules a record may name (SGF ``RU``, PSQ ``rule=``): the ones zeroplay plays."""


def gomoku_rule(value: str, where: str) -> str:
    """The rule ``value`` names, in lower case ("" when empty); ``where`` starts the error.

    Raises:
        ValueError: a rule zeroplay does not know (``RU[renju2]`` loaded as a free-style game
            without a word).
    """
    rule = value.strip().lower()
    if rule and rule not in RULES:
        raise ValueError(f"{where}: unknown rule {value[:40]!r}; zeroplay knows {', '.join(RULES[:-1])} "
                         f"and {RULES[-1]}")
    return rule


def gomoku_board_size(root: dict[str, list[str]]) -> tuple[int, int]:
    """(width, height) from an SGF root's ``GM`` and ``SZ`` (``SZ[15]`` or ``SZ[15:13]``).

    Raises:
        ValueError: ``GM`` is not 4 (Go, GM[1], or another game would load as Gomoku), ``SZ`` is
            missing, not a number, or outside 1..26.
    """
    game = root.get("GM", ["4"])[0].strip()
    if not game.isdigit() or int(game) != 4:
        raise ValueError(f"SGF record of game GM[{game}], not Gomoku (GM[4]); zeroplay reads Gomoku (GM[4]) "
                         f"and Go (GM[1]) records")
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
    return width, height
