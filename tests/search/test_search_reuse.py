"""Issue 4: tree reuse after our move and the reply, garbage collection, reset."""

from __future__ import annotations

from zeroplay.games import make
from zeroplay.search import Limits, Searcher, SearchConfig, UniformEvaluator
from zeroplay.tt.node_table import node_count, node_table_stats

GAME = make("gomoku", size=9)


def reachable(s: Searcher) -> set[int]:
    """Node indices reachable from the root through child links."""
    t = s.tree
    seen, stack = {s.root}, [s.root]
    while stack:
        n = stack.pop()
        start = int(t.node_stat_start[n])
        for i in range(start, start + int(t.node_touched[n])):
            c = int(t.stat_child[i])
            if c >= 0 and c not in seen:
                seen.add(c)
                stack.append(c)
    return seen


def subtree(s: Searcher, path=(), depth: int = 3) -> dict:
    """stats_at of a node and (to ``depth``) its visited children, for comparing trees."""
    st = s.stats_at(list(path))
    if st is None:
        return None
    st = dict(st)
    st.pop("node")
    if depth > 0:
        st["children"] = {
            e["move"]: subtree(s, list(path) + [e["move"]], depth - 1) for e in st["edges"] if e["child"] >= 0
        }
    return st


def searched_once(playouts: int = 1500):
    s = Searcher(GAME, UniformEvaluator(), SearchConfig(batch_size=8, debug=True))
    state = GAME.initial()
    result = s.search(state, playouts=playouts)
    return s, state, result


def test_reply_reuses_the_old_node_with_its_statistics():
    s, state, result = searched_once()
    a = result.best_move
    b = max(s.stats_at([a])["edges"], key=lambda e: e["visits"])["move"]
    old = s.node_at([a, b])
    before = subtree(s, [a, b])
    assert before["visits"] >= 2
    new_state = state.play(a).play(b)
    s.start(new_state, Limits(playouts=100))
    assert s.root == old
    assert subtree(s) == before  # statistics and edges intact after the edge compaction
    # garbage collection freed everything the new root does not reach
    assert node_count(s.table) == len(reachable(s))
    assert node_table_stats(s.table)["gc_freed"] > 0
    result2 = s.search(new_state, playouts=100)
    assert result2.root_visits == before["visits"] + 100
    assert result2.playouts == 100
    assert node_count(s.table) == len(reachable(s))


def test_unexpanded_reply_gives_a_fresh_root():
    s, state, result = searched_once(300)
    a = result.best_move
    unvisited = [e["move"] for e in s.stats_at([a])["edges"] if e["child"] < 0]
    new_state = state.play(a).play(unvisited[0])
    s.start(new_state, Limits(playouts=50))
    root = s.stats_at(())
    assert root["visits"] == 0 and root["state"] == "new"
    assert node_count(s.table) == 1
    result2 = s.search(new_state, playouts=50)
    assert result2.root_visits == 50 == result2.playouts


def test_position_outside_the_tree_gives_a_fresh_root():
    s, state, _ = searched_once(300)
    other = GAME.from_stones([0, 80], [8, 72])
    r = s.search(other, playouts=30)
    assert r.root_visits == 30
    assert node_count(s.table) == len(reachable(s))


def test_reset_empties_the_table():
    s, state, _ = searched_once(300)
    assert node_count(s.table) > 1
    s.reset()
    assert node_count(s.table) == 0
    assert s.root == -1
    r = s.search(state, playouts=40)
    assert r.root_visits == 40 and r.playouts == 40


def test_same_position_again_keeps_growing():
    s, state, r1 = searched_once(200)
    r2 = s.search(state, playouts=200)
    assert r2.root_visits == r1.root_visits + 200
    assert r2.playouts == 200


def test_visits_limit_counts_reused_visits():
    s, state, r1 = searched_once(200)
    r2 = s.search(state, visits=300)
    assert r2.root_visits == 300 and r2.playouts == 100 and r2.stopped_by == "visits"
    r3 = s.search(state, visits=100)  # already there
    assert r3.playouts == 0 and r3.root_visits == 300 and r3.best_move is not None


def test_many_moves_of_a_game_with_reuse_keep_the_table_consistent():
    """Play a game with one Searcher per side; after every search the live nodes are exactly
    the nodes the root reaches, and the debug invariants hold."""
    searchers = [Searcher(GAME, UniformEvaluator(), SearchConfig(batch_size=8, debug=True, node_capacity=1 << 12))
                 for _ in range(2)]
    state = GAME.initial()
    for _ in range(12):
        if state.is_terminal:
            break
        s = searchers[state.to_play]
        r = s.search(state, playouts=150)
        assert node_count(s.table) == len(reachable(s))
        state = state.play(r.best_move)


def test_searching_the_same_root_again_keeps_every_node_and_sweeps_nothing(monkeypatch):
    # an analysis searches one root in report slices; each slice's start swept the whole table
    # (about 8 ms a slice), with nothing to free
    import zeroplay.search.searcher as searcher

    s, state, _ = searched_once(600)
    nodes = node_count(s.table)
    calls = []
    real = searcher.collect
    monkeypatch.setattr(searcher, "collect", lambda *a: calls.append(a) or real(*a))
    again = s.search(state, playouts=300)
    assert calls == [] and node_count(s.table) >= nodes
    assert node_count(s.table) == len(reachable(s)) and again.root_visits >= 900
    s.search(state.play(again.best_move), playouts=50)  # a new root: swept as before
    assert len(calls) == 1 and node_count(s.table) == len(reachable(s))
