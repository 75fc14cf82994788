"""Go on the web board in a real browser (Playwright driving Debian's Chromium, as
``test_browser.py``): the Go form, hoshi and GTP letters, a capture, the pass button, two passes
ending the game with the count shown, SGF export, resigning and taking it back. Saves ``artifacts/web-board-go.png``."""

from __future__ import annotations

import os

import pytest
from browser_helpers import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, running_server


@pytest.fixture()
def server(warm):
    with running_server("--playouts", "16") as url:
        yield url


def test_go_capture_pass_and_count_in_chromium(server):
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium); "
                    ".ci/run does it in CI")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (pip) is not installed")
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.set_default_timeout(120_000)  # a loaded 2-core machine; the server may be compiling
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("response", lambda r: r.status >= 500 and errors.append(f"{r.status} {r.url}"))
            page.goto(server + "/")
            page.wait_for_selector("rect.cell", timeout=300_000)
            page.uncheck("#opt-analysis")
            page.select_option("#opt-game", "go")
            assert page.input_value("#opt-size") == "9" and page.is_visible("#opt-komi")
            assert not page.is_visible("#opt-n-in-row")
            # Go's own sizes (the server's board_sizes, from Go.board_sizes): 5..19 in the menu
            assert page.is_disabled("#opt-size option[value='20']")
            assert not page.is_disabled("#opt-size option[value='19']")
            assert not page.is_disabled("#opt-size option[value='5']")
            page.click("#btn-new")
            # the server's first Go game loads Go's compiled search (minutes on a loaded 2-core machine)
            page.wait_for_function("document.getElementById('game-title').textContent === 'go 9x9'",
                                   timeout=300_000)
            page.wait_for_selector("#btn-pass:not([hidden])")
            assert page.locator("#go-score .go-rules").text_content() == "area scoring · komi 7.5 · simple ko"
            labels = page.locator("#board text").all_text_contents()
            assert "J" in labels and "I" not in labels
            assert page.locator('rect.cell[data-move="E5"]').count() == 1
            page.check("#opt-setup")
            stones = "document.querySelectorAll('circle.stone').length"
            for k, vertex in enumerate(("D5", "E5", "F5", "A1", "E6", "A2", "E4")):
                page.click(f'rect.cell[data-move="{vertex}"]', force=True)
                page.wait_for_function(f"game && game.line.length === {k + 1}")
            assert page.evaluate(stones) == 6  # E5 was captured
            assert "Black 1" in page.locator("#go-score .go-captures").text_content()
            assert page.is_hidden("#export-psq")
            sgf = page.get_attribute("#export-sgf", "href")
            assert sgf.endswith("format=sgf")
            page.click("#btn-pass")
            page.wait_for_function("game && game.score.passes === 1")
            page.click("#btn-pass")
            page.wait_for_function("game && game.over")
            count = page.locator("#go-score .go-count").text_content()
            assert "final count" in count and game_result(page) in count
            assert game_result(page) in page.locator("#status").text_content()
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "web-board-go.png"))
            # a new game, resigned at once (the page asks first); Undo takes it back
            assert page.is_visible("#opt-engine-resigns") and page.is_checked("#opt-engine-resigns")
            page.uncheck("#opt-setup")
            page.click("#btn-new")
            page.wait_for_function("game && game.line.length === 0 && !game.over")
            page.on("dialog", lambda d: d.accept())
            page.click("#btn-resign")
            page.wait_for_function("game && game.over && game.resigned === 0")
            assert "You resigned. zeroplay wins. (White wins W+R)" in page.locator("#status").text_content()
            assert page.is_disabled("#btn-resign") and page.is_disabled("#btn-pass")
            page.click("#btn-undo")
            page.wait_for_function("game && !game.over && game.resigned === null")
        finally:
            browser.close()
    assert not errors, errors


def game_result(page) -> str:
    return page.evaluate("game.score.result")
