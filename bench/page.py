"""The explorer page with big graphs (issue 8, section 4), in headless Debian Chromium.

    .venv/bin/python -m bench.page            # writes its section of docs/performance.md

Starts the server (tests/e2e/live_server.py) and, for a chain, a one-line fan-in and a program
with shared weights of about 200, 1,000 and 5,000 nodes, measures the time from the Trace click
to the first drawn graph (or to the overview, for a graph predicted to cost past the layout
budget) and the longest main-thread task meanwhile ('longtask' entries), as the page opens them
by default (graphs over 400 nodes with their groups collapsed) and, for about 1,000 nodes, also
drawn flat (node by node: the group_above setting raised past the graph); then the time of one
step at 1,000 nodes (the page's own work, and until the next frame is drawn) and the frames per
second while the backward pass plays at 500 nodes, flat and as opened by default; and the issue's
50,000-line chain (about 100,000 nodes): when it is drawn and complete, and the longest task while
it opens, while its stream arrives, on End and while search opens it. Wall-clock figures on a shared machine: read
them as orders of magnitude; the tests assert only counts and the absence of long tasks.
"""
from __future__ import annotations

import pathlib
import re
import shutil
import statistics
import sys

from playwright.sync_api import sync_playwright

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "e2e"))

from live_server import BROWSER_ARGS, running_server  # noqa: E402
from page_helpers import leave_editor, paste, set_group_above, wait_step  # noqa: E402
from test_big_graphs import WATCH_TASKS, chain, fan_in, shared_weights  # noqa: E402

from bench import machine  # noqa: E402

DOC = REPO / "docs" / "performance.md"
BEGIN = "<!-- BEGIN bench.page (generated: .venv/bin/python -m bench.page) -->"
END = "<!-- END bench.page -->"
NEXT_FRAME = "() => new Promise((r) => requestAnimationFrame(() => setTimeout(r)))"
GROUP_ABOVE = 400  # the page's default (static/js/state.js group_above)
FLAT = 1_000_000  # group_above past any graph here: drawn node by node

PROGRAMS = {  # name -> size -> program (nodes in brackets)
    "chain": {200: chain(100), 1000: chain(500), 5000: chain(2500)},  # 199, 999, 4,999
    "fan-in": {200: fan_in(67), 1000: fan_in(333), 5000: fan_in(1667)},  # 201, 999, 5,001
    "shared weights": {200: shared_weights(200), 1000: shared_weights(1000), 5000: shared_weights(5000)},
}


def click_trace(page, program: str) -> float:
    """Paste `program`, let the page settle, press Trace; the page's clock when pressed (ms)."""
    paste(page, program)
    page.evaluate(NEXT_FRAME)
    page.evaluate(NEXT_FRAME)
    start = page.evaluate("performance.now()")
    page.locator("#trace").click()
    return start


def open_trace(page, program: str) -> dict:
    """Trace `program`; {ms: Trace to first drawing, graph, nodes, longest: task ms}."""
    start = click_trace(page, program)
    page.wait_for_function("() => ['drawn', 'too_large', 'too_deep', 'layout_failed'].includes(document.querySelector('#app').dataset.graph)"
                           " && document.querySelector('#app').dataset.status !== 'loading'")
    drawn = page.evaluate("performance.now()") - start
    page.wait_for_selector('#app[data-status="ready"]')
    page.evaluate(NEXT_FRAME)
    longest = page.evaluate("(t0) => Math.max(0, ...window.__tasks.filter((t) => t.start >= t0).map((t) => t.duration))", start)
    graph = page.locator("#app").get_attribute("data-graph")
    nodes = page.evaluate("() => document.querySelectorAll('g.node').length")
    boxes = page.evaluate("() => document.querySelectorAll('g.group').length")
    return {"ms": drawn, "graph": graph, "nodes": nodes, "boxes": boxes, "longest": longest}


LONGEST = "([t0, t1]) => Math.max(0, ...window.__tasks.filter((t) => t.start >= t0 && t.start < t1).map((t) => t.duration))"
BIG_CHAIN_LINES = 50_000  # the program: 99,999 nodes, 150,000 events


