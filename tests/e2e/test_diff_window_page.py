"""Compare runs on a long walk in Chromium (issue 16 §2, a review: 5 steps of a 1,200-node walk
cost 750 ms with Compare on, every row of the table restyled at each step). Past 200 rows the
table draws only those near the view between two spacers; scrolled to its end, the last rows
are drawn; a step changes the rows of the nodes it reached. Timing is bench/compare.py's."""
from __future__ import annotations

from page_helpers import chain, reopened, wait_step
from test_links import fragment
from test_projector_layout_page import go

PROGRAM = chain(150)   # 299 nodes: x (n0), then a constant and a product a line; the output n298
BASE = PROGRAM.replace("x = 1.0\n", "x = 1.001\n", 1)
ROWS = "#diff tbody tr[data-node]"


def test_a_long_table_draws_the_rows_in_view_and_the_rest_on_scroll(chromium, app_url):
    with reopened(chromium, f"{app_url}/#{fragment({'v': 1, 'program': PROGRAM, 'diff_base': BASE})}") as page:
        page.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
        drawn = page.locator(ROWS).count()
        assert 0 < drawn < 299, drawn
        assert page.locator("#diff table").get_attribute("aria-rowcount") == "300"
        first = page.locator(ROWS).first
        assert "output" in first.get_attribute("class") and first.get_attribute("aria-rowindex") == "2"
        assert page.locator('#diff tr[data-node="n1"]').count() == 1   # x's row, near the top
        # the table is as tall as all its rows: the spacer below holds the rest
        heights = page.evaluate("""() => [...document.querySelectorAll('#diff tbody tr')].map((r) => r.getBoundingClientRect().height)""")
        row = heights[1]
        assert abs(sum(heights) - 299 * row) < 299 * row * 0.05
        # scrolled to the end (the column beside the program, or the page), the last rows are drawn
        page.evaluate("""() => { const t = document.querySelector('#diff tbody');
            t.lastElementChild.scrollIntoView({block: 'end'}); }""")
        page.wait_for_selector('#diff tr[data-node="n297"]', state="attached")   # the last row
        assert page.locator('#diff tr[data-node="n1"]').count() == 0   # the top's rows left out now
        # a step mid-walk compares that step's numbers in the rows drawn
        go(page, 100)
        page.wait_for_selector('#diff[data-step="100"]')
        wait_step(page, 100)
        assert page.locator('#diff tr[data-node="n297"] td').nth(0).inner_text() == "– → –"   # not evaluated yet
        assert page.locator(ROWS).count() < 299
