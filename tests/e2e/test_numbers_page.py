"""Numbers a student sees (issue 14, section 4) in a real browser: every leaf's gradient box
at Done (the detach preset's b), a node the output does not use tagged at its node, an
underflow marked at its node as NaN is, and no negative zero anywhere on the page. Screenshots
of each at 1280x800 and 1024x768, projector theme too, by tests/e2e/shoot_numbers.py."""
from __future__ import annotations

import re

import pytest
from page_helpers import choose, node, own_program, total_steps, wait_step

from gradwalk.engine.trace.runner import run_trace

NEGATIVE_ZERO = re.compile(r"(?<![\w.])-0(?:\.0+)?(?![\w.])")
UNUSED = "Z = [[1.0, 2.0], [0.5, -1.0]]\nP = softmax(Z)\nL = cross_entropy(Z, [0, 1])\n"
# the adjoint shrinks by 0.01 · σ' ≈ 0.0025 a line: below 2.2e-308 after about 118 lines,
# while every value stays near 0.5 (376 nodes: drawn node by node, under the group limit)
UNDERFLOW = "x0 = 0.5\n" + "".join(f"x{i + 1} = sigmoid(x{i} * 0.01)\n" for i in range(125))
CONFIDENT = "z = [40.0, 0.0]\nL = cross_entropy(z, 0)\n"


def to_done(page) -> None:
    page.keyboard.press("End")
    wait_step(page, total_steps(page))


def grad_text(page, name: str) -> str:
    return node(page, name).locator("g.grad-block").text_content()


def test_detach_preset_shows_bs_gradient_at_done(explorer):
    page = explorer.page
    choose(page, "bug-detach")
    page.locator("#program").focus()
    page.keyboard.press("Escape")
    page.keyboard.press("End")
    wait_step(page, total_steps(page))
    assert "dL/db = 0" in page.locator("#narration").inner_text()
    assert node(page, "b").get_attribute("data-adjoint") == "0"
    assert grad_text(page, "b").endswith("0")   # "grad" then the number
    page.keyboard.press("ArrowLeft")   # one step before Done: b has had nothing yet
    assert node(page, "b").get_attribute("data-adjoint") is None
    assert explorer.unexpected_errors() == []


def test_a_node_the_output_does_not_use_is_tagged_at_its_node(explorer):
    page = explorer.page
    own_program(page, UNUSED)
    page.keyboard.press("Escape")
    to_done(page)
    p = node(page, "P")
    assert "unused" in p.get_attribute("class")
    assert p.locator("text.unused-tag").text_content() == "not used by L"
    assert "not used by L" in p.get_attribute("aria-label")
    strip = page.locator("#warnings")
    assert "P = softmax(Z) (line 2, col 5) is not used by L" in strip.inner_text()
    p.locator("rect.box").click()
    assert "not used by L: it gets no gradient" in page.locator(".detail").inner_text()
    assert explorer.unexpected_errors() == []


def test_an_underflow_is_marked_at_its_node_and_said_not_exact(explorer):
    page = explorer.page
    body = run_trace(UNDERFLOW)
    mark = body["first_non_finite"]
    own_program(page, UNDERFLOW)
    page.keyboard.press("Escape")
    to_done(page)
    marked = page.locator("g.node.non-finite")
    assert marked.get_attribute("data-node") == mark["node"]
    note = page.locator(".nonfinite-note")
    assert note.is_visible()
    assert "first underflowed gradient (not exact). Underflow: below 2.2e-308, the float64 " \
        "limit" in note.inner_text()
    assert "underflow" in page.locator("#warnings").inner_text()
    assert page.locator("#narration").inner_text().endswith(
        "(not exact: a number underflowed, below 2.2e-308, the float64 limit)")
    assert explorer.unexpected_errors() == []


def test_a_confident_right_answer_shows_no_negative_zero(explorer):
    page = explorer.page
    own_program(page, CONFIDENT)
    page.keyboard.press("Escape")
    for _ in range(total_steps(page)):   # every step's boxes and narration
        page.keyboard.press("ArrowRight")
        shown = page.locator("#graph").text_content() + page.locator("#narration").inner_text()
        assert not NEGATIVE_ZERO.search(shown), shown
    assert node(page, "L").locator("g.value-block").text_content().strip().endswith("4.248e-18")
    assert explorer.unexpected_errors() == []


# (1024x768 in the projector theme: the camera at Done leaves P's GRAD row under the narration,
# issue 14 section 5's "at Done the whole graph is not shown", another item)
@pytest.mark.parametrize("output", ["L", "a_long_loss_name"])
def test_an_unused_leafs_tag_takes_its_gradients_place_inside_the_box(explorer, output):
    """An unused leaf's gradient is 0 (the narration says dL/dk = 0): the tag drew over that 0
    and ran past the box's right edge."""
    page = explorer.page
    own_program(page, f"a = 2.0\nk = 3.0\n{output} = a * a\n")
    page.keyboard.press("Escape")
    to_done(page)
    k = node(page, "k")
    assert k.locator("text.unused-tag").text_content() == f"not used by {output}"
    tag, box = k.locator("text.unused-tag").bounding_box(), k.locator("rect.box").bounding_box()
    assert box["x"] < tag["x"] and tag["x"] + tag["width"] <= box["x"] + box["width"] - 2, (tag, box)
    assert k.locator("g.grad-block g.nums").evaluate("e => getComputedStyle(e).visibility") == "hidden"
    assert explorer.unexpected_errors() == []


@pytest.mark.parametrize("width, height, theme", [(1280, 800, "light"), (1024, 768, "light"),
                                                  (1280, 800, "projector")])
def test_the_unused_mark_is_seen_at_the_lecture_sizes(open_explorer, width, height, theme):
    """At Done the "not used by L" mark is on screen and nothing covers it."""
    page = open_explorer(width, height).page
    page.locator("#view-menu summary").click()
    page.select_option("#theme", theme)
    page.locator("#view-menu summary").click()
    own_program(page, UNUSED)
    page.keyboard.press("Escape")
    to_done(page)
    page.wait_for_selector('#graph[data-camera="still"]')   # read where things are drawn
    tag = page.locator("text.unused-tag").bounding_box()
    assert tag and 0 <= tag["x"] and tag["x"] + tag["width"] <= width and 0 <= tag["y"] <= height
    top = page.evaluate("([x, y]) => document.elementFromPoint(x, y)?.getAttribute('class')",
                        [tag["x"] + tag["width"] / 2, tag["y"] + tag["height"] / 2])
    assert top == "unused-tag"
