"""Groups in a real browser (issue 8, section 2): a big graph opens with its groups
collapsed into named boxes (g.group carrying data-group and data-group-name), a click
expands one, stepping animates the boxes and ends with the engine's numbers inside an
expanded group, search opens the groups hiding a node and centres it, trace consumers
highlight boxes, and past 10,000 nodes the overview draws the groups only and still steps.
The real server and Chromium; waits on data-* attributes. Times are printed, not asserted
beyond a bound any machine meets (speed targets live in bench/)."""
from __future__ import annotations

import time

import pytest
from page_helpers import chain, leave_editor, paste, reopened, set_group_above, wait_step
from test_navigate import clear_centre_offset

# Generous: a loaded two-core CI machine. The target (5,000 nodes drawn in 3 s) is
# measured and reported separately.
OPEN_BOUND_S = 60

LAYER1 = """a = 1.5
with group("layer1"):
    w = 0.5
    h = tanh(a * w + 0.1)
    y = h * a + w
L = y * y
"""


@pytest.fixture
def page(open_explorer):
    ex = open_explorer(1280, 800)
    ex.page.set_default_timeout(90_000)
    yield ex.page
    assert ex.unexpected_errors() == []


def body_of(page, program: str) -> dict:
    """The body of POST /api/trace for `program`, fetched by the page (the same server)."""
    return page.evaluate("""async (program) => {
      const r = await fetch('/api/trace', {method: 'POST', headers: {'content-type': 'application/json'},
                                           body: JSON.stringify({program, output: null})});
      return r.json(); }""", program)


def final_adjoints(body: dict) -> dict[str, float]:
    """Each node's adjoint after the backward pass, from the events (seed, accumulate)."""
    out: dict[str, float] = {}
    for ev in body["events"]:
        if ev["kind"] == "seed":
            out[ev["node"]] = ev["adjoint"]
        elif ev["kind"] == "accumulate":
            out[ev["input"]] = ev["adjoint_after"]
    return out


def values_of(body: dict) -> dict[str, float]:
    return {ev["node"]: ev["value"] for ev in body["events"] if ev["kind"] == "evaluate"}


def trace_timed(page, program: str) -> float:
    """Paste `program`, press Trace, wait until ready; seconds from the click to the graph drawn."""
    paste(page, program)
    page.eval_on_selector("#app", "app => { app.dataset.graph = 'before'; }")  # not the last drawing's
    start = time.perf_counter()
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-graph="drawn"]')
    drawn = time.perf_counter() - start
    page.wait_for_selector('#app[data-status="ready"][data-graph="drawn"]')
    page.wait_for_selector('#graph[data-camera="still"]')
    return drawn


def open_box(page, gid: str) -> None:
    """Click group `gid`'s box (dispatched: it may be out of the camera's view) and wait for the new drawing."""
    page.locator(f'g.group[data-group="{gid}"]').dispatch_event("click")
    page.wait_for_selector(f'g.frame[data-frame="{gid}"]')
    page.wait_for_selector('#app[data-graph="drawn"]')


def test_a_5000_node_chain_opens_collapsed_into_named_boxes(page):
    program = chain(2500)
    seconds = trace_timed(page, program)
    print(f"\n5,000-node chain: Trace to first drawn graph {seconds:.2f} s")
    assert seconds < OPEN_BOUND_S
    assert page.locator("#graph").get_attribute("data-groups") == "collapsed"
    body = body_of(page, program)
    groups = {g["id"]: g for g in body["graph"]["groups"]}
    top = [g for g in groups.values() if g["parent"] is None]
    assert len(top) == 1 and top[0]["kind"] == "repeat"
    chunks = {g["id"]: g["name"] for g in groups.values() if g["parent"] == top[0]["id"]}
    assert len(chunks) == 40  # 2,499 statements in runs of at most 64
    boxes = page.locator("g.group")
    drawn = dict(zip(boxes.evaluate_all("els => els.map(e => e.dataset.group)"),
                     boxes.evaluate_all("els => els.map(e => e.dataset.groupName)")))
    assert drawn == chunks  # one box per chunk, each named as the body names it
    assert page.locator("g.node").count() == 1  # x = 1.0 makes one node: in no group
    assert page.locator('g.node[data-name="x"]').count() == 1
    # The box says what it holds, what comes in and what goes out.
    first = min(chunks, key=lambda gid: groups[gid]["first"])
    text = page.locator(f'g.group[data-group="{first}"]').text_content()
    # x⁽⁶⁴⁾'s version is drawn as raised plain digits (tspan.sup), readable on a projector.
    assert "128 nodes" in text and "in: x" in text and "out: x(64)" in text
    # The box of the output's chunk is framed by the repeat it belongs to.
    assert page.locator(f'g.frame[data-frame="{top[0]["id"]}"]').get_attribute("data-group-name") == top[0]["name"]


