"""The column beside the program on a projector (issue 14 §5, the reviewer's second pass):
its rows are whole or hidden whole, a number keeps its unit on its line, a table's cell of
one token is one line. At step 10 of "ledger MLP" (1024x768) the heading broke "now 2.30"
from "KB" and a sliver of Practice's row showed at the column's foot; the gradient check of
the linear layer (1280x800) broke "worst [1, 1]" and "✓ ok" over two lines and cut W's row."""
from __future__ import annotations

import pytest
from page_helpers import choose, wait_step
from test_projector_layout_page import themed
from test_review_5 import open_page  # noqa: F401  (the fixture: a fresh page at a size)

SIZES = [(1024, 768), (1280, 800)]
SHOTS = "/tmp/panel12"

# The elements matching `s` in the side column that its seen part's edges cut: seen in part,
# neither whole nor hidden whole. The seen part is the column's box less its masked foot and
# head (--cut, --cut-top: render/rows.js), within every ancestor that clips it and the window.
PARTLY_SEEN = """s => {
  const side = document.querySelector('#editor .side');
  const own = side.getBoundingClientRect().top + side.clientTop;
  let top = own, bottom = own + side.clientHeight;
  for (let e = side.parentElement; e && e !== document.documentElement; e = e.parentElement) {
    if (getComputedStyle(e).overflowY === 'visible') continue;
    const r = e.getBoundingClientRect();
    top = Math.max(top, r.top + e.clientTop);
    bottom = Math.min(bottom, r.top + e.clientTop + e.clientHeight);
  }
  const mask = getComputedStyle(side).maskImage !== 'none';
  const cut = (name) => mask ? parseFloat(side.style.getPropertyValue(name) || '0') : 0;
  bottom = Math.min(bottom, innerHeight, own + side.clientHeight - cut('--cut'));
  top = Math.max(top, own + cut('--cut-top'));
  // more than 1.5 px on either side: a row's empty px of padding above the edge is not a cut
  const across = (r, y) => r.top < y - 1.5 && r.bottom > y + 1.5;
  return [...side.querySelectorAll(s)].filter((e) => e.checkVisibility({ visibilityProperty: true }))
    .map((e) => [e, e.getBoundingClientRect()])
    .filter(([, r]) => r.height > 0 && (across(r, bottom) || across(r, top)))
    .map(([e, r]) => `${e.textContent.trim().slice(0, 30)} [${Math.round(r.top)}, ${Math.round(r.bottom)}] seen [${Math.round(top)}, ${Math.round(bottom)}]`);
}"""

# The foot of the seen part of the side column minus an element's bottom (px; < 0: cut or hidden).
ROOM_UNDER = """s => {
  const side = document.querySelector('#editor .side');
  const own = side.getBoundingClientRect().top + side.clientTop;
  let bottom = own + side.clientHeight;
  for (let e = side.parentElement; e && e !== document.documentElement; e = e.parentElement)
    if (getComputedStyle(e).overflowY !== 'visible') bottom = Math.min(bottom, e.getBoundingClientRect().top + e.clientTop + e.clientHeight);
  const masked = parseFloat(side.style.getPropertyValue('--cut') || '0');
  return Math.min(bottom, own + side.clientHeight - masked) - document.querySelector(s).getBoundingClientRect().bottom;
}"""

# The text of the elements matching `s` that runs over more than one line: [text, lines].
WRAPPED = """s => {
  const out = [], range = document.createRange();
  for (const e of document.querySelectorAll(s)) {
    const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      if (!t.data.trim()) continue;
      range.selectNodeContents(t);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) out.push([t.data.trim(), tops.size]);
    }
  }
  return out;
}"""

SIDE_ROWS = "#modes select, .ledger h2, .ledger svg, .ledger-totals span, .quiz-setup-row, #quiz-preset, #practice, .legend li"


