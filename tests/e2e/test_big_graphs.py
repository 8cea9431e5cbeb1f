"""Big graphs in a real browser (issue 8, sections 1 and 3): the page never freezes (no long
main-thread task while it lays out, measured by the page's own 'longtask' observer), leaves used
by many consumers are drawn as reference chips, a step restyles only what it changes, the trace
is read from the stream as it arrives, a new Trace cancels the old one, and a big draft is not
traced on its own when the page opens."""
from __future__ import annotations

import pytest
from page_helpers import chain, leave_editor, paste, set_group_above, wait_step

# The target is 200 ms (issue 8), measured side by side in bench/page.py. The tests hold the
# page to "never frozen" with room for a loaded two-core CI machine: before the layout moved
# to a worker these programs froze the page for 15 to 30 s, which any bound of this order
# catches, while a busy machine's scheduling noise (235 ms seen at load 14) does not fail it.
LONG_TASK_MS = 1000

# Installed before the page's scripts: the long tasks the browser reports ('longtask'
# entries), and, where it reports none, the gaps between animation frames.
WATCH_TASKS = """
window.__tasks = [];
window.__longtaskSupported = PerformanceObserver.supportedEntryTypes.includes('longtask');
if (window.__longtaskSupported) {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__tasks.push({start: e.startTime, duration: e.duration});
  }).observe({type: 'longtask', buffered: true});
} else {
  let last = performance.now();
  const tick = (t) => { if (t - last > 50) window.__tasks.push({start: last, duration: t - last}); last = t;
    requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
}
"""

# The stream's done event (and what follows) is held back until window.__releaseDone() while
# window.__holdDone is set; window.__aborted counts stream requests the page gave up before
# their end. The explorer reads the stream in a worker (static/js/stream.worker.js, which
# makes the request): the hold sits between that worker and the page, on the messages it
# posts (stream.js relayTrace); a stream read on the page itself (fetch) is held the same way.
HOLD_DONE = """
window.__aborted = 0;
const RealWorker = window.Worker;
window.Worker = class extends RealWorker {
  constructor(url, options) {
    super(url, options);
    this.__stream = String(url).includes('stream.worker');
    this.__ended = false;
  }
  set onmessage(handler) {
    if (!this.__stream) { super.onmessage = handler; return; }
    const held = [];
    const deliver = (event) => {  // the stream is over for the page once it gets end (or error)
      if (event.data.type === 'end' || event.data.type === 'error') this.__ended = true;
      handler(event);
    };
    super.onmessage = (event) => {
      const m = event.data;
      if (!window.__holdDone || !(held.length || m.type === 'end' || (m.type === 'events' && m.events.some((e) => e.kind === 'done')))) {
        return deliver(event);
      }
      if (m.type === 'events' && !held.length) {  // the events before done go on now
        const at = m.events.findIndex((e) => e.kind === 'done');
        if (at > 0) deliver({ data: { type: 'events', events: m.events.slice(0, at) } });
        held.push({ data: { type: 'events', events: m.events.slice(at) } });
      } else held.push(event);
      window.__releaseDone = () => { for (const e of held.splice(0)) deliver(e); };
    };
  }
  get onmessage() { return super.onmessage; }
  terminate() {
    if (this.__stream && !this.__ended) window.__aborted += 1;
    super.terminate();
  }
};
"""


def shared_weights(statements: int = 300) -> str:
    """The issue's program: a chain through tanh, `* w` and `+ a`; w and a are used ~100 times."""
    lines = ["x0 = 0.5", "w = 0.9", "a = 0.1"]
    for i in range(1, statements - 2):
        lines.append((f"x{i} = tanh(x{i - 1})", f"x{i} = x{i - 1} * w", f"x{i} = x{i - 1} + a")[i % 3])
    lines.append(f"L = x{statements - 3} * x{statements - 3}")
    return "\n".join(lines) + "\n"


def fan_in(n: int) -> str:
    """`x = 1.5`, `L = x * 1 + x * 2 + ... + x * n`: 3n nodes on one line, x used n times."""
    return "x = 1.5\nL = " + " + ".join(f"x * {i}" for i in range(1, n + 1)) + "\n"


