"""Issue 14, section 5 (the items owned here): what the page shows on a projector at
1280x800 and 1024x768. The editor's lines keep their start in view after a trace; the
detail panel shows every column of a tensor; the gradient check fills its columns for
tensors; the forward pass's progress bar is in the value colour."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from gradwalk.engine.clip import clip
from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import run_trace
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


def at_done(page, program: str) -> None:
    """`program` traced and walked to Done (values and gradients all shown)."""
    trace(page, program)
    leave_editor(page)
    page.keyboard.press("End")
    page.wait_for_function("() => { const p = document.querySelector('#player');"
                           " return p.dataset.step === p.dataset.total; }")


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


# Line 3 is wider than the editor at 1024x768 and the last line: a paste leaves the caret at its end.
LONG_LINE_3 = ("x = 0.5\nw = -1.5\n"
               "y = tanh(x * w + 0.25) * sigmoid(x * w - 1.25) + tanh(x * x * w + 0.125)"
               " * sigmoid(w * w * x - 0.375) + x * w * 0.0625 + tanh(w * 0.75)")


def step_by_button(page, step: int, *, keep_focus: bool) -> None:
    """Press Next until `step`: clicked (the focus goes to the button), or with `keep_focus`
    pressed as element.click() does, the focus (and the caret) left in the editor."""
    while int(page.locator("#player").get_attribute("data-step")) < step:
        if keep_focus:
            page.eval_on_selector("#player .btn.forward", "b => b.click()")
        else:
            page.locator("#player .btn.forward").click()
    page.wait_for_selector(f'#player[data-step="{step}"]')
    page.wait_for_timeout(50)  # a frame for the mark's sideways scroll


@on_screens
def test_a_trace_with_the_caret_at_a_long_lines_end_shows_each_steps_line_from_its_start(
        open_explorer, size, theme):
    ex = opened(open_explorer, size, theme)
    page = ex.page
    page.locator("#program").click()
    page.keyboard.press("Control+a")
    # A paste as the browser sends it (Ctrl+V): the caret at the end of line 3, scrolled to.
    page.eval_on_selector("#program", """(e, text) => { const data = new DataTransfer();
        data.setData('text/plain', text);
        e.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true })); }""",
                          LONG_LINE_3)
    page.wait_for_timeout(100)
    assert page.eval_on_selector(EDITOR, "e => e.gradwalkEditor.getText()") == LONG_LINE_3
    assert scroll_left(page) > 0  # typing scrolls to the caret, as usual
    page.keyboard.press("Control+Enter")  # the caret still at the end of the long line
    wait_ready(page)
    page.wait_for_timeout(100)
    assert (scroll_left(page), first_line_start_visible(page, "x = 0.5")) == (0, True)
    for step in (1, 2, 3, 10, 20):
        step_by_button(page, step, keep_focus=step <= 3)
        assert (page.evaluate("document.activeElement.id") == "program") == (step <= 3)
        assert (step, scroll_left(page), first_line_start_visible(page, "x = 0.5")) == (step, 0, True)
    page.locator("#player .btn.end").click()
    page.wait_for_function("() => { const p = document.querySelector('#player');"
                           " return p.dataset.step === p.dataset.total; }")
    page.wait_for_timeout(50)
    assert scroll_left(page) == 0
    page.screenshot(path=f"{SHOTS}/editor-caret-end-{theme}-{size[0]}.png")
    # The user's own typing at the caret (still at the line's end) scrolls to it again.
    page.locator("#program").focus()
    page.eval_on_selector(EDITOR, "e => e.gradwalkEditor.view.dispatch({ selection: { anchor:"
                          " e.gradwalkEditor.view.state.doc.length } })")
    page.keyboard.type(" ")
    page.wait_for_timeout(100)
    assert scroll_left(page) > 0
    assert ex.unexpected_errors() == []


TENSOR_3X4 = "X = randn(3, 4, seed=0)\nW = randn(3, 4, seed=1)\nL = sum(X * W)\n"


@on_screens
def test_the_detail_panel_shows_every_column_of_a_3x4_tensor(open_explorer, size, theme):
    ex = opened(open_explorer, size, theme)
    page = ex.page
    at_done(page, TENSOR_3X4)  # value and gradient both have their numbers
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


def _worst(entry) -> tuple[int, ...]:
    """The index of a tensor leaf's worst element in the engine's gradient check."""
    a = np.array(entry["analytic"]["data"])
    n = np.array(entry["numeric"]["data"])
    return np.unravel_index(int(np.argmax(np.abs(a - n))), a.shape)


@on_screens
def test_the_gradient_check_fills_analytic_and_numeric_for_tensors(open_explorer, size, theme):
    ex = opened(open_explorer, size, theme)
    page = ex.page
    trace(page, TENSOR_3X4)
    page.click("#checks > summary")
    page.click("#run-gradcheck")
    page.wait_for_selector('.gradcheck[data-status="done"]')
    answer = run_trace(TENSOR_3X4, options=Options(check=True))
    for leaf, other in (("X", "W"), ("W", "X")):
        entry = answer["gradcheck"][leaf]
        i, j = _worst(entry)
        cells = page.locator(f'#gradcheck-table tr[data-leaf="{leaf}"]').first.locator("td").all_inner_texts()
        assert cells[0].splitlines() == [leaf, f"worst [{i}, {j}]"]
        analytic, numeric = float(cells[1]), float(cells[2])
        # dL/dX = W and dL/dW = X for L = sum(X * W): PyTorch float64 says the same
        x = torch.tensor(_leaf_value(answer, "X"), dtype=torch.float64, requires_grad=True)
        w = torch.tensor(_leaf_value(answer, "W"), dtype=torch.float64, requires_grad=True)
        (x * w).sum().backward()
        want = (x if leaf == "X" else w).grad[i, j].item()
        assert analytic == pytest.approx(want, abs=1e-4)
        assert numeric == pytest.approx(entry["numeric"]["data"][i][j], abs=1e-4)
        assert numeric == pytest.approx(want, abs=1e-4)
    # Every column shows, the verdict too, in the side column (no part cut at its right).
    cut = page.evaluate("""() => {
        const side = document.querySelector('#editor .side').getBoundingClientRect();
        return [...document.querySelectorAll('#gradcheck-table tr[data-leaf] > td')]
            .filter((td) => td.getBoundingClientRect().right > side.right + 0.5).map((td) => td.textContent);
    }""")
    assert cut == []
    page.locator("#gradcheck-table").scroll_into_view_if_needed()
    page.screenshot(path=f"{SHOTS}/gradcheck-{theme}-{size[0]}.png")
    assert ex.unexpected_errors() == []


def _leaf_value(answer, name: str):
    """A leaf's value from the engine's trace answer (its evaluate event)."""
    node = next(n for n in answer["graph"]["nodes"] if n.get("name") == name)
    event = next(e for e in answer["events"] if e["kind"] == "evaluate" and e["node"] == node["id"])
    return event["value"]["data"]


def _colours(page) -> dict:
    """The scrubber's accent colour and the theme's value, gradient and output colours."""
    return page.evaluate("""() => {
        const probe = (v) => { const d = document.createElement('div'); d.style.color = `var(${v})`;
            document.body.append(d); const c = getComputedStyle(d).color; d.remove(); return c; };
        return { bar: getComputedStyle(document.querySelector('.scrubber')).accentColor,
                 value: probe('--value'), grad: probe('--grad-bright'), output: probe('--output') };
    }""")


@on_screens
def test_the_progress_bar_takes_the_colour_of_the_pass(open_explorer, size, theme):
    ex = opened(open_explorer, size, theme)
    page = ex.page
    leave_editor(page)
    phases = {}
    for step in range(0, 17):
        if step:
            page.keyboard.press("ArrowRight")
        page.wait_for_selector(f'#player[data-step="{step}"]')
        phase = page.locator("#player .phase").get_attribute("data-phase")
        c = _colours(page)
        phases.setdefault(phase, set()).add(c["bar"])
        want = {"start": c["value"], "forward": c["value"], "backward": c["grad"], "done": c["output"]}[phase]
        assert c["bar"] == want, (step, phase, c)
        if step == 3:
            page.screenshot(path=f"{SHOTS}/bar-forward-{theme}-{size[0]}.png")
    assert set(phases) == {"start", "forward", "backward", "done"}
    assert phases["forward"] != phases["backward"]
    assert ex.unexpected_errors() == []


STATEMENT = "x{1} = tanh(x{0}) * 0.9 + 0.1 * sigmoid(x{0} * 2.0 - 1.0)\n"
REPEATS = "x0 = 0.5\n" + "".join(STATEMENT.format(i, i + 1) for i in range(700))
GELU = 'z = 0.5\nL = gelu(z, approximate="tanh") * 2.0\n'


@on_screens
def test_clipped_labels_close_their_brackets_and_keep_the_repeat_count(open_explorer, size, theme):
    ex = opened(open_explorer, size, theme)
    page = ex.page
    at_done(page, GELU)
    assert node(page, "gelu(z, approximate…)").count() == 1  # engine/clip.py: not `approximate="ta…`
    page.keyboard.press("ArrowLeft")  # z's step: z̄ += gelu'(z) · ∂L/∂gelu(z, approximate…)
    said = " ".join(page.locator("#narration").all_inner_texts())
    assert "∂L/∂gelu(z, approximate…)" in said and 'approximate="ta…' not in said, said
    page.screenshot(path=f"{SHOTS}/clip-gelu-{theme}-{size[0]}.png")
    trace(page, REPEATS)
    page.wait_for_selector('#app[data-graph="drawn"]')
    # The repeat's frame (48 characters): its count shows, cut between tokens, as the engine cuts.
    title = page.locator(".frame-name").first.text_content()
    name = STATEMENT.format(0, 1).strip() + " ×700"
    assert title == clip(name, 48) == "x1 = tanh(x0) * 0.9 + 0.1 * sigmoid(x0 * …) ×700", title
    page.screenshot(path=f"{SHOTS}/clip-group-{theme}-{size[0]}.png")
    assert ex.unexpected_errors() == []
