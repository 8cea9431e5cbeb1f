"""Finding one's way in the graph (issue 8, section 2): search by name centres and
highlights a node, trace inputs / consumers highlight the right nodes, the minimap follows
the camera. A real browser against the real server; waits on data-* attributes."""
from __future__ import annotations

import pytest
from page_helpers import leave_editor, node, paste
from test_big_graphs import shared_weights

# Nine one-node statements of nine different ops, repeated: no statement makes two nodes and
# no cycle of up to eight statements repeats, so the program has no group (engine/groups.py).
NINE = ("tanh(x{p})", "x{p} * w", "x{p} + a", "sigmoid(x{p})", "x{p} - a", "relu(x{p})",
        "abs(x{p})", "silu(x{p})", "x{p} / w")


def ungrouped(statements: int) -> str:
    """A chain of `statements` one-node lines through nine different ops (no groups)."""
    lines = ["x0 = 0.5", "w = 0.9", "a = 0.1"]
    lines += [f"x{i} = " + NINE[i % 9].format(p=i - 1) for i in range(1, statements - 2)]
    return "\n".join(lines) + "\n"


def trace_ready(page, program: str, graph: str = "drawn") -> None:
    paste(page, program)
    page.locator("#trace").click()
    page.wait_for_selector(f'#app[data-status="ready"][data-graph="{graph}"]', timeout=60_000)
    page.wait_for_selector('#graph[data-camera="still"]')


def names_with(page, cls: str) -> list[str]:
    return sorted(page.locator(f"g.node.{cls}").evaluate_all("els => els.map(e => e.dataset.name)"))


def edges_with(page, cls: str) -> list[str]:
    return sorted(page.locator(f"g.edge.{cls}").evaluate_all("els => els.map(e => e.dataset.edge)"))


def centre_offset(page, selector: str) -> tuple[float, float]:
    """How far (px) the centre of `selector`'s box is from the centre of the graph's svg."""
    return tuple(page.evaluate("""(sel) => {
      const box = document.querySelector(sel).querySelector('rect.box').getBoundingClientRect();
      const svg = document.querySelector('#graph').getBoundingClientRect();
      return [box.x + box.width / 2 - (svg.x + svg.width / 2), box.y + box.height / 2 - (svg.y + svg.height / 2)];
    }""", selector))


def clear_centre_offset(page, selector: str) -> tuple[float, float]:
    """How far (px) the centre of `selector`'s box is from the centre of the part of the graph
    the detail panel (on the right) and the search box (at the top) leave clear: where search
    centres its hit."""
    return tuple(page.evaluate("""(sel) => {
      const box = document.querySelector(sel).querySelector('rect.box').getBoundingClientRect();
      const svg = document.querySelector('#graph').getBoundingClientRect();
      const panel = document.querySelector('#detail:not([hidden])')?.getBoundingClientRect();
      const search = document.querySelector('.graph-search:not([hidden])')?.getBoundingClientRect();
      const right = panel ? panel.left : svg.right;
      const top = search ? search.bottom : svg.top;
      return [box.x + box.width / 2 - (svg.left + right) / 2, box.y + box.height / 2 - (top + svg.bottom) / 2];
    }""", selector))


def view_rect(page) -> dict[str, float]:
    return page.eval_on_selector(".minimap-view", "r => ({x: +r.getAttribute('x'), y: +r.getAttribute('y'), "
                                 "width: +r.getAttribute('width'), height: +r.getAttribute('height')})")


@pytest.fixture
def big(open_explorer):
    """The explorer at 1280x800 showing the 300-statement shared-weights program."""
    ex = open_explorer(1280, 800)
    ex.page.set_default_timeout(60_000)
    trace_ready(ex.page, shared_weights(300))
    return ex


def test_search_centres_and_highlights_a_node_of_the_shared_weights_program(big):
    page = big.page
    leave_editor(page)
    page.keyboard.press("/")
    box = page.locator("#graph-search-input")
    assert box.is_visible() and page.evaluate("document.activeElement.id") == "graph-search-input"
    box.fill("x150")
    first = page.locator(".graph-search-results li").first
    assert first.locator(".name").inner_text() == "x150"  # the exact match before x1500-like ones
    target = node(page, "x150").get_attribute("data-node")
    before = centre_offset(page, f'g.node[data-node="{target}"]')
    assert max(abs(before[0]), abs(before[1])) > 100  # far from the centre before
    box.press("Enter")
    page.wait_for_selector(f'#graph[data-search-hit="{target}"][data-camera="still"]')
    hits = page.locator("g.node[data-search-hit]")
    assert hits.count() == 1
    assert hits.get_attribute("data-name") == "x150"
    assert "search-hit" in hits.get_attribute("class").split()
    dx, dy = clear_centre_offset(page, f'g.node[data-node="{target}"]')
    assert abs(dx) < 2 and abs(dy) < 2, (dx, dy)
    # Esc closes the box; the highlight stays.
    box.press("Escape")
    assert not page.locator(".graph-search").is_visible()
    assert page.locator("g.node.search-hit").count() == 1
    # Ctrl+F opens it again (outside the editor); a name that is not there says so.
    page.keyboard.press("Control+f")
    box.fill("nosuchname")
    assert page.locator(".graph-search-note").get_attribute("data-kind") == "none"
    assert page.locator(".graph-search-results li").count() == 0
    assert big.unexpected_errors() == []


