"""Screenshots of issue 16's quiz, for a person to look at (not a test).

    python tests/e2e/shoot_quiz.py [--url http://127.0.0.1:8123] [--out /tmp/gradwalk-quiz]

Starts the real server on a free port unless --url is given. At 1280x800 and 1024x768, in the
light and the projector theme: the tanh fan-out quiz link stopped before ā, 1.5729 answered
(the overwrite mistake named), the score at the end, then New numbers (a fresh quiz); the diff of a = 1.0 against a = 1.001 at
Done; and the embed asking, in a deck-sized frame.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from live_server import shoot_main  # noqa: E402
from page_helpers import trace  # noqa: E402
from shoot import browser_for_shots, themed_pages  # noqa: E402
from test_links import fragment  # noqa: E402
from test_quiz_page import TANH, answer  # noqa: E402

SIZES = [(1280, 800), (1024, 768)]


def shoot(url: str, out: pathlib.Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    link = f"{url}/#{fragment({'v': 1, 'program': TANH, 'quiz': 'fanout', 'step': 16})}"
    with browser_for_shots() as browser:
        for page, name in themed_pages(browser, link, SIZES):
            page.wait_for_selector('#quiz[data-quiz="ready"][data-asking="n0"]')
            page.wait_for_selector('#graph[data-camera="still"]')
            page.screenshot(path=out / f"ask-{name}.png")
            answer(page, "1.5729")
            page.wait_for_timeout(500)
            page.screenshot(path=out / f"wrong-{name}.png")
            answer(page, "0.7864")
            page.locator("#narration").click()
            page.keyboard.press("End")
            page.wait_for_selector("#quiz[data-score]")
            page.wait_for_timeout(500)
            page.screenshot(path=out / f"score-{name}.png")
            page.locator("#quiz-new-numbers").click()   # a fresh quiz: the score is gone
            page.wait_for_selector('#app[data-status="ready"]')
            page.wait_for_selector('#quiz[data-quiz="ready"]')
            page.wait_for_timeout(500)
            page.screenshot(path=out / f"new-numbers-{name}.png")
        for page, name in themed_pages(browser, url, SIZES):   # edit and diff: a = 1.0 vs 1.001
            page.locator("#diff-toggle").check()
            trace(page, TANH.replace("a = 1.0", "a = 1.001"))
            page.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
            page.locator("#narration").click()
            page.keyboard.press("End")
            page.wait_for_selector('#graph[data-camera="still"]')
            page.wait_for_timeout(400)
            page.screenshot(path=out / f"diff-{name}.png")
        for width, height, theme in ((1000, 600, "light"), (1000, 600, "projector")):
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(f"{url}/embed?theme={theme}#{fragment({'v': 1, 'program': TANH, 'quiz': 'fanout', 'step': 16})}")
            page.wait_for_selector('#quiz[data-quiz="ready"][data-asking="n0"]')
            answer(page, "-0.7864")
            page.wait_for_timeout(500)
            page.screenshot(path=out / f"embed-wrong-{width}x{height}-{theme}.png")
            page.close()
    print(f"saved to {out}")


def main() -> None:
    shoot_main(__doc__, "/tmp/gradwalk-quiz", shoot)


if __name__ == "__main__":
    main()
