"""Screenshots of issue 9's page review items, for a person to look at (not a test).

    python tests/e2e/shoot_issue9.py [--url http://127.0.0.1:8123] [--out /tmp/gradwalk-issue9]

Starts the real server on a free port unless --url is given. At 1280x800 and 1024x768: the
Hessian preset (the side panel, the enlarged Hessian, the program hidden), the no_grad and
detach presets at "Done" (the marks and the warning strip), the bug-overwrite preset at step
15 (the minimap beside b's += callout), and forward mode on a tensor leaf's direction.
"""
from __future__ import annotations

import pathlib
import shutil
import sys

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from live_server import BROWSER_ARGS, shoot_main  # noqa: E402
from page_helpers import choose, leave_editor, wait_step  # noqa: E402

SIZES = [(1280, 800), (1024, 768)]


def _end(page) -> None:
    leave_editor(page)
    page.keyboard.press("End")
    wait_step(page, int(page.locator("#player").get_attribute("data-total")))
    page.wait_for_timeout(900)  # the last pulse and the camera settle (a picture, not a test)


def shoot(url: str, out: pathlib.Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=BROWSER_ARGS)
        for width, height in SIZES:
            size = f"{width}x{height}"
            context = browser.new_context(viewport={"width": width, "height": height})
            page = context.new_page()
            page.on("pageerror", lambda e: print("pageerror:", e))
            page.goto(url)
            page.wait_for_selector('#app[data-status="ready"]')

            choose(page, "hessian-power-iteration")
            page.wait_for_timeout(600)
            page.screenshot(path=out / f"hessian-panel-{size}.png")
            page.click("#hessian-enlarge")
            page.wait_for_selector("#hessian-dialog[open]")
            page.wait_for_timeout(300)
            page.screenshot(path=out / f"hessian-enlarged-{size}.png")
            page.keyboard.press("Escape")
            page.click("#toggle-program")
            page.wait_for_timeout(600)
            page.screenshot(path=out / f"hessian-program-hidden-{size}.png")
            page.click("#toggle-program")

            for preset in ("bug-no-grad", "bug-detach"):
                choose(page, preset)
                _end(page)
                page.screenshot(path=out / f"{preset}-done-{size}.png")

            choose(page, "bug-overwrite")
            leave_editor(page)
            for _ in range(15):
                page.keyboard.press("ArrowRight")
            wait_step(page, 15)
            page.wait_for_timeout(900)
            page.screenshot(path=out / f"bug-overwrite-step15-{size}.png")

            choose(page, "seed-matmul-2x2")
            page.select_option("#mode", "forward")
            page.wait_for_selector('#app[data-status="ready"]')
            page.select_option("#tangent-leaf", "W")
            page.wait_for_selector('#app[data-status="ready"]')
            page.select_option("#tangent-element", "3")
            _end(page)
            page.screenshot(path=out / f"forward-element-{size}.png")
            context.close()
        browser.close()
    print(f"saved to {out}")


def main() -> None:
    shoot_main(__doc__, "/tmp/gradwalk-issue9", shoot)


if __name__ == "__main__":
    main()
