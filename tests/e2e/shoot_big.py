"""Screenshots of big graphs in the explorer (issue 8) for a person to look at (not a test).

    python tests/e2e/shoot_big.py [--url http://127.0.0.1:8123] [--out /tmp/gradwalk-big]
                                  [--size 1280x800]

The shared-weights program with its reference chips (stepped into the backward pass, a `+=`
on a chip; then one chip's fan-out shown), the one-line fan-in of 600 nodes, the layout's
progress while the worker runs, the overview of a 5,000-node chain, and a big draft waiting
for Trace after a reload.
"""
from __future__ import annotations

import argparse
import pathlib
import shutil
import sys

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from live_server import BROWSER_ARGS, running_server  # noqa: E402
from page_helpers import chain, leave_editor, paste, wait_step  # noqa: E402
from test_big_graphs import fan_in, shared_weights  # noqa: E402


def ready(page, text: str) -> None:
    paste(page, text)
    page.locator("#trace").click()
    page.wait_for_selector('#app[data-status="ready"]')


def save(page, out: pathlib.Path, name: str) -> None:
    page.wait_for_selector('#graph[data-camera="still"]')
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    page.screenshot(path=str(out / f"{name}.png"))
    print(out / f"{name}.png")


def shoot(url: str, out: pathlib.Path, size: str) -> None:
    width, height = (int(x) for x in size.split("x"))
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": width, "height": height})
        page.set_default_timeout(60_000)
        page.goto(url)
        page.wait_for_selector('#app[data-status="ready"]')
        ready(page, shared_weights(300))
        save(page, out, f"shared-open-{size}")
        leave_editor(page)
        total = int(page.locator("#player").get_attribute("data-total"))
        page.locator("#player .scrubber").fill(str(total - 40))
        leave_editor(page)
        for step in range(total - 39, total - 30):  # to an accumulate along a chip
            page.keyboard.press("ArrowRight")
            wait_step(page, step)
            if page.locator("g.chip.active").count():
                break
        save(page, out, f"shared-chip-callout-{size}")
        page.locator("g.chip.active").dispatch_event("click")
        save(page, out, f"shared-fanout-{size}")
        ready(page, fan_in(200))
        save(page, out, f"fan-in-600-{size}")
        paste(page, chain(650))  # 1,299 nodes: a second or two in the worker
        page.locator("#trace").click()
        page.wait_for_selector('#graph-message[data-progress]')
        page.screenshot(path=str(out / f"layout-progress-{size}.png"))
        print(out / f"layout-progress-{size}.png")
        page.wait_for_selector('#app[data-status="ready"]')
        ready(page, chain(2500))
        page.screenshot(path=str(out / f"overview-5000-{size}.png"))
        print(out / f"overview-5000-{size}.png")
        page.wait_for_function("() => (localStorage.getItem('gradwalk.editor.v1') || '').length > 30000")
        page.reload()
        page.wait_for_selector('#app[data-status="waiting"]')
        page.screenshot(path=str(out / f"big-draft-waiting-{size}.png"))
        print(out / f"big-draft-waiting-{size}.png")
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url")
    parser.add_argument("--out", default="/tmp/gradwalk-big")
    parser.add_argument("--size", default="1280x800")
    args = parser.parse_args()
    if args.url:
        shoot(args.url, pathlib.Path(args.out), args.size)
    else:
        with running_server() as url:
            shoot(url, pathlib.Path(args.out), args.size)


if __name__ == "__main__":
    main()