def big_chain(page) -> dict:
    """The issue's 50,000-line chain: Trace to the first drawing and to ready (s), and the
    longest main-thread task while it opens (Trace to the first drawing), while the rest of
    the stream arrives (to ready), on End / ← / Home / End, and while search opens a node."""
    t0 = click_trace(page, chain(BIG_CHAIN_LINES))
    page.wait_for_function("() => document.querySelector('#app').dataset.graph === 'drawn'"
                           " && document.querySelector('#app').dataset.status !== 'loading'")
    t1 = page.evaluate("performance.now()")
    page.wait_for_selector('#app[data-status="ready"]')
    t2 = page.evaluate("performance.now()")
    page.evaluate(NEXT_FRAME)
    out = {"drawn": (t1 - t0) / 1000, "ready": (t2 - t0) / 1000,
           "opening": page.evaluate(LONGEST, [t0, t1]), "arriving": page.evaluate(LONGEST, [t1, t2 + 100])}
    total = int(page.locator("#player").get_attribute("data-total"))
    leave_editor(page)
    t3 = page.evaluate("performance.now()")
    for key, step in (("End", total), ("ArrowLeft", total - 1), ("Home", 0), ("End", total)):
        page.keyboard.press(key)
        wait_step(page, step)
        page.evaluate(NEXT_FRAME)
    t4 = page.evaluate("performance.now()")
    out["end"] = page.evaluate(LONGEST, [t3, t4 + 1])
    page.keyboard.press("/")
    page.locator("#graph-search-input").fill("x40000")
    page.locator("#graph-search-input").press("Enter")
    page.wait_for_selector('#graph[data-search-hit][data-camera="still"]')
    page.evaluate(NEXT_FRAME)
    out["search"] = page.evaluate(LONGEST, [t4 + 1, page.evaluate("performance.now()") + 1])
    out["search_s"] = (page.evaluate("performance.now()") - t4) / 1000
    page.keyboard.press("Escape")
    return out


def drawn(r: dict) -> str:
    """What the first drawing showed: nodes (and collapsed group boxes), or the overview."""
    if r["graph"] != "drawn":
        return f"overview: {r['graph']}"
    nodes = f"{r['nodes']:,} node" + ("" if r["nodes"] == 1 else "s")
    boxes = f" + {r['boxes']:,} group box" + ("" if r["boxes"] == 1 else "es") + ", collapsed"
    return nodes + (boxes if r["boxes"] else ", flat")


def grouping(page, above: int) -> None:
    """The page's group_above setting (the "Aa" menu); traces the program shown again."""
    set_group_above(page, above)


STEP = """async (n) => {
  const key = () => document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight', bubbles: true}));
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
  const js = [], framed = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    key();
    js.push(performance.now() - t0);
    await frame();
    framed.push(performance.now() - t0);
  }
  return {js, framed};
}"""

FPS = """async (ms) => {
  const gaps = [];
  let last = performance.now();
  const end = last + ms;
  await new Promise((done) => {
    const tick = (t) => { gaps.push(t - last); last = t; if (t < end) requestAnimationFrame(tick); else done(); };
    requestAnimationFrame(tick);
  });
  return gaps;
}"""


def stepping(page) -> dict:
    """Median and 95th percentile of a step at the open graph, forward and backward."""
    leave_editor(page)
    out = {}
    for phase, at in (("forward", 10), ("backward", None)):
        if at is None:
            total = int(page.locator("#player").get_attribute("data-total"))
            at = total // 2 + 10
        page.locator("#player .scrubber").fill(str(at))
        wait_step(page, at)
        page.evaluate(NEXT_FRAME)
        page.wait_for_function("() => document.querySelector('#graph').dataset.restyling !== 'true'")
        r = page.evaluate(STEP, 40)
        out[phase] = {k: (statistics.median(v), sorted(v)[int(0.95 * len(v)) - 1]) for k, v in r.items()}
    return out


