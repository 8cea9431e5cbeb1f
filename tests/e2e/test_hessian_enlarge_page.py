"""The Hessian for the back of a lecture hall (issue 9 review): "Enlarge" opens the second
derivatives as a full-window dialog at 1280x800 and 1024x768, every one of the 12 inputs'
rows on screen, names at 16 px, each cell's number, the colour scale's legend; Escape closes
it; with the program hidden a button over the graph still opens it."""
from __future__ import annotations

import pytest
from page_helpers import choose

from gradwalk.engine.trace.runner import run_trace
from gradwalk.server.presets import presets

PROGRAM = {p["id"]: p["program"] for p in presets()}["hessian-power-iteration"]


def _inside(page, box) -> bool:
    w, h = page.evaluate("[innerWidth, innerHeight]")
    return box is not None and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= w \
        and box["y"] + box["height"] <= h


@pytest.mark.parametrize("width,height", [(1280, 800), (1024, 768)])
def test_the_enlarged_hessian_shows_every_row_readably(open_explorer, width, height):
    ex = open_explorer(width, height)
    page = ex.page
    choose(page, "hessian-power-iteration")
    body = run_trace(PROGRAM)
    matrix, maxabs = body["hessian"]["matrix"], max(abs(x) for row in body["hessian"]["matrix"] for x in row)
    enlarge = page.locator("#hessian-enlarge")
    assert _inside(page, enlarge.bounding_box())   # in view beside the program, no scrolling
    enlarge.click()
    dialog = page.locator("#hessian-dialog[open]")
    dialog.wait_for()
    big = dialog.locator("svg.hessian-map.big")
    assert big.get_attribute("data-size") == "12"
    cells = big.locator("rect.cell")
    assert cells.count() == 144
    # every row and column on screen, each cell at least 40 px
    for i, j in ((0, 0), (11, 11), (11, 0), (0, 11)):
        cell = big.locator(f'rect.cell[data-i="{i}"][data-j="{j}"]')
        box = cell.bounding_box()
        assert _inside(page, box), (i, j, box)
        assert box["width"] >= 40 and box["height"] >= 40
        assert float(cell.get_attribute("data-v")) == matrix[i][j]
    # the inputs' names at 16 px, all 12 of them down the side and along the top
    rows = big.locator("text.row")
    assert rows.all_text_contents() == body["hessian"]["leaves"]
    sizes = rows.evaluate_all("ts => ts.map((t) => parseFloat(getComputedStyle(t).fontSize))")
    assert min(sizes) >= 14
    assert all(_inside(page, rows.nth(k).bounding_box()) for k in range(12))
    cols = big.locator("text.col")
    assert all(_inside(page, cols.nth(k).bounding_box()) for k in range(12))
    # each cell's number, at 14 px or more, the one of the matrix rounded
    numbers = big.locator("text.cell-number")
    assert numbers.count() == 144
    assert min(numbers.evaluate_all("ts => ts.map((t) => parseFloat(getComputedStyle(t).fontSize))")) >= 14
    assert float(numbers.nth(0).text_content()) == pytest.approx(matrix[0][0], rel=0.05)
    # the colour scale: -max|H|, 0, +max|H| under the map, on screen
    legend = dialog.locator("svg.hessian-legend")
    ticks = [float(v) for v in legend.locator("text").evaluate_all("ts => ts.map((t) => t.dataset.v)")]
    assert ticks == [-maxabs, 0.0, maxabs]
    assert _inside(page, legend.bounding_box())
    assert "7.8237" in dialog.locator(".eigen-value").inner_text()
    page.keyboard.press("Escape")
    page.locator("#hessian-dialog").wait_for(state="hidden")
    assert ex.unexpected_errors() == []


def test_hide_program_keeps_the_hessian_one_click_away(open_explorer):
    ex = open_explorer(1024, 768)
    page = ex.page
    choose(page, "hessian-power-iteration")
    assert page.locator("#hessian-open").is_hidden()   # the side panel has its own button
    page.click("#toggle-program")
    assert page.locator("#second-order").is_hidden()
    opener = page.locator("#hessian-open")
    assert opener.is_visible() and _inside(page, opener.bounding_box())
    opener.click()
    page.locator("#hessian-dialog[open] svg.hessian-map.big").wait_for()
    page.keyboard.press("Escape")
    page.locator("#hessian-dialog").wait_for(state="hidden")
    # a program without second derivatives: no button
    choose(page, "seed-tanh-fanout")
    assert page.locator("#hessian-open").is_hidden()
    assert ex.unexpected_errors() == []
