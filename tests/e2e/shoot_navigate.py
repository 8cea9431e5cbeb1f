"""Screenshots of the navigation tools (issue 8, section 2) for a person to look at (not a test).

    python tests/e2e/shoot_navigate.py [--url http://127.0.0.1:8123] [--out /tmp/gradwalk-nav]
                                       [--size 1280x800]

The shared-weights program with the search box open on a node it went to and the minimap;
the minimap after a pan; the first preset with d selected and its inputs, then its
consumers, traced; search in the overview of a 5,000-node chain.
"""
from __future__ import annotations

import argparse
import pathlib
import shutil
import sys

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from live_server import BROWSER_ARGS, running_server  # noqa: E402
from page_helpers import chain, leave_editor, paste  # noqa: E402
from test_big_graphs import shared_weights  # noqa: E402


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
        page.locator('g.node[data-name="d"]').click()
        page.locator("#trace-inputs").click()
        save(page, out, f"trace-inputs-d-{size}")
        page.locator("#trace-consumers").click()
        save(page, out, f"trace-consumers-d-{size}")
        ready(page, shared_weights(300))
        leave_editor(page)
        page.keyboard.press("/")
        page.locator("#graph-search-input").fill("x15")
        page.locator("#graph-search-input").press("Enter")
        save(page, out, f"search-x15-{size}")
        page.locator("#graph-search-input").press("Escape")
        box = page.locator("#graph").bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] / 2 - 400, box["y"] + box["height"] / 2 - 100, steps=5)
        page.mouse.up()
        save(page, out, f"minimap-panned-{size}")
        ready(page, chain(2500))
        leave_editor(page)
        page.keyboard.press("/")
        page.screenshot(path=str(out / f"search-overview-{size}.png"))
        print(out / f"search-overview-{size}.png")
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url")
    parser.add_argument("--out", default="/tmp/gradwalk-nav")
    parser.add_argument("--size", default="1280x800")
    args = parser.parse_args()
    if args.url:
        shoot(args.url, pathlib.Path(args.out), args.size)
    else:
        with running_server() as url:
            shoot(url, pathlib.Path(args.out), args.size)


if __name__ == "__main__":
    main()
