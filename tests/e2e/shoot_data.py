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
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from live_server import shoot_main  # noqa: E402
from page_helpers import own_program, step_forward  # noqa: E402
from shoot import browser_for_shots, themed_pages  # noqa: E402
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
    with browser_for_shots() as browser:
        for page, name in themed_pages(browser, url, SIZES):
            own_program(page, seed_003())
            step_forward(page, 16)   # 14 forward steps, the seed, the loss's rule (with y)
            page.wait_for_timeout(900)
            page.screenshot(path=out / f"xor-loss-step-{name}.png")
            _end(page)
            page.screenshot(path=out / f"xor-done-{name}.png")
            own_program(page, SPIRALS)
            _end(page)
            page.screenshot(path=out / f"spirals-done-{name}.png")
    print(f"saved to {out}")


def main() -> None:
    shoot_main(__doc__, "/tmp/gradwalk-data", shoot)


if __name__ == "__main__":
    main()
