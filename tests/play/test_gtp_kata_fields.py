"""KataGo's optional ``kata-analyze`` fields: ``pvVisits``, ``pvEdgeVisits``, ``rootInfo``,
``movesOwnership`` and ``ownershipStdev`` (they were accepted and printed nothing)."""

from __future__ import annotations

import re

import numpy as np
from gtp_helpers import ask, gtp_session, own_net_session, stop_after_infos

from zeroplay.games import make


def _own_net_session(tmp_path, seed: int = 4):
    return own_net_session(tmp_path, seed, playouts=64)


def _info(reply: str) -> str:
    return next(line for line in reply.split("\n") if line.startswith("info "))


def _moves(info: str) -> list[str]:
    """The line's per-move parts, ``info move ...`` each."""
    return ["info move " + part for part in info.split("info move ")[1:]]


def _field(part: str, name: str, stop: tuple[str, ...]) -> list[str]:
    after = part.split(f" {name} ")[1]
    end = min((after.index(f" {s} ") for s in stop if f" {s} " in after), default=len(after))
    return after[:end].split()


def test_pv_visits_are_the_trees_counts_along_each_pv(tmp_path):
    session, out = _own_net_session(tmp_path)
    info = _info(ask(session, out, "kata-analyze 50 pvVisits true pvEdgeVisits true"))
    searcher = session.engine._searcher
    tails = ("pvVisits", "pvEdgeVisits", "movesOwnership")
    checked = 0
    for part in _moves(info):
        visits = int(re.search(r" visits (\d+) ", part).group(1))
        pv = _field(part, "pv", tails)
        nodes = [int(n) for n in _field(part, "pvVisits", tails)]
        edges = [int(n) for n in _field(part, "pvEdgeVisits", tails)]
        assert part.index(" pv ") < part.index(" pvVisits ") < part.index(" pvEdgeVisits ")  # KataGo's order
        assert len(nodes) == len(edges) == len(pv)
        assert edges[0] == visits  # the root edge's visits are the move's
        line = [session.state.game.parse_move(v) for v in pv]
        for k in range(len(line)):  # an independent look-up: each PV node's statistics
            assert nodes[k] == searcher.stats_at(line[: k + 1])["visits"]
            assert 0 < edges[k] <= nodes[k]
            if k:
                parent = searcher.stats_at(line[:k])
                assert edges[k] == next(e["visits"] for e in parent["edges"] if e["move"] == line[k])
        checked += len(line) > 1
    assert checked  # some PV goes past its first move


def test_root_info_is_the_searchs_root_and_weights_the_moves_scores(tmp_path):
    session, out = _own_net_session(tmp_path)
    info = _info(ask(session, out, "kata-analyze 50 rootInfo true ownership true"))
    moves = re.findall(r"info move \S+ visits (\d+) utility \S+ winrate (\S+) scoreMean (\S+)", info)
    root = re.search(r" rootInfo visits (\d+) utility (\S+) winrate (\S+) scoreMean (\S+) scoreLead (\S+) "
                     r"scoreSelfplay (\S+) ownership ", info)
    assert moves and root, info
    n = np.array([int(v) for v, _, _ in moves], float)
    last = session.engine.last  # the search's own root: N(root) = 1 + its moves' visits, Q(root)
    assert int(root.group(1)) == last.root_visits == n.sum() + 1
    winrate = float(root.group(3))
    assert np.isclose(winrate, last.win_rate, atol=1e-6)
    assert np.isclose(winrate, np.dot(n, [float(w) for _, w, _ in moves]) / n.sum(), atol=0.01)
    assert np.isclose(float(root.group(2)), 2 * winrate - 1, atol=1e-5)
    assert np.isclose(float(root.group(4)), np.dot(n, [float(s) for _, _, s in moves]) / n.sum(), atol=2e-3)
    assert root.group(4) == root.group(5) == root.group(6)


def test_moves_ownership_is_each_moves_position_from_the_movers_view(tmp_path):
    session, out = _own_net_session(tmp_path)
    info = _info(ask(session, out, "kata-analyze 50 movesOwnership true maxmoves 4"))
    assert " ownership " not in info  # only what was asked
    state = session.state
    parts = _moves(info)
    assert 0 < len(parts) <= 4
    for part in parts:
        move = state.game.parse_move(part.split()[2])
        shown = np.array([float(v) for v in _field(part, "movesOwnership", ())])
        after = state.play(move)
        want = -session.engine.ownership(after)  # the child's head, from White (to move at the root)'s view
        assert shown.shape == (25,) and np.allclose(shown, want, atol=1e-5)


def test_ownership_stdev_is_the_spread_of_the_maps_the_ownership_averages(tmp_path):
    session, out = _own_net_session(tmp_path)
    info = _info(ask(session, out, "kata-analyze 50 ownership true ownershipStdev true"))
    mean = np.array([float(v) for v in _field(info, "ownership", ("ownershipStdev",))])
    spread = np.array([float(v) for v in info.split(" ownershipStdev ")[1].split()])
    state = session.state
    maps, weights = [session.engine.ownership(state)], [1.0]
    for text, n in sorted(re.findall(r"info move (\S+) visits (\d+)", info), key=lambda m: -int(m[1]))[:10]:
        maps.append(-session.engine.ownership(state.play(state.game.parse_move(text))))
        weights.append(int(n))
    maps = np.array(maps, float)
    want_mean = np.average(maps, axis=0, weights=weights)
    assert np.allclose(mean, want_mean, atol=1e-5)
    assert np.allclose(spread, np.sqrt(np.average((maps - want_mean) ** 2, axis=0, weights=weights)), atol=1e-5)
    assert spread.shape == (25,) and spread.max() > 0 and (spread >= 0).all() and (spread <= 1).all()