def test_the_minimap_shows_the_view_and_moves_the_camera(big):
    page = big.page
    minimap = page.locator(".minimap")
    assert minimap.is_visible()  # 301 nodes do not fit at a readable scale
    nodes = page.locator(".minimap-nodes")
    assert nodes.get_attribute("data-count") == "301" and page.locator("g.node").count() == 301
    assert nodes.get_attribute("d").count("M") == 301  # a tiny rectangle per node
    start = view_rect(page)
    assert start["width"] > 0 and start["height"] > 0
    # Pan by dragging the graph to the left: the view rectangle moves right on the map.
    svg = page.locator("#graph").bounding_box()
    x, y = svg["x"] + svg["width"] / 2, svg["y"] + svg["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 300, y, steps=5)
    page.mouse.up()
    page.wait_for_function("(x0) => +document.querySelector('.minimap-view').getAttribute('x') > x0 + 0.5", arg=start["x"])
    panned = view_rect(page)
    assert panned["width"] == pytest.approx(start["width"], abs=0.2)  # same scale
    assert page.locator("#graph").get_attribute("data-fitted") == "false"
    # A click on the map centres the camera there: the rectangle is centred on the click.
    mb = page.locator(".minimap svg").bounding_box()
    page.mouse.click(mb["x"] + 20, mb["y"] + mb["height"] / 2)
    page.wait_for_selector('#graph[data-camera="still"]')
    moved = view_rect(page)
    assert moved["x"] + moved["width"] / 2 == pytest.approx(20, abs=1.5)
    assert moved["y"] + moved["height"] / 2 == pytest.approx(mb["height"] / 2, abs=1.5)
    # Fit shows the whole graph: the minimap hides.
    page.locator("#zoom-fit").click()
    page.wait_for_selector(".minimap", state="hidden")
    assert big.unexpected_errors() == []


def test_trace_inputs_and_consumers_of_d_on_the_first_preset(explorer):
    page = explorer.page
    tools = page.locator(".graph-trace")
    assert not tools.is_visible()  # nothing selected
    assert not page.locator(".minimap").is_visible()  # seven nodes fit on screen
    node(page, "d").click()
    page.wait_for_selector("#detail:not([hidden])")
    assert tools.is_visible()
    page.locator("#trace-inputs").click()
    assert names_with(page, "traced-input") == ["a", "b", "e"]
    assert names_with(page, "traced-root") == ["d"]
    assert edges_with(page, "traced-input") == ["n0->n3#0", "n0->n4#1", "n1->n3#1", "n3->n4#0"]
    assert page.locator("#trace-inputs").get_attribute("aria-pressed") == "true"
    assert page.locator("#graph").get_attribute("data-traced") == "inputs"
    # Consumers replace inputs.
    page.locator("#trace-consumers").click()
    assert names_with(page, "traced-consumer") == ["L", "t"]
    assert names_with(page, "traced-input") == []
    assert edges_with(page, "traced-consumer") == ["n4->n5#0", "n5->n6#0"]
    # A second click clears.
    page.locator("#trace-consumers").click()
    assert names_with(page, "traced-consumer") == []
    assert page.locator("#graph").get_attribute("data-traced") is None
    # Esc clears a trace first; the detail panel stays open until the next Esc.
    page.locator("#trace-inputs").click()
    assert names_with(page, "traced-input") == ["a", "b", "e"]
    page.keyboard.press("Escape")
    assert names_with(page, "traced-input") == []
    assert page.locator("#detail").is_visible()
    page.keyboard.press("Escape")
    assert not page.locator("#detail").is_visible()
    assert not tools.is_visible()
    # The highlight survives stepping: a step restyles only its own classes.
    node(page, "e").click()
    page.locator("#trace-consumers").click()
    leave_editor(page)
    page.keyboard.press("ArrowRight")
    page.wait_for_selector('#player[data-step="1"]')
    assert names_with(page, "traced-consumer") == ["L", "d", "t"]
    assert explorer.unexpected_errors() == []


def test_search_in_the_overview_says_the_graph_is_not_drawn(open_explorer):
    ex = open_explorer(1280, 800)
    page = ex.page
    page.set_default_timeout(60_000)
    # 3,000 nodes in no group: too many to lay out, and nothing to collapse.
    paste(page, ungrouped(3000))
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-status="ready"][data-graph="too_large"]')
    leave_editor(page)
    page.keyboard.press("/")
    note = page.locator(".graph-search-note")
    assert note.get_attribute("data-kind") == "undrawn"
    assert "not drawn" in note.inner_text()
    page.locator("#graph-search-input").fill("x")
    assert page.locator(".graph-search-results li").count() == 0
    assert not page.locator(".minimap").is_visible()
    assert ex.unexpected_errors() == []
