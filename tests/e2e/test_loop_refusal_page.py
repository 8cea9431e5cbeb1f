"""A newcomer's `for i in range(10**9):` on the page: the error box beside the program says
where (line 2, column 16: the bound) and what to write instead (the int 10**9 comes to, and
that a loop of that many iterations is past max_statements anyway), not only "range's
bounds are int literals". The billion written out is refused at the loop with the sum a reader
can check. Screenshots at 1280x800 and 1024x768, light and projector, in /tmp/shots20/c20."""
from __future__ import annotations

import pathlib

import pytest

from page_helpers import choose_theme, trace

SHOTS = pathlib.Path("/tmp/shots20/c20")
FOLDED = "x = 1.0\nfor i in range(10**9):\n    x = x * 2.0\n"
WRITTEN = "x = 1.0\nfor i in range(1000000000):\n    x = x * 2.0\n"


@pytest.mark.parametrize("size, theme", [((1280, 800), "light"), ((1024, 768), "light"),
                                         ((1280, 800), "projector")])
def test_a_loop_bound_written_as_10_to_the_9_says_what_to_write(open_explorer, size, theme):
    SHOTS.mkdir(parents=True, exist_ok=True)
    ex = open_explorer(*size)
    page = ex.page
    if theme != "light":
        choose_theme(page, theme)
    trace(page, FOLDED, status="error")
    box = page.locator(".program-error")
    assert box.is_visible()
    text = " ".join(box.inner_text().split())
    assert "Line 2, column 16: BAD ARGUMENT: " in text, text
    assert "write 1000000000 in place of `10**9`, though the loop would then run " \
        "1,000,000,000 iterations, past the limit (max_statements) of 120,000 statements" in text
    page.screenshot(path=SHOTS / f"range-folded-{size[0]}x{size[1]}-{theme}.png")
    trace(page, WRITTEN, status="error")
    text = " ".join(box.inner_text().split())
    assert "Line 2, column 1: TOO LARGE: " in text, text
    assert "by its end the program would have run 1,000,000,002 statements (1 before the loop " \
        "+ 1 for the `for` line + 1,000,000,000 × 1 in the loop)" in text
    page.screenshot(path=SHOTS / f"range-written-{size[0]}x{size[1]}-{theme}.png")
    assert ex.unexpected_errors() == []