def settled(page) -> None:
    """Two frames: the column's mask (render/rows.js) follows its content in one."""
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_ledger_mlp_at_step_10_keeps_its_heading_and_practice_whole(open_page, size):
    page = themed(open_page(*size))
    choose(page, "ledger-mlp")
    page.wait_for_selector(".ledger:not([hidden]) svg")
    page.locator("#player .scrubber").fill("10")
    wait_step(page, 10)
    settled(page)
    page.screenshot(path=f"{SHOTS}/ledger-mlp_{size[0]}_10.png")
    # was at 1024x768: "now 2.30" and "KB" on two lines, and the heading two lines tall
    assert page.evaluate(WRAPPED, ".ledger h2") == []
    now = page.locator(".ledger-now").inner_text()
    assert now.startswith("now ") and now.endswith("\u00a0KB"), now
    # no row in part: was Practice [272, 300] seen to 274 at 1024x768
    assert page.evaluate(PARTLY_SEEN, SIDE_ROWS) == []
    # and the README's word: Quiz and Practice are whole under the ledger (was -24 px at 1024).
    # At 1024x768 on a projector they scroll since this stop's merges (Practice 32 px under the
    # column's foot, hidden whole: PARTLY_SEEN above); a known shortfall, README says so.
    if size[0] > 1024:
        assert page.evaluate(ROOM_UNDER, "#practice") >= -0.5
        assert page.evaluate(ROOM_UNDER, "#quiz-preset") >= -0.5


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_gradient_check_sets_each_cell_on_one_line_and_cuts_no_row(open_page, size):
    page = themed(open_page(*size))
    choose(page, "linear-layer")
    page.click("#checks > summary")
    page.click("#run-gradcheck")
    page.wait_for_selector('.gradcheck[data-status="done"]')
    settled(page)
    page.screenshot(path=f"{SHOTS}/gradcheck_{size[0]}.png")
    # was at 1280x800: ["worst [1, 1]", 2], ["✓ ok", 2] for X and W
    assert page.evaluate(WRAPPED, "#gradcheck-table tr[data-leaf] > td:not(.phrase)") == []
    cells = page.locator('#gradcheck-table tr[data-leaf="W"]').first.locator("td").all_inner_texts()
    assert cells[0].splitlines()[0] == "W" and cells[0].splitlines()[1].startswith("worst [") and cells[-1] == "✓ ok", cells
    # every column in the column's width (nowrap must not push the verdict out at its right)
    assert page.evaluate("""() => {
        const side = document.querySelector('#editor .side').getBoundingClientRect();
        return [...document.querySelectorAll('#gradcheck-table tr[data-leaf] > td')]
            .filter((td) => td.getBoundingClientRect().right > side.right + 0.5).map((td) => td.textContent); }""") == []
    # was at 1280x800: W's row cut at the column's foot, its name seen, its ✓ cut
    assert page.evaluate(PARTLY_SEEN, "#gradcheck-table tr, #gradcheck-table summary, .gradcheck-text, #modes .mode-row, #checks > summary") == []
    # scrolled to its end, the column shows W's row whole
    page.locator("#editor .side").evaluate("e => { e.scrollTop = e.scrollHeight; }")
    settled(page)
    assert page.evaluate(PARTLY_SEEN, "#gradcheck-table tr") == []
    assert page.evaluate(ROOM_UNDER, '#gradcheck-table tr[data-leaf="W"]') >= -0.5


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_after_a_quiz_both_the_quiz_and_the_practice_rows_show(open_page, size):
    """A review of issue 16: tanh, the quiz "the fan-out sums only" from the menu, answered,
    End: at 1280x800 on a projector the Practice row was hidden whole under the Quiz row (the
    score's lines took the panel's room). There a lecturer sees both rows; at 1024x768 a row
    may be hidden whole (README), never cut."""
    page = themed(open_page(*size))
    page.locator("#quiz-preset").select_option("fanout")
    page.wait_for_selector('#quiz[data-quiz="ready"]')
    page.locator("#narration").click()
    page.keyboard.press("End")
    page.wait_for_selector("#quiz[data-asking]")
    box = page.locator("#quiz input[name=answer]")
    box.fill("1.5729")   # the overwrite mistake, as the review had it
    box.press("Enter")
    page.wait_for_selector("#quiz[data-verdict]")
    page.get_by_role("button", name="Show and continue").click()
    page.locator("#narration").click()
    page.keyboard.press("End")
    wait_step(page, 16)
    page.wait_for_selector('#quiz[data-feedback="score"]')
    settled(page)
    page.screenshot(path=f"{SHOTS}/quiz-score_{size[0]}.png")
    assert page.evaluate(PARTLY_SEEN, SIDE_ROWS) == []
    if size[0] > 1024:   # was -39 px: Practice's row wholly under the column's foot
        assert page.evaluate(ROOM_UNDER, "#practice") >= -0.5
        assert page.evaluate(ROOM_UNDER, "#quiz-preset") >= -0.5


@pytest.mark.parametrize("size", SIZES)
def test_beside_a_short_program_a_quiz_s_new_numbers_shows(open_page, size):
    """A second review of issue 16: seed-relu-mask (three lines) with a quiz on a projector:
    the column was as tall as the editor, "New numbers" under its foot and the mode menu cut
    to a line once scrolled to it, over a graph with 150 px to spare. The column grows with a
    quiz up to 30vh (app.css): the mode menu and New numbers whole, no row cut."""
    page = themed(open_page(*size))
    choose(page, "seed-relu-mask")
    page.locator("#quiz-preset").select_option("adjoints")
    page.wait_for_selector('#quiz[data-quiz="ready"]')
    settled(page)
    page.screenshot(path=f"{SHOTS}/quiz-short-program_{size[0]}.png")
    assert page.evaluate(PARTLY_SEEN, SIDE_ROWS) == []
    assert page.evaluate(ROOM_UNDER, "#quiz-new-numbers") >= -0.5
    assert page.evaluate("() => document.querySelector('#editor .side').scrollTop") == 0


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_in_train_mode_the_saved_tensors_chart_is_whole_beside_the_program(open_page, size):
    """Train mode on a projector: the program gives the graph its lines (train.css), and the
    column beside it is 123 / 136 px tall. Under the mode row came "Forward passes" and then
    the ledger: its chart was cut to a sliver at the column's foot (at 1024x768 10 px of it
    shown, its totals masked off). The ledger now comes right under the mode row, its chart
    3rem tall, and "Forward passes" and the legend scroll under it."""
    page = themed(open_page(*size))
    choose(page, "train-xor-seed1")
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]', timeout=90_000)
    settled(page)
    page.screenshot(path=f"{SHOTS}/train-ledger-{size[0]}.png")
    # was: the chart [151, 214] seen to 182 at 1024x768 ([151, 214] to 195 at 1280x800)
    assert page.evaluate(PARTLY_SEEN, SIDE_ROWS + ", .ledger .checks, #checks summary") == []
    for part in ("#modes select", ".ledger svg", ".ledger-totals"):
        assert page.evaluate(ROOM_UNDER, part) >= -0.5, part
    # the chart is drawn at a size that reads: at least 40 px tall, as wide as before
    chart = page.locator(".ledger svg").bounding_box()
    assert chart["height"] >= 40 and chart["width"] >= 120, chart
