"""Gradwalk issue 14 §5, a projector review at 1024x768 and 1280x800: a number in exponent
form typeset as a number (2.117 × 10⁻²⁶), never 2.117·e − 26; the hvp Done line's subscripts
and its space after "Done."; the detail panel's numbers whole and a cue when it hides rows; the
overview's names balanced and clear of the heat maps, the MLP's Done line typeset."""
from __future__ import annotations

import pytest

from page_helpers import choose, leave_editor, node, own_program

SIZES = [(1280, 800), (1024, 768)]
SHOTS = "/tmp/lw"
on_projectors = pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")

CHAIN = "x0 = 0.5\n" + "".join(f"x{i + 1} = tanh(x{i}) * 0.9 + 0.1\n" for i in range(150))
HVP = '# hvp: {"c": 1.0, "d": 1.0}\nc = 0.5\nd = 1.0\nL = c ** d + d * d\n'
DETAIL = ("W = [[1.0, 2.0, 3.0, 4.0], [0.5, -1.5, 2.5, -3.5], [0.25, 0.75, -1.25, 1.75]]\n"
          "x = [1.0, -2.0, 0.5, 3.0]\ny = W @ x\nL = sum(tanh(y))\n")
GELU = ("x = [1.0, -0.5, 2.0]\nw = [0.3, 0.2, -0.1]\n"
        'L = sum(gelu(x * w + x * x * 0.044715, approximate="tanh") * gelu(w * x - 1.0, approximate="tanh"))\n')


def projector(open_explorer, size):
    ex = open_explorer(*size)
    ex.page.evaluate("() => { const m = document.querySelector('#theme'); m.value = 'projector';"
                     " m.dispatchEvent(new Event('change')); }")
    return ex


def at_done(page, program: str | None = None) -> None:
    if program is not None:
        own_program(page, program)
    leave_editor(page)
    page.keyboard.press("End")
    page.wait_for_function("() => { const p = document.querySelector('#player');"
                           " return p.dataset.step === p.dataset.total; }")
    page.wait_for_timeout(150)  # the camera's glide to Done


def finish(ex, name: str, size) -> None:
    """A screenshot to look at, and no error on the way."""
    ex.page.screenshot(path=f"{SHOTS}/numbers-{name}-{size[0]}.png")
    assert ex.unexpected_errors() == []


def done_line(open_explorer, size, program: str):
    """The explorer at Done of `program` on a projector, and its narration: whether typeset,
    the plain text (screen readers), the typeset text."""
    ex = projector(open_explorer, size)
    at_done(ex.page, program)
    return ex, *ex.page.evaluate(TYPESET_TEXT)


TYPESET_TEXT = """() => { const l = document.querySelector('#narration');
  return [l.dataset.typeset, l.querySelector('.narration-plain').textContent,
          l.querySelector('.narration-tex').shadowRoot.querySelector('.katex-html').textContent]; }"""


@on_projectors
def test_a_tiny_number_is_typeset_as_a_power_of_ten(open_explorer, size):
    ex, typeset, plain, shown = done_line(open_explorer, size, CHAIN)
    assert typeset == "true"
    assert "dx150/dx0 = 2.117e-26" in plain  # the screen reader's text stays as the engine says it
    assert "2.117×10−26" in shown and "e−" not in shown, shown
    finish(ex, "chain", size)


@on_projectors
def test_the_hvp_done_line_sets_its_subscripts_after_a_space(open_explorer, size):
    ex, typeset, plain, shown = done_line(open_explorer, size, HVP)
    page = ex.page
    assert typeset == "true" and plain.startswith("Done. (H v)_c = ∂s/∂c"), plain
    assert "_" not in shown, shown
    # the c and d under their brackets (KaTeX's subscripts), and a gap after "Done."
    subs = page.evaluate("""() => [...document.querySelector('#narration .narration-tex').shadowRoot
        .querySelectorAll('.msupsub')].map(e => e.textContent.replace(/\\u200b/g, ''))""")
    assert subs[:2] == ["c", "d"], subs
    gap = page.evaluate("""() => {
        const root = document.querySelector('#narration .narration-tex').shadowRoot;
        const glyphs = [...root.querySelectorAll('.katex-html span')].filter(s => !s.children.length && s.textContent.trim());
        const dot = glyphs.find(s => s.textContent === '.'), open = glyphs.find(s => s.textContent === '(');
        return open.getBoundingClientRect().left - dot.getBoundingClientRect().right; }""")
    assert gap >= 4, gap
    finish(ex, "hvp", size)


