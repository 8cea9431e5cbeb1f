"""Screenshots of the embed and of the explorer's share panel and link message, for a person
to look at (not a test).

    python tests/e2e/shoot_links.py [--url http://127.0.0.1:8123] [--out /tmp/gradwalk-links]

Starts the real server on a free port unless --url is given. Saves the embed at 1000x600
(plain, projector with the program, dark without controls) and the explorer at 1280x800 and
1024x768 (opened from a link, the Share panel, a damaged link's message).
"""
from __future__ import annotations

import pathlib
import shutil
import sys

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from live_server import BROWSER_ARGS, shoot_main  # noqa: E402
from test_links import fragment  # noqa: E402

SIGMOID = ("x = 2.0\nw1 = -0.5\nb1 = 0.5\nw2 = 1.5\nh1 = sigmoid(w1 * x + b1)\n"
           "y = w2 * h1\nL = (y - 1.0) ** 2\n")
EMBEDS = [
    ("embed-step-9", "step=9", {"v": 1, "program": SIGMOID}),
    ("embed-projector-program", "step=14&theme=projector&program=1", {"v": 1, "program": SIGMOID}),
    ("embed-dark-no-controls", "step=999&theme=dark&controls=0", {"v": 1, "program": SIGMOID}),
    ("embed-bad-link", "", None),
]


def shoot(url: str, out: pathlib.Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": 1000, "height": 600})
        page.on("pageerror", lambda e: print("pageerror:", e))
        for name, query, state in EMBEDS:
            hash_ = fragment(state) if state else "s=broken"
            page.goto(f"{url}/embed?{query}#{hash_}")
            page.wait_for_function("() => document.querySelector('#embed').dataset.status !== 'loading'")
            page.wait_for_timeout(900)  # the camera and the pulse settle for the picture
            page.screenshot(path=str(out / f"{name}.png"))
            print(out / f"{name}.png")
        for width, height in [(1280, 800), (1024, 768)]:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(f"{url}/#{fragment({'v': 1, 'program': SIGMOID, 'step': 12})}")
            page.wait_for_selector('#player[data-step="12"]')
            page.wait_for_timeout(900)
            page.screenshot(path=str(out / f"explorer-link-{width}.png"))
            page.click("#share")
            page.click("#copy-embed")
            page.wait_for_timeout(300)
            page.screenshot(path=str(out / f"explorer-share-{width}.png"))
            page.keyboard.press("Escape")
            page.goto(f"{url}/#s=q1YqU7Iy1FEqKMpPL0rMVbJSS")
            page.wait_for_selector("#app[data-status='ready']")
            page.wait_for_timeout(600)
            page.screenshot(path=str(out / f"explorer-bad-link-{width}.png"))
            print(out / f"explorer-*-{width}.png")
        browser.close()


def main() -> None:
    shoot_main(__doc__, "/tmp/gradwalk-links", shoot)


if __name__ == "__main__":
    main()
