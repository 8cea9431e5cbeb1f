"""The page on a projector and in slides (issue 14, section 5), in Chromium at 1024x768 and
1280x800 in the projector theme: the camera keeps both ends of every step in the visible
graph area and clear of the narration, a change of the graph area's size refits a fitted
view, Done shows the whole graph, the player keeps to one row, the embed fits its graph
with narration as large as the page's, and the ledger chart is whole. Geometry is read from
bounding boxes (px), never from screenshots."""
from __future__ import annotations

import pytest
from page_helpers import choose, leave_editor, paste, wait_step
from test_links import fragment
from test_review_5 import open_page  # noqa: F401  (the fixture: a fresh page at a size)

SIZES = [(1024, 768), (1280, 800)]
TANH = "a = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n"

# The screen boxes of `selector`'s elements that are not whole inside the visible graph
# area (the svg clipped by its frame) or that overlap the narration: [] when all are clear.
NOT_CLEAR = """s => {
  const box = (e) => e.getBoundingClientRect();
  const svg = box(document.querySelector('#graph'));
  const wrap = box(document.querySelector('.graph-wrap'));
  const said = box(document.querySelector('#narration'));
  const v = {x0: Math.max(svg.left, wrap.left), y0: Math.max(svg.top, wrap.top),
             x1: Math.min(svg.right, wrap.right), y1: Math.min(svg.bottom, wrap.bottom)};
  const name = (e) => e.closest('g.node')?.dataset.name ?? (e.closest('g.callout') ? 'callout' : e.tagName);
  return [...document.querySelectorAll(s)].map((e) => [name(e), box(e)])
    .filter(([, r]) => r.left < v.x0 - 1 || r.right > v.x1 + 1 || r.top < v.y0 - 1 || r.bottom > v.y1 + 1
      || (r.bottom > said.top + 1 && r.top < said.bottom - 1 && r.right > said.left && r.left < said.right))
    .map(([n, r]) => `${n} [${Math.round(r.left)}, ${Math.round(r.top)}, ${Math.round(r.right)}, ${Math.round(r.bottom)}]`
       + ` not in [${Math.round(v.x0)}, ${Math.round(v.y0)}, ${Math.round(v.x1)}, ${Math.round(v.y1)}]`);
}"""

# The drawing's screen box fills much of the visible graph area along one axis (a fitted
# view; the rest is margins and the room of the callouts).
FILLS = """(() => {
  const g = document.querySelector('#graph g.nodes').getBoundingClientRect();
  const v = document.querySelector('#graph').getBoundingClientRect();
  return g.width >= 0.6 * v.width || g.height >= 0.6 * v.height; })()"""


def camera(page) -> list[float]:
    """The drawing's screen box [left, top, width, height] (px): where the camera put it."""
    return page.evaluate("""() => { const g = document.querySelector('#graph g.nodes').getBoundingClientRect();
      return [g.left, g.top, g.width, g.height]; }""")

# A step's nodes: the one evaluated, the one sending a gradient and the one receiving it,
# and the callout of the contribution.
STEP_NODES = "g.node.current .box, g.node.source .box, g.node.target .box, g.callout rect"
# ... without the callout: a tensor's callout is as wide as two boxes, and when a step does
# not fit whole at the readable scale its two ends come first (boxes.js stepBox).
ENDS = "g.node.current .box, g.node.source .box, g.node.target .box"


def themed(page, theme: str = "projector"):
    """`page` in `theme`, picked in the "Aa" menu as a lecturer does; returns `page`."""
    page.click("#view-menu summary")
    page.select_option("#theme", theme)
    page.click("#view-menu summary")
    page.wait_for_function("t => document.documentElement.dataset.theme === t", arg=theme)
    return page


def still(page) -> None:
    page.wait_for_selector('#graph[data-camera="still"]', state="attached")


def go(page, step: int) -> None:
    page.locator("#player .scrubber").fill(str(step))
    wait_step(page, step)
    still(page)


