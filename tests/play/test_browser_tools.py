"""The web board's tools in a real browser (issue 23): engine against engine with a stop button,
the position editor (stones of either colour, then the side to move) and its shareable link, SGF
export and import of the whole variation tree, and the heat map only where the policy means
something. ``zeroplay serve --playouts 20`` on 9x9 keeps it to seconds once the search is
compiled. Saves ``artifacts/web-tools.png``.
"""

from __future__ import annotations

import pytest
from browser_helpers import ARTIFACTS, chromium_page, running_server

# Black to move with four in a row open at one end (a5 b5 c5 d5): a win in one, proven
FORCED = "(;GM[4]SZ[9];B[ae];W[ai];B[be];W[bi];B[ce];W[ci];B[de];W[hh])"


@pytest.fixture()
def server(warm):
    with running_server("--playouts", "20") as url:
        yield url


def test_board_tools_in_chromium(server, tmp_path):
    with chromium_page(server) as page:
        page.select_option("#opt-size", "9")
        page.click("#btn-new")
        page.wait_for_function("game && game.width === 9")
        _engine_vs_engine(page)
        url = _set_up(page)
        other = page.context.browser.new_page()
        page.watch(other)
        other.goto(url)  # the link carries the set-up start, its side to move and the line
        other.wait_for_function("game && game.setup && game.setup.to_play === 1 && game.line.length === 1")
        assert other.locator("circle.stone.black").count() == 2 and other.locator("circle.stone.white").count() == 3
        _variations_in_sgf(page, tmp_path)
        _heat_map(page, tmp_path)


def test_a_refused_engine_move_is_asked_again(server):
    """A ``failed`` event on the engine's stream (the game was busy a moment: a stopped search
    still winding down) left the board waiting for ever, "the engine is already thinking" on the
    status line; the engine's move is now asked again from the game the server has."""
    refused = []

    def once(route):
        if refused:
            route.continue_()
            return
        refused.append(route.request.url)
        route.fulfill(status=200, content_type="text/event-stream",
                      body='event: failed\ndata: {"detail":"the engine is already thinking in this game"}\n\n')

    with chromium_page(server) as page:
        page.route("**/engine/stream*", once)
        page.select_option("#opt-size", "9")
        page.select_option("#opt-color", "white")  # the engine (Black) moves first
        page.click("#btn-new")
        page.wait_for_function("game && game.width === 9 && game.line.length === 1 && game.your_turn && !stream",
                               timeout=60_000)
        assert len(refused) == 1


def test_a_move_played_as_stop_is_clicked_is_shown(server):
    """The engine's move can be played on the server just before Stop closes its stream, whose
    ``done`` event then never comes: the board went on from the game it had (the person's turn
    on an empty board) while the server waited for the engine's next move, for ever; a click was
    refused as "the engine's turn". Stop now takes the game from the server. Here the first
    engine stream's answer is held back after the server has played (as if Stop won the race)."""
    held = []

    def hold(route):
        if held:
            route.continue_()
            return
        held.append(route.request.url)
        route.fetch()  # the server searches and plays Black's move; its answer is never passed on

    with chromium_page(server) as page:
        page.route("**/engine/stream*", hold)
        page.select_option("#opt-size", "9")
        page.click("#btn-new")
        page.wait_for_function("game && game.width === 9 && game.your_turn && !stream")
        gid = page.evaluate("game.id")
        page.click("#btn-autoplay")
        for _ in range(600):
            if len(page.request.get(f"{server}/api/games/{gid}").json()["line"]) == 1:
                break
            page.wait_for_timeout(100)
        page.click("#btn-autoplay-stop")
        # the server's move shown, then the engine's own move (White), then the person's turn
        page.wait_for_function("game && game.line.length === 2 && game.your_turn && !stream", timeout=60_000)
        assert len(held) == 1 and "error" not in page.locator("#status").get_attribute("class")


def test_a_refused_undo_says_why(server):
    """An Undo refused while engine against engine was stopping said why for a moment, then the
    status line went back to "Your move" and the person was not told."""
    with chromium_page(server) as page:
        page.select_option("#opt-size", "9")
        page.click("#btn-new")
        page.wait_for_function("game && game.width === 9 && game.your_turn && !stream")
        page.click('rect.cell[data-move="e5"]', force=True)
        page.wait_for_function("game && game.line.length === 2 && game.your_turn && !stream", timeout=60_000)
        page.route("**/undo", lambda route: route.fulfill(
            status=409, content_type="application/json", body='{"detail": "the engine is thinking"}'))
        page.click("#btn-undo")
        page.wait_for_function("document.getElementById('status').textContent.includes('the engine is thinking')")
        page.wait_for_timeout(500)
        assert "the engine is thinking" in page.locator("#status").text_content()
        assert page.evaluate("game.line.length") == 2


