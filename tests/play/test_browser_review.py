"""The web board's review in a real browser (issue 23): Chromium loads a finished 9x9 record,
steps through it by the move list, the keys and the slider, makes a variation and returns to
the main line, reviews the whole game (mistakes on the move list and the graph, a click on the
graph), shows the forced win and the winning five, toggles move numbers and "Analysis off", and
previews a principal variation, and opens a shared link to a position in another tab; a review's
refresh answered after its done event is dropped. ``zeroplay serve --playouts 20`` and 50
playouts a position keep it to seconds once the search is compiled. Saves
``artifacts/web-review.png``.
"""

from __future__ import annotations

import os
import re

import pytest
from browser_helpers import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, running_server

# Black's five on row 5 after White's blunder b9 (White had to block d5); see test_server_review
RECORD = "Piskvorky 9x9, 11:11, 0\n" + "".join(
    f"{x},{y},0\n" for x, y in ((5, 5), (9, 5), (6, 5), (1, 1), (7, 5), (1, 9), (8, 5), (2, 9), (4, 5))) + "-1\n"

# Black d5 e5 f5 (an open three), White a1 a9 i9 far away; Black to move wins in 3 plies
OPEN_THREE = "Piskvorky 9x9, 11:11, 0\n" + "".join(
    f"{x},{y},0\n" for x, y in ((4, 5), (1, 9), (5, 5), (1, 1), (6, 5), (9, 1))) + "-1\n"


@pytest.fixture()
def server(warm):
    with running_server("--playouts", "20") as url:
        yield url


def test_review_a_game_in_chromium(server, tmp_path):
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium); "
                    ".ci/run does it in CI")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (pip) is not installed")
    record = tmp_path / "game.psq"
    record.write_text(RECORD)
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 1000})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("response", lambda r: r.status >= 500 and errors.append(f"{r.status} {r.url}"))
            page.goto(server + "/")
            page.wait_for_selector("rect.cell", timeout=30_000)
            assert page.locator('link[rel="icon"]').get_attribute("href") == "/static/favicon.svg"
            _review(page, record)
            # a shareable link opens the same line at the same position in another tab
            page.click('#moves span[data-ply="5"]')
            wait_cursor(page, 5)
            page.click("#btn-share")
            url = page.input_value("#share-url")
            assert url.startswith(server + "/#") and "moves=e5.i5.f5.a9.g5.a1.h5.b1.d5" in url and "ply=5" in url
            other = browser.new_page()
            other.on("pageerror", lambda e: errors.append(str(e)))
            other.goto(url)
            other.wait_for_function("game && game.line.length === 9 && game.cursor === 5")
            assert other.locator("circle.stone").count() == 5
            _forced_line(page, record)
        finally:
            browser.close()
    assert not errors, errors


def test_a_late_refresh_does_not_undo_the_review(server, tmp_path):
    """Each review progress event refreshes the game (GET /api/games/ID); a refresh still in flight
    when the done event arrives must not put back its mid-review game (seen once in six runs: 6
    points on the graph after "review done", not 10). The test holds every refresh's answer until
    the review is done, then lets them all arrive, a mid-review game last: the graph and the marks
    stay the done event's. Without setGame's tickets (app.js) the mid-review game lands last and
    the graph goes back to the points of the review's first positions (3-6 of 10): this test
    fails on the old app.js every time."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium); "
                    ".ci/run does it in CI")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (pip) is not installed")
    record = tmp_path / "game.psq"
    record.write_text(RECORD)
    errors: list[str] = []
    held: list = []
    answered: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 1000})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(server + "/")
            page.wait_for_selector("rect.cell", timeout=30_000)
            page.set_input_files("#load-file", str(record))
            page.wait_for_function("document.querySelectorAll('#moves span').length === 9")
            game_url = server + "/api/games/" + page.evaluate("game.id")

            def hold(route):  # the server answers now; the page gets the answer later
                held.append((route, route.fetch()))

            page.route(game_url, lambda route: hold(route) if route.request.method == "GET" else route.fallback())
            page.on("response", lambda r: r.url == game_url and r.request.method == "GET" and answered.append(r.url))
            page.select_option("#review-playouts", "50")
            page.click("#btn-review")
            page.wait_for_function("document.getElementById('review-status').textContent.startsWith('review done')",
                                   timeout=120_000)
            # one refresh per progress event (one per position), all sent before the done event
            # ran; their answers reach the test a moment later
            for _ in range(100):
                if len(held) >= 10:
                    break
                page.wait_for_timeout(100)
            assert len(held) == 10
            # the test's route handlers run when the test waits, so the server may have gone on by
            # then: the first refresh's answer becomes a mid-review game for certain (at most the
            # first 5 positions analysed, and the end's result), and it arrives last
            game = held[0][1].json()
            game["winrates"] = [w for w in game["winrates"] if w["ply"] < 5 or w["ply"] == 9]
            assert _graph_points(page) == 10
            blunders = page.locator("#moves span.blunder").count()
            assert blunders >= 1
            for route, response in held[1:]:  # the answers arrive after the done event
                route.fulfill(response=response)
            held[0][0].fulfill(response=held[0][1], json=game)
            for _ in range(100):
                if len(answered) == len(held):
                    break
                page.wait_for_timeout(100)
            assert len(answered) == len(held), (len(answered), len(held))
            page.wait_for_timeout(500)  # the page reads the last answers (json, setGame) within milliseconds
            assert _graph_points(page) == 10
            assert page.locator("#moves span.blunder").count() == blunders
            assert page.locator("#review-status").text_content().startswith("review done")
        finally:
            browser.close()
    assert not errors, errors


def _graph_points(page) -> int:
    """The win-rate graph's points (its mistake dots left out)."""
    return page.locator("#graph circle:not(.graph-mistake)").count()


