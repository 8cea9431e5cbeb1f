"""The comparison's summary stays in sight (issue 14's regression, a review; issue 16 §2), in
Chromium at 1024x768 and 1280x800, projector and light themes. Edit and diff exists to show
"nudge a by 0.001 and L moves by about 0.001 · ā": the summary that says so sat below the
table and was cut at the side column's foot (1280x800 projector: the column ended at 311.6 px,
the summary spanned 279-328 px) or out of sight (1024x768 projector), and the table's 14.9 px
rows were too small to project. The side column's pieces that must stay in view carry the
class `in-sight` (app.css): each is checked whole inside the column's visible box at step 0
and at Done, and again with the column scrolled to its end (the table's last row), where it
sticks to the column's top."""
from __future__ import annotations

import pytest

from page_helpers import leave_editor, wait_step
from test_compare_player_page import compared, open_at
from test_projector_layout_page import total

SIZES = [(1024, 768), (1280, 800)]
THEMES = ["projector", "light"]

# The side column's in-sight pieces (and the summary) not whole inside its visible box (the column's own box:
# it scrolls within it) or covered at their middle by something drawn over them: [] when
# all are in view. Each as "text [top, bottom] not in [top, bottom]".
OUT_OF_SIGHT = """() => {
  const side = document.querySelector('#editor .side');
  const box = side.getBoundingClientRect();
  return [...side.querySelectorAll('.in-sight, #diff .diff-summary')].filter((e) => e.getClientRects().length).flatMap((e) => {
    const r = e.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + Math.min(r.width / 2, 40), (r.top + r.bottom) / 2);
    const inside = r.top >= box.top - 1 && r.bottom <= box.bottom + 1 && r.left >= box.left - 1 && r.right <= box.right + 1;
    return inside && e.contains(hit) ? [] : [`${e.textContent.slice(0, 40)} [${Math.round(r.top)}, ${Math.round(r.bottom)}]`
      + ` not in [${Math.round(box.top)}, ${Math.round(box.bottom)}]${inside ? ' (covered)' : ''}`];
  });
}"""
PX = "(sel) => parseFloat(getComputedStyle(document.querySelector(sel)).fontSize)"


def summary_in_sight(page, where: str) -> None:
    summary = page.locator("#diff .diff-summary")
    # the teaching point itself: L's move and its first-order prediction (PyTorch float64's
    # ā = 0.7864 at a = 1.0: test_diff_page checks these numbers)
    assert "L: 0.9242 → 0.925 (Δ +0.0007863); first order: Δa · a\u0304 = 0.001 · 0.7864 = 0.0007864." \
        in summary.inner_text(), where
    assert page.evaluate(OUT_OF_SIGHT) == [], where
    assert "in-sight" in summary.get_attribute("class").split()   # one of the kind


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES, ids=["1024x768", "1280x800"])
def test_the_first_order_summary_is_in_sight_and_large_enough(open_explorer, size, theme):
    ex, page = open_at(open_explorer, size, theme, 0)
    compared(page, "seed-tanh-fanout", ("a = 1.0", "a = 1.001"))
    leave_editor(page)
    side = page.locator("#editor .side")
    for at in (0, total(page)):
        page.locator("#player .scrubber").fill(str(at))
        wait_step(page, at)
        where = f"{theme} {size} step {at}"
        summary_in_sight(page, where)
        # L's row (the output's) first, whole under the summary
        row = page.locator("#diff tr[data-node]").first
        assert row.locator("th").inner_text() == "L"
        r, box = row.bounding_box(), side.bounding_box()
        assert r["y"] + r["height"] <= box["y"] + box["height"] + 1, where
        # the five columns fit the column's width: nothing to scroll sideways
        assert side.evaluate("e => e.scrollWidth <= e.clientWidth"), where
        # the later rows scroll under the summary, which stays
        side.evaluate("e => { e.scrollTop = e.scrollHeight; }")
        page.wait_for_timeout(100)   # the column's scroll is drawn
        last = page.locator("#diff tr[data-node]").last.bounding_box()
        assert last["y"] + last["height"] <= box["y"] + box["height"] + 1, where
        summary_in_sight(page, f"{where}, scrolled to the table's end")
        side.evaluate("e => { e.scrollTop = 0; }")
    table, summary = page.evaluate(PX, "#diff tr[data-node] td"), page.evaluate(PX, "#diff .diff-summary")
    if theme == "projector":   # read from the back of the room: was 14.9 px, the summary 17.5
        assert table >= 18 and summary >= table, (table, summary)
    else:
        assert table >= 14 and summary >= 14, (table, summary)
    page.screenshot(path=f"/tmp/gradwalk-shots/diff-in-sight-{size[0]}-{theme}.png")
    assert ex.unexpected_errors() == []
