"""Page polish left over from issues 7 and 9 (session 8 review, helper B), in a real browser: a
bug preset says once that its gradients are wrong on purpose (the warning strip keeps its other
warnings); an invalid step h leaves no rows of the last h on screen; the mode menu's labels fit
on a projector at 1024x768; forward mode's boxes write the dual number as a sum, value over
`+ tangent·ε`."""
from __future__ import annotations

import math

import pytest
from page_helpers import choose, leave_editor, node, own_program, wait_step

WRONG = "these gradients are wrong on purpose"
# overwrite (a bug switch) and a detach: the strip keeps the cut, the narration the bug
BUG_AND_CUT = "# bugs: overwrite\na = 1.0\nb = -0.5\ne = detach(a * b)\nd = e + a\nL = tanh(d) * a\n"


def _end(page) -> None:
    leave_editor(page)
    page.keyboard.press("End")
    wait_step(page, int(page.locator("#player").get_attribute("data-total")))


def _projector(page) -> None:
    page.locator("#view-menu summary").click()
    page.select_option("#theme", "projector")
    page.locator("#view-menu summary").click()
    page.wait_for_function("() => document.documentElement.dataset.theme === 'projector'")


# ---------------------------------------------------------------- 1. the bug lab, said once


def test_a_bug_preset_says_once_that_its_gradients_are_wrong(open_explorer):
    explorer = open_explorer(1024, 768)
    page = explorer.page
    choose(page, "bug-overwrite")
    _end(page)
    narration = page.locator("#narration").inner_text()
    assert narration.startswith(f"BUG LAB (overwrite): {WRONG} — the gradient check flags them. Done.")
    assert page.evaluate("() => document.body.innerText").count(WRONG) == 1
    assert page.locator("#warnings").is_hidden()  # it had only the bug's entry
    # the strip keeps the trace's own warnings: a cut path in a bug-lab program
    own_program(page, BUG_AND_CUT)
    _end(page)
    assert page.locator("#narration").inner_text().startswith("BUG LAB (overwrite)")
    assert page.evaluate("() => document.body.innerText").count(WRONG) == 1
    kinds = page.locator("#warnings li").evaluate_all("ls => ls.map(l => l.dataset.kind)")
    assert kinds == ["cut"]
    assert "cuts the path" in page.locator("#warnings").inner_text()
    assert explorer.unexpected_errors() == []


# ---------------------------------------------------------------- 2. no stale rows for a bad h


def test_an_invalid_step_h_leaves_no_rows_of_the_last_h(explorer):
    page = explorer.page
    page.locator("#checks summary").click()
    check = page.locator(".gradcheck")
    table = page.locator("#gradcheck-table")
    page.fill("#gradcheck-eps", "1e-4")
    page.click("#run-gradcheck")
    page.wait_for_selector('.gradcheck[data-status="done"]')
    assert table.is_visible() and check.get_attribute("data-eps") == "0.0001"
    assert page.locator("#gradcheck-table tr[data-leaf]").count() == 3
    for bad in ("abc", "0", "2"):
        page.fill("#gradcheck-eps", bad)
        page.click("#run-gradcheck")
        page.wait_for_selector('.gradcheck[data-status="error"]')
        assert "0 < h ≤ 1" in page.locator(".gradcheck-text").inner_text()
        assert table.is_hidden(), bad  # the rows for h = 1e-4 would read as this h's
        assert check.get_attribute("data-eps") is None
        assert "1e-4" not in check.inner_text()
    page.fill("#gradcheck-eps", "1e-5")
    page.click("#run-gradcheck")
    page.wait_for_selector('.gradcheck[data-status="done"]')
    assert table.is_visible() and table.get_attribute("data-stale") is None
    assert check.get_attribute("data-eps") == "0.00001"
    assert "h = 1e-5" in page.locator(".gradcheck-text").inner_text()
    assert explorer.unexpected_errors() == []


# ---------------------------------------------------------------- 3. the mode menu on a projector


def _menu_widths(page) -> tuple[float, float, float]:
    """The mode menu's width, the width it would take to show its longest option whole (a
    <select> is as wide as its longest option unless its row shrinks it or its max-width cuts
    it), and the side column's, px."""
    return tuple(page.eval_on_selector("#mode", """s => {
      const shown = s.getBoundingClientRect().width;
      s.style.maxWidth = 'none';
      s.style.flexShrink = '0';
      const whole = s.getBoundingClientRect().width;
      s.style.maxWidth = '';
      s.style.flexShrink = '';
      return [shown, whole, s.closest('#modes').getBoundingClientRect().width]; }"""))