def playing(page) -> dict:
    """Frames per second while the backward pass plays at the top speed."""
    leave_editor(page)
    total = int(page.locator("#player").get_attribute("data-total"))
    page.locator("#player .scrubber").fill(str(total // 2 + 5))
    page.locator("#player .speed").select_option("16")
    leave_editor(page)
    page.keyboard.press(" ")
    gaps = page.evaluate(FPS, 4000)
    page.keyboard.press(" ")
    return {"fps": 1000 * len(gaps) / sum(gaps), "worst": max(gaps)}


def new_page(p, watch_tasks: bool = False):
    """(browser, page): headless Debian Chromium at 1280x800 (`p`: sync_playwright's), its
    page recording its long tasks when `watch_tasks`."""
    browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=BROWSER_ARGS)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    if watch_tasks:
        context.add_init_script(WATCH_TASKS)
    page = context.new_page()
    page.set_default_timeout(120_000)
    return browser, page


def run() -> str:
    m = machine.describe()
    rows = []
    with running_server() as url, sync_playwright() as p:
        browser, page = new_page(p, watch_tasks=True)
        page.goto(url)
        page.wait_for_selector('#app[data-status="ready"]')
        paste(page, "x = 1.0")
        grouping(page, GROUP_ABOVE)
        for name, sizes in PROGRAMS.items():
            for size, program in sizes.items():
                r = open_trace(page, program)
                rows.append(f"| {name}, ~{size:,} nodes | {r['ms'] / 1000:.2f} s ({drawn(r)}) | {r['longest']:.0f} ms |")
        big = big_chain(page)
        steps, play = {}, {}
        for how, above in (("flat", FLAT), ("default", GROUP_ABOVE)):
            paste(page, "x = 1.0")
            grouping(page, above)
            if how == "flat":
                for name, sizes in PROGRAMS.items():
                    r = open_trace(page, sizes[1000])
                    rows.append(f"| {name}, ~1,000 nodes, flat | {r['ms'] / 1000:.2f} s ({drawn(r)}) | {r['longest']:.0f} ms |")
            r = open_trace(page, chain(500))  # 999 nodes
            steps[how] = (drawn(r), stepping(page))
            r = open_trace(page, chain(250))  # 499 nodes
            play[how] = (drawn(r), playing(page))
        browser.close()
    fmt = lambda pair: f"{pair[0]:.1f} / {pair[1]:.1f}"  # noqa: E731
    lines = [
        BEGIN,
        f"Measured {page_date()} on {m['cores']} cores ({m['cpu']}), load {m['load']}, headless "
        "Debian Chromium at 1280x800, by `.venv/bin/python -m bench.page`.",
        "",
        "| program | Trace → first drawing (target: 1,000 nodes ≤ 1.5 s, 5,000 ≤ 3 s) | longest task (≤ 200 ms) |",
        "|---|---|---|",
        *rows,
        "",
        f"| the issue's 50,000-line chain ({2 * BIG_CHAIN_LINES - 1:,} nodes, {3 * BIG_CHAIN_LINES:,} events, overview) | |",
        "|---|---|",
        f"| Trace → first drawing / → every event in | {big['drawn']:.2f} s / {big['ready']:.2f} s |",
        f"| longest task while it opens (Trace → first drawing; ≤ 200 ms) | {big['opening']:.0f} ms |",
        f"| longest task while the rest of the stream arrives | {big['arriving']:.0f} ms |",
        f"| longest task on End, ←, Home, End | {big['end']:.0f} ms |",
        f"| longest task while search opens the boxes around x⁽⁴⁰⁰⁰⁰⁾ ({big['search_s']:.1f} s) | {big['search']:.0f} ms |",
        "",
        "| one step at 999 nodes (chain), ms: median / 95th percentile | the page's work | until the next frame (target < 16) |",
        "|---|---|---|",
        *[f"| {phase} ({what}), {shown} | {fmt(s[phase]['js'])} | {fmt(s[phase]['framed'])} |"
          for shown, s in steps.values()
          for phase, what in (("forward", "evaluate"), ("backward", "accumulate, with its pulse"))],
        "",
        "| playing the backward pass at 16 steps/s, chain of 499 nodes | frames per second (target ≥ 50) | longest frame |",
        "|---|---|---|",
        *[f"| {shown} | {p['fps']:.0f} | {p['worst']:.0f} ms |" for shown, p in play.values()],
        END,
    ]
    return "\n".join(lines)


def page_date() -> str:
    import datetime
    return datetime.date.today().isoformat()


def write(section: str, begin: str = BEGIN, end: str = END, title: str = "The page with big graphs") -> None:
    """Put `section` (from `begin` to `end`) into docs/performance.md: over its last run, or
    at the end under `title`."""
    text = DOC.read_text()
    if begin in text:
        text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: section, text, flags=re.S)
    else:
        text = text.rstrip("\n") + f"\n\n## {title}\n\n" + section + "\n"
    DOC.write_text(text)


if __name__ == "__main__":
    out = run()
    print(out)
    if "--print" not in sys.argv:
        write(out)
