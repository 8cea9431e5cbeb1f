"""A newcomer's review of the page (session 10), in Chromium, in the projector theme at
1280x800 and 1024x768 (as picked in the "Aa" menu), a phone at 390x844. Each defect as a
kind: a long error's hint that read as cut (it scrolled, with no sign of it: a projector, a
phone and a screenshot show no scrollbar); a dead unit's mark dropped at the overview; the
loss curve's numbers at 9 px on a 1024 projector; a line cut in half at the foot of the column
beside the program (the legend at 1280x800, the ledger's totals at 1024x768 in Train mode); a
detail table's cells in mixed precisions; a phone's backward rule off the sheet's right edge;
the embed's player smaller than the page's."""
from __future__ import annotations

import re

import pytest
from page_helpers import choose, new_page, trace
from test_embed import TANH
from test_links import fragment
from test_projector_layout_page import themed
from test_review_5 import open_page  # noqa: F401  (the fixture: a fresh page at a size)

SIZES = [(1280, 800), (1024, 768)]


def rect(page, selector: str) -> dict:
    return page.eval_on_selector(selector, "e => e.getBoundingClientRect().toJSON()")


# ---------------------------------------------------------------- 1. a long error reads whole

@pytest.mark.parametrize("size", SIZES)
def test_a_long_hint_says_it_scrolls_and_scrolls_to_its_last_name(open_page, size):
    page = themed(open_page(*size))
    trace(page, "a = 1.0\nL = sin(a) * 2", status="error")
    hint = page.locator(".program-error .error-hint")
    assert hint.inner_text().startswith("Hint: the functions are abs, ")
    # it is longer than its box (about three lines): it says so under it, and takes the keys
    assert page.eval_on_selector(".error-hint", "e => e.scrollHeight > e.clientHeight + 1")
    assert hint.get_attribute("class") == "error-hint scrolls"
    assert hint.get_attribute("tabindex") == "0"
    note = page.locator(".program-error .scroll-note")
    assert note.inner_text() == "↕ scroll the hint to read all of it"
    box, error = rect(page, ".program-error .scroll-note"), rect(page, ".program-error")
    assert box["height"] >= 12 and box["bottom"] <= error["bottom"]
    # the player stays on the screen
    assert rect(page, "#player")["bottom"] <= size[1]
    # scrolled with the wheel, its last name shows inside its box
    hint.hover()
    page.mouse.wheel(0, 600)
    page.wait_for_function("() => { const e = document.querySelector('.error-hint');"
                           " return e.scrollTop + e.clientHeight >= e.scrollHeight - 1; }")
    last = page.evaluate("""() => { const e = document.querySelector('.error-hint');
      const r = document.createRange(); const t = e.firstChild; const at = t.data.lastIndexOf('zeros');
      r.setStart(t, at); r.setEnd(t, at + 5); return r.getBoundingClientRect().toJSON(); }""")
    shown = rect(page, ".program-error .error-hint")
    assert shown["top"] - 1 <= last["top"] and last["bottom"] <= shown["bottom"] + 1
    assert "at-end" in hint.get_attribute("class")


# ---------------------------------------------------------------- 2. a dead unit at the overview

def test_seed_5s_dead_unit_is_marked_at_fit_at_a_readable_size(open_page):
    page = themed(open_page(1280, 800))
    choose(page, "train-xor-seed5")
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]', timeout=90_000)
    page.click("#zoom-fit")
    page.wait_for_selector('#graph[data-camera="still"][data-names="shown"][data-numbers="hidden"]')
    page.wait_for_timeout(200)
    h = page.locator('g.node.dead[data-name="h"]')
    assert h.get_attribute("data-dead") == "h: unit 3 dead (since iteration 0)"
    tag = h.locator("text.dead-tag")
    k = float(page.locator("#graph").get_attribute("data-scale"))
    shown = tag.evaluate("""t => ({ display: getComputedStyle(t).display,
      size: parseFloat(getComputedStyle(t).fontSize),
      head: [...t.children].filter((s) => getComputedStyle(s).display !== 'none').map((s) => s.textContent).join(''),
      width: t.getBoundingClientRect().width })""")
    assert shown["display"] != "none" and shown["width"] > 0
    assert shown["size"] * k >= 14 - 0.01, shown  # the overview names' size on screen
    assert shown["head"] == "h: unit 3 dead"
    # its box is outlined in the error colour, not faded with the step's pending nodes
    assert h.evaluate("g => getComputedStyle(g).opacity") == "1"