@pytest.mark.parametrize("larger", [0, 1])
def test_the_mode_menu_fits_on_a_projector_at_1024x768(open_explorer, larger):
    explorer = open_explorer(1024, 768)
    page = explorer.page
    _projector(page)
    for _ in range(larger):  # A+ once: 1.15 x
        page.locator("#view-menu summary").click()
        page.click("#font-larger")
        page.locator("#view-menu summary").click()
    choose(page, "forward-dual")
    assert page.locator("#mode").input_value() == "forward"
    assert float(page.eval_on_selector("#mode", "s => parseFloat(getComputedStyle(s).fontSize)")) >= 17
    shown, whole, column = _menu_widths(page)
    assert shown == pytest.approx(whole, abs=0.5), (shown, whole)  # was cut: "…(tangents, dual numbers"
    assert whole <= column
    assert explorer.unexpected_errors() == []


# ---------------------------------------------------------------- 4. the dual number in a box


def _rows(page, name: str) -> dict:
    """A box's value line, its second block's caption and lines, and where the value's first
    digit and the tangent's first digit (after "+ ") start, in the box's units."""
    return node(page, name).evaluate("""g => {
      const value = g.querySelector('g.value-block g.nums text');
      const lines = [...g.querySelectorAll('g.grad-block g.tangent-nums text')];
      const box = g.querySelector('rect.box').getBoundingClientRect();
      const right = Math.max(...lines.map(t => t.getBoundingClientRect().right));
      return { value: value?.textContent, caption: g.querySelector('g.grad-block text.caption').textContent,
        lines: lines.map(t => t.textContent), valueX: value.getStartPositionOfChar(0).x,
        digitX: lines[0].getStartPositionOfChar(2).x, inside: right <= box.right - 4 }; }""")


def test_forward_mode_boxes_write_the_dual_number(open_explorer):
    explorer = open_explorer(1024, 768)
    page = explorer.page
    choose(page, "forward-dual")
    _end(page)
    t = math.tanh(0.5)
    cases = {"a": ("1", "+ 1ε"), "b": ("-0.5", "+ 0ε"), "e": ("-0.5", "- 0.5ε"),
             "t": (f"{t:.4f}", f"+ {(1 - t * t) * 0.5:.4f}ε"), "L": (f"{2 * t:.4f}", "+ 0.7864ε")}
    for name, (value, dual) in cases.items():
        rows = _rows(page, name)
        assert rows["value"] == value, name
        assert rows["lines"] == [dual], name  # was "+ 1ε" after a caption "ε"
        assert rows["caption"] == "", name
        assert rows["digitX"] == pytest.approx(rows["valueX"], abs=1.5), name  # digits under digits
        assert rows["inside"], name
    assert float(node(page, "t").get_attribute("data-tangent")) == pytest.approx((1 - t * t) * 0.5, abs=1e-12)
    # before its tangent is known, the row says what comes there
    page.keyboard.press("Home")
    wait_step(page, 0)
    assert _rows_before(page, "t") == ("tangent", [])
    assert explorer.unexpected_errors() == []


def _rows_before(page, name: str):
    return tuple(node(page, name).evaluate("""g => [g.querySelector('g.grad-block text.caption').textContent,
      [...g.querySelectorAll('g.grad-block g.tangent-nums text')].map(t => t.textContent)]"""))


# ---------------------------------------------------------------- 5. a wide hvp walk's leaves

# Its backward graph (s = ⟨∇L, v⟩ at the far end) is about 4,500 layout units wide: at 1024x768
# the leaves and s fit together only below the overview's floor (0.22 < 0.25).
HVP_WIDE = ('# hvp: {"X": [[1, 0, 0], [0, 1, 0]], "W": [[0.5, 0], [0, 0.5], [1, 1]]}\n'
            "X = [[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]]\nW = [[0.2, -0.4], [0.7, 0.1], [-0.3, 0.5]]\n"
            "L = sum(tanh(X @ W))\n")


def _in_view(page, names: list[str]) -> list[bool]:
    """Whether each named node's box is wholly inside the graph's frame on screen."""
    page.wait_for_selector('#graph[data-camera="still"]')
    return page.evaluate("""names => { const g = document.querySelector('#graph').getBoundingClientRect();
      return names.map(n => { const r = document.querySelector(`g.node[data-name="${n}"] rect.box`).getBoundingClientRect();
        return r.left >= g.left && r.right <= g.right && r.top >= g.top && r.bottom <= g.bottom; }); }""", names)


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)])
def test_a_wide_hvp_walk_shows_its_leaves_at_step_0_and_done(open_explorer, size):
    explorer = open_explorer(*size)
    page = explorer.page
    own_program(page, HVP_WIDE)
    assert page.locator("#mode").input_value() == "hvp"
    # every leaf with the output (README, the camera): at 1024x768 the leaves alone until the
    # leaves' view could zoom out to a fifth (viewport.js LEAVES_SCALE; was s alone before that)
    assert _in_view(page, ["X", "W", "s"]) == [True, True, True]
    _end(page)
    assert "(H v)_X = ∂s/∂X" in page.locator("#narration").inner_text()
    assert _in_view(page, ["X", "W", "s"]) == [True, True, True]
    assert explorer.unexpected_errors() == []
