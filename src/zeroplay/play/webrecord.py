"""The web board's records: a whole variation tree and a set-up start position in SGF, read back
with every variation; PSQ records (main line, no set-up) as before.

SGF written (FF[4], GM[4]; the moves' letters are column then row from the top)::

    (;FF[4]GM[4]CA[UTF-8]AP[zeroplay:..]SZ[9]PB[you]PW[zeroplay]RE[B+]RU[freestyle]
    AB[ee][ff]AW[dd]PL[W]ZW[0.4]...      set-up stones and the side to move, when the game
    ;W[gg]ZW[..]                         started from a set-up position; then the moves, each
    (;B[hh]...)                          node with its analysis (``play.review``'s ZW/ZB/ZV/ZP);
    (;B[ii]...))                         a branch: one ``(...)`` per variation, the main line first

Read back: the first game tree, every variation (as many positions as a game's tree holds,
``gametree.MAX_TREE_NODES``); ``AB``/``AW``/``PL`` on the root node (set-up stones anywhere else
are refused); a node without a move keeps its properties for the position before it. Moves must
alternate from the side to move at the start (``PL``, else from the stone counts).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zeroplay.games.records import GameRecord
from zeroplay.games.records.sgf import gomoku_board_size, gomoku_rule
from zeroplay.games.records.sgftree import SgfNode, read_sgf_tree, write_sgf_tree
from zeroplay.play.gametree import MAX_TREE_NODES, ROOT, GameTree

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_ROOT_KEYS = frozenset({"FF", "GM", "CA", "AP", "SZ", "PB", "PW", "RE", "RU", "AB", "AW", "PL"})
"""Root properties read here, not kept as a position's own."""


@dataclass
class BoardRecord:
    """A record the web board loads: board shape, labels, the start (set-up stones or none), and
    positions in pre-order (position 0 is the start; each other one its parent plus one move).

    Attributes:
        black, white: cells of the set-up stones (empty: the empty board).
        to_play: the side to move at the start (0 Black, 1 White); None: from the stone counts.
        parent, move: per position, the parent's index (-1 for the start) and the cell played
            (-1 for the start). A position's first child is its main continuation.
        props: per position, the properties the board does not interpret (first values), e.g.
            its analysis (``play.review``).
    """

    width: int
    height: int
    rule: str = ""
    black: list[int] = field(default_factory=list)
    white: list[int] = field(default_factory=list)
    to_play: int | None = None
    parent: list[int] = field(default_factory=lambda: [-1])
    move: list[int] = field(default_factory=lambda: [-1])
    props: list[dict[str, str]] = field(default_factory=lambda: [{}])

    @property
    def set_up(self) -> bool:
        return bool(self.black or self.white) or self.to_play not in (None, 0)

    def add(self, parent: int, move: int, props: dict[str, str] | None = None) -> int:
        self.parent.append(parent)
        self.move.append(move)
        self.props.append(dict(props or {}))
        return len(self.move) - 1

    def main_line(self) -> list[int]:
        """The cells of the main line (first children from the start)."""
        first: dict[int, int] = {}
        for k in range(len(self.parent) - 1, 0, -1):  # pre-order: the lowest index is the first child
            first[self.parent[k]] = k
        out, node = [], 0
        while node in first:
            node = first[node]
            out.append(self.move[node])
        return out


def from_game_record(rec: GameRecord) -> BoardRecord:
    """A main-line record (PSQ, or any ``GameRecord``) as a ``BoardRecord``."""
    out = BoardRecord(rec.width, rec.height, rec.rule)
    props = rec.node_props or []
    if props:
        out.props[0] = dict(props[0])
    node = 0
    for i, cell in enumerate(rec.moves):
        node = out.add(node, int(cell), props[i + 1] if i + 1 < len(props) else None)
    return out


def record_of_tree(tree: GameTree, start, set_up: bool, rule: str, props_of) -> BoardRecord:
    """A game's whole variation tree as a ``BoardRecord``: ``start`` the root's State (its stones
    are the set-up when ``set_up``), ``props_of(node)`` each position's properties."""
    width, height = start.game.width, start.game.height
    out = BoardRecord(width, height, rule, [int(c) for c in start.stones(0)], [int(c) for c in start.stones(1)],
                      start.to_play if set_up else None)
    out.props[0] = props_of(ROOT)
    index = {ROOT: 0}
    todo = list(reversed(tree.children(ROOT)))  # pre-order, first children first
    while todo:
        n = todo.pop()
        index[n] = out.add(index[int(tree.parent[n])], int(tree.move[n]), props_of(n))
        todo.extend(reversed(tree.children(n)))
    return out