def test_stepping_a_collapsed_chain_animates_the_boxes_and_a_click_expands_one(page):
    program = chain(2500)
    trace_timed(page, program)
    body = body_of(page, program)
    adjoints = final_adjoints(body)
    values = values_of(body)
    groups = body["graph"]["groups"]
    top = next(g for g in groups if g["parent"] is None)
    chunks = sorted((g for g in groups if g["parent"] == top["id"]), key=lambda g: g["first"])
    leave_editor(page)
    # Step 2 evaluates the first constant, inside the first chunk: its box is the current one.
    page.keyboard.press("ArrowRight")
    wait_step(page, 1)
    page.keyboard.press("ArrowRight")
    wait_step(page, 2)
    current = page.locator("g.group.current")
    assert current.count() == 1 and current.get_attribute("data-group") == chunks[0]["id"]
    assert int(page.locator("#graph").get_attribute("data-restyled")) <= 4  # O(changed), not 40 boxes
    # At the end each box shows its output's adjoint: the engine's, to full precision.
    page.keyboard.press("End")
    wait_step(page, 7500)
    out_of_first = f"n{chunks[0]['end'] - 1}"  # the chunk's last product: read by the next chunk
    shown = float(page.locator(f'g.group[data-group="{chunks[0]["id"]}"]').get_attribute("data-adjoint"))
    assert shown == pytest.approx(adjoints[out_of_first], rel=1e-12)
    # Open the last chunk, then one of its statements: its nodes carry the engine's numbers.
    last = chunks[-1]
    open_box(page, last["id"])
    statements = [g for g in groups if g["parent"] == last["id"]]
    assert page.locator("g.group").count() == len(chunks) - 1 + len(statements)
    target = statements[0]
    open_box(page, target["id"])
    page.wait_for_selector(f'g.node[data-node="n{target["first"]}"][data-value]')
    for index in range(target["first"], target["end"]):
        node = page.locator(f'g.node[data-node="n{index}"]')
        assert float(node.get_attribute("data-value")) == pytest.approx(values[f"n{index}"], rel=1e-12)
    product = page.locator(f'g.node[data-node="n{target["end"] - 1}"]')
    assert float(product.get_attribute("data-adjoint")) == pytest.approx(adjoints[f"n{target['end'] - 1}"], rel=1e-12)
    # Its frame's collapse control folds it back into a box.
    page.locator(f'g.frame[data-frame="{target["id"]}"] .frame-toggle').dispatch_event("click")
    page.wait_for_selector(f'g.group[data-group="{target["id"]}"]')
    assert page.locator(f'g.node[data-node="n{target["first"]}"]').count() == 0


