"""A small tensor asked whole in Chromium (issue 16, a review: a tensor was asked one element
at a time): with "whole tensors" on (state.js quiz_grid) the matrix multiply example asks X̄
and W̄ each as a 2x2 grid of boxes, Tab going from cell to cell and Enter checking; each cell
is marked right or wrong, the transpose left out is named for the whole matrix, and the
answers are PyTorch float64's. At the lecture sizes (1280x800, 1024x768, light and projector)
the whole grid and its Check button are on screen."""
from __future__ import annotations

import pytest

from test_projector_layout_page import themed
from test_quiz_page import feedback, open_quiz, play_to_the_score
from test_quiz_tensors_page import MATMUL, SHOTS, torch_matmul
from page_helpers import wait_step

CELLS = "#quiz .quiz-grid input[name=answer]"


def type_grid(page, numbers) -> None:
    """Type `numbers` (row-major) cell by cell, Tab between them, Enter at the last; wait
    for the verdict."""
    page.evaluate("delete document.querySelector('#quiz').dataset.verdict")
    page.locator(CELLS).first.focus()
    for k, x in enumerate(numbers):
        page.keyboard.press("Control+A")
        page.keyboard.type(f"{x:g}")
        page.keyboard.press("Tab" if k < len(numbers) - 1 else "Enter")
    page.wait_for_selector("#quiz[data-verdict]")


def cell_verdicts(page) -> list[str | None]:
    return page.locator(CELLS).evaluate_all("(cells) => cells.map((c) => c.dataset.verdict ?? null)")


@pytest.mark.parametrize("size,theme", [((1280, 800), "light"), ((1024, 768), "light"),
                                        ((1024, 768), "projector"), ((1280, 800), "projector")])
def test_the_matmul_example_asks_each_gradient_as_a_grid(chromium, app_url, size, theme):
    x_bar, w_bar, x_slip, _ = torch_matmul()
    state = {"preset": "seed-matmul-2x2", "program": MATMUL, "quiz": "nodes:X,W", "quiz_grid": True, "step": 12}
    context, page, errors = open_quiz(chromium, app_url, state, size=size)
    try:
        quiz = page.locator("#quiz")
        wait_step(page, 9)   # held before X̄'s only contribution (Y = X @ W's)
        assert page.evaluate("document.activeElement.dataset.index") == "0,0"   # ready to type
        if theme != "light":
            themed(page, theme)
            page.locator(CELLS).first.focus()
        assert quiz.get_attribute("data-asking") == "n0" and quiz.get_attribute("data-grid") == "2x2"
        assert page.locator("#quiz-grid").is_checked()
        assert page.locator("#quiz .quiz-question").inner_text() == "X\u0304 = ?"   # the whole X̄
        cells = page.locator(CELLS)
        assert cells.count() == 4
        assert cells.evaluate_all("(cs) => cs.map((c) => c.dataset.index)") == ["0,0", "0,1", "1,0", "1,1"]
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.dataset.index") == "0,1"   # Tab: the next cell
        assert cells.nth(3).get_attribute("aria-label") == "X\u0304, row 1, column 1"
        # the transpose left out (Ȳ W for Ȳ Wᵀ): three cells wrong, [1,0] right by chance
        type_grid(page, x_slip.flatten().tolist())
        assert quiz.get_attribute("data-verdict") == "wrong"
        assert quiz.get_attribute("data-mistake") == "transpose"
        assert cell_verdicts(page) == ["wrong", "wrong", "right", "wrong"]
        text = feedback(page)
        assert "3 of 4 numbers wrong (X\u0304[0,0], X\u0304[0,1], X\u0304[1,1])" in text
        right = "[[" + "], [".join(", ".join(f"{v:g}" for v in row) for row in x_bar.tolist()) + "]]"
        assert f"X\u0304 = {right}" in text and "transpose" in text
        # the whole grid, the Check button and the verdict in sight, clear of the graph's bottom bar
        for el in [*[cells.nth(k) for k in range(4)], page.locator("#quiz button[type=submit]"), page.locator("#quiz .quiz-feedback strong")]:
            box = el.bounding_box()
            assert box and 0 <= box["x"] and box["x"] + box["width"] <= size[0] and box["y"] + box["height"] <= size[1], box
        name = f"{SHOTS}/quiz-grid-{size[0]}-{theme}.png"
        page.screenshot(path=name)
        # the sign flipped in one cell: that cell wrong, named "sign"
        one = x_bar.flatten().tolist()
        one[3] = -one[3]
        type_grid(page, one)
        assert cell_verdicts(page) == ["right", "right", "right", "wrong"]
        assert quiz.get_attribute("data-mistake") == "sign"
        type_grid(page, x_bar.flatten().tolist())
        assert quiz.get_attribute("data-verdict") == "right"
        wait_step(page, 10)   # on to W̄: a fresh grid
        assert quiz.get_attribute("data-asking") == "n1"
        assert page.locator("#quiz .quiz-question").inner_text() == "W\u0304 = ?"
        assert cell_verdicts(page) == [None] * 4
        assert cells.evaluate_all("(cs) => cs.map((c) => c.value)") == [""] * 4
        type_grid(page, w_bar.flatten().tolist())
        assert quiz.get_attribute("data-verdict") == "right"
        assert play_to_the_score(page, 12) == ("1", "2")   # the end: the score
        assert errors == []
    finally:
        context.close()


def test_whole_tensors_is_a_setting_the_link_keeps(chromium, app_url):
    """Off, the same quiz asks one element (X̄[i,j]); ticking "whole tensors" asks the grid
    at once and puts quiz_grid into the link."""
    from test_links import unpack
    context, page, errors = open_quiz(chromium, app_url, {"program": MATMUL, "quiz": "nodes:X", "step": 12})
    try:
        wait_step(page, 9)
        assert page.locator("#quiz .quiz-question").inner_text().startswith("X\u0304[")
        assert page.locator("#quiz input[name=answer]").count() == 1 and page.locator(CELLS).count() == 0
        page.locator("#quiz-grid").check()
        page.wait_for_selector('#quiz[data-grid="2x2"]')
        assert page.locator(CELLS).count() == 4
        page.wait_for_function("() => location.hash.length > 3")
        assert unpack(page.url)["quiz_grid"] is True
        page.locator("#quiz-grid").uncheck()
        page.wait_for_function("() => !document.querySelector('#quiz').dataset.grid")
        assert page.locator("#quiz input[name=answer]").count() == 1
        assert errors == []
    finally:
        context.close()
