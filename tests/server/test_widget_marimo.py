"""The notebook widget in marimo (issue 18 §2): `marimo export html` runs a notebook that wraps
gradwalk.show in mo.ui.anywidget, and the exported file carries the widget as anywidget's
model (its state: the trace the kernel made, the step, the program), which marimo's page
renders with static/dist/widget.js. One `marimo` process, with a time limit."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
import torch

pytest.importorskip("marimo")
pytest.importorskip("anywidget")

PROGRAM = "a = 0.5\nb = -1.5\nc = tanh(a * b)\nL = c * c + a\n"
NOTEBOOK = f'''import marimo

app = marimo.App()


@app.cell
def _():
    import marimo as mo
    import gradwalk
    w = mo.ui.anywidget(gradwalk.show({PROGRAM!r}, step=6, mode="reverse"))
    w
    return (w,)


if __name__ == "__main__":
    app.run()
'''


def widget_state(page: str) -> dict:
    """The state of the gradwalk widget's model in marimo's exported page."""
    at = page.index('"state": {"_anywidget_id": "gradwalk.server.widget.Walk"')
    state, _ = json.JSONDecoder().raw_decode(page, page.index("{", at))
    return state


def test_marimo_exports_the_widget_with_the_kernels_walk(tmp_path):
    (tmp_path / "walk.py").write_text(NOTEBOOK)
    done = subprocess.run([sys.executable, "-m", "marimo", "export", "html", "walk.py", "-o", "walk.html"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    state = widget_state((tmp_path / "walk.html").read_text())
    trace = json.loads(state["_trace"])
    assert (state["program"], state["step"], state["mode"], state["error"]) == (PROGRAM, 6, "reverse", "")
    assert state["steps"] == len(trace["events"]) == 15
    a = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(-1.5, dtype=torch.float64, requires_grad=True)
    (torch.tanh(a * b) ** 2 + a).backward()
    assert trace["grads"] == pytest.approx({"a": a.grad.item(), "b": b.grad.item()}, rel=1e-12)
    assert ":host" in state["_style"]   # the page's stylesheets, for the widget's shadow root