def read_board_sgf(text: str, *, max_positions: int = MAX_TREE_NODES) -> BoardRecord:
    """Parse an SGF Gomoku record with its variations and set-up (the module docstring).

    Raises:
        ValueError: malformed SGF, another game's (``GM`` other than 4), no or a bad ``SZ``, an
            unknown ``RU``, set-up stones off the root, a bad ``PL``, a move off the board, out of
            turn or a pass, more than ``max_positions`` positions.
    """
    nodes = read_sgf_tree(text, max_nodes=4 * max_positions)
    root = nodes[0].props
    width, height = gomoku_board_size(root)

    def cell(value: str, where: str) -> int:
        if len(value) != 2 or value[0] not in _LETTERS[:width] or value[1] not in _LETTERS[:height]:
            raise ValueError(f"{where}: [{value}] is not a point of the {width}x{height} board")
        return _LETTERS.index(value[1]) * width + _LETTERS.index(value[0])

    out = BoardRecord(width, height, gomoku_rule(root.get("RU", [""])[0], "SGF RU"))
    out.black = [cell(v, "SGF AB") for v in root.get("AB", [])]
    out.white = [cell(v, "SGF AW") for v in root.get("AW", [])]
    if "PL" in root:
        pl = root["PL"][0].strip().upper()
        if pl not in ("B", "W"):
            raise ValueError(f"SGF PL[{root['PL'][0]}]: B or W")
        out.to_play = 0 if pl == "B" else 1
    first_mover = out.to_play if out.to_play is not None else int(len(out.black) > len(out.white))
    out.props[0] = _kept(root, skip=_ROOT_KEYS)
    position = [0] * len(nodes)  # the SGF node -> the position it ends at
    depth = [0]
    for k, node in enumerate(nodes):
        at = position[node.parent] if k else 0
        if k and ("AB" in node.props or "AW" in node.props or "AE" in node.props):
            raise ValueError(f"SGF node {k}: set-up stones are read on the root node only")
        played = [(c, v) for c in ("B", "W") for v in node.props.get(c, [])]
        if len(played) > 1:
            raise ValueError(f"SGF node {k}: more than one move in a node")
        if not played:
            if k:
                out.props[at].update(_kept(node.props))
            position[k] = at
            continue
        colour, value = played[0]
        expected = "B" if (first_mover + depth[at]) % 2 == 0 else "W"
        if colour != expected:
            raise ValueError(f"SGF node {k}: {colour} moves out of turn ({expected} to move)")
        if value == "":
            raise ValueError(f"SGF node {k}: a pass ({colour}[{value}]); Gomoku has none")
        if len(out.move) >= max_positions:
            raise ValueError(f"the record has more than {max_positions} positions (a game's tree holds "
                             f"{max_positions})")
        position[k] = out.add(at, cell(value, f"SGF node {k}: move {colour}"),
                              _kept(node.props) if k else {})
        depth.append(depth[at] + 1)
    return out


def _kept(props: dict[str, list[str]], skip: frozenset[str] = frozenset({"B", "W"})) -> dict[str, str]:
    return {k: v[0] for k, v in props.items() if k and k not in skip and k not in ("B", "W") and v}


def write_board_sgf(rec: BoardRecord, *, app: str, black_name: str = "", white_name: str = "",
                    result: str = "") -> str:
    """SGF text of ``rec`` with every variation (the module docstring); ``app`` for ``AP``.

    Raises:
        ValueError: a board wider than 26, a property name that is not upper-case letters.
    """
    if max(rec.width, rec.height) > len(_LETTERS):
        raise ValueError(f"SGF letters cover boards up to {len(_LETTERS)} wide")

    def letters(c: int) -> str:
        return _LETTERS[c % rec.width] + _LETTERS[c // rec.width]

    size = str(rec.width) if rec.width == rec.height else f"{rec.width}:{rec.height}"
    root: dict[str, list[str]] = {"FF": ["4"], "GM": ["4"], "CA": ["UTF-8"], "AP": [app], "SZ": [size]}
    for key, value in (("PB", black_name), ("PW", white_name), ("RE", result), ("RU", rec.rule)):
        if value:
            root[key] = [value]
    if rec.black:
        root["AB"] = [letters(c) for c in rec.black]
    if rec.white:
        root["AW"] = [letters(c) for c in rec.white]
    if rec.to_play is not None and rec.set_up:
        root["PL"] = ["B" if rec.to_play == 0 else "W"]
    root.update({k: [v] for k, v in rec.props[0].items()})
    first_mover = rec.to_play if rec.to_play is not None else int(len(rec.black) > len(rec.white))
    depth = [0] * len(rec.move)
    nodes = [SgfNode(-1, root)]
    for k in range(1, len(rec.move)):
        depth[k] = depth[rec.parent[k]] + 1
        colour = "B" if (first_mover + depth[k] - 1) % 2 == 0 else "W"
        nodes.append(SgfNode(rec.parent[k], {colour: [letters(rec.move[k])], **{p: [v] for p, v in rec.props[k].items()}}))
    return write_sgf_tree(nodes)
