"""Screenshots of the explorer for a person to look at (not a test).

    python tests/e2e/shoot.py [--url http://127.0.0.1:8123] [--out /tmp/gradwalk-shots]

Starts the real server (server.main:create_app) on a free port unless --url is given,
then saves PNGs of a few moments of a few presets at projector size (1920x1080).
"""
from __future__ import annotations

import argparse
import pathlib
import shutil
import sys

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from live_server import BROWSER_ARGS, running_server  # noqa: E402

# (preset, steps: a number, or "end"), one screenshot each.
MOMENTS = [
    ("seed-tanh-fanout", 0),
    ("seed-tanh-fanout", 5),
    ("seed-tanh-fanout", 13),
    ("seed-tanh-fanout", 14),
    ("seed-tanh-fanout", "end"),
    ("seed-sigmoid-net", 18),
    ("seed-matmul-2x2", "end"),
    ("seed-bias-broadcast", 12),
    ("seed-bias-broadcast", "end"),
]


def shoot(url: str, out: pathlib.Path, width: int, height: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": width, "height": height})
        page.on("console", lambda m: m.type == "error" and print("console:", m.text))
        page.on("pageerror", lambda e: print("pageerror:", e))
        page.goto(url)
        for preset, steps in MOMENTS:
            page.select_option("#preset", preset)
            page.wait_for_selector(f'#app[data-status="ready"]')
            page.wait_for_function(
                "p => document.querySelector('#preset').value === p"
                " && document.querySelector('#player').dataset.step === '0'", arg=preset)
            page.locator("#graph").click(position={"x": 2, "y": 2})  # focus off the editor
            if steps == "end":
                page.keyboard.press("End")
            else:
                for _ in range(steps):
                    page.keyboard.press("ArrowRight")
            page.wait_for_timeout(900)  # let the pulse finish for the picture
            path = out / f"{preset}-{steps}.png"
            page.screenshot(path=str(path))
            print(path)
        # The graph alone, as a lecturer shows it once the program has been read.
        page.click("#toggle-program")
        page.select_option("#preset", "seed-sigmoid-net")
        page.wait_for_function("() => document.querySelector('#app').dataset.status === 'ready'"
                               " && document.querySelector('#program').value.startsWith('x = 2.0')")
        page.keyboard.press("End")
        page.locator('g.node[data-name="h1"]').hover()
        page.wait_for_timeout(300)
        page.screenshot(path=str(out / "program-hidden.png"))
        print(out / "program-hidden.png")
        page.click("#toggle-program")
        page.locator('g.node[data-name="w2 * h1"]').hover()
        page.screenshot(path=str(out / "hover.png"))
        print(out / "hover.png")
        # An error, with the text kept.
        page.fill("#program", "x = 1.0\ny = x +* 2\n")
        page.keyboard.press("Control+Enter")
        page.wait_for_selector('#app[data-status="error"]')
        page.screenshot(path=str(out / "error.png"))
        print(out / "error.png")
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url")
    parser.add_argument("--out", default="/tmp/gradwalk-shots")
    parser.add_argument("--size", default="1920x1080")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    out = pathlib.Path(args.out)
    if args.url:
        shoot(args.url, out, width, height)
    else:
        with running_server() as url:
            shoot(url, out, width, height)


if __name__ == "__main__":
    main()
