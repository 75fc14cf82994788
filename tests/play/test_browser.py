"""A real browser on the web board: Playwright driving Debian's Chromium (headless, no network).

Starts ``zeroplay serve`` on 127.0.0.1 and a free port, opens the page, checks that "In a row"
follows the board size (4 on 6x6), plays three moves by clicking, waits for the engine's replies
and the analysis overlay, and saves a screenshot to ``artifacts/web-board.png`` (a CI artifact;
ignored by git). ``.ci/run`` installs Chromium.
"""

from __future__ import annotations

import os

import pytest
from browser_helpers import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, running_server


@pytest.fixture()
def server(warm):
    with running_server() as url:
        yield url


def test_play_three_moves_in_chromium(server):
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium); "
                    ".ci/run does it in CI")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (pip) is not installed")

    # A real browser against a live search stream is timing-dependent on a shared 2-core machine:
    # the whole flow gets up to three attempts, each with a fresh page; an app error (a page error
    # or a 5xx) fails at once.
    errors: list[str] = []
    last: Exception | None = None
    for _attempt in range(3):
        try:
            _play_three_moves(sync_api, server, errors)
            break
        except sync_api.Error as e:  # timeouts and clicks on a board being redrawn
            last = e
            assert not errors, errors
    else:
        raise last
    assert not errors, errors
    assert (ARTIFACTS / "web-board.png").stat().st_size > 10_000


def _play_three_moves(sync_api, server, errors):
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("response", lambda r: r.status >= 500 and errors.append(f"{r.status} {r.url}"))
            page.goto(server + "/")
            page.wait_for_selector("rect.cell", timeout=30_000)
            # "In a row" follows the board: 4 on 6x6 (the shipped model's game), else 5
            page.select_option("#opt-size", "6")
            assert page.input_value("#opt-n-in-row") == "4"
            # an update of the game on the board (a finished analysis, a move) must not undo the
            # choice being made for the next game (it did: a race that failed this test in CI)
            page.evaluate("setGame(game)")
            assert page.input_value("#opt-size") == "6" and page.input_value("#opt-n-in-row") == "4"
            page.click("#btn-new")
            page.wait_for_function("document.getElementById('game-title').textContent"
                                   " === 'gomoku 6x6 freestyle, 4 in a row'")
            page.select_option("#opt-size", "15")
            assert page.input_value("#opt-n-in-row") == "5"
            page.select_option("#opt-playouts", "200")
            page.click("#btn-new")
            page.wait_for_function("document.getElementById('game-title').textContent === 'gomoku 15x15 freestyle'")
            page.wait_for_function("document.querySelectorAll('circle.stone').length === 0")
            your_move = "document.getElementById('status').textContent.startsWith('Your move')"
            for k in range(3):
                page.wait_for_function(your_move, timeout=300_000)
                if k == 0:
                    cell = "h8"
                else:  # the analysis' best candidate (first row of the top-moves table)
                    page.wait_for_selector("#top-moves tbody tr", timeout=60_000)
                    cell = page.locator("#top-moves tbody tr td").first.text_content().strip()
                # force: the analysis stream may redraw the board while we click (a person's click
                # lands anyway; Playwright's "stable element" wait can time out on it)
                page.click(f'rect.cell[data-move="{cell}"]', force=True)
                # our stone appears, then the engine's reply
                page.wait_for_function(f"document.querySelectorAll('circle.stone').length >= {2 * k + 1}")
                page.wait_for_function(f"document.querySelectorAll('circle.stone.white').length >= {k + 1}",
                                       timeout=300_000)
            page.wait_for_function(your_move, timeout=300_000)
            assert page.locator("circle.stone.black").count() == 3
            assert page.locator("circle.stone.white").count() == 3
            # the analysis overlay: candidate moves with win rates and visits, and the heat map
            page.wait_for_selector("circle.candidate", timeout=60_000)
            # the overlay is redrawn as the analysis streams: wait for a heat map, or for the note
            # that the analysis solved the position (no heat map then; CI once read the count
            # between the two and found none)
            page.wait_for_function("document.querySelectorAll('rect.heat').length > 0 || "
                                   "document.getElementById('heat-note').textContent.startsWith('solved')",
                                   timeout=60_000)
            assert page.locator("#top-moves tbody tr").count() > 0
            assert "playouts" in page.locator("#search-info").text_content()
            assert page.locator("#moves span").count() == 6
            assert page.locator("path.winrate-line").count() == 1
            page.wait_for_timeout(500)
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "web-board.png"), full_page=True)
        finally:
            browser.close()
