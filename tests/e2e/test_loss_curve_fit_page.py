"""A newcomer's loss-curve findings: the bug lab's legend ("with zero_grad", "no zero_grad")
lay on the curves and was cut off at 1024x768; a 3,000-iteration run's x labels read
"1,0002,000" at 1024x768. The legend sits whole in rows over the plot, clear of every curve,
tick label and title; no two tick labels touch. Every wait is on a data-* attribute."""
from __future__ import annotations

import pathlib

import pytest
from page_helpers import choose, choose_theme

SHOTS = pathlib.Path("/tmp/gradwalk-train-shots")
SIZES = [((1024, 768), None), ((1024, 768), "projector"), ((1280, 800), None), ((1280, 800), "projector")]
IDS = ["1024-default", "1024-projector", "1280-default", "1280-projector"]

# Boxes, px from the svg's top left, [left, top, right, bottom]: the legend's texts and
# lines, the curves, the tick labels with text by axis, the titles; the svg's size.
BOXES = """() => {
  const svg = document.querySelector('#loss-curve'), b = svg.getBoundingClientRect();
  const rel = (e) => { const r = e.getBoundingClientRect(); return [r.left - b.left, r.top - b.top, r.right - b.left, r.bottom - b.top]; };
  const all = (q) => [...svg.querySelectorAll(q)].filter((e) => e.tagName !== 'text' || e.textContent).map(rel);
  return {size: [b.width, b.height], legend: all('.loss-legend text, .loss-legend line'),
          legendText: [...svg.querySelectorAll('.loss-legend text')].map((t) => t.textContent),
          curves: all('path.loss-line'), x: all('.axis.x text'), y: all('.axis.y text'),
          titles: all('.axis-title')};
}"""


def overlap(a, b, gap: float = 0.5) -> bool:
    """Whether boxes `a` and `b` come nearer than `gap` px (share more than half a px at 0.5)."""
    return a[0] < b[2] - gap and b[0] < a[2] - gap and a[1] < b[3] - gap and b[1] < a[3] - gap


def inside(box, size) -> bool:
    return box[0] >= -0.5 and box[1] >= -0.5 and box[2] <= size[0] + 0.5 and box[3] <= size[1] + 0.5


def trained(open_explorer, size, theme, preset: str, steps: str | None = None):
    """A page at `size` in `theme` with `preset` trained (`steps` iterations if given)."""
    explorer = open_explorer(*size)
    page = explorer.page
    if theme:
        choose_theme(page, theme)
    choose(page, preset)
    if steps:
        page.fill("#train-steps", steps)
        page.locator("#train-steps").dispatch_event("change")
    page.click("#train-run")
    page.wait_for_selector('#train[data-status="done"]', timeout=120_000)
    return explorer


@pytest.mark.parametrize("size,theme", SIZES, ids=IDS)
def test_the_bug_labs_legend_is_whole_and_clear_of_the_curves(open_explorer, size, theme):
    explorer = trained(open_explorer, size, theme, "train-no-zero-grad")
    page = explorer.page
    page.wait_for_selector('#loss-curve[data-points="301"]')
    seen = page.evaluate(BOXES)
    assert seen["legendText"] == ["with zero_grad", "no zero_grad"], seen
    assert len(seen["curves"]) == 2 and len(seen["legend"]) == 4, seen
    for box in seen["legend"]:
        assert inside(box, seen["size"]), (box, seen["size"])   # whole: "with zero_gra" was cut
        # a curve's box takes in all it draws: none reaches a legend entry
        assert [c for c in seen["curves"] if overlap(box, c)] == [], (box, seen["curves"])
        assert [t for t in seen["x"] + seen["y"] + seen["titles"] if overlap(box, t)] == [], (box, seen)
    page.locator("#loss-curve").screenshot(path=SHOTS / f"legend-{size[0]}-{theme or 'default'}.png")
    assert not explorer.unexpected_errors()


def apart(boxes) -> list:
    """The pairs of `boxes` nearer than 2 px to each other."""
    return [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if overlap(a, b, gap=-2)]


@pytest.mark.parametrize("size,theme,preset,steps", [
    ((1024, 768), None, "train-spirals", None),          # its 3,000 iterations: "1,0002,000"
    ((1024, 768), "projector", "train-xor-seed1", "3000"),
    ((1280, 800), None, "train-xor-seed1", "10000"),
    ((1280, 800), "projector", "train-xor-seed1", None),  # 301
], ids=["1024-default-spirals", "1024-projector-3000", "1280-default-10000", "1280-projector-301"])
def test_no_two_tick_labels_touch(open_explorer, size, theme, preset, steps):
    explorer = trained(open_explorer, size, theme, preset, steps)
    page = explorer.page
    points = steps or ("3000" if preset == "train-spirals" else "301")
    page.wait_for_selector(f'#loss-curve[data-points="{points}"]')
    seen = page.evaluate(BOXES)
    assert len(seen["x"]) >= 2 and len(seen["y"]) >= 2, seen
    for axis in ("x", "y"):
        assert apart(seen[axis]) == [], (axis, seen[axis])
        assert all(inside(box, seen["size"]) for box in seen[axis]), (axis, seen)
    page.locator("#loss-curve").screenshot(path=SHOTS / f"ticks-{size[0]}-{theme or 'default'}-{points}.png")
    assert not explorer.unexpected_errors()