@pytest.fixture
def big_page(chromium, app_url):
    """A fresh explorer (1280x800) that records its long tasks, with the first preset ready."""
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    context.add_init_script(WATCH_TASKS)
    context.add_init_script(HOLD_DONE)
    page = context.new_page()
    page.set_default_timeout(60_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(app_url)
    page.wait_for_selector('#app[data-status="ready"]')
    page.errors = errors
    yield page
    context.close()


def now(page) -> float:
    return page.evaluate("performance.now()")


def walk_the_ends(page, total: int) -> str:
    """On a traced page: End (the narration says Done.), ←, Home, →, each step waited for;
    returns the narration one step before the end (the last accumulate)."""
    page.keyboard.press("End")
    wait_step(page, total)
    assert page.locator("#narration").inner_text().startswith("Done.")
    page.keyboard.press("ArrowLeft")
    wait_step(page, total - 1)
    before_end = page.locator("#narration").inner_text()
    page.keyboard.press("Home")
    wait_step(page, 0)
    page.keyboard.press("ArrowRight")
    wait_step(page, 1)
    return before_end


def longest_task_since(page, start: float) -> float:
    return page.evaluate("(t0) => Math.max(0, ...window.__tasks.filter((t) => t.start >= t0).map((t) => t.duration))", start)


def trace_measured(page, program: str, graph: str = "drawn") -> float:
    """Paste `program`, trace it, wait until ready with `graph`; the longest task meanwhile (ms)."""
    paste(page, program)
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => setTimeout(r)))")
    start = now(page)
    page.locator("#trace").click()
    page.wait_for_selector(f'#app[data-status="ready"][data-graph="{graph}"]')
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => setTimeout(r)))")
    return longest_task_since(page, start)


def step_and_count(page, steps: int) -> list[int]:
    """Press → `steps` times; the number of nodes and edges each step restyled."""
    leave_editor(page)
    first = int(page.locator("#player").get_attribute("data-step"))
    counts = []
    for k in range(1, steps + 1):
        page.keyboard.press("ArrowRight")
        wait_step(page, first + k)
        counts.append(int(page.locator("#graph").get_attribute("data-restyled")))
    return counts


# ---------------------------------------------------------------- never frozen


def test_the_shared_weights_program_opens_with_chips_without_long_tasks_and_steps(big_page):
    page = big_page
    longest = trace_measured(page, shared_weights(300))
    assert longest <= LONG_TASK_MS, f"a main-thread task took {longest:.0f} ms"
    assert page.locator("g.node").count() == 301
    # w and a are used 99 times each: a chip beside each consumer, not 198 long edges.
    chips = page.locator("g.chip")
    assert chips.count() == 198
    w = page.locator('g.node[data-name="w"]')
    assert w.get_attribute("class").split().count("shared") == 1
    assert w.get_attribute("data-uses") == "99"
    w_id = w.get_attribute("data-node")
    assert page.locator(f'g.chip[data-ref="{w_id}"]').count() == 99
    assert page.locator(f'g.edge[data-edge^="{w_id}->"]').count() == 0
    first = page.locator(f'g.chip[data-ref="{w_id}"]').first
    consumer = first.get_attribute("data-consumer")
    assert first.get_attribute("data-edge").startswith(f"{w_id}->{consumer}#")
    assert first.get_attribute("data-uses") == "99"
    # A step restyles what it changes: the node evaluated and the one before, not 301.
    counts = step_and_count(page, 6)
    assert max(counts) <= 4, counts
    start = now(page)
    page.keyboard.press("End")
    wait_step(page, 800)
    page.keyboard.press("ArrowLeft")
    wait_step(page, 799)
    assert longest_task_since(page, start) <= LONG_TASK_MS
    assert page.errors == []


def test_the_one_line_fan_in_of_600_nodes_opens_without_long_tasks(big_page):
    page = big_page
    longest = trace_measured(page, fan_in(200))
    assert longest <= LONG_TASK_MS, f"a main-thread task took {longest:.0f} ms"
    # Over 400 nodes (the page option) the one statement opens as one box; a click opens it
    # into its parts, runs of whole terms of at most 64 nodes (engine/groups.py).
    statement = page.locator('g.group[data-group-name="L"]')
    assert statement.get_attribute("data-count") == "599"
    assert page.locator("g.node").count() == 1
    start = now(page)
    statement.click()
    page.wait_for_selector('#app[data-graph="drawn"] g.frame[data-group-name="L"]')
    assert longest_task_since(page, start) <= LONG_TASK_MS
    parts = page.locator('g.group[data-group-name^="L: terms "]')
    assert parts.count() == 10
    assert parts.first.get_attribute("data-group-name") == "L: terms 1–21"
    assert page.locator('g.group[data-group-name="L: terms 190–200"]').get_attribute("data-count") == "33"
    assert page.errors == []