def test_a_with_group_block_opens_collapsed_by_the_setting_and_expands_with_the_engine_numbers(page):
    leave_editor(page)
    page.locator("#view-menu summary").click()
    setting = page.locator("#group-above")
    assert setting.input_value() == "400"
    setting.fill("0")  # every graph with groups opens collapsed
    setting.dispatch_event("change")
    page.keyboard.press("Escape")
    paste(page, LAYER1)
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-status="ready"][data-graph="drawn"]')
    body = body_of(page, LAYER1)
    block = next(g for g in body["graph"]["groups"] if g["kind"] == "block")
    box = page.locator(f'g.group[data-group="{block["id"]}"]')
    assert box.get_attribute("data-group-name") == "layer1"
    assert page.locator('g.node[data-name="w"]').count() == 0  # w is inside layer1
    # The link keeps the setting.
    page.wait_for_function("() => location.hash.length > 3")
    # Mid-way through the backward pass the box shows y's adjoint once it reaches y.
    adjoints = final_adjoints(body)
    y_id = next(n["id"] for n in body["graph"]["nodes"] if n["name"] == "y")
    total = int(page.locator("#player").get_attribute("data-total"))
    leave_editor(page)
    page.keyboard.press("End")
    wait_step(page, total)
    assert float(box.get_attribute("data-adjoint")) == pytest.approx(adjoints[y_id], rel=1e-12)
    assert "has-grad" in box.get_attribute("class").split()
    # Enter on the focused box expands it; w shows the gradient the body's grads give it.
    box.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector('g.frame[data-frame="%s"]' % block["id"])
    page.wait_for_selector('#app[data-graph="drawn"]')
    w = page.locator('g.node[data-name="w"]')
    page.wait_for_selector('g.node[data-name="w"][data-adjoint]')
    assert float(w.get_attribute("data-adjoint")) == pytest.approx(body["grads"]["w"], rel=1e-12)
    assert page.locator(f'g.frame[data-frame="{block["id"]}"]').get_attribute("data-group-name") == "layer1"


def test_search_opens_the_groups_hiding_a_node_and_centres_it(page):
    program = chain(2500)
    trace_timed(page, program)
    body = body_of(page, program)
    target = next(n for n in body["graph"]["nodes"] if n["label"] == "x⁽¹⁰⁰⁰⁾")
    assert page.locator(f'g.node[data-node="{target["id"]}"]').count() == 0  # in a collapsed chunk
    leave_editor(page)
    page.keyboard.press("/")
    box = page.locator("#graph-search-input")
    box.fill("x⁽¹⁰⁰⁰⁾")
    first = page.locator(".graph-search-results li").first
    assert first.locator(".name").inner_text() == "x⁽¹⁰⁰⁰⁾"
    assert first.locator(".in-group").inner_text().startswith("in ×64")
    box.press("Enter")
    page.wait_for_selector(f'#graph[data-search-hit="{target["id"]}"][data-camera="still"]')
    hit = page.locator(f'g.node[data-node="{target["id"]}"]')
    assert "search-hit" in hit.get_attribute("class").split()
    # Centred in what the detail panel (right) and the search box (top) leave clear.
    centre = clear_centre_offset(page, f'g.node[data-node="{target["id"]}"]')
    assert abs(centre[0]) < 2 and abs(centre[1]) < 2, centre
    # Its statement is framed (opened for it), and the other chunks are still boxes.
    assert page.locator("g.group").count() >= 39


def test_trace_consumers_highlights_the_boxes(page):
    trace_timed(page, chain(2500))
    page.locator('g.node[data-name="x"]').dispatch_event("click")
    page.wait_for_selector("#detail:not([hidden])")
    page.locator("#trace-consumers").click()
    assert page.locator("g.group.traced-consumer").count() == 40  # every chunk depends on x
    assert page.locator("g.node.traced-root").count() == 1
    assert page.locator("g.edge.traced-consumer").count() == 40  # x -> chunk 1, then chunk to chunk


def test_past_10000_nodes_the_overview_draws_the_groups_only_and_steps_every_event(page):
    program = chain(6000)  # 11,999 nodes
    seconds = trace_timed(page, program)
    print(f"\n12,000-node chain: Trace to the groups overview {seconds:.2f} s")
    assert page.locator("#graph").get_attribute("data-groups") == "overview"
    assert page.locator("g.group").count() == 1  # the one outermost repeat
    top = [g for g in body_of(page, program)["graph"]["groups"] if g["parent"] is None]
    assert [g["kind"] for g in top] == ["repeat"]
    assert page.locator("g.group").get_attribute("data-group-name") == top[0]["name"]
    assert top[0]["name"].startswith("x = x * 1.0001 ×")
    total = int(page.locator("#player").get_attribute("data-total"))
    assert total == 3 * 5999 + 2 + 1  # every event is stepped
    leave_editor(page)
    page.keyboard.press("End")
    wait_step(page, total)
    assert page.locator("#narration").inner_text().startswith("Done.")
    page.keyboard.press("ArrowLeft")
    wait_step(page, total - 1)
    assert page.locator("#narration").inner_text() != ""


