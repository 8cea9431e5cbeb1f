"""The second review of issue 8 (big graphs), in a real browser against the real server: a
link of a search-expanded view reopens on something drawn, the search box and the detail
panel do not cover each other or the hit, Escape anywhere closes the search, a shared
weight's label counts its uses, and the player stays on one line in the Projector theme."""
from __future__ import annotations

import re

import pytest
from page_helpers import leave_editor, paste, reopened
from test_big_graphs import fan_in, shared_weights

# The boxes (and nodes) whose box overlaps the graph's svg; what is seen.
IN_VIEW = """() => {
  const r = document.querySelector('#graph').getBoundingClientRect();
  return [...document.querySelectorAll('g.node, g.group')].filter((e) => {
    const b = e.getBoundingClientRect();
    return b.width > 0 && b.right > r.left && b.left < r.right && b.bottom > r.top && b.top < r.bottom;
  }).map((e) => e.dataset.node ?? e.dataset.group);
}"""


def trace_ready(page, program: str) -> None:
    paste(page, program)
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-status="ready"][data-graph="drawn"]', timeout=90_000)
    page.wait_for_selector('#graph[data-camera="still"]')


def rect(page, selector: str) -> dict[str, float] | None:
    return page.evaluate("""(sel) => { const e = document.querySelector(sel);
      if (!e || !e.getClientRects().length) return null;
      const b = e.getBoundingClientRect(); return {x0: b.left, y0: b.top, x1: b.right, y1: b.bottom}; }""", selector)


def overlap(a, b) -> bool:
    return bool(a and b) and a["x0"] < b["x1"] and b["x0"] < a["x1"] and a["y0"] < b["y1"] and b["y0"] < a["y1"]


def search_for(page, text: str) -> str:
    """Open the search with `/`, type `text`, Enter: the id of the node it went to."""
    leave_editor(page)
    page.keyboard.press("/")
    box = page.locator("#graph-search-input")
    box.fill(text)
    box.press("Enter")
    page.wait_for_selector("#graph[data-search-hit]")
    page.wait_for_selector('#graph[data-camera="still"]')
    return page.locator("#graph").get_attribute("data-search-hit")


@pytest.fixture
def fan_in_expanded(open_explorer):
    """fan_in(200) (600 nodes: collapsed into box L) at 1280x800, box L opened."""
    ex = open_explorer(1280, 800)
    ex.page.set_default_timeout(90_000)
    trace_ready(ex.page, fan_in(200))
    ex.page.locator('g.group[data-group-name="L"]').click()
    ex.page.wait_for_selector('#app[data-graph="drawn"] g.frame[data-group-name="L"]')
    ex.page.wait_for_selector('#graph[data-camera="still"]')
    return ex


def test_a_link_of_a_search_expanded_view_reopens_on_the_drawing(fan_in_expanded, chromium):
    page = fan_in_expanded.page
    hit = search_for(page, "x * 150")
    page.locator("#graph-search-input").press("Escape")
    page.wait_for_function("() => location.href.includes('open_groups') || location.hash.length > 1")
    with reopened(chromium, page.url) as fresh:
        # The same groups are open: the hit is drawn as a node.
        assert fresh.locator(f'g.node[data-node="{hit}"]').count() == 1
        seen = fresh.evaluate(IN_VIEW)
        assert len(seen) >= 3, seen  # not an empty stretch of the drawing


def test_a_link_with_only_the_statement_open_shows_its_output(fan_in_expanded, chromium):
    with reopened(chromium, fan_in_expanded.page.url) as fresh:
        assert len(fresh.evaluate(IN_VIEW)) >= 3


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)])
def test_the_search_box_covers_neither_the_detail_panel_nor_the_hit(open_explorer, size):
    ex = open_explorer(*size)
    page = ex.page
    page.set_default_timeout(60_000)
    trace_ready(page, shared_weights(300))
    hit = search_for(page, "x15")  # x15, x150, ..., x159: Enter goes through them
    page.wait_for_selector("#detail:not([hidden])")
    panel = rect(page, "#detail")
    assert panel, "the hit is selected: its detail panel is open"
    searchbox = rect(page, ".graph-search")
    assert not overlap(searchbox, panel), (searchbox, panel)
    node_box = rect(page, f'g.node[data-node="{hit}"] rect.box')
    assert not overlap(node_box, panel), (node_box, panel)
    assert not overlap(node_box, searchbox), (node_box, searchbox)
    # Enter again: the next match, still clear of both.
    page.locator("#graph-search-input").press("Enter")
    page.wait_for_function("(h) => document.querySelector('#graph').dataset.searchHit !== h", arg=hit)
    page.wait_for_selector('#graph[data-camera="still"]')
    hit = page.locator("#graph").get_attribute("data-search-hit")
    node_box = rect(page, f'g.node[data-node="{hit}"] rect.box')
    panel, searchbox = rect(page, "#detail"), rect(page, ".graph-search")
    assert not overlap(searchbox, panel) and not overlap(node_box, panel) and not overlap(node_box, searchbox), \
        (node_box, panel, searchbox)
    assert ex.unexpected_errors() == []


