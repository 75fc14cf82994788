"""SGF game trees with every variation (FF[4] collections, ``(;A;B(;C)(;D))``), read and written
without recursion.

``games.records.sgf`` reads and writes the main line of a Gomoku record; this module keeps the
whole tree, for front-ends that keep variations (the web board's ``play.webrecord``). It knows
nothing of any game: nodes are property dicts, and what a ``B[hh]`` means is the caller's.

A tree is a list of ``SgfNode`` in pre-order (node 0: the root); each node names its parent by
index, and children keep the order they have in the text (the first: the main line, as SGF
viewers show it). Only the first game tree of a collection is read; ``sgf_game_trees`` finds
each game of a collection, for a caller that lets its user choose one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from zeroplay.games.records.sgf import _node, _sgf_escape

_TREE_START = re.compile(r"\(\s*;")

MAX_SGF_NODES = 100_000
"""Most nodes ``read_sgf_tree`` accepts unless told fewer (each costs a dict: the bound keeps a
record's memory in proportion to what the caller can use)."""


@dataclass
class SgfNode:
    """One SGF node: ``parent`` (index in the tree's list; -1 for the root) and its properties,
    each name (upper-case letters) with its unescaped values in the order of the text."""

    parent: int
    props: dict[str, list[str]] = field(default_factory=dict)


def read_sgf_tree(text: str, *, max_nodes: int = MAX_SGF_NODES) -> list[SgfNode]:
    """The first game tree of an SGF collection, every variation kept, in pre-order.

    An explicit stack of open ``(`` holds the node each variation hangs from, so a record nested
    thousands of levels deep is read (or refused) like any other, never a RecursionError.

    Raises:
        ValueError: no ``(;``, malformed text (a node after a variation, an unclosed tree or
            value, a property without a value), more than ``max_nodes`` nodes.
    """
    i = text.find("(")
    if i < 0:
        raise ValueError("not an SGF record: no '(;' game tree")
    if not text[i + 1 :].lstrip().startswith(";"):
        # (SGF: a game tree is '(' then its node sequence; a variation only after a node)
        raise ValueError(f"malformed SGF: the game tree at character {i + 1} does not begin with "
                         f"a node ('(;'), it begins with {text[i:i + 2]!r}")
    nodes: list[SgfNode] = []
    # per open '(': the node its variation hangs from (-1: none yet, the collection's first tree)
    # and whether a sub-tree has been closed in it (no node may follow one)
    hang_from = [-1]
    after_variation = [False]
    last = -1  # the node the next ';' follows
    i += 1
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch == ";":
            if after_variation[-1]:
                raise ValueError(f"malformed SGF at offset {i}: a node after a variation")
            if len(nodes) >= max_nodes:
                raise ValueError(f"the SGF record has more than {max_nodes} nodes")
            props, i = _node(text, i + 1)
            nodes.append(SgfNode(last, props))
            last = len(nodes) - 1
        elif ch == "(":
            if not nodes:
                raise ValueError(f"malformed SGF at offset {i}: a variation before the root node")
            hang_from.append(last)
            after_variation.append(False)
            i += 1
        elif ch == ")":
            hung = hang_from.pop()
            after_variation.pop()
            i += 1
            if not hang_from:
                return nodes
            after_variation[-1] = True
            last = hung  # a sibling variation hangs from the same node
        else:
            raise ValueError(f"malformed SGF at offset {i}: unexpected {ch!r}")
    raise ValueError("malformed SGF: a game tree is not closed with ')'")


def sgf_game_trees(text: str) -> list[tuple[int, int]]:
    """(start, end) of each game tree of an SGF collection, ``text[start:end]`` from its ``(`` to
    its ``)``, in the order of the text; ``[]`` for a text with no ``(;``. The first tree is the
    first ``(;`` (``(`` and ``;`` apart by white space at most); text before it is not read.

    A scan of brackets and property values (``]`` escaped with ``\\`` inside one), no parsing:
    what a tree holds is its reader's to check. The scan stops at text between trees that is not
    white space or a ``(;`` (the readers ignore what follows the first tree) and at an
    unclosed tree or value, which is then the last span, ending at the text's end. Linear in the
    text's length, no recursion.
    """
    trees: list[tuple[int, int]] = []
    first = _TREE_START.search(text)  # text before it, "(copy)" or "(c) 2024" included, is no game
    if first is None:
        return trees
    i, n = first.start(), len(text)
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        if not _TREE_START.match(text, i):
            break  # a "(c) 2024 ..." line after the game is no game (helper-77)
        start, depth = i, 0
        while i < n:
            c = text[i]
            if c == "[":
                i += 1
                while i < n and text[i] != "]":
                    i += 2 if text[i] == "\\" else 1
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        i = min(i + 1, n)
        trees.append((start, i))
    return trees


def write_sgf_tree(nodes: list[SgfNode], *, moves_per_line: int = 10) -> str:
    """SGF text of a tree in the form ``read_sgf_tree`` returns (pre-order, parents before their
    children; children in list order, the first the main line).

    Property names must be upper-case letters; values are escaped. A run of single children is
    written as one sequence, ``moves_per_line`` nodes to a line, for people reading the file.

    Raises:
        ValueError: an empty tree, a parent index that does not come before its child, a bad
            property name.
    """
    if not nodes:
        raise ValueError("an SGF tree needs a root node")
    children: list[list[int]] = [[] for _ in nodes]
    for k, n in enumerate(nodes[1:], start=1):
        if not 0 <= n.parent < k:
            raise ValueError(f"SGF node {k}: parent {n.parent} does not come before it")
        children[n.parent].append(k)
    out: list[str] = ["("]
    in_run = 0
    # a stack of what is left to write: node indices, or the text closing a variation
    todo: list[int | str] = [0]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            out.append(item)
            in_run = 0
            continue
        if in_run and in_run % moves_per_line == 0:
            out.append("\n")
        out.append(";" + _node_text(nodes[item].props))
        in_run += 1
        kids = children[item]
        if len(kids) == 1:
            todo.append(kids[0])
        elif kids:
            out.append("\n")
            for k in reversed(kids):
                todo.extend((")\n", k, "("))
            in_run = 0
    out.append(")\n")
    return "".join(out)


def _node_text(props: dict[str, list[str]]) -> str:
    parts = []
    for key, values in props.items():
        if not key.isalpha() or not key.isupper():
            raise ValueError(f"SGF property name {key!r}: upper-case letters only")
        if not values:
            raise ValueError(f"SGF property {key} has no value")
        parts.append(key + "".join(f"[{_sgf_escape(v)}]" for v in values))
    return "".join(parts)