def test_the_one_line_fan_in_drawn_flat_has_a_chip_per_use_and_steps_cheaply(big_page):
    page = big_page
    set_group_above(page, 1000)   # the whole statement drawn, 600 nodes
    longest = trace_measured(page, fan_in(200))
    assert longest <= LONG_TASK_MS, f"a main-thread task took {longest:.0f} ms"
    # The new drawing is styled a part a frame; a step before the last part restyles all.
    page.wait_for_selector('#graph:not([data-restyling="true"])')
    assert page.locator("g.node").count() == 600
    x_id = page.locator('g.node[data-name="x"]').get_attribute("data-node")
    assert page.locator(f'g.chip[data-ref="{x_id}"]').count() == 200
    assert page.locator(f'g.chip[data-ref="{x_id}"][data-uses="200"]').count() == 200
    assert max(step_and_count(page, 4)) <= 4
    assert page.errors == []


def test_a_5000_node_chain_opens_collapsed_without_long_tasks_and_steps(big_page):
    page = big_page
    longest = trace_measured(page, chain(2500))
    assert longest <= LONG_TASK_MS, f"a main-thread task took {longest:.0f} ms"
    # Its repeated line opens as 40 boxes of at most 64 statements (tests/e2e/test_groups_page.py).
    assert page.locator("#graph").get_attribute("data-groups") == "collapsed"
    assert page.locator("g.group").count() == 40
    assert page.locator("g.node").count() == 1
    assert page.locator("#graph-message").is_hidden()
    leave_editor(page)
    start = now(page)
    walk_the_ends(page, 7500)
    assert longest_task_since(page, start) <= LONG_TASK_MS
    assert page.errors == []


# What the graph's message said while a trace opened (recorded by a MutationObserver).
RECORD_MESSAGES = """() => {
  window.__messages = [];
  const message = document.querySelector('#graph-message');
  new MutationObserver(() => {
    const text = message.hidden ? '' : message.textContent;
    if (text && window.__messages.at(-1) !== text) window.__messages.push(text);
    if (text.startsWith('Reading') && !window.__whileReading) {  // the walk before it is not stepped
      const player = document.querySelector('#player');
      window.__whileReading = {narration: document.querySelector('#narration').textContent,
                               disabled: player.dataset.disabled};
    }
  }).observe(message, {childList: true, characterData: true, subtree: true, attributes: true});
}"""