def test_a_child_that_ends_the_game_has_the_boards_own_count():
    from zeroplay.play.gtp_ownership import SearchOwnership

    game = make("go", size=5, komi=7.0)
    state = game.initial().play(game.parse_move("c3")).play(game.pass_action)  # Black to move; a pass ends it
    own = SearchOwnership(state, np.zeros(25), lambda position: np.full(25, 0.25))
    after_pass = own.move_map(game.pass_action)
    assert np.array_equal(after_pass, np.ones(25))  # Black's stone owns the board (Black to move: +1)
    assert np.allclose(own.move_map(game.parse_move("a1")), -0.25)  # not the end: the net's map, flipped


def test_without_a_network_head_the_per_move_maps_and_spread_show_nothing():
    # the Go priors engine (no net on 5x5): pvVisits still comes from its tree; no head, no maps
    session, out = gtp_session(playouts=64, size=5)
    stop_after_infos(session)
    info = _info(ask(session, out, "kata-analyze 50 pvVisits true movesOwnership true ownershipStdev true "
                                   "movesOwnershipStdev true rootInfo true"))
    assert " pvVisits " in info and " rootInfo visits " in info
    assert "movesOwnership" not in info and "ownershipStdev" not in info


def test_flat_monte_carlo_shows_each_moves_own_visits():
    session, out = gtp_session(playouts=200, size=5, engine_kind="flat")
    stop_after_infos(session)
    info = _info(ask(session, out, "kata-analyze 50 pvVisits true pvEdgeVisits true"))
    for part in _moves(info):
        visits = re.search(r" visits (\d+) ", part).group(1)
        assert part.endswith(f" pvVisits {visits} pvEdgeVisits {visits}") or \
            f" pvVisits {visits} pvEdgeVisits {visits} " in part + " "


def test_lz_analyze_takes_none_of_them():
    session, out = gtp_session(playouts=16, size=5)
    assert ask(session, out, "lz-analyze 50 pvVisits true").startswith("? syntax error")


def test_a_report_that_ran_no_playout_does_not_repeat_the_line():
    # a slice shorter than one batch on a reused tree reported the same stats again: the same
    # info line twice in a row (helper-58 saw it once on genmove_analyze)
    session, out = gtp_session(playouts=40, size=5)
    think = session.engine.think

    def twice(state, *, on_progress=None, **kw):
        stats = think(state, **kw)
        if on_progress is not None:
            on_progress(stats)
            on_progress(stats)  # a slice without playouts: nothing changed
        return stats

    session.engine.think = twice
    reply = ask(session, out, "kata-genmove_analyze b 50")
    infos = [line for line in reply.split("\n") if line.startswith("info ")]
    assert len(infos) == 1 and reply.rstrip("\n").split("\n")[-1].startswith("play "), reply


def _walls(tmp_path):
    """The own-net session on 5x5 with Black's wall on the a file, White's on the e file, and
    Black's pass: White to move, and White's pass ends the game won (5 points each, komi 7)."""
    session, out = _own_net_session(tmp_path)
    assert ask(session, out, "undo").startswith("=")
    for i in range(1, 6):
        assert ask(session, out, f"play b a{i}").startswith("=") and ask(session, out, f"play w e{i}").startswith("=")
    assert ask(session, out, "play b pass").startswith("=")
    stop_after_infos(session)
    return session, out


def test_root_info_of_a_proven_root_is_the_proof(tmp_path):
    # helper-60: the moves' visit-weighted mean gave 0.98 on a root whose pass is a proven win
    session, out = _walls(tmp_path)
    info = _info(ask(session, out, "kata-analyze 50 rootInfo true"))
    last = session.engine.last
    assert last.proven == "win" and last.best_move == session.state.game.pass_action
    root = re.search(r" rootInfo visits (\d+) utility (\S+) winrate (\S+)", info)
    assert int(root.group(1)) == last.root_visits and float(root.group(3)) == 1.0 and float(root.group(2)) == 1.0


def test_genmove_plays_the_proven_win_before_a_more_visited_move(tmp_path):
    # helper-60: `play E7` (2 visits) where the pass (1 visit) was a proven win
    from dataclasses import replace

    session, out = _walls(tmp_path)
    state = session.state
    stats = session.engine.think(state, playouts=64)
    pass_action = state.game.pass_action
    other = next(s for s in stats if s.move != pass_action)
    ordered = [replace(other, visits=99)] + [s for s in stats if s.move != other.move]
    assert session.engine.choose(state, ordered) == pass_action
    assert session.engine.choose(state, [s for s in ordered if s.move != pass_action]) == other.move  # cleanup


def test_maxmoves_0_still_gives_the_root_and_the_map(tmp_path):
    # helper-60: `maxmoves 0 ownership true` printed nothing; KataGo prints the line without moves
    session, out = _own_net_session(tmp_path)
    info = [line for line in ask(session, out, "kata-analyze 50 maxmoves 0 ownership true rootInfo true").split("\n")
            if line.strip() and line != "="]
    assert info and info[0].startswith("rootInfo visits ") and " ownership " in info[0] and "info move" not in info[0]
    stop_after_infos(session)
    assert ask(session, out, "kata-analyze 50 maxmoves 0") == "=\n\n"  # nothing asked: no line


def test_a_gui_asking_for_maps_the_engine_cannot_make_is_told_once():
    import io

    log = io.StringIO()
    session, out = gtp_session(playouts=32, size=5, log=log)
    for _ in range(2):
        stop_after_infos(session)
        assert "info move" in ask(session, out, "kata-analyze 50 movesOwnership true ownershipStdev true")
    assert log.getvalue().count("need a network with an ownership head") == 1
