"""Screenshots of issue 15's training language in the page, for a person to look at (not a
test).

    python tests/e2e/shoot_data.py [--url http://127.0.0.1:8123] [--out /tmp/gradwalk-data]

Starts the real server on a free port unless --url is given. At 1280x800 and 1024x768, in the
light and the projector theme: seed 003's XOR network written with `X, y = xor()` and
`cross_entropy(Z, y)`, at its first backward step (the loss's rule, narrated with `y`) and at
"Done"; the three spirals with `randn(..., std=0.5)` weights at "Done".
"""
from __future__ import annotations

import pathlib
import random
import shutil
import sys

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from live_server import BROWSER_ARGS, shoot_main  # noqa: E402
from page_helpers import leave_editor, own_program, wait_step  # noqa: E402
from shoot import pick_theme  # noqa: E402
from shoot_issue9 import _end  # noqa: E402

SIZES = [(1280, 800), (1024, 768)]


def seed_003() -> str:
    """Seed 003's network at step 0: its 22 weights from random.seed(1), as literals."""
    random.seed(1)
    w = [round(random.uniform(-1, 1), 4) for _ in range(22)]
    rows = lambda v, n: [v[k:k + n] for k in range(0, len(v), n)]  # noqa: E731
    return (f"X, y = xor()\nW1 = {rows(w[0:8], 2)}\nb1 = {w[8:12]}\nW2 = {rows(w[12:20], 4)}\n"
            f"b2 = {w[20:22]}\nH = relu(X @ W1.T + b1)\nZ = H @ W2.T + b2\n"
            "L = cross_entropy(Z, y)\n")


SPIRALS = ("X, y = spirals(100, 3, seed=0)\nW1 = randn(2, 64, seed=1, std=0.5)\n"
           "b1 = zeros(64)\nW2 = randn(64, 3, seed=2, std=0.5)\nb2 = zeros(3)\n"
           "H = relu(X @ W1 + b1)\nL = cross_entropy(H @ W2 + b2, y)\n")


def shoot(url: str, out: pathlib.Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=BROWSER_ARGS)
        for width, height in SIZES:
            for theme in ("light", "projector"):
                name = f"{width}x{height}-{theme}"
                context = browser.new_context(viewport={"width": width, "height": height})
                page = context.new_page()
                page.on("pageerror", lambda e: print("pageerror:", e))
                page.goto(url)
                page.wait_for_selector('#app[data-status="ready"]')
                pick_theme(page, theme)
                own_program(page, seed_003())
                leave_editor(page)
                # 14 forward steps, the seed, then the loss's rule (narrated with y)
                forward = int(page.locator("#player").get_attribute("data-total"))
                for _ in range(16):
                    page.keyboard.press("ArrowRight")
                wait_step(page, min(16, forward))
                page.wait_for_timeout(900)
                page.screenshot(path=out / f"xor-loss-step-{name}.png")
                _end(page)
                page.screenshot(path=out / f"xor-done-{name}.png")
                own_program(page, SPIRALS)
                _end(page)
                page.screenshot(path=out / f"spirals-done-{name}.png")
                context.close()
        browser.close()
    print(f"saved to {out}")


def main() -> None:
    shoot_main(__doc__, "/tmp/gradwalk-data", shoot)


if __name__ == "__main__":
    main()