def test_the_issues_50000_line_chain_opens_steps_and_is_searched_without_long_tasks(big_page):
    # The issue's program: 99,999 nodes, a 51 MB graph event, 150,000 events. Its graph is
    # read and parsed in a worker, handed over in slices and built into the walk a slice at a
    # time (static/js/stream.js, slices.js); the page says how far it is meanwhile.
    page = big_page
    paste(page, chain(50_000))
    page.evaluate(RECORD_MESSAGES)
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => setTimeout(r)))")
    start = now(page)
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-status="ready"][data-graph="drawn"]')
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => setTimeout(r)))")
    longest = longest_task_since(page, start)
    assert longest <= LONG_TASK_MS, f"a main-thread task took {longest:.0f} ms"
    messages = page.evaluate("window.__messages")
    assert messages[0] == "Tracing on the server…", messages  # the seconds before its graph
    reading = [m for m in messages if m.startswith("Reading the graph… ")]
    assert reading and reading[-1].endswith("%"), messages
    assert len(reading) >= 3, messages  # it moves: one message per slice received
    assert "Preparing 99,999 nodes…" in messages, messages
    # meanwhile the last walk's player is off and the narration says what is happening
    assert page.evaluate("window.__whileReading") == {
        "narration": "The new trace is arriving: its walk starts here once its graph is read.",
        "disabled": "true"}
    # Past 10,000 nodes: the overview, the one outermost repeat as a box; every event steps.
    assert page.locator("#graph").get_attribute("data-groups") == "overview"
    assert page.locator('g.group[data-group-name^="x = x * 1.0001 ×49999"]').count() == 1
    assert page.locator("#graph-message").is_hidden()
    assert page.locator("#player").get_attribute("data-total") == "150000"
    leave_editor(page)
    start = now(page)
    assert "x̄ +=" in walk_the_ends(page, 150_000)
    page.keyboard.press("End")
    wait_step(page, 150_000)
    assert longest_task_since(page, start) <= LONG_TASK_MS
    # Search finds a node deep inside the boxes, opens them and centres it.
    start = now(page)
    page.keyboard.press("/")
    box = page.locator("#graph-search-input")
    box.fill("x40000")
    first = page.locator(".graph-search-results li").first
    assert first.locator(".name").inner_text() == "x⁽⁴⁰⁰⁰⁰⁾"
    box.press("Enter")
    page.wait_for_selector('#graph[data-search-hit="n80000"][data-camera="still"]')
    assert "search-hit" in page.locator('g.node[data-node="n80000"]').get_attribute("class").split()
    assert longest_task_since(page, start) <= LONG_TASK_MS
    # Trace inputs of the hit: its 80,000 ancestors, lit on the boxes that hold them.
    start = now(page)
    page.locator("#trace-inputs").click()
    page.wait_for_selector('#graph[data-traced="inputs"]', state="attached")
    assert page.locator("#graph").get_attribute("data-traced-count") == "80000"
    assert longest_task_since(page, start) <= LONG_TASK_MS
    assert page.errors == []
    # A link keeps the groups search opened: reopened and traced, they open in one plan.
    page.wait_for_function("() => document.querySelector('#app').dataset.urlStep"
                           " === document.querySelector('#player').dataset.step")
    url = page.url
    fresh = page.context.new_page()
    fresh.set_default_timeout(60_000)
    fresh.goto(url)
    fresh.wait_for_selector('#app[data-status="waiting"]')  # a big program waits for Trace
    start = now(fresh)
    fresh.locator("#trace").click()
    fresh.wait_for_selector('#app[data-status="ready"][data-graph="drawn"]')
    fresh.wait_for_selector('g.node[data-node="n80000"]', state="attached")
    assert longest_task_since(fresh, start) <= LONG_TASK_MS


def test_stepping_a_1000_node_graph_restyles_only_what_changed(big_page):
    page = big_page
    set_group_above(page, 1000)  # drawn node by node: the page option, over its default 400
    longest = trace_measured(page, chain(500))  # 999 nodes, laid out in the worker
    assert longest <= LONG_TASK_MS, f"a main-thread task took {longest:.0f} ms"
    assert page.locator("g.node").count() == 999
    counts = step_and_count(page, 5)
    assert max(counts) <= 4, counts
    # Into the backward pass: the seed, then edges (source, target and the edge itself).
    page.locator("#player .scrubber").fill("1495")  # of 1,500
    wait_step(page, 1495)
    counts = step_and_count(page, 4)
    assert max(counts) <= 8, counts
    assert page.errors == []


# ---------------------------------------------------------------- reference chips


def at(locator) -> tuple[float, float]:
    """Where an element of the drawing is placed: its translate(x,y), in layout units (a node's
    or chip's is on its g.at: render/groups.js placed)."""
    return tuple(locator.evaluate("e => { const t = e.querySelector(':scope > g.at') ?? e;"
                                  " const m = t.transform.baseVal.consolidate().matrix; return [m.e, m.f]; }"))


def test_a_chip_shows_its_shared_node_and_every_contribution_arriving(big_page):
    page = big_page
    trace_measured(page, fan_in(10))
    x = page.locator('g.node[data-name="x"]')
    x_id = x.get_attribute("data-node")
    chips = page.locator(f'g.chip[data-ref="{x_id}"]')
    assert chips.count() == 10
    # Clicking a chip joins the shared node to all its chips; clicking again hides them.
    # (The chip may be out of the camera's view, which Playwright cannot pan: dispatched.)
    chips.nth(3).dispatch_event("click")
    page.wait_for_selector(f'#graph[data-fanout="{x_id}"]')
    assert page.locator("g.fanout-lines line").count() == 10
    assert page.locator("g.chip.fanout").count() == 10
    chips.nth(3).dispatch_event("click")
    page.wait_for_function("() => !document.querySelector('#graph').dataset.fanout")
    assert page.locator("g.fanout-lines line").count() == 0
    # Each accumulate into x shows its += on the chip of the edge it arrives along.
    total = int(page.locator("#player").get_attribute("data-total"))
    leave_editor(page)
    seen = []
    page.keyboard.press("End")
    wait_step(page, total)
    for step in range(total - 1, 0, -1):
        page.keyboard.press("ArrowLeft")
        wait_step(page, step)
        active = page.locator("g.chip.active")
        if active.count() == 0:
            continue
        chip = active.get_attribute("data-edge")
        callout = page.locator("g.callout")
        assert callout.count() == 1
        text = callout.text_content()
        assert "+=" in text
        # The callout hangs beside the chip, not on x's far-away box (layout units).
        c, k = at(callout), at(active)
        assert abs(c[0] - k[0]) < 100 and abs(c[1] - k[1]) < 100, (c, k)
        seen.append(chip)
    assert len(set(seen)) == 10  # every contribution to x's adjoint arrived along a chip
    assert page.errors == []


