"""Screenshots of a loop-written program (issue 18 §4) for a person to look at (not a test).

    python tests/e2e/shoot_loops.py [--out /tmp/gradwalk-loops]

A neuron written with a `for` loop, micrograd's `.tanh()` and a tuple assignment, at 1280x800
and 1024x768 (light and projector): its groups collapsed (the loop a box), then the loop
opened mid-way through the backward pass (a box per iteration, `for i in range(3): i = 1`).
"""
from __future__ import annotations

import argparse
import pathlib
import shutil
import sys

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from live_server import BROWSER_ARGS, running_server  # noqa: E402
from page_helpers import leave_editor, open_group_near_the_end, set_group_above, trace  # noqa: E402
from shoot import themed_pages  # noqa: E402
from shoot_navigate import save  # noqa: E402

NEURON = """inputs = [0.5, -1.5, 2.0]
weights = [-0.2, 0.9, 0.4]
bias = 0.05
act = bias
for i in range(3):
    act = act + weights[i] * inputs[i]
h, g = act.tanh(), act.sigmoid()
L = h * g
"""


def shoot(url: str, out: pathlib.Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=BROWSER_ARGS)
        for page, name in themed_pages(browser, url, ((1280, 800), (1024, 768))):
            page.set_default_timeout(60_000)
            set_group_above(page, 0)
            trace(page, NEURON)
            save(page, out, f"loop-collapsed-{name}")
            leave_editor(page)
            open_group_near_the_end(page, "for i in range(3)", 12)
            save(page, out, f"loop-open-backward-{name}")
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="/tmp/gradwalk-loops")
    out = pathlib.Path(parser.parse_args().out)
    with running_server() as url:
        shoot(url, out)


if __name__ == "__main__":
    main()