def total(page) -> int:
    return int(page.locator("#player").get_attribute("data-total"))


# ---------------------------------------------------------------- the player: one row


def player_rows(page) -> dict:
    """The player's height, the scrubber's and the tallest control's (px), and the tops of
    its visible controls: one row of controls under the scrubber when they share a top."""
    return page.evaluate("""() => {
      const p = document.querySelector('#player');
      const parts = [...p.querySelectorAll(':scope > *:not(.scrubber)')].filter((e) => e.getClientRects().length);
      const r = (e) => e.getBoundingClientRect();
      return {height: r(p).height, scrubber: r(p.querySelector('.scrubber')).height,
              control: Math.max(...parts.map((e) => r(e).height)),
              tops: parts.map((e) => Math.round(r(e).top + r(e).height / 2)),
              right: Math.max(...parts.map((e) => r(e).right)), width: document.documentElement.clientWidth};
    }""")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("theme", ["projector", "light"])
def test_the_player_keeps_to_one_row(open_page, size, theme):
    page = themed(open_page(*size), theme)
    for step in (0, 3, 14, total(page)):  # ready, forward pass, backward pass, done
        go(page, step)
        rows = player_rows(page)
        # one row of controls: their middles in line, and the player as tall as the
        # scrubber, one control and the gap between them (was a third row: "Speed")
        assert max(rows["tops"]) - min(rows["tops"]) <= 4, (step, rows)
        assert rows["height"] <= rows["scrubber"] + rows["control"] + 12, (step, rows)
        assert rows["right"] <= rows["width"], (step, rows)


# ---------------------------------------------------------------- the camera


def steps_not_clear(page, steps) -> list[str]:
    """Go to each of `steps` and list the step's nodes (at Done: every node) that are not
    whole in the visible graph area or that touch the narration."""
    problems = []
    last = total(page)
    for step in steps:
        go(page, step)
        selector = "g.node .box" if step in (0, last) else STEP_NODES
        problems += [f"step {step}: {p}" for p in page.evaluate(NOT_CLEAR, selector)]
    return problems


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("preset", ["seed-tanh-fanout", "seed-sigmoid-net"])
def test_every_step_shows_both_its_ends_clear_of_the_narration(open_page, size, preset):
    page = themed(open_page(*size))
    choose(page, preset)
    still(page)
    # the tanh example at step 14 (e = a * b sends ā += b · ē): e was under the narration,
    # and c, t and L off screen; at Done the sigmoid net's L was cut at 1280
    assert steps_not_clear(page, range(total(page) + 1)) == []
    # stepping back from Done by the arrow keys (a glide interrupted at each key)
    leave_editor(page)
    page.keyboard.press("End")
    wait_step(page, total(page))
    for _ in range(3):
        page.keyboard.press("ArrowLeft")
    page.keyboard.press("End")
    wait_step(page, total(page))
    still(page)
    assert page.evaluate(NOT_CLEAR, "g.node .box") == []
    assert page.locator("#graph").get_attribute("data-whole") == "true"


@pytest.mark.parametrize("size", SIZES)
def test_the_view_refits_when_the_graph_area_changes_size(open_page, size):
    page = themed(open_page(*size))
    go(page, 14)
    page.click("#zoom-fit")
    still(page)
    assert page.locator("#graph").get_attribute("data-fitted") == "whole"
    assert page.evaluate(NOT_CLEAR, "g.node .box") == []
    for _ in range(2):  # hide the program, then show it again
        before = page.locator(".graph-wrap").bounding_box()["height"]
        page.click("#toggle-program")
        page.wait_for_function("h => Math.abs(document.querySelector('#graph').clientHeight - h) > 50", arg=before)
        # the refit fills the new area: the whole graph in view, and the view Fit gives
        page.wait_for_function(f"() => ({NOT_CLEAR})('g.node .box').length === 0 && {FILLS}")
        assert page.locator("#graph").get_attribute("data-fitted") == "whole"
        refitted = camera(page)
        page.click("#zoom-fit")
        still(page)
        assert camera(page) == pytest.approx(refitted, abs=1.0)
    # the automatic view: a new theme (larger narration, another text floor) refits it too
    go(page, 0)
    go(page, 14)
    page.click("#view-menu summary")
    page.select_option("#theme", "light")
    page.click("#view-menu summary")
    still(page)
    assert page.evaluate(NOT_CLEAR, STEP_NODES) == []
    page.click("#view-menu summary")
    page.select_option("#theme", "projector")
    page.click("#view-menu summary")
    still(page)
    assert page.evaluate(NOT_CLEAR, STEP_NODES) == []