# ---------------------------------------------------------------- the review's page defects (G8)

TWO_LAYERS = """a = 1.5
w = 0.5
with group("layer1"):
    h = tanh(a * w + 0.1)
    y = h * a + w
with group("layer2"):
    z = tanh(y * w + a)
    u = z * a + w
L = u * u
"""

IN_VIEW = """(sel) => {
  const s = document.querySelector('#graph').getBoundingClientRect();
  return [...document.querySelectorAll(sel)].map((g) => {
    const r = (g.querySelector('rect.box') ?? g).getBoundingClientRect();
    return {name: g.dataset.name ?? g.dataset.group, inside: r.left >= s.left - 0.5 && r.top >= s.top - 0.5
      && r.right <= s.right + 0.5 && r.bottom <= s.bottom + 0.5, rect: [r.left, r.top, r.right, r.bottom],
      graph: [s.left, s.top, s.right, s.bottom]}; }); }"""


def trace_program(page, program: str) -> None:
    paste(page, program)
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-status="ready"][data-graph="drawn"]')
    page.wait_for_selector('#graph[data-camera="still"]')


def test_a_box_shows_its_outputs_own_adjoint_and_a_callout_on_it_names_the_node(page):
    set_group_above(page, 0)
    trace_program(page, LAYER1)
    body = body_of(page, LAYER1)
    nodes = {n["id"]: n for n in body["graph"]["nodes"]}
    block = next(g for g in body["graph"]["groups"] if g["kind"] == "block")
    y = next(n for n in nodes.values() if n["name"] == "y")
    box = page.locator(f'g.group[data-group="{block["id"]}"]')
    assert box.locator("text.group-adjoint").all_text_contents() == [f'{y["adjoint_symbol"]}  —']
    # The first accumulate into a node inside layer1: the callout names that node's adjoint.
    events = body["events"]
    k, ev = next((k, e) for k, e in enumerate(events) if e["kind"] == "accumulate"
                 and block["first"] <= nodes[e["input"]]["index"] < block["end"])
    leave_editor(page)
    page.keyboard.press("Home")
    for _ in range(k + 1):
        page.keyboard.press("ArrowRight")
    wait_step(page, k + 1)
    callout = page.locator("g.callout text tspan").first.text_content()
    assert callout.startswith(f'{nodes[ev["input"]]["adjoint_symbol"]} += '), callout
    # At the end: y's own symbol and value, never "Σ" nor the bare "ā" (read as a's adjoint).
    total = int(page.locator("#player").get_attribute("data-total"))
    page.keyboard.press("End")
    wait_step(page, total)
    line = box.locator("text.group-adjoint").text_content()
    grad = final_adjoints(body)[y["id"]]
    assert line == f'{y["adjoint_symbol"]} = {grad:.4f}'.rstrip("0").rstrip("."), line
    assert "Σ" not in box.text_content() and "ā" not in box.text_content()


def test_search_finds_a_versioned_label_typed_plainly_and_selects_it(page):
    trace_timed(page, chain(2500))
    body = body_of(page, chain(2500))
    target = next(n for n in body["graph"]["nodes"] if n["label"] == "x⁽¹⁰⁰⁰⁾")
    leave_editor(page)
    page.keyboard.press("/")
    box = page.locator("#graph-search-input")
    for typed in ["x1000", "x 1000", "x(1000)", "X⁽¹⁰⁰⁰⁾"]:
        box.fill(typed)
        first = page.locator(".graph-search-results li").first
        assert first.get_attribute("data-node") == target["id"], typed
    box.fill("1000")
    assert target["id"] in page.locator(".graph-search-results li").evaluate_all("ls => ls.map(l => l.dataset.node)")
    box.fill("x1000")
    box.press("Enter")
    page.wait_for_selector(f'#graph[data-search-hit="{target["id"]}"][data-camera="still"]')
    # The hit is the selected node: its detail panel and the trace tools are for it.
    page.wait_for_selector("#detail:not([hidden])")
    assert page.locator(".graph-trace").is_visible()
    assert page.locator(".graph-trace-node").inner_text() == "x⁽¹⁰⁰⁰⁾:"
    page.locator("#trace-inputs").click()
    assert int(page.locator("#graph").get_attribute("data-traced-count")) == 2000  # x, 1,000 constants, 999 products
    # The minimap stays while a node is selected (the graph is far wider than the view).
    assert page.locator(".minimap").is_visible()


