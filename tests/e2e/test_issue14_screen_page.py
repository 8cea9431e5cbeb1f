"""Issue 14, section 5 (the items owned here): what the page shows on a projector at
1280x800 and 1024x768. The editor's lines keep their start in view after a trace; the
detail panel shows every column of a tensor; the gradient check fills its columns for
tensors; the forward pass's progress bar is in the value colour."""
from __future__ import annotations

import pytest

from page_helpers import EDITOR, choose, leave_editor, node, trace

SIZES = [(1280, 800), (1024, 768)]
SHOTS = "/tmp/lw"
# Each test runs at both sizes, in the light and the projector theme.
on_screens = pytest.mark.parametrize(
    "size, theme", [(size, theme) for theme in ("light", "projector") for size in SIZES],
    ids=lambda v: v if isinstance(v, str) else f"{v[0]}x{v[1]}")


def opened(open_explorer, size, theme):
    """The explorer at `size` in `theme`."""
    ex = open_explorer(*size)
    set_theme(ex.page, theme)
    return ex


def set_theme(page, theme: str) -> None:
    page.evaluate("t => { const m = document.querySelector('#theme'); m.value = t;"
                  " m.dispatchEvent(new Event('change')); }", theme)


def wait_ready(page) -> None:
    page.wait_for_function("() => document.querySelector('#app').dataset.status === 'ready'")


def scroll_left(page) -> float:
    return page.eval_on_selector(EDITOR, "e => e.querySelector('.cm-scroller').scrollLeft")


def first_line_start_visible(page, text: str) -> bool:
    """Whether the first character of the line starting `text` is inside the editor's view."""
    return page.eval_on_selector(EDITOR, """(e, text) => {
        const view = e.gradwalkEditor.view;
        const at = view.state.doc.toString().indexOf(text);
        const left = view.coordsAtPos(at).left;
        const box = view.scrollDOM.getBoundingClientRect();
        const gutter = view.dom.querySelector('.cm-gutters').getBoundingClientRect().right;
        return left >= gutter - 1 && left < box.right;
    }""", text)


@on_screens
def test_after_a_trace_the_editor_shows_the_start_of_every_line(open_explorer, size, theme):
    ex = opened(open_explorer, size, theme)
    page = ex.page
    choose(page, "ledger-mlp-checkpoint")
    assert page.eval_on_selector(EDITOR, "e => { const s = e.querySelector('.cm-scroller');"
                                 " return s.scrollWidth > s.clientWidth; }")  # a line is wider than the editor
    page.locator("#program").click()  # the middle of the text: the browser scrolls the focused text sideways
    page.keyboard.press("Control+Enter")
    wait_ready(page)
    page.wait_for_timeout(100)  # a frame for any scroll after the trace
    assert scroll_left(page) == 0
    assert first_line_start_visible(page, "W1 = randn")
    page.keyboard.press("Escape")
    page.keyboard.press("ArrowRight")  # a step's mark
    page.wait_for_selector('#player[data-step="1"]')
    assert scroll_left(page) == 0
    choose(page, "linear-layer")  # another program opens at its lines' start
    assert scroll_left(page) == 0
    page.screenshot(path=f"{SHOTS}/editor-{theme}-{size[0]}.png")
    assert ex.unexpected_errors() == []


TENSOR_3X4 = "X = randn(3, 4, seed=0)\nW = randn(3, 4, seed=1)\nL = sum(X * W)\n"


@on_screens
def test_the_detail_panel_shows_every_column_of_a_3x4_tensor(open_explorer, size, theme):
    ex = opened(open_explorer, size, theme)
    page = ex.page
    trace(page, TENSOR_3X4)
    leave_editor(page)
    page.keyboard.press("End")  # Done: value and gradient both have their numbers
    page.wait_for_function("() => { const p = document.querySelector('#player');"
                           " return p.dataset.step === p.dataset.total; }")
    node(page, "X").click()
    panel = page.locator("#detail")
    panel.wait_for(state="visible")
    page.wait_for_timeout(50)
    for kind in ("value", "grad"):
        table = panel.locator(f"table.{kind}")
        assert table.locator("td").count() == 12
        # No column scrolled away: the table's box is wholly inside its scroll box and the panel.
        fits = table.evaluate("""t => {
            const wrap = t.closest('.table-scroll'), panel = t.closest('.detail');
            const last = t.querySelector('tbody tr td:last-child').getBoundingClientRect();
            const box = wrap.getBoundingClientRect(), outer = panel.getBoundingClientRect();
            return [wrap.scrollWidth <= wrap.clientWidth, last.right <= box.right + 0.5, box.right <= outer.right + 0.5,
                    panel.scrollWidth <= panel.clientWidth];
        }""")
        assert fits == [True, True, True, True], kind
    # The panel stays inside the graph area, clear of the trace buttons at the top left.
    inside = page.evaluate("""() => {
        const p = document.querySelector('#detail').getBoundingClientRect();
        const g = document.querySelector('.graph-wrap').getBoundingClientRect();
        const t = document.querySelector('.graph-trace').getBoundingClientRect();
        const clear = p.left >= t.right || p.top >= t.bottom;
        return [p.left >= g.left, p.right <= g.right + 0.5, clear];
    }""")
    assert inside == [True, True, True]
    page.screenshot(path=f"{SHOTS}/detail-{theme}-{size[0]}.png")
    assert ex.unexpected_errors() == []