def test_a_graph_too_big_for_an_overview_says_so_at_done(open_page):
    # 40 multiplications in a row: at Done the whole row needs a scale under OVERVIEW_SCALE
    page = themed(open_page(1024, 768))
    page.locator("#program").focus()
    page.eval_on_selector("#editor .editor", "(e, t) => e.gradwalkEditor.paste(t)",
                          "x = 1.0\n" + "x = x * 1.0001\n" * 39)
    page.keyboard.press("Control+Enter")
    page.wait_for_selector('#app[data-status="ready"]')
    leave_editor(page)
    page.keyboard.press("End")
    wait_step(page, total(page))
    still(page)
    assert page.locator("#graph").get_attribute("data-whole") == "false"
    assert page.locator(".camera-note").is_visible()
    assert page.evaluate(NOT_CLEAR, "g.node.output .box") == []
    page.click("#zoom-fit")
    still(page)
    assert page.locator("#graph").get_attribute("data-whole") == "true"
    assert not page.locator(".camera-note").is_visible()


# ---------------------------------------------------------------- the embed and the standalone file


def narration_px(page) -> float:
    return page.evaluate("parseFloat(getComputedStyle(document.querySelector('#narration')).fontSize)")


def embed_steps_not_clear(page, steps) -> list[str]:
    """Step the embed (a slide: every node, the whole graph) and list what is not clear."""
    problems = []
    for step in steps:
        page.locator("#embed .scrubber").fill(str(step))
        page.wait_for_selector(f'#embed[data-step="{step}"]')
        still(page)
        problems += [f"step {step}: {p}" for p in page.evaluate(NOT_CLEAR, "g.node .box, g.callout rect")]
    return problems


@pytest.mark.parametrize("theme", ["projector", "light"])
def test_the_default_embed_fits_its_graph_with_narration_as_large_as_the_pages(open_page, theme):
    page = themed(open_page(1280, 800), "projector")
    page_narration = narration_px(page)
    link = "#" + fragment({"v": 1, "program": TANH})
    embed = open_page(1000, 600, f"/embed?step=14&theme={theme}{link}", ready="#embed")
    still(embed)
    # the output L was cut at the right in the projector theme (scale 0.89 for 23.6 px numbers)
    assert embed_steps_not_clear(embed, [14, 0, 3, 12, 16]) == []
    if theme == "projector":  # was 16 px against the page's 23.6 px
        assert narration_px(embed) >= 0.95 * page_narration, (narration_px(embed), page_narration)
    nums = embed.locator("g.node .value-block .nums text").evaluate_all(
        "els => els.map((t) => t.getBoundingClientRect().height)")
    assert min(nums) >= 13, nums  # the whole graph still reads: 14 px numbers at least


def test_the_standalone_file_fits_its_graph_with_the_pages_narration(chromium, tmp_path):
    from gradwalk.server.export_html import standalone_html
    from gradwalk.server.settings import Settings

    path = tmp_path / "walk.html"
    path.write_text(standalone_html(TANH, None, Settings(), {"step": 14, "theme": "projector"}), encoding="utf-8")
    context = chromium.new_context(viewport={"width": 1000, "height": 600})
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        page.wait_for_selector('#embed[data-status="ready"][data-step="14"]')
        still(page)
        assert narration_px(page) >= 22, narration_px(page)  # 1.35rem x 1.25, as the page's
        assert page.evaluate(NOT_CLEAR, "g.node .box, g.callout rect") == []
    finally:
        context.close()


