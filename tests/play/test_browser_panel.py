"""The web board's engine panel and board marks in a real browser (issue 23): the named strength
levels and the time per move of the options form, the model choice (a shipped model or the search
alone), the last-move mark, and renju's forbidden points drawn on the board. ``zeroplay serve
--playouts 20`` on 9x9 (6x6 for the model) keeps it to seconds once the search is compiled. Saves
``artifacts/web-panel.png``.
"""

from __future__ import annotations

import os
import re

import pytest
from browser_helpers import ARTIFACTS, chromium_page, running_server

import zeroplay

MODEL = "gomoku-6x6-4-freestyle"
MARGIN, UNIT = 34, 40  # app.js: the board's margin and cell size in SVG units

# Black c5 d5 and e3 e4: e5 would make two open threes, forbidden for Black under renju
RENJU = "Piskvorky 9x9, 11:11, 0\n" + "".join(
    f"{x},{y},0\n" for x, y in ((3, 5), (1, 9), (4, 5), (1, 1), (5, 7), (9, 9), (5, 6), (9, 1))) + "-1\n"


@pytest.fixture()
def server(warm):
    with running_server("--playouts", "20") as url:
        yield url


def cell(move: str, size: int = 9) -> int:
    """'e5' (column letter, row from the bottom) as the cell row * size + col (row 0 at the top)."""
    return (size - int(move[1:])) * size + "abcdefghi".index(move[0])


def centre(c: int, size: int = 9) -> tuple[float, float]:
    """The SVG centre of cell ``c`` on the board (app.js's cx, cy)."""
    return MARGIN + UNIT / 2 + (c % size) * UNIT, MARGIN + UNIT / 2 + (c // size) * UNIT


def test_engine_panel_and_board_marks_in_chromium(server, tmp_path):
    with chromium_page(server) as page:
        _strength_and_time(page)
        _renju_and_last_move(page, tmp_path)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "web-panel.png"), full_page=True)


def test_model_choice_in_chromium(server):
    if not os.path.exists(os.path.join(os.path.dirname(zeroplay.__file__), "models", MODEL + ".safetensors")):
        pytest.skip(f"the shipped 6x6 model is not in this checkout (src/zeroplay/models/{MODEL}.safetensors)")
    with chromium_page(server) as page:
        _model_choice(page)


def selected(page, select: str) -> str:
    """The text the person sees in a menu: its chosen option's."""
    return page.eval_on_selector(select, "s => s.options[s.selectedIndex].textContent").strip()


def _strength_and_time(page) -> None:
    # the named levels, with the server's --playouts offered beside them
    names = [t.strip() for t in page.locator("#opt-playouts option").all_text_contents()]
    for level in ("easy · 50 playouts", "medium · 200", "strong · 800", "stronger · 3000"):
        assert level in names, names
    assert selected(page, "#opt-playouts") == "20 playouts"  # zeroplay serve --playouts 20
    # easy: the analysis of your move searches 50 playouts
    page.select_option("#opt-size", "9")
    page.select_option("#opt-playouts", "50")
    page.click("#btn-new")
    page.wait_for_function("game && game.width === 9 && game.options.playouts === 50")
    page.wait_for_function("/^50 playouts/.test(document.getElementById('search-info').textContent)",
                           timeout=60_000)
    assert selected(page, "#opt-playouts") == "easy · 50 playouts"
    # a time per move outruns the level: the engine (Black) thinks for 1 s, far past 50 playouts
    page.select_option("#opt-seconds", "1")
    page.select_option("#opt-color", "white")
    page.click("#btn-new")
    page.wait_for_function(
        "(m => m && parseInt(m[1], 10) > 50)(document.getElementById('status').textContent"
        ".match(/thinking… (\\d+) playouts/))", timeout=60_000)
    page.wait_for_function("document.querySelectorAll('circle.stone.black').length === 1", timeout=60_000)
    page.wait_for_function("document.getElementById('status').textContent.startsWith('Your move (White)')",
                           timeout=60_000)
    assert selected(page, "#opt-seconds") == "1 s" and selected(page, "#opt-playouts") == "easy · 50 playouts"
    # back to moves by playouts, Black, for the games that follow
    page.select_option("#opt-seconds", "")
    page.select_option("#opt-color", "black")


def _renju_and_last_move(page, tmp_path) -> None:
    record = tmp_path / "renju.psq"
    record.write_text(RENJU)
    page.select_option("#opt-rule", "renju")  # the person's rule for the record
    page.set_input_files("#load-file", str(record))
    page.wait_for_function("document.querySelectorAll('#moves span').length === 8")
    assert "renju" in page.locator("#game-title").text_content()
    # Black to move: a red cross on e5 (a double three), nowhere else
    marks = page.locator("g.forbidden")
    assert marks.count() == 1 and marks.get_attribute("data-cell") == str(cell("e5"))
    # the last move (White's i9) carries the mark, one on the board
    last = page.locator("circle.last-move")
    assert last.count() == 1
    assert (float(last.get_attribute("cx")), float(last.get_attribute("cy"))) == centre(cell("i9"))
    # a click on the forbidden point is refused with the reason, and no stone is placed
    page.dispatch_event('rect.cell[data-move="e5"]', "click")
    page.wait_for_function("document.getElementById('status').className === 'error'")
    assert re.search(r"e5 is forbidden for Black under renju \(double-three\)", page.locator("#status").text_content())
    assert page.locator("circle.stone").count() == 8
    # one move back: Black's e4 is the last move, and White to move has no forbidden points
    page.click("#nav-prev")
    page.wait_for_function("game && game.cursor === 7 && document.querySelectorAll('circle.stone').length === 7")
    assert page.locator("circle.last-move").count() == 1
    assert (float(last.get_attribute("cx")), float(last.get_attribute("cy"))) == centre(cell("e4"))
    assert page.locator("g.forbidden").count() == 0
    # with move numbers the last move is ringed instead, its number drawn
    page.check("#opt-numbers")
    assert page.locator("text.move-number.last").text_content() == "7"
    assert page.locator("circle.last-move").count() == 1
    page.uncheck("#opt-numbers")
    page.click("#nav-next")
    page.wait_for_function("game && game.cursor === 8")
    assert page.locator("g.forbidden").count() == 1


def _model_choice(page) -> None:
    page.select_option("#opt-size", "6")
    page.click("#btn-new")
    page.wait_for_function("game && game.width === 6")
    # the Model menu offers the board's default, the search alone and the shipped model that fits
    names = [t.strip() for t in page.locator("#opt-model option").all_text_contents()]
    assert names[:2] == ["default for the board", "search only"] and MODEL in names, names
    page.select_option("#opt-model", "search")
    page.click("#btn-new")
    page.wait_for_function("document.getElementById('engine-name').textContent.startsWith('engine: search only')")
    assert selected(page, "#opt-model") == "search only"
    page.select_option("#opt-model", MODEL)
    page.click("#btn-new")
    page.wait_for_function(f"document.getElementById('engine-name').textContent.includes('{MODEL}')",
                           timeout=60_000)
    assert selected(page, "#opt-model") == MODEL
    # the model's policy is the heat map of the analysis, blue (a network's, not the greyed heuristic)
    page.wait_for_function("document.getElementById('heat-note').textContent === \"heat map: the model's policy\"",
                           timeout=60_000)