def stones(page) -> int:
    return page.locator("circle.stone").count()


def wait_cursor(page, ply: int) -> None:
    page.wait_for_function(f"game && game.cursor === {ply} && document.querySelectorAll('circle.stone').length === {ply}")


def _review(page, record) -> None:
    page.set_input_files("#load-file", str(record))
    page.wait_for_function("document.querySelectorAll('#moves span').length === 9")
    assert page.locator("circle.win-stone").count() == 5  # the end: the winning five ringed
    assert page.locator("#winbar-black").get_attribute("style").startswith("width: 100")  # the result
    # the move list, the keys and the slider
    page.click('#moves span[data-ply="3"]')
    wait_cursor(page, 3)
    assert page.locator("#moves span.current").text_content() == "3.f5"
    page.keyboard.press("ArrowLeft")
    wait_cursor(page, 2)
    page.keyboard.press("End")
    wait_cursor(page, 9)
    page.keyboard.press("Home")
    wait_cursor(page, 0)
    page.keyboard.press("ArrowRight")
    wait_cursor(page, 1)
    page.eval_on_selector("#nav-slider", "s => { s.value = '4'; s.dispatchEvent(new Event('change')); }")
    wait_cursor(page, 4)
    # a variation: another move for White at ply 4 keeps both lines; back to the main line
    page.click("#nav-prev")
    wait_cursor(page, 3)
    # the board's own click handler (it reads the cell from the event's target); a pointer click
    # here failed once in CI with "Element is outside of the viewport" after the page scrolled
    page.dispatch_event('rect.cell[data-move="e9"]', "click")
    page.wait_for_function("game && game.line.length === 4 && !game.main_line")
    assert page.locator("#btn-mainline").is_visible()
    page.click("#btn-mainline")
    page.wait_for_function("game && game.main_line && game.line.length === 9 && game.cursor === 3")
    assert page.locator("#var-next .var").count() == 2 and not page.locator("#btn-mainline").is_visible()
    # the whole-game review: every position analysed, mistakes marked on the list and the graph
    page.select_option("#review-playouts", "50")
    page.click("#btn-review")
    page.wait_for_function("document.getElementById('review-status').textContent.startsWith('review done')",
                           timeout=120_000)
    assert "10 of 10 positions, 50 playouts each" in page.locator("#review-status").text_content()
    assert page.locator("#graph circle").count() >= 10 and page.locator("#graph .axes text").count() >= 4
    assert page.locator("#moves span.blunder").count() >= 1
    assert page.locator("#graph .graph-mistake").count() == page.locator(
        "#moves span.blunder, #moves span.mistake, #moves span.inaccuracy").count()
    box = page.locator("#graph").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.55, box["y"] + box["height"] / 2)  # about ply 5
    page.wait_for_function("game && game.cursor >= 4 && game.cursor <= 6")
    # the forced win: Black to move after White's blunder wins in one, drawn on the board
    page.click('#moves span[data-ply="8"]')
    wait_cursor(page, 8)
    page.wait_for_function("!document.getElementById('forced').hidden", timeout=60_000)
    assert page.locator("#forced").text_content().startswith("Black wins in 1")
    assert page.locator("text.pv-number").count() >= 1
    # move numbers, and the preview of a suggested move's line
    page.check("#opt-numbers")
    assert page.locator("text.move-number").count() == 8
    page.click('#moves span[data-ply="2"]')
    wait_cursor(page, 2)
    page.wait_for_selector("#top-moves tbody tr", timeout=60_000)
    page.hover("#top-moves tbody tr")
    page.wait_for_selector("circle.pv-stone")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "web-review.png"), full_page=True)
    # "Analysis off" hides the numbers of the side panel as well
    page.uncheck("#opt-analysis")
    assert not page.locator("#top-moves").is_visible() and not page.locator("#winbar-text").is_visible()
    assert page.locator("circle.candidate").count() == 0


def _forced_line(page, record) -> None:
    """A forced win of more than one move is drawn whole: Black's open three d5 e5 f5, Black to
    move; the line runs to the five (an open four, White's block, the five), numbered 1 2 3."""
    page.check("#opt-analysis")
    open_three = record.with_name("open-three.psq")
    open_three.write_text(OPEN_THREE)
    page.set_input_files("#load-file", str(open_three))
    page.wait_for_function("document.querySelectorAll('#moves span').length === 6")
    page.wait_for_function("!document.getElementById('forced').hidden", timeout=60_000)
    forced = page.locator("#forced").text_content()
    assert re.fullmatch(r"Black wins in 2: [a-i]\d [a-i]\d [a-i]\d", forced), forced
    assert page.locator("text.pv-number").all_text_contents() == ["1", "2", "3"]
    assert page.locator("circle.pv-stone").count() == 3
