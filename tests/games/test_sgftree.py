"""SGF game trees with every variation (``games.records.sgftree``): read and written back, deep
nesting without recursion, bounded, malformed text refused."""

from __future__ import annotations

import pytest

from zeroplay.games.records.sgftree import SgfNode, read_sgf_tree, sgf_game_trees, write_sgf_tree

TREE = "(;GM[4]SZ[9];B[ee];W[dd](;B[ff];W[gg])(;B[aa](;W[bb])(;W[cc]C[a \\] b]))(;B[hh]))"


def shape(nodes):
    return [(n.parent, n.props) for n in nodes]


def test_every_variation_is_read_in_pre_order_with_its_parent():
    nodes = read_sgf_tree(TREE)
    assert [n.parent for n in nodes] == [-1, 0, 1, 2, 3, 2, 5, 5, 2]
    assert [next(iter(n.props.values()))[0] for n in nodes[1:]] == ["ee", "dd", "ff", "gg", "aa", "bb", "cc", "hh"]
    assert nodes[7].props["C"] == ["a ] b"]  # unescaped


def test_written_tree_reads_back_the_same():
    nodes = read_sgf_tree(TREE)
    text = write_sgf_tree(nodes)
    assert text.startswith("(;GM[4]SZ[9];B[ee];W[dd]") and text.count("(") == 6
    assert shape(read_sgf_tree(text)) == shape(nodes)
    assert write_sgf_tree(read_sgf_tree(text)) == text


def test_a_long_main_line_and_deep_nesting_need_no_recursion():
    chain = "(;SZ[25]" + "".join(f";B[{'abcdefghijklmnopqrstuvwxy'[i % 25]}a]" for i in range(5000)) + ")"
    assert len(read_sgf_tree(chain)) == 5001
    deep = "(;SZ[9]" + "(;B[aa]" * 3000 + ")" * 3001
    nodes = read_sgf_tree(deep)
    assert len(nodes) == 3001 and nodes[-1].parent == 2999
    assert len(read_sgf_tree(write_sgf_tree(nodes))) == 3001


@pytest.mark.parametrize("text, words", [
    ("B[aa]", "no '(;'"),
    ("(;B[aa](;W[bb]);W[cc])", "a node after a variation"),
    ("(;B[aa]", "not closed"),
    ("(;B[aa](;W[bb]", "not closed"),
    ("(;B[aa", "not closed with ']'"),
    ("(;B[aa]X)", "no value"),
    ("(;B[aa]]", "unexpected"),
    ("(" * 3000, "does not begin with a node"),
])
def test_malformed_text_is_a_value_error(text, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        read_sgf_tree(text)


def test_the_node_count_is_bounded():
    with pytest.raises(ValueError, match="more than 3 nodes"):
        read_sgf_tree("(;SZ[9];B[aa];W[bb];B[cc])", max_nodes=3)


def test_the_writer_refuses_a_child_before_its_parent_and_bad_names():
    with pytest.raises(ValueError, match="parent"):
        write_sgf_tree([SgfNode(-1, {}), SgfNode(2, {}), SgfNode(1, {})])
    with pytest.raises(ValueError, match="upper-case"):
        write_sgf_tree([SgfNode(-1, {"sz": ["9"]})])


def test_a_tree_nested_before_its_first_node_is_called_malformed_not_missing():
    """5,000 '(' before the first node were refused as "no '(;' game tree", which reads as if
    the text held no SGF at all (a new user's input)."""
    from zeroplay.games.records.sgftree import read_sgf_tree

    text = "(" * 5000 + ";SZ[15];B[hh]" + ")" * 5000
    with pytest.raises(ValueError, match=r"malformed SGF: the game tree at character 1 does not begin with a node"):
        read_sgf_tree(text)
    with pytest.raises(ValueError, match="not an SGF record: no '\\(;' game tree"):
        read_sgf_tree("no tree here")


def test_sgf_game_trees_finds_each_game_of_a_collection():
    text = "note (;GM[4]C[a\\]b)c(d)](;B[aa]))\n (;GM[1];B[cc])(;W[dd])junk(;B[ee])"
    assert [text[a:b] for a, b in sgf_game_trees(text)] == ["(;GM[4]C[a\\]b)c(d)](;B[aa]))", "(;GM[1];B[cc])", "(;W[dd])"]
    assert sgf_game_trees("no tree") == [] and sgf_game_trees("(c) 2024 (x)") == []
    assert sgf_game_trees("see (copy)\n( ;B[aa])(c)") == [(11, 20)]
    # an unclosed value or tree is the last span, to its end: its reader says what is wrong
    assert sgf_game_trees("(;C[open") == [(0, 8)] and sgf_game_trees("(;A[1](;B[2])") == [(0, 13)]
    with pytest.raises(ValueError, match="not closed"):
        read_sgf_tree("(;C[open")