# ---------------------------------------------------------------- the ledger chart


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("theme", ["projector", "light"])
def test_the_ledger_chart_is_whole_in_the_side_column(open_page, size, theme):
    page = themed(open_page(*size), theme)
    choose(page, "ledger-mlp")
    go(page, 5)
    boxes = page.evaluate("""() => {
      const side = document.querySelector('#editor .side');
      const r = (e) => { const b = e.getBoundingClientRect(); return {top: b.top, bottom: b.bottom, left: b.left, right: b.right}; };
      return {side: r(side), scrolled: side.scrollTop, chart: r(document.querySelector('#ledger svg')),
              cursor: r(document.querySelector('#ledger .ledger-cursor'))};
    }""")
    side, chart = boxes["side"], boxes["chart"]
    # the column is about 200 px tall: the chart was cut in half at its bottom edge
    assert boxes["scrolled"] == 0
    assert chart["bottom"] - chart["top"] >= 40, boxes
    assert side["top"] - 1 <= chart["top"] and chart["bottom"] <= side["bottom"] + 1, boxes
    assert side["left"] - 1 <= chart["left"] and chart["right"] <= side["right"] + 1, boxes
    assert chart["top"] <= boxes["cursor"]["top"] + 1 and boxes["cursor"]["bottom"] <= chart["bottom"] + 1, boxes


# ---------------------------------------------------------------- tensor graphs

# The on-screen heights (px) of the numbers drawn in the visible graph area.
NUMBER_PX = """() => {
  const v = document.querySelector('#graph').getBoundingClientRect();
  return [...document.querySelectorAll('g.node .nums text')].filter((t) => t.getClientRects().length)
    .map((t) => t.getBoundingClientRect())
    .filter((r) => r.right > v.left && r.left < v.right && r.bottom > v.top && r.top < v.bottom)
    .map((r) => r.height);
}"""


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("preset", ["mlp-classifier", "ledger-mlp"])
def test_a_tensor_graph_draws_no_number_too_small_to_project(open_page, size, preset):
    page = themed(open_page(*size))
    choose(page, preset)
    last = total(page)
    for step in range(last + 1):
        go(page, step)
        heights = page.evaluate(NUMBER_PX)
        overview = step in (0, last)
        # a step reads at 14 px at least (the readable floor; 13 allows for the font's box);
        # an overview draws no number under 10 px (they were 5-7 px at Done at 1280x800;
        # 9.5: the text box of a 10 px font is taller than 10 px)
        assert not heights or min(heights) >= (9.5 if overview else 13), (step, min(heights))
        if not overview:
            assert page.evaluate(NOT_CLEAR, ENDS) == [], step
    # at Done: the whole graph, or the camera says it is not
    whole = page.locator("#graph").get_attribute("data-whole") == "true"
    assert whole or page.locator(".camera-note").is_visible()
    assert page.evaluate(NOT_CLEAR, "g.node.output .box") == []


# ---------------------------------------------------------------- an error on the projector


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("program", ["L = frobnicate(2.0)\n", "L = tnh(2.0)\n"])
def test_an_unknown_function_keeps_the_player_on_screen(open_page, size, program):
    # The hint lists every function: grown to its ten lines it put the player's bottom at
    # 790 px of 768 in the projector theme (a newcomer's review). The hint now scrolls in
    # its own box, and a near name comes first.
    page = themed(open_page(*size), "projector")
    paste(page, program)
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-status="error"]')
    hint = page.locator(".program-error .error-hint")
    if "tnh" in program:
        assert hint.inner_text().startswith("Hint: did you mean `tanh`?")
    assert "the functions are abs, arange" in hint.inner_text()
    bottom = page.evaluate("document.querySelector('#player').getBoundingClientRect().bottom")
    assert bottom <= size[1], bottom
    assert page.evaluate("document.documentElement.scrollHeight") <= size[1], "the page scrolls"
