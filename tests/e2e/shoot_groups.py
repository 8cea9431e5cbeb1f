"""Screenshots of groups (issue 8, section 2) for a person to look at (not a test).

    python tests/e2e/shoot_groups.py [--url http://127.0.0.1:8123] [--out /tmp/gradwalk-groups]
                                     [--size 1280x800]

A 5,000-node chain opened collapsed; the same chain mid-way through the backward pass, a
box lit as the gradient crosses it; a `with group("layer1"):` program (opened collapsed by
the page option) expanded, at the end of the walk. Prints Trace-to-first-drawing times.
"""
from __future__ import annotations

import argparse
import pathlib
import shutil
import sys
import time

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from live_server import BROWSER_ARGS, running_server  # noqa: E402
from page_helpers import chain, leave_editor, open_group_near_the_end, paste, wait_step  # noqa: E402
from shoot_navigate import save  # noqa: E402
from test_groups_page import LAYER1  # noqa: E402


def drawn_after_trace(page, text: str) -> float:
    """Trace `text`; seconds from the click until the graph is drawn; then wait until ready."""
    paste(page, text)
    page.eval_on_selector("#app", "app => { app.dataset.graph = 'before'; }")  # not the last drawing's
    start = time.perf_counter()
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-graph="drawn"]', timeout=120_000)
    seconds = time.perf_counter() - start
    page.wait_for_selector('#app[data-status="ready"][data-graph="drawn"]', timeout=120_000)
    return seconds


def shoot(url: str, out: pathlib.Path, size: str) -> None:
    width, height = (int(x) for x in size.split("x"))
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": width, "height": height})
        page.set_default_timeout(120_000)
        page.goto(url)
        page.wait_for_selector('#app[data-status="ready"]')
        for lines in (500, 2500):
            seconds = drawn_after_trace(page, chain(lines))
            print(f"chain of {2 * lines - 1} nodes: Trace to first drawn graph {seconds:.2f} s")
        save(page, out, f"chain-5000-collapsed-{size}")
        leave_editor(page)
        page.locator("#player .scrubber").fill("5300")  # the backward pass, near the start of the chain
        wait_step(page, 5300)
        save(page, out, f"chain-5000-backward-{size}")
        page.locator("#view-menu summary").click()
        page.locator("#group-above").fill("0")
        page.locator("#group-above").dispatch_event("change")
        page.locator("#view-menu summary").click()
        drawn_after_trace(page, LAYER1)
        save(page, out, f"layer1-collapsed-{size}")
        leave_editor(page)
        total = int(page.locator("#player").get_attribute("data-total"))
        page.locator("#player .scrubber").fill(str(total - 6))
        wait_step(page, total - 6)
        save(page, out, f"layer1-collapsed-backward-{size}")
        open_group_near_the_end(page, "layer1", 6)
        save(page, out, f"layer1-expanded-backward-{size}")
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag, default in (("--url", None), ("--out", "/tmp/gradwalk-groups"), ("--size", "1280x800")):
        parser.add_argument(flag, default=default)
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    if args.url:
        return shoot(args.url, out, args.size)
    with running_server() as url:
        shoot(url, out, args.size)


if __name__ == "__main__":
    main()
