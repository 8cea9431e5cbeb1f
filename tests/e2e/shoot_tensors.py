"""Screenshots of tensor programs for a person to look at (not a test).

    python tests/e2e/shoot_tensors.py [--url http://127.0.0.1:8123] [--out /tmp/gradwalk-tensors]

Starts the real server unless --url is given and saves PNGs of a linear layer (heat maps on
the nodes, shapes on the edges, the detail panel), of a value over the inline limit (fetched
in full in the detail panel) and of a program whose gradient is not finite, at 1280x800 and
1024x768.
"""
from __future__ import annotations

import argparse
import pathlib
import shutil
import sys

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from live_server import BROWSER_ARGS, running_server  # noqa: E402
from page_helpers import paste  # noqa: E402

LINEAR = """X = [[1.0, -2.0, 0.5], [0.3, 0.8, -1.2], [-0.7, 0.1, 2.0], [1.5, -0.4, 0.2]]
W = [[0.5, -0.3], [0.2, 0.8], [-0.6, 0.4]]
b = [0.1, -0.2]
L = sum(tanh(X @ W + b))
"""
BIG = "X = [" + ", ".join("[" + ", ".join(f"{(i * 10 + j) % 7 - 3}.0" for j in range(10)) + "]"
                          for i in range(10)) + "]\nW = [" + ", ".join(
    "[" + ", ".join(f"{((i + j) % 5 - 2) / 4}" for j in range(4)) + "]" for i in range(10)) + \
    "]\nL = sum(tanh(X @ W))\n"
NONFINITE = "x = [1.0, -2.0, 4.0]\ny = log(x)\nL = sum(y * x)\n"


def trace_text(page, text: str) -> None:
    paste(page, text)
    page.click("#trace")
    page.wait_for_function("() => !['loading', 'streaming'].includes(document.querySelector('#app').dataset.status)")
    page.locator("#graph").click(position={"x": 2, "y": 2})  # the keys to the player


def shots(page, out: pathlib.Path, size: str) -> None:
    def save(name):
        page.wait_for_timeout(900)
        path = out / f"{name}-{size}.png"
        page.screenshot(path=str(path))
        print(path)

    trace_text(page, LINEAR)
    for _ in range(9):
        page.keyboard.press("ArrowRight")
    save("linear-forward")
    page.keyboard.press("End")
    save("linear-end")
    page.locator('g.node[data-name="X @ W"]').click()
    save("linear-detail")
    trace_text(page, BIG)
    page.keyboard.press("End")
    page.locator('g.node[data-name="X @ W"]').click()
    save("big-detail")
    trace_text(page, NONFINITE)
    page.keyboard.press("End")
    save("nonfinite")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url")
    parser.add_argument("--out", default="/tmp/gradwalk-tensors")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    def run(url: str) -> None:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=BROWSER_ARGS)
            for w, h in ((1280, 800), (1024, 768)):
                page = browser.new_page(viewport={"width": w, "height": h})
                page.on("console", lambda m: m.type == "error" and print("console:", m.text))
                page.on("pageerror", lambda e: print("pageerror:", e))
                page.goto(url)
                page.wait_for_selector('#app[data-status="ready"]')
                shots(page, out, f"{w}x{h}")
                page.close()
            browser.close()

    if args.url:
        run(args.url)
    else:
        with running_server() as url:
            run(url)


if __name__ == "__main__":
    main()
