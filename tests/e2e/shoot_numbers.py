"""Screenshots of issue 14's "numbers a student sees", for a person to look at (not a test).

    python tests/e2e/shoot_numbers.py [--url http://127.0.0.1:8123] [--out /tmp/gradwalk-numbers]

Starts the real server on a free port unless --url is given. At 1280x800 and 1024x768, in the
light and the projector theme, at "Done": the detach preset (b's gradient box), a node the
output does not use (its tag and the warning strip), an underflow (the marked node and the
note), and a confident cross-entropy (no negative zero).
"""
from __future__ import annotations

import pathlib
import shutil
import sys

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from live_server import BROWSER_ARGS, shoot_main  # noqa: E402
from page_helpers import choose, own_program  # noqa: E402
from shoot import pick_theme  # noqa: E402
from shoot_issue9 import _end  # noqa: E402
from test_numbers_page import CONFIDENT, UNDERFLOW, UNUSED  # noqa: E402

SIZES = [(1280, 800), (1024, 768)]


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
                choose(page, "bug-detach")
                _end(page)
                page.screenshot(path=out / f"detach-done-{name}.png")
                for key, text in (("unused", UNUSED), ("underflow", UNDERFLOW),
                                  ("confident", CONFIDENT)):
                    own_program(page, text)
                    _end(page)
                    page.screenshot(path=out / f"{key}-done-{name}.png")
                context.close()
        browser.close()
    print(f"saved to {out}")


def main() -> None:
    shoot_main(__doc__, "/tmp/gradwalk-numbers", shoot)


if __name__ == "__main__":
    main()
