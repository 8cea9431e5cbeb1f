"""The notebook widget in marimo's own host (issue 18 §2): `marimo run` serves a notebook that
wraps gradwalk.show in mo.ui.anywidget, Debian's Chromium opens it, and the student steps the
walk: the page narrates the step, and the kernel reads it (a second cell shows `w.widget.step`
and runs again when the widget's step changes). One `marimo` server, killed in finally."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from live_server import notebook_server
from page_helpers import new_page

pytest.importorskip("marimo")
pytest.importorskip("anywidget")

SHOTS = Path(os.environ.get("GRADWALK_SHOTS", "/tmp/gradwalk-shots"))
PROGRAM = "a = 0.5\nb = -1.5\nc = tanh(a * b)\nL = c * c + a\n"
NOTEBOOK = f'''import marimo

app = marimo.App()


@app.cell
def _():
    import marimo as mo
    import gradwalk
    w = mo.ui.anywidget(gradwalk.show({PROGRAM!r}, step=6))
    w
    return mo, w


@app.cell
def _(mo, w):
    mo.md(f"kernel step: {{w.widget.step}} of {{w.widget.steps}}")
    return


if __name__ == "__main__":
    app.run()
'''


@pytest.fixture
def marimo_run(tmp_path):
    """The URL of `marimo run walk.py` on a free port (no token: it listens on 127.0.0.1)."""
    (tmp_path / "walk.py").write_text(NOTEBOOK)
    options = ["run", str(tmp_path / "walk.py"), "--headless", "--host", "127.0.0.1",
               "--port", "{port}", "--no-token", "--no-sandbox", "--no-skew-protection"]
    with notebook_server(tmp_path, "marimo", options, "/healthz") as url:
        yield url


def uses_its_width(view) -> None:
    """marimo's default column (about 710 px) is the narrow case (review of s15 §4, looked at:
    graph first, narration under it, the graph fitted whole across the width at 0.60 with its
    numbers drawn, 10.7 px): the graph's nodes span most of the widget's width and the
    narration is under the graph, not beside it."""
    got = view.evaluate("""(v) => {
        const g = v.querySelector('#graph').getBoundingClientRect();
        const n = v.querySelector('.narration').getBoundingClientRect();
        const nodes = [...v.querySelectorAll('#graph g.node')].map((x) => x.getBoundingClientRect());
        const number = [...v.querySelectorAll('#graph g.node text')].find((t) => t.textContent === '0.5');
        return {width: v.getBoundingClientRect().width, graphBottom: g.bottom, narrationTop: n.top,
                span: Math.max(...nodes.map((b) => b.right)) - Math.min(...nodes.map((b) => b.left)),
                number: number.getBoundingClientRect().height};
    }""")
    assert got["width"] < 760, got   # the narrow column, not a full-width cell
    assert got["span"] > 0.9 * got["width"], got
    assert got["narrationTop"] >= got["graphBottom"] - 1, got
    assert got["number"] >= 10, got   # drawn, at the size the widget still draws them


def test_a_student_steps_the_widget_in_marimo(chromium, marimo_run):
    contexts = []
    page = new_page(chromium, contexts, (1280, 800), timeout=60_000)   # a host's first load, 2 cores
    try:
        page.goto(marimo_run)
        view = page.locator('.embed.gradwalk-widget[data-status="ready"]')   # in shadow roots
        view.wait_for()
        assert view.get_attribute("data-step") == "6"
        uses_its_width(view)
        kernel = page.get_by_text("kernel step:")
        kernel.wait_for()
        steps = int(kernel.inner_text().split()[-1])
        assert kernel.inner_text() == f"kernel step: 6 of {steps}" and steps == 15
        view.locator("button.forward").click()   # the student steps: the seed of the backward pass
        page.locator('.embed.gradwalk-widget[data-step="7"]').wait_for()
        page.get_by_text(f"kernel step: 7 of {steps}").wait_for()   # the kernel read it
        line = view.locator(".narration")
        assert line.locator(".narration-plain").text_content() == \
            "L\u0304 = 1 (dL/dL), the backward pass starts at the output"   # narration.js's seed
        assert line.get_attribute("data-typeset") == "true"
        assert line.locator(".narration-tex .katex .katex-html").count() == 1
        view.focus()
        page.keyboard.press("End")   # keys step it too
        page.get_by_text(f"kernel step: {steps} of {steps}").wait_for()
        assert view.get_attribute("data-phase") == "done"
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "widget-marimo-1280x800.png"))
        assert page.errors == []
    finally:
        contexts[0].close()
