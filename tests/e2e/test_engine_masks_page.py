"""The numbers a student sees (issue 14 §4, the review's follow-up), in a real browser:
- hvp through `c ** d` at c = 0 steps a backward graph of 14 nodes (pow's partials one
  masked-rule node each), with no non-finite marker and no warning the program did not earn;
- at Done of the "2-layer MLP classifier" the narration reads dL/dW2's mean as 0, not the
  rounding noise -4.626e-18.
With GRADWALK_SHOOT=<folder> it saves the pages at 1280x800 and 1024x768, light and projector."""
from __future__ import annotations

import os
import pathlib
import re

import pytest
from page_helpers import choose, leave_editor, trace, wait_step
from shoot import pick_theme

POW0 = '# hvp: {"c": 0, "d": 1}\nc = 0.0\nd = 2.5\nL = c ** d + d * d\n'
SIZES = [(1280, 800), (1024, 768)]


def _shoot(page, name: str) -> None:
    folder = os.environ.get("GRADWALK_SHOOT")
    if folder:
        page.wait_for_timeout(400)
        page.screenshot(path=str(pathlib.Path(folder) / f"{name}.png"))


def _to_done(page) -> None:
    leave_editor(page)
    page.keyboard.press("End")
    wait_step(page, int(page.locator("#player").get_attribute("data-total")))


@pytest.mark.parametrize("theme", ["light", "projector"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_hvp_through_pow_at_zero_is_a_short_clean_walk(open_explorer, size, theme):
    ex = open_explorer(*size)
    page = ex.page
    pick_theme(page, theme)
    trace(page, POW0)
    assert page.locator("g.node").count() == 14
    assert int(page.locator("#player").get_attribute("data-total")) == 25
    _to_done(page)
    assert page.locator("g.node.non-finite").count() == 0
    text = page.locator("#narration").inner_text()
    assert "inf" not in text.lower() and "abs" not in text, text
    assert "not differentiable" not in page.locator("body").inner_text()
    panel = page.locator("#second-order")
    for leaf, want in (("c", "0"), ("d", "2")):
        cells = panel.locator(f'tr[data-leaf="{leaf}"] td').all_inner_texts()
        assert cells[:2] == [want, want], cells
    _shoot(page, f"num2-hvp-pow0-done-{size[0]}x{size[1]}-{theme}")
    assert ex.unexpected_errors() == []


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_mlp_classifiers_done_reads_mean_zero(open_explorer, size):
    ex = open_explorer(*size)
    page = ex.page
    pick_theme(page, "projector")
    choose(page, "mlp-classifier")
    _to_done(page)
    text = page.locator("#narration").inner_text()
    assert "dL/dW2" in text and "e-18" not in text and "e-17" not in text, text
    found = re.search(r"dL/dW2 = 8×3 matrix · min (\S+) · max (\S+) · mean (\S+?),", text)
    assert found is not None and found.group(3) == "0", text
    assert re.search(r"dL/dW1 = 4×8 matrix · [^,]* · mean 0\.017,", text), text   # a true mean stays
    _shoot(page, f"num2-mlp-done-{size[0]}x{size[1]}-projector")
    assert ex.unexpected_errors() == []


REVIEW = '# hvp: {"c": 1.0, "d": 1.0}\nc = 0.0\nd = 1.0\nL = c ** d + d * d\n'


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_hvp_through_pow_with_no_mixed_partial_says_why(open_explorer, size):
    """The review's case (issue 14 §4): c = 0, d = 1, v = (1, 1) read (0, 3) and (1, 2) with
    no word; now NaN both ways in the panel, a warning at the pow node that says why, and
    the step through pow's base rule says why its partial in d is NaN."""
    ex = open_explorer(*size)
    page = ex.page
    pick_theme(page, "projector")
    trace(page, REVIEW)
    _to_done(page)
    panel = page.locator("#second-order")
    for leaf in ("c", "d"):
        cells = panel.locator(f'tr[data-leaf="{leaf}"] td').all_inner_texts()
        assert cells[:2] == ["NaN", "NaN"], cells
    strip = page.locator("#warnings")
    strip.wait_for()
    item = strip.locator('li[data-kind="non_differentiable"]')
    assert item.count() == 1 and "has no value for 0 ≤ d ≤ 1" in item.inner_text()
    _shoot(page, f"pow13-hvp-review-done-{size[0]}x{size[1]}-projector")
    assert ex.unexpected_errors() == []
