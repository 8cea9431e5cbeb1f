"""The legend beside the matmul quiz's answer grid ("whole tensors", state.js quiz_grid) on a
1024x768 projector: before, the side column beside the program showed the quiz's setup and the
ledger, and the legend was below them, out of sight (the column scrolled, a shade its only cue).
Now the legend comes first there as a one-line key of its swatches (their words in each
swatch's title and the list's label), whole in the column."""
from __future__ import annotations

import pytest

from page_helpers import wait_step
from test_projector_layout_page import themed
from test_quiz_page import open_quiz
from test_quiz_tensors_page import MATMUL, SHOTS

# The legend's rows and whether each is whole in the side column's visible box (px).
SEEN = """() => {
  const side = document.querySelector('.editor-panel .side').getBoundingClientRect();
  return [...document.querySelectorAll('.legend li')].map((li) => {
    const r = li.getBoundingClientRect();
    return [li.textContent.trim() || li.title, r.width > 0 && r.top >= side.top - 1 && r.bottom <= side.bottom + 1
            && r.left >= side.left - 1 && r.right <= side.right + 1];
  });
}"""


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)])
def test_the_legend_is_in_sight_beside_the_answer_grid(chromium, app_url, size):
    state = {"preset": "seed-matmul-2x2", "program": MATMUL, "quiz": "nodes:X,W", "quiz_grid": True, "step": 12}
    context, page, errors = open_quiz(chromium, app_url, state, size=size)
    try:
        wait_step(page, 9)
        themed(page)
        page.locator("#quiz .quiz-grid input[name=answer]").first.focus()
        page.wait_for_timeout(200)
        page.screenshot(path=f"{SHOTS}/quiz-grid-legend-{size[0]}.png")
        seen = page.evaluate(SEEN)
        assert len(seen) == 6, seen
        assert [s for s in seen if not s[1]] == [], seen
        assert errors == []
    finally:
        context.close()
