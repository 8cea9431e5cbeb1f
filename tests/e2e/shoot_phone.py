"""Screenshots of the explorer and the embed on a phone and a tablet (issue 17, section 2),
with touch emulation, and of the wide layouts that must not move (not a test).

    python tests/e2e/shoot_phone.py [--url http://127.0.0.1:8123] [--out /tmp/gradwalk-phone]

Starts the real server on a free port unless --url is given.
"""
from __future__ import annotations

import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from live_server import running_server  # noqa: E402
from page_helpers import choose  # noqa: E402
from shoot import browser_for_shots  # noqa: E402
from test_links import fragment  # noqa: E402

TANH = "a = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n"
TOUCH = [(390, 844), (820, 1180)]
WIDE = [(1280, 800), (1024, 768)]


def shoot(browser, url: str, out: pathlib.Path) -> None:
    link = fragment({"v": 1, "program": TANH, "step": 9})
    for (width, height), touch in [*((s, True) for s in TOUCH), *((s, False) for s in WIDE)]:
        extra = {"has_touch": True, "is_mobile": True, "device_scale_factor": 2} if touch else {}
        context = browser.new_context(viewport={"width": width, "height": height}, **extra)
        page = context.new_page()
        page.on("pageerror", lambda e: print("pageerror:", e))
        name = f"{width}x{height}"
        page.goto(f"{url}/#{link}")
        page.wait_for_selector('#app[data-status="ready"]')
        page.wait_for_selector('#graph[data-camera="still"]')
        page.screenshot(path=str(out / f"{name}-explorer.png"))
        if touch:
            page.locator('g.node[data-name="t"]').tap()
            page.wait_for_selector("#detail:not([hidden])")
            page.screenshot(path=str(out / f"{name}-detail.png"))
            page.locator("#detail .close").tap()
            page.locator("#toggle-program").tap()
            page.screenshot(path=str(out / f"{name}-edit.png"), full_page=True)
        page.goto(f"{url}/embed#{link}")
        page.wait_for_selector('#embed[data-status="ready"]')
        page.wait_for_selector('#graph[data-camera="still"]')
        page.screenshot(path=str(out / f"{name}-embed.png"))
        context.close()
        print("shot", name)


def touch_context(browser, size):
    return browser.new_context(viewport={"width": size[0], "height": size[1]}, has_touch=True, is_mobile=True,
                               device_scale_factor=2)


def shoot_views(browser, url: str, out: pathlib.Path) -> None:
    """The automatic view at step 0, mid-walk and Done; a phone sideways; the projector
    theme, the quiz, the Hessian and Train mode on a phone."""
    for size in [*TOUCH, (844, 390)]:
        context = touch_context(browser, size)
        page = context.new_page()
        name = f"{size[0]}x{size[1]}"
        for step in (0, 9, 16):
            page.goto(f"{url}/#{fragment({'v': 1, 'program': TANH, 'step': step})}")
            page.wait_for_selector('#app[data-status="ready"]')
            page.wait_for_selector('#graph[data-camera="still"]')
            page.screenshot(path=str(out / f"{name}-auto-{step}.png"))
        context.close()
    context = touch_context(browser, TOUCH[0])
    page = context.new_page()
    page.goto(f"{url}/#{fragment({'v': 1, 'program': TANH, 'step': 9})}")
    page.wait_for_selector('#app[data-status="ready"]')
    page.locator("#view-menu summary").tap()
    page.select_option("#theme", "projector")
    page.locator("#view-menu summary").tap()
    page.wait_for_selector('#graph[data-camera="still"]')
    page.screenshot(path=str(out / "390x844-projector.png"))
    page.goto(f"{url}/#{fragment({'v': 1, 'program': TANH, 'quiz': 'fanout', 'step': 16})}")
    page.wait_for_selector('#quiz[data-quiz="ready"]')
    page.wait_for_selector('#graph[data-camera="still"]')
    # (a full-page shot drops the touch emulation, and with it the narrow layout: screens)
    page.screenshot(path=str(out / "390x844-quiz.png"))
    page.locator("#quiz").scroll_into_view_if_needed()
    page.screenshot(path=str(out / "390x844-quiz-panel.png"))
    context.close()
    for size in TOUCH:  # the side column's panels, and Train mode's band over the graph
        context = touch_context(browser, size)
        page = context.new_page()
        name = f"{size[0]}x{size[1]}"
        for preset, shot in (("hessian-power-iteration", "hessian"), ("train-xor-seed1", "train")):
            page.goto(f"{url}/")
            page.wait_for_selector('#app[data-status="ready"]')
            choose(page, preset)
            page.locator("#toggle-program").tap()
            if shot == "train":
                page.locator("#train-run").tap()
                page.wait_for_selector('#train[data-status="done"]', timeout=120_000)
            panel = page.locator("#second-order" if shot == "hessian" else "#train")
            panel.scroll_into_view_if_needed()
            page.screenshot(path=str(out / f"{name}-{shot}.png"))
            page.evaluate("(e) => window.scrollTo(0, e.getBoundingClientRect().bottom + scrollY - innerHeight + 200)",
                          panel.element_handle())
            page.screenshot(path=str(out / f"{name}-{shot}-end.png"))
    context.close()
    print("shot views")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url")
    parser.add_argument("--out", default="/tmp/gradwalk-phone")
    args = parser.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with browser_for_shots() as browser:
        if args.url:
            shoot(browser, args.url, out)
            shoot_views(browser, args.url, out)
        else:
            with running_server() as url:
                shoot(browser, url, out)
                shoot_views(browser, url, out)


if __name__ == "__main__":
    main()