def _engine_vs_engine(page) -> None:
    page.click("#btn-autoplay")
    assert page.locator("#btn-autoplay-stop").is_visible()
    page.wait_for_function("game && game.line.length >= 4", timeout=60_000)
    assert "Engine vs engine" in page.locator("#status").text_content()
    page.click("#btn-autoplay-stop")
    stopped_at = page.evaluate("game.line.length")
    # stopped: the search under way may have finished its move already, and the engine may move
    # once on its own side; then it is the person's turn and nothing more is played. While the
    # status says "Stopping…" the board is the one before the stop (the server's comes next)
    page.wait_for_function("game && game.your_turn && !stream && "
                           "!document.getElementById('status').textContent.startsWith('Stopping')", timeout=60_000)
    settled = page.evaluate("game.line.length")
    page.wait_for_timeout(1000)
    assert settled <= stopped_at + 2 and page.evaluate("game.line.length") == settled
    assert page.locator("#btn-autoplay").is_visible() and not page.locator("#btn-autoplay-stop").is_visible()
    # the engine's moves were analysed as usual: a win rate for each position it searched
    assert page.evaluate("game.winrates.length") >= 4 and page.locator("#graph circle").count() >= 4


def _set_up(page) -> str:
    """Two white stones and two black ones, White to move; the engine (White) answers."""
    page.click("#btn-edit")
    page.click("#btn-edit-clear")
    assert page.locator("circle.stone").count() == 0
    page.check('input[name="edit-tool"][value="2"]')
    for move in ("a1", "b2"):
        page.click(f'rect.cell[data-move="{move}"]', force=True)
    page.check('input[name="edit-tool"][value="1"]')
    for move in ("e5", "f5", "g5"):
        page.click(f'rect.cell[data-move="{move}"]', force=True)
    page.click('rect.cell[data-move="g5"]', force=True)  # a second click takes it off
    assert page.locator("circle.stone.black").count() == 2 and page.locator("circle.stone.white").count() == 2
    page.select_option("#edit-to-play", "white")
    assert "2 black, 2 white" in page.locator("#edit-info").text_content()
    page.click("#btn-edit-done")
    page.wait_for_function("game && game.setup && game.line.length === 1", timeout=60_000)  # White's reply
    assert page.evaluate("game.setup.to_play") == 1 and page.evaluate("game.board[game.line[0].cell]") == 2
    assert page.locator("#edit-bar").is_hidden()
    page.click("#btn-share")
    url = page.input_value("#share-url")
    assert "ab=e5.f5" in url and "aw=" in url and "pl=w" in url and "moves=" in url
    return url


def _variations_in_sgf(page, tmp_path) -> None:
    """A variation made on the board goes out in the SGF export and comes back when it is loaded."""
    page.wait_for_function("game && game.your_turn && !stream", timeout=60_000)
    page.click('rect.cell[data-move="a9"]', force=True)  # Black's move; the engine answers
    page.wait_for_function("game && game.line.length === 3 && !stream", timeout=60_000)
    page.click('#moves span[data-ply="1"]')
    page.wait_for_function("game && game.cursor === 1")
    # a variation for Black at ply 2; dispatched, not clicked: the move list's click scrolls the
    # page, and under CI's load a pointer click then landed "outside of the viewport" once
    page.dispatch_event('rect.cell[data-move="i9"]', "click")
    page.wait_for_function("game && !game.main_line && game.your_turn && !stream", timeout=60_000)  # answered
    size = page.evaluate("game.tree_size")
    sgf = page.evaluate("fetch(document.getElementById('export-sgf').href).then((r) => r.text())")
    assert "AB[" in sgf and sgf.count("(;B[") == 2 and size == 6
    record = tmp_path / "tree.sgf"
    record.write_text(sgf)
    page.set_input_files("#load-file", str(record))
    page.wait_for_function(f"game && game.main_line && game.tree_size === {size}")
    page.click('#moves span[data-ply="1"]')
    page.wait_for_function("game && game.cursor === 1")
    assert page.locator("#var-next .var").count() == 2


def _heat_map(page, tmp_path) -> None:
    """A solved position shows its forced line, not a heat map; an open one the prior's."""
    record = tmp_path / "forced.sgf"
    record.write_text(FORCED)
    page.set_input_files("#load-file", str(record))
    page.wait_for_function("!document.getElementById('forced').hidden", timeout=60_000)
    page.wait_for_function("overlay && overlay.final", timeout=60_000)
    assert page.locator("rect.heat").count() == 0 and "solved" in page.locator("#heat-note").text_content()
    page.click('#moves span[data-ply="2"]')
    page.wait_for_function("overlay && overlay.final && overlay.node === game.node", timeout=60_000)
    has_policy = page.evaluate("!!overlay.policy")
    assert (page.locator("rect.heat").count() > 0) == has_policy
    assert page.locator("#heat-note").text_content().startswith("heat map: " if has_policy else "uniform")
    if has_policy and page.evaluate("overlay.policy_source") != "model":  # no model: greyed, and said so
        assert page.locator("rect.heat.heuristic").count() == page.locator("rect.heat").count()
        assert "greyed (no model)" in page.locator("#heat-note").text_content()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "web-tools.png"), full_page=True)
