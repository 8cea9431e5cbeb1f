"""Screenshots of issue 14's "numbers a student sees", for a person to look at (not a test).

    python tests/e2e/shoot_numbers.py [--url http://127.0.0.1:8123] [--out /tmp/gradwalk-numbers]

Starts the real server on a free port unless --url is given. At 1280x800 and 1024x768, in the
light and the projector theme, at "Done": the detach preset (b's gradient box), a node the
output does not use (its tag and the warning strip), an underflow (the marked node and the
note), and a confident cross-entropy (no negative zero).
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from live_server import shoot_main  # noqa: E402
from page_helpers import choose, own_program  # noqa: E402
from shoot import browser_for_shots, themed_pages  # noqa: E402
from shoot_issue9 import _end  # noqa: E402
from test_numbers_page import CONFIDENT, UNDERFLOW, UNUSED  # noqa: E402

SIZES = [(1280, 800), (1024, 768)]


def shoot(url: str, out: pathlib.Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with browser_for_shots() as browser:
        for page, name in themed_pages(browser, url, SIZES):
            choose(page, "bug-detach")
            _end(page)
            page.screenshot(path=out / f"detach-done-{name}.png")
            for key, text in (("unused", UNUSED), ("underflow", UNDERFLOW),
                              ("confident", CONFIDENT)):
                own_program(page, text)
                _end(page)
                page.screenshot(path=out / f"{key}-done-{name}.png")
    print(f"saved to {out}")


def main() -> None:
    shoot_main(__doc__, "/tmp/gradwalk-numbers", shoot)


if __name__ == "__main__":
    main()