@on_projectors
def test_the_detail_panel_keeps_each_number_whole_and_says_when_more_is_below(open_explorer, size):
    ex = projector(open_explorer, size)
    page = ex.page
    at_done(page, DETAIL)
    node(page, "W").click()
    panel = page.locator("#detail")
    panel.wait_for(state="visible")
    page.wait_for_timeout(100)
    # each cell one line: "3.033e-" / "09" was two
    lines = panel.evaluate("""p => [...p.querySelectorAll('table.values td')].map(td => {
        const r = document.createRange(); r.selectNodeContents(td);
        return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size; })""")
    assert lines and max(lines) == 1, lines
    whole, cue = panel.evaluate(LAST_ROW)
    assert whole or cue, (whole, cue)  # the last row shows, or the cue says more is below
    finish(ex, "detail", size)
    # W1 of the MLP (4x8, value above gradient) is taller than the panel at both sizes
    choose(page, "mlp-classifier")
    at_done(page)
    node(page, "W1").click()
    page.wait_for_timeout(200)
    whole, cue = panel.evaluate(LAST_ROW)
    assert cue and not whole
    finish(ex, "detail-cue", size)
    panel.evaluate("p => { p.scrollTop = p.scrollHeight; }")  # scrolled to its end, the cue goes
    page.wait_for_function("() => getComputedStyle(document.querySelector('#detail .more-cue')).display === 'none'")
    assert panel.evaluate(LAST_ROW) == [True, False]


# Whether the gradient table's last row shows above the panel's bottom (and above the cue),
# and whether the cue ("more below") shows on the panel's bottom edge.
LAST_ROW = """p => {
  const rows = p.querySelectorAll('table.grad tbody tr'), box = p.getBoundingClientRect();
  const cue = p.querySelector('.more-cue'), c = cue.getBoundingClientRect();
  const shown = getComputedStyle(cue).display !== 'none' && c.top >= box.top && c.bottom <= box.bottom + 1;
  return [rows[rows.length - 1].getBoundingClientRect().bottom <= (shown ? c.top : box.bottom) + 1, shown]; }"""


# The overview's names (render/names.js) against the heat maps, as screen rectangles.
NAMES = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const heats = [...document.querySelectorAll('#graph g.heat')].map(box).filter(r => r[2] > r[0]);
  return { names: [...document.querySelectorAll('#graph g.overview-names text')].map(t => [t.textContent, box(t)]), heats };
}"""


def balanced(text: str) -> bool:
    stack = []
    for c in text:
        if stack and stack[-1] == '"':
            if c == '"':
                stack.pop()
        elif c in '(["':
            stack.append(c)
        elif c in ")]" and (not stack or stack.pop() != {")": "(", "]": "["}[c]):
            return False
    return not stack


def overlaps(a, b) -> bool:
    return a[0] < b[2] - 1 and b[0] < a[2] - 1 and a[1] < b[3] - 1 and b[1] < a[3] - 1


def check_names(page) -> list[str]:
    seen = page.evaluate(NAMES)
    names = [n for n, _ in seen["names"]]
    for name, rect in seen["names"]:
        assert balanced(name) and "…)…" not in name, name
        for heat in seen["heats"]:
            assert not overlaps(rect, heat), (name, rect, heat)
    return names


@on_projectors
def test_overview_names_are_balanced_and_clear_of_the_heat_maps(open_explorer, size):
    ex = projector(open_explorer, size)
    page = ex.page
    at_done(page, GELU)
    if page.locator("#graph[data-names='shown']").count():
        names = check_names(page)
        assert any(n.startswith("0.04") for n in names), names  # the constant's box is named
    page.screenshot(path=f"{SHOTS}/numbers-gelu-{size[0]}.png")
    choose(page, "mlp-classifier")
    at_done(page)
    assert page.locator("#graph[data-names='shown']").count() == 1
    names = check_names(page)
    assert {"b1", "W1"} <= set(names), names
    typeset, plain, _ = page.evaluate(TYPESET_TEXT)
    assert typeset == "true" and " · min " in plain  # the summaries' Done line is set as math
    finish(ex, "mlp", size)
