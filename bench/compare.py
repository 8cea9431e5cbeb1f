"""Stepping with "Compare runs" on (issue 16 §2; a review's profile: 5 steps of a 1,200-node
program cost about 750 ms with it on), in headless Debian Chromium at 1280x800.

    .venv/bin/python -m bench.compare            # writes its section of docs/performance.md
    .venv/bin/python -m bench.compare --print    # only prints it
    .venv/bin/python -m bench.compare --before DIR   # and another build's, side by side

`--before DIR`: DIR is a copy of static/ (with its dist built) of the code to compare with; in
the same run, on the same server, a second page gets its /static/ from DIR (the template and the
server are this tree's), and each program is measured on it right before this build, so the
machine's load is about the same for both; the section then has a table of both builds' CPU.

Starts the server (tests/e2e/live_server.py) and opens, by a link, a chain of 1,199 nodes and
the shared-weights program of about 1,200 (tests/e2e/test_big_graphs.py), as the page opens
them by default (groups collapsed over 400 nodes): once alone, once compared with the same
program with its first input nudged (`diff_base`, as "Compare runs" sets it). At a forward
step and a backward step it times STEPS steps (→), ROUNDS times, each step from the key to
the page's work done and to the next frame drawn; the figures are medians over every step of
every round, so one slow round on the shared machine does not set them. Then, in CPU_ROUNDS
rounds more under Chromium's trace, the renderer main thread's CPU time a step (its tasks'
thread time): the load of a shared machine stretches the wall clock of both columns unevenly
(the off column's own figures moved 2x between runs), the thread's CPU far less. Not a test:
compare the two columns of a row.
"""
from __future__ import annotations

import json
import pathlib
import statistics
import sys

from playwright.sync_api import sync_playwright

from bench import machine
from bench.page import NEXT_FRAME, REPO, STEP, new_page, page_date, write

sys.path.insert(0, str(REPO / "tests" / "e2e"))

from live_server import running_server  # noqa: E402
from page_helpers import chain, leave_editor, wait_step  # noqa: E402
from test_big_graphs import shared_weights  # noqa: E402
from test_links import fragment  # noqa: E402

BEGIN = "<!-- BEGIN bench.compare (generated: .venv/bin/python -m bench.compare) -->"
END = "<!-- END bench.compare -->"
ROUNDS = 5
CPU_ROUNDS = 3
STEPS = 10
PROGRAMS = {  # name -> (program, the run compared with: its first input nudged)
    "chain, 1,199 nodes": (chain(600), chain(600).replace("x = 1.0\n", "x = 1.001\n", 1)),
    "shared weights, ~1,200 nodes": (shared_weights(1200), shared_weights(1200).replace("x0 = 0.5", "x0 = 0.501", 1)),
}


def open_link(page, url: str, state: dict) -> int:
    """Open `state` as a link; wait until drawn (and compared, with a diff_base); the total."""
    page.goto("about:blank")   # a fresh page: a link differing only in its fragment does not reload
    page.goto(f"{url}/#{fragment({'v': 1, **state})}")
    page.wait_for_selector('#app[data-status="ready"][data-graph="drawn"]')
    if state.get("diff_base"):
        page.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
    page.evaluate(NEXT_FRAME)
    return int(page.locator("#player").get_attribute("data-total"))


def main_thread_cpu(trace: dict) -> float:
    """The renderer main thread's CPU time (ms) in a Chromium trace: its top-level tasks'
    thread durations, which the machine's load does not stretch as it does the wall clock."""
    events = trace["traceEvents"]
    main = {(e["pid"], e["tid"]) for e in events
            if e.get("name") == "thread_name" and e.get("args", {}).get("name") == "CrRendererMain"}
    return sum(e.get("tdur", 0) for e in events
               if e.get("name") == "RunTask" and e.get("ph") == "X" and (e.get("pid"), e.get("tid")) in main) / 1000


def to_step(page, at: int) -> None:
    page.locator("#player .scrubber").fill(str(at))
    wait_step(page, at)
    leave_editor(page)
    page.evaluate(NEXT_FRAME)
    page.wait_for_function("() => document.querySelector('#graph').dataset.restyling !== 'true'")