# ---------------------------------------------------------------- the stream


def test_the_graph_is_drawn_and_steps_before_the_stream_is_done(big_page):
    page = big_page
    paste(page, shared_weights(30))
    page.evaluate("window.__holdDone = true")
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-graph="drawn"][data-status="streaming"]')
    assert page.locator("#app").get_attribute("data-stream") == "events"
    assert page.locator("g.node").count() == 31
    # Every event but done has arrived: the player steps them already.
    total = int(page.locator("#player").get_attribute("data-total"))
    assert total > 0
    leave_editor(page)
    page.keyboard.press("ArrowRight")
    wait_step(page, 1)
    assert page.locator("#app").get_attribute("data-status") == "streaming"
    page.evaluate("window.__releaseDone()")
    page.wait_for_selector('#app[data-status="ready"][data-stream="done"]')
    assert int(page.locator("#player").get_attribute("data-total")) == total + 1
    assert page.locator("#player").get_attribute("data-step") == "1"  # the step is kept
    page.keyboard.press("End")
    assert page.locator("#narration").inner_text().startswith("Done.")
    assert page.errors == []


def test_a_new_trace_cancels_the_stream_and_the_layout(big_page):
    page = big_page
    paste(page, shared_weights(30))
    page.evaluate("window.__holdDone = true")
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-graph="drawn"][data-status="streaming"]')
    page.evaluate("window.__holdDone = false")
    paste(page, "a = 2.0\nL = a * a\n")
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-status="ready"]')
    assert page.evaluate("window.__aborted") == 1
    assert page.locator("g.node").count() == 2
    # A layout still running in its worker is stopped by the next Trace. The worker gets its
    # job 3 s late (a layout of seconds on any machine; the tight-tree ranker lays 390 nodes
    # out in well under a second, which raced the wait below).
    page.evaluate("""() => {
      const Real = window.Worker;
      window.Worker = class extends Real {
        constructor(url, options) { super(url, options); this.__layout = String(url).includes('layout.worker'); }
        postMessage(...args) {
          if (this.__layout) setTimeout(() => super.postMessage(...args), 3000);
          else super.postMessage(...args);
        }
      };
    }""")
    paste(page, shared_weights(390))
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-layout="running"]')
    paste(page, "b = 3.0\nL = b * b\n")
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-status="ready"][data-graph="drawn"]')
    assert page.locator("#app").get_attribute("data-layouts-cancelled") == "1"
    assert page.locator("g.node").count() == 2
    assert page.locator('g.node[data-name="b"]').count() == 1
    assert page.errors == []


def test_an_error_in_the_stream_shows_with_its_line_and_column(big_page):
    page = big_page
    paste(page, "a = 2.0\nL = a * +\n")
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-status="error"]')
    box = page.locator(".program-error")
    assert box.get_attribute("data-line") == "2"
    assert box.is_visible()
    assert page.locator("g.node").count() == 7  # the last good graph stays
    assert page.errors == []


# ---------------------------------------------------------------- big drafts


def test_a_big_draft_is_not_traced_when_the_page_opens(big_page):
    page = big_page
    paste(page, chain(2500))
    page.wait_for_function("() => (localStorage.getItem('gradwalk.editor.v1') || '').length > 30000")
    streams = []
    page.on("request", lambda r: "/api/trace" in r.url and streams.append(r.url))
    page.reload()
    page.wait_for_selector('#app[data-status="waiting"]')
    message = page.locator("#graph-message")
    assert message.is_visible()
    assert "This program is big (2,500 lines), so it was not traced when the page opened." in message.inner_text()
    assert streams == []
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-status="ready"][data-graph="drawn"]')  # collapsed
    assert len(streams) == 1
    assert page.errors == []
