"""The top bar keeps to one row at larger text (a review of issue 14 §5: at A+ 115% "Aa" took a
second row alone at 1024x768 and 1280x800). With an example edited ("Reset example" shown, the
most crowded bar) in the projector and the light theme, at A+ 115% and 130%, every item of
the bar starts on its first row, and each can still be reached (render/topbar.js gives way in
steps: the Ctrl+Enter hint, shorter labels, the title, tighter buttons)."""
from __future__ import annotations

import pathlib

import pytest
from test_projector_layout_page import themed
from test_review_5 import open_page  # noqa: F401  (the fixture: a fresh page at a size)

SHOTS = pathlib.Path("/tmp/gradwalk-topbar-shots")

# The ids (or classes) of the bar's shown items that start below the bottom of another one.
SECOND_ROW = """() => {
  const bar = document.querySelector('.topbar');
  const items = [...bar.children].filter((e) => !e.hidden && !e.matches('.link-message') && e.getClientRects().length)
    .map((e) => [e.id || e.className, e.getBoundingClientRect()]);
  const bottom = Math.min(...items.map(([, r]) => r.bottom));
  return items.filter(([, r]) => r.top >= bottom - 1).map(([name]) => name);
}"""


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("theme", ["projector", "light"])
def test_the_top_bar_keeps_to_one_row_at_larger_text(open_page, size, theme):
    SHOTS.mkdir(exist_ok=True)
    page = themed(open_page(*size), theme)
    page.locator("#editor .cm-content").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\nq = 1.0")   # an edit: "Reset example" joins the bar
    page.wait_for_selector("#reset-example:not([hidden])")
    for percent in ("115%", "130%"):
        page.click("#view-menu summary")
        page.click("#font-larger")
        assert page.evaluate("document.querySelector('#font-scale').value") == percent
        page.click("#view-menu summary")
        page.wait_for_timeout(200)   # the bar is measured again on the next resize
        page.screenshot(path=SHOTS / f"topbar-{theme}-{size[0]}-{percent[:-1]}.png", clip={"x": 0, "y": 0, "width": size[0], "height": 120})
        assert page.evaluate(SECOND_ROW) == [], (percent, page.evaluate(SECOND_ROW))
        # the buttons keep their names for a screen reader, shortened or not
        for name in ("Reset example", "Hide program", "Trace"):
            assert page.get_by_role("button", name=name).is_visible(), name