# ---------------------------------------------------------------- 3. the Train band at 1024x768

# The lines of text of the column beside the program whose foot cuts them and that show
# (not masked off by its --cut): [text, px shown].
CUT_LINES = """() => {
  const box = document.querySelector('#editor .side');
  const bottom = box.getBoundingClientRect().top + box.clientTop + box.clientHeight;
  const masked = getComputedStyle(box).maskImage !== 'none' ? parseFloat(box.style.getPropertyValue('--cut') || '0') : 0;
  const edge = bottom - masked, out = [], range = document.createRange();
  const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    if (!t.data.trim() || !t.parentElement.checkVisibility({ visibilityProperty: true })) continue;
    range.selectNodeContents(t);
    for (const r of range.getClientRects())
      if (r.height && r.top < edge - 3 && r.bottom > bottom + 0.5) out.push([t.data.trim(), edge - r.top]);
  }
  return out;
}"""


def test_the_train_band_on_a_1024_projector(open_page):
    page = themed(open_page(1024, 768))
    choose(page, "train-xor-seed1")
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]', timeout=90_000)
    page.wait_for_timeout(300)  # the curve is drawn again at its size on screen
    ticks = page.eval_on_selector_all("#loss-curve .axis .tick text", "ts => ts.filter((t) => t.textContent)"
                                      ".map((t) => [t.textContent, t.getBoundingClientRect().height])")
    assert len(ticks) >= 4
    # a 15 px font's box is 17-18 px high; scaled into the column it was 11
    assert all(height >= 16.5 for _, height in ticks), ticks
    assert page.evaluate(CUT_LINES) == []


def test_no_line_cut_in_half_at_the_foot_of_the_column_beside_the_program(open_page):
    page = themed(open_page(1280, 800))
    choose(page, "mlp-classifier")
    page.wait_for_timeout(300)
    assert page.eval_on_selector("#editor .side", "e => e.scrollHeight > e.clientHeight")  # it scrolls
    assert page.evaluate(CUT_LINES) == []


# ---------------------------------------------------------------- 4. one precision a table

def test_w1s_gradient_table_prints_every_cell_with_4_significant_digits(open_page):
    page = themed(open_page(1280, 800))
    choose(page, "mlp-classifier")
    page.locator("#narration").click()
    page.keyboard.press("End")
    page.locator('g.node[data-name="W1"]').first.click()
    page.wait_for_selector("#detail table.grad td")
    cells = page.eval_on_selector_all("#detail table.grad td", "ts => ts.map((t) => [t.textContent, +t.dataset.v])")
    assert len(cells) == 32
    for text, value in cells:
        if value == 0:
            assert text == "0"
            continue
        assert len(re.sub(r"^0+", "", text.lstrip("-").replace(".", ""))) == 4, text
        assert float(text) == pytest.approx(value, rel=5e-4), text


# ---------------------------------------------------------------- 5. a phone's backward rule

def test_a_phones_detail_sheet_wraps_cross_entropys_rule(chromium, app_url):
    contexts = []
    try:
        page = new_page(chromium, contexts, (390, 844), touch=True)
        page.goto(f"{app_url}/#preset=mlp-classifier&step=25")
        page.wait_for_selector('#app[data-status="ready"]')
        page.wait_for_selector('#graph[data-camera="still"]')
        box = page.locator('g.node[data-name="L"]').bounding_box()
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_selector("#detail .detail-rules .rule")
        rule = page.locator("#detail .detail-rules .rule").first
        assert "onehot" in rule.locator(".typeset").get_attribute("data-text")
        assert rule.evaluate("r => r.scrollWidth <= r.clientWidth + 1"), rule.evaluate("r => [r.scrollWidth, r.clientWidth]")
        assert rect(page, "#detail .detail-rules .rule")["right"] <= 390
        assert page.errors == []
    finally:
        for context in contexts:
            context.close()


# ---------------------------------------------------------------- 6. the embed's player

def test_the_embeds_player_is_the_pages_size_in_the_projector_theme(open_page):
    page = themed(open_page(1024, 768))
    theirs = page.eval_on_selector("#player .btn.forward", "b => parseFloat(getComputedStyle(b).fontSize)")
    embed = open_page(1000, 600, f"/embed?step=5&theme=projector#{fragment({'v': 1, 'program': TANH})}", ready="#embed")
    ours = embed.eval_on_selector(".embed-bar .btn.forward", "b => parseFloat(getComputedStyle(b).fontSize)")
    assert ours >= theirs - 0.5 and ours >= 18, (ours, theirs)