def time_steps(browser, page, at: int) -> dict:
    """{js: [ms], framed: [ms], cpu: [ms]} of ROUNDS x STEPS steps from step `at` (js and
    framed by the page's clock), then CPU_ROUNDS traced rounds (cpu: the main thread's CPU a
    step, one figure a round; the trace's own cost kept out of the clock's rounds)."""
    out = {"js": [], "framed": [], "cpu": []}
    for _ in range(ROUNDS):
        to_step(page, at)
        r = page.evaluate(STEP, STEPS)
        for k in ("js", "framed"):
            out[k] += r[k]
    for _ in range(CPU_ROUNDS):
        to_step(page, at)
        page.evaluate(NEXT_FRAME)
        browser.start_tracing(page=page, categories=["devtools.timeline", "disabled-by-default-devtools.timeline"])
        page.evaluate(STEP, STEPS)
        out["cpu"].append(main_thread_cpu(json.loads(browser.stop_tracing())) / STEPS)
    return out


def measure(browser, page, url: str, program: str, base: str) -> dict:
    """{(phase, compared): {js, framed}} for the program alone and compared with `base`."""
    out = {}
    for compared in (False, True):
        state = {"program": program, **({"diff_base": base} if compared else {})}
        total = open_link(page, url, state)
        for phase, at in (("forward", 10), ("backward", total // 2 + 10)):
            out[phase, compared] = time_steps(browser, page, at)
            if compared:   # the comparison followed the steps (mid-walk: the numbers of that step)
                assert page.locator("#diff").get_attribute("data-step") == str(at + STEPS)
    return out


def serving(browser, static: pathlib.Path):
    """A page at 1280x800 whose /static/ comes from the folder `static` (another build's)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.route("**/static/**", lambda route: route.fulfill(
        path=str(static / route.request.url.split("/static/", 1)[1].split("?")[0])))
    page = context.new_page()
    page.set_default_timeout(120_000)
    return page


def cells(r: dict, phase: str, keys) -> str:
    """"off / on (on ÷ off×)" of each of `keys`, medians, for one row of a table."""
    off, on = r[phase, False], r[phase, True]
    med = {k: (statistics.median(off[k]), statistics.median(on[k])) for k in keys}
    return " | ".join(f"{med[k][0]:.1f} / {med[k][1]:.1f} ({med[k][1] / med[k][0]:.2f}×)" for k in keys)


def run(before: pathlib.Path | None = None) -> str:
    m = machine.describe()
    rows, sides = [], []
    with running_server() as url, sync_playwright() as p:
        browser, page = new_page(p)
        old = before and serving(browser, before)
        for name, (program, base) in PROGRAMS.items():
            r0 = old and measure(browser, old, url, program, base)
            r = measure(browser, page, url, program, base)
            for phase in ("forward", "backward"):
                rows.append(f"| {name}, {phase} | {cells(r, phase, ('js', 'framed', 'cpu'))} |")
                if r0:
                    sides.append(f"| {name}, {phase} | {cells(r0, phase, ('cpu',))} | {cells(r, phase, ('cpu',))} |")
        browser.close()
    side = [] if not sides else [
        "",
        f"The main thread's CPU a step, ms, Compare off / on (on ÷ off), in the same run: `{before}` "
        f"(before) and this tree's build (after), each program on one right after the other:",
        "",
        "| main thread CPU a step, ms: off / on (on ÷ off) | before | after |",
        "|---|---|---|",
        *sides,
    ]
    return "\n".join([
        BEGIN,
        f"Measured {page_date()} on {m['cores']} cores ({m['cpu']}), load {m['load']}, headless "
        f"Debian Chromium at 1280x800, by `.venv/bin/python -m bench.compare`: medians of "
        f"{ROUNDS} rounds of {STEPS} steps (→), groups collapsed as the page opens them; the main "
        f"thread's CPU a step from Chromium's trace (thread time, which the load stretches far less), "
        f"median of {CPU_ROUNDS} more rounds.",
        "",
        "| one step, ms: Compare off / on (on ÷ off; target ≤ 1.5×) | the page's work | until the next frame | main thread CPU |",
        "|---|---|---|---|",
        *rows,
        *side,
        END,
    ])


if __name__ == "__main__":
    at = sys.argv.index("--before") + 1 if "--before" in sys.argv else 0
    out = run(pathlib.Path(sys.argv[at]).resolve() if at else None)
    print(out)
    if "--print" not in sys.argv:
        write(out, BEGIN, END, "Stepping with Compare runs on")