def test_ctrl_f_in_the_editor_opens_the_graph_search(page):
    page.locator("#program").focus()
    page.keyboard.press("Control+f")
    page.wait_for_selector(".graph-search:not([hidden])")
    assert page.evaluate("document.activeElement.id") == "graph-search-input"


def test_a_link_keeps_the_expanded_groups(page, chromium, app_url):
    set_group_above(page, 0)
    trace_program(page, LAYER1)
    body = body_of(page, LAYER1)
    block = next(g for g in body["graph"]["groups"] if g["kind"] == "block")
    open_box(page, block["id"])
    page.wait_for_selector('#graph[data-camera="still"]')
    leave_editor(page)
    for _ in range(18):
        page.keyboard.press("ArrowRight")
    wait_step(page, 18)
    page.wait_for_selector('#app[data-url-step="18"]')
    with reopened(chromium, page.evaluate("location.href"), step=18) as fresh:
        assert fresh.locator(f'g.frame[data-frame="{block["id"]}"]').get_attribute("data-group-name") == "layer1"
        assert fresh.locator(f'g.group[data-group="{block["id"]}"]').count() == 0
        assert fresh.locator('g.node[data-name="w"]').count() == 1
        # The step's lit node (or the statement box holding it) and its callout are in view.
        lit = fresh.evaluate(IN_VIEW, ":is(g.node, g.group):is(.current, .target)")
        assert lit and all(n["inside"] for n in lit), lit
        callout = fresh.evaluate(IN_VIEW, "g.callout")
        assert all(c["inside"] for c in callout), callout


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)])
def test_after_expanding_two_groups_every_leaf_is_in_the_graph_area(open_explorer, size):
    ex = open_explorer(*size)
    page = ex.page
    page.set_default_timeout(90_000)
    set_group_above(page, 0)
    trace_program(page, TWO_LAYERS)
    for name in ["layer1", "layer2"]:
        page.locator(f'g.group[data-group-name="{name}"]').dispatch_event("click")
        page.wait_for_selector(f'g.frame[data-group-name="{name}"]')
        page.wait_for_selector('#app[data-graph="drawn"]')
        page.wait_for_selector('#graph[data-camera="still"]')
        leaves = page.evaluate(IN_VIEW, "g.node.role-leaf")
        assert sorted(n["name"] for n in leaves) == ["a", "w"]
        assert all(n["inside"] for n in leaves), leaves
        # The graph area ends above the narration bar: nothing drawn is under it.
        narration = page.locator("#narration").bounding_box()
        assert leaves[0]["graph"][3] <= narration["y"] + 0.5
    # The frames' titles are in view too (contentBox holds the frames).
    frames = page.evaluate(IN_VIEW, "g.frame rect.frame-box")
    assert len(frames) == 2 and all(f["inside"] for f in frames), frames
    assert ex.unexpected_errors() == []


def test_box_labels_are_at_least_the_size_of_the_node_numbers(page):
    trace_timed(page, chain(2500))
    sizes = page.evaluate("""() => {
      const px = (sel) => [...document.querySelectorAll(sel)].map((e) => parseFloat(getComputedStyle(e).fontSize));
      return {sup: px('g.group text.group-line tspan.sup'), line: px('g.group text.group-line'),
              nums: px('g.node .nums text, .node .nums text')}; }""")
    assert sizes["sup"] and min(sizes["sup"]) >= 18
    assert min(sizes["line"]) >= 18
    # The node boxes' numbers are 18px (app.css .node .nums text): the box text is no smaller.
    assert not sizes["nums"] or min(sizes["sup"]) >= max(sizes["nums"])
