"""Screenshots of Train mode (issue 15 §3) for a person to look at (not a test).

    python tests/e2e/shoot_train.py [--url http://127.0.0.1:8123] [--out /tmp/gradwalk-train]

Starts the real server on a free port unless --url is given. At 1280x800 and 1024x768, in the
light and the projector theme: "XOR, seed 003" trained (the curve at 0.0132, the boundary
formed), its iteration 100 chosen (the panel at iteration 100; its link and embed opened
afresh), then stepped to its first update with the program hidden;
seed 5 trained (the dead unit on its node); the no_zero_grad bug beside the fix; the three
spirals at step 0 and trained; XOR with tanh units trained (the output's boundary and its
outputs); a run that diverges (stopped at iteration 47).
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from live_server import shoot_main  # noqa: E402
from page_helpers import choose, trace  # noqa: E402
from shoot import browser_for_shots, themed_pages  # noqa: E402

SIZES = [(1280, 800), (1024, 768)]


def trained(page, preset: str) -> None:
    choose(page, preset)
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]', timeout=120_000)
    page.wait_for_timeout(300)


def first_update(page) -> None:
    """Iteration 100 recorded, stepped to its first update, the program hidden."""
    slider = page.locator("#train-iteration")
    slider.fill("100")
    slider.dispatch_event("change")
    page.wait_for_selector('#player[data-iteration="100"]')
    page.wait_for_selector('#app[data-status="ready"]')
    page.click("#toggle-program")
    page.locator("#graph").click(position={"x": 2, "y": 2})
    while page.locator("#player .phase").inner_text() != "update":
        page.keyboard.press("ArrowRight")
    page.wait_for_timeout(900)


def link_shots(page, out: pathlib.Path, name: str) -> None:
    """Iteration 100 chosen (the panel describes it), and its link and embed opened afresh."""
    page.locator("#train-iteration").fill("100")
    page.click("#train-open")
    page.wait_for_selector('#train-status[data-iteration="100"]')
    page.wait_for_selector('#app[data-status="ready"]')
    page.locator("#graph").click(position={"x": 2, "y": 2})
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(900)
    page.screenshot(path=out / f"xor-iteration-100-chosen-{name}.png")
    url = page.evaluate("location.href")
    for where, ready in ((url, "#train-status[data-iteration='100']"),
                         (url.replace("/#", "/embed#"), "#embed[data-status='ready']")):
        other = page.context.new_page()
        other.goto(where)
        other.wait_for_selector(ready, timeout=30_000)
        other.wait_for_timeout(900)
        kind = "embed" if "/embed#" in where else "link"
        other.screenshot(path=out / f"xor-iteration-100-{kind}-{name}.png")
        other.close()


def diverged(page) -> None:
    """w · w at lr 1000: the loss is infinite at iteration 47, where the page stops."""
    trace(page, "w = [1.0, -2.0]\nL = sum(w * w)\n")
    for field, value in (("#train-lr", "1000"), ("#train-steps", "100")):
        page.fill(field, value)
        page.locator(field).dispatch_event("change")
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="diverged"]')
    page.wait_for_timeout(300)


def shoot(url: str, out: pathlib.Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with browser_for_shots() as browser:
        for page, name in themed_pages(browser, url, SIZES):
            trained(page, "train-xor-seed1")
            page.screenshot(path=out / f"xor-trained-{name}.png")
            link_shots(page, out, name)
            first_update(page)
            page.screenshot(path=out / f"xor-iteration-100-update-{name}.png")
            page.click("#toggle-program")
            trained(page, "train-xor-seed5")
            page.screenshot(path=out / f"seed5-dead-{name}.png")
            trained(page, "train-no-zero-grad")
            page.screenshot(path=out / f"no-zero-grad-{name}.png")
            choose(page, "train-spirals")
            page.wait_for_selector('#graph[data-camera="still"]')
            page.screenshot(path=out / f"spirals-step0-{name}.png")
            trained(page, "train-spirals")
            page.screenshot(path=out / f"spirals-{name}.png")
            trained(page, "train-xor-tanh")
            page.screenshot(path=out / f"xor-tanh-{name}.png")
            diverged(page)
            page.screenshot(path=out / f"diverged-{name}.png")
    print(f"saved to {out}")


def main() -> None:
    shoot_main(__doc__, "/tmp/gradwalk-train", shoot)


if __name__ == "__main__":
    main()