def test_escape_outside_the_search_box_closes_it(open_explorer):
    ex = open_explorer(1280, 800)
    page = ex.page
    leave_editor(page)
    page.keyboard.press("/")
    assert page.locator(".graph-search").is_visible()
    page.locator("#player .btn.forward").focus()  # focus elsewhere: the player's button
    page.keyboard.press("Escape")
    assert not page.locator(".graph-search").is_visible()
    page.keyboard.press("End")
    page.wait_for_selector('#player .phase[data-phase="done"]')
    assert not page.locator(".graph-search").is_visible()
    assert ex.unexpected_errors() == []


def test_a_shared_weights_uses_count_its_consumers_when_collapsed(open_explorer):
    ex = open_explorer(1280, 800)
    page = ex.page
    page.set_default_timeout(90_000)
    program = shared_weights(900)  # over 400 nodes: opens collapsed
    trace_ready(page, program)
    assert page.locator("#graph").get_attribute("data-groups") == "collapsed"
    body = page.evaluate("""async (program) => (await (await fetch('/api/trace', {method: 'POST',
      headers: {'content-type': 'application/json'}, body: JSON.stringify({program})})).json())""", program)
    nodes = {n["id"]: n for n in body["graph"]["nodes"]}
    w = next(n["id"] for n in nodes.values() if n["label"] == "w")
    uses = sum(1 for e in body["graph"]["edges"] if e["source"] == w)
    assert uses > 250
    label = page.locator(f'g.node[data-node="{w}"] text.uses').text_content()
    assert label == f"used {uses:,}× (chips)", label


def test_the_player_stays_on_one_line_at_the_end_in_the_projector_theme(open_explorer):
    ex = open_explorer(1024, 768)
    page = ex.page
    page.set_default_timeout(90_000)
    page.locator("#view-menu summary").click()
    page.locator("#theme").select_option("projector")
    page.locator("#view-menu summary").click()
    trace_ready(page, fan_in(1700))  # 5,100 nodes: 10,002 steps
    leave_editor(page)
    height0 = page.locator(".player").bounding_box()["height"]
    page.keyboard.press("End")
    page.wait_for_selector('#player .phase[data-phase="done"]')
    text = page.locator("#player .counter").inner_text()
    assert re.search(r"step \d{5} / \d{5}", text), text
    tops = page.evaluate("""() => [...document.querySelector('.player').children]
      .filter((e) => e.getClientRects().length && !e.matches('.scrubber')).map((e) => Math.round(e.getBoundingClientRect().top))""")
    bar = page.locator(".player").bounding_box()
    assert bar["height"] <= height0 + 1, (height0, bar)
    assert max(tops) - min(tops) < 20, tops  # one line


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)])
@pytest.mark.parametrize("program", [
    "x = 1.0\nL = x +* 2\n",
    "x = 1.0\n" + "y = x * 2.0\n" * 3 + "L = undefined_function_name(y) * 2.0\n",
    "x = 1.0\nL = " + "x * " * 40 + "\n",
])
def test_an_error_beside_the_program_cuts_nothing_in_the_side_column(open_explorer, size, program):
    ex = open_explorer(*size)
    page = ex.page
    paste(page, program)
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-status="error"]')
    page.wait_for_selector(".program-error:not([hidden])")
    side = page.evaluate("""() => { const s = document.querySelector('#editor .side');
      const legend = document.querySelector('.legend').getBoundingClientRect();
      const r = s.getBoundingClientRect();
      return {scroll: s.scrollHeight, client: s.clientHeight, legendBottom: legend.bottom, bottom: r.bottom}; }""")
    assert side["scroll"] <= side["client"] + 1, side  # nothing scrolled out of sight
    assert side["legendBottom"] <= side["bottom"] + 1, side
