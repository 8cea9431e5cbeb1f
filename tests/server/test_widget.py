"""The notebook widget (issue 18 §2, server/widget.py, server/magic.py): gradwalk.show's traits
with the engine's real numbers (PyTorch float64 the reference), the %%gradwalk cell magic, and
the standalone-HTML fallback that nbconvert and GitHub's preview show."""
from __future__ import annotations

import html
import json
import re

import pytest
import torch
import traitlets

import gradwalk
from gradwalk.engine.errors import ProgramError

pytest.importorskip("anywidget")
from gradwalk.server.widget import Walk, widget_css  # noqa: E402

PROGRAM = "a = 0.5\nb = -1.5\nc = tanh(a * b)\nL = c * c + a\n"


def torch_grads() -> dict[str, float]:
    a = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(-1.5, dtype=torch.float64, requires_grad=True)
    c = torch.tanh(a * b)
    (c * c + a).backward()
    return {"a": a.grad.item(), "b": b.grad.item()}


def test_show_traces_in_the_kernel_with_pytorchs_numbers():
    w = gradwalk.show(PROGRAM)
    assert isinstance(w, Walk)
    import anywidget
    assert isinstance(w, anywidget.AnyWidget)
    assert w.grads == pytest.approx(torch_grads(), rel=1e-12)
    body = json.loads(w._trace)
    assert w.steps == len(body["events"]) == len(gradwalk.trace(PROGRAM)["events"])
    assert (w.step, w.mode, w.program, w.error) == (0, "reverse", PROGRAM, "")
    # the ESM is the bundle built by `npm run build`, with no way to fetch anything else
    assert "export" in w._esm and "sourceMappingURL" not in w._esm
    assert not re.search(r"https?://[^\s\"'`]*(cdn|unpkg|esm\.sh|jsdelivr)", w._esm)


def test_step_is_clamped_to_the_walk_and_refused_below_zero():
    w = gradwalk.show(PROGRAM, step=3)
    assert w.step == 3
    w.step = 5
    assert w.step == 5
    w.step = w.steps + 100   # past the end: the last step, as the player's End
    assert w.step == w.steps
    with pytest.raises(traitlets.TraitError, match="step must be 0 or more"):
        w.step = -1
    assert w.step == w.steps


def test_mode_and_program_retrace_and_keep_the_step_inside_the_new_walk():
    w = gradwalk.show(PROGRAM)
    w.step = w.steps
    reverse_steps = w.steps
    w.mode = "forward"
    events = json.loads(w._trace)["events"]
    assert {e["kind"] for e in events[:-1]} == {"tangent"}
    assert w.steps == len(events) < reverse_steps
    assert w.step == w.steps   # it was at the end, past the shorter walk's end
    # forward mode carries da/da = 1: the output's tangent is dL/da
    output = [e for e in events if e.get("node") == json.loads(w._trace)["output"]["node"]][-1]
    assert output["tangent"] == pytest.approx(torch_grads()["a"], rel=1e-12)
    w.program = "x = 3.0\nL = x * x * x\n"
    assert w.grads == {"x": pytest.approx(27.0)}
    with pytest.raises(traitlets.TraitError):
        w.mode = "sideways"


def test_a_refused_program_is_raised_by_show_and_shown_by_the_widget():
    with pytest.raises(ProgramError, match="unknown name"):
        gradwalk.show("L = q * 2\n")
    w = gradwalk.show(PROGRAM)
    w.step = 4
    w.program = "L = q * 2\n"   # a cell or the page: no exception in the frontend's handler
    assert w.error == "Not traced (line 1): unknown name `q`"
    assert (w.steps, w.step, w._trace, w.grads) == (0, 0, "", {})
    w.step = 5   # no walk: nowhere to go
    assert w.step == 0
    assert "unknown name `q`" in w._repr_html_()
    w.program = PROGRAM
    assert (w.error, w.steps) == ("", len(gradwalk.trace(PROGRAM)["events"]))


def test_the_fallback_is_the_standalone_export_of_the_same_walk_at_its_step():
    w = gradwalk.show(PROGRAM, theme="projector")
    w.step = 6
    data = w._repr_mimebundle_()
    bundle = data[0] if isinstance(data, tuple) else data
    assert "application/vnd.jupyter.widget-view+json" in bundle
    frame = bundle["text/html"]
    assert frame.startswith("<iframe") and 'sandbox="allow-scripts"' in frame
    page = html.unescape(re.search(r'srcdoc="([^"]*)"', frame).group(1))
    state = json.loads(re.search(r'id="initial-state">(.*?)</script>', page).group(1))
    trace = json.loads(re.search(r'id="initial-trace">(.*?)</script>', page, re.S).group(1)
                       .replace("\\u003c", "<"))
    assert (state["step"], state["theme"], state["program"]) == (6, "projector", PROGRAM)
    assert trace["grads"] == pytest.approx(torch_grads(), rel=1e-12)
    assert 'http-equiv="Content-Security-Policy"' in page


def test_a_trace_over_the_fallback_setting_is_not_saved_in_the_notebook(monkeypatch):
    from gradwalk.server import settings as settings_module
    from gradwalk.server.settings import Settings

    body_bytes = len(gradwalk.show(PROGRAM)._trace.encode())
    w = gradwalk.show(PROGRAM, settings=Settings(notebook_fallback_bytes=body_bytes))
    assert w._repr_html_().startswith("<iframe")   # at the limit: saved
    w = gradwalk.show(PROGRAM, settings=Settings(notebook_fallback_bytes=body_bytes - 1))
    assert w._repr_html_() == (
        f"<p>gradwalk: this walk's trace ({body_bytes:,} bytes) is over "
        f"GRADWALK_NOTEBOOK_FALLBACK_BYTES ({body_bytes - 1:,}), so it is not saved in the "
        "notebook: run the notebook to step it.</p>")
    # from the environment, as the CLI reads it
    monkeypatch.setenv("GRADWALK_NOTEBOOK_FALLBACK_BYTES", "10")
    settings_module.get_settings.cache_clear()
    try:
        assert gradwalk.show(PROGRAM)._repr_html_().startswith("<p>gradwalk: this walk's trace")
    finally:
        monkeypatch.delenv("GRADWALK_NOTEBOOK_FALLBACK_BYTES")
        settings_module.get_settings.cache_clear()


def test_the_shadow_roots_stylesheet_themes_the_host_not_the_notebook():
    css = widget_css()
    assert ":root" not in css
    assert ':host([data-theme="projector"])' in css and ":host {" in css


@pytest.fixture(scope="module")
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "gradwalk")
    yield ip
    InteractiveShell.clear_instance()


def test_the_cell_magic_shows_the_cells_program(shell):
    w = shell.run_cell_magic("gradwalk", "--mode forward --step 2 --theme dark", PROGRAM)
    assert isinstance(w, Walk)
    assert (w.program, w.mode, w.step, w.theme) == (PROGRAM, "forward", 2, "dark")
    w = shell.run_cell_magic("gradwalk", "--output c", PROGRAM)
    assert w.grads == pytest.approx({"a": -1.5 * (1 - torch.tanh(torch.tensor(-0.75, dtype=torch.float64)) ** 2).item(),
                                     "b": 0.5 * (1 - torch.tanh(torch.tensor(-0.75, dtype=torch.float64)) ** 2).item()})


@pytest.mark.parametrize("line, cell, says", [
    ("--mode sideways", PROGRAM, "mode"),
    ("--step -2", PROGRAM, "step must be 0 or more"),
    ("--step two", PROGRAM, "invalid int value"),
    ("", "L = q * 2\n", "not traced: line 1, column 5: unknown name `q`"),
])
def test_the_cell_magic_refuses_in_one_line(shell, line, cell, says):
    from IPython.core.error import UsageError

    with pytest.raises(UsageError, match=re.escape(says)):
        shell.run_cell_magic("gradwalk", line, cell)


def test_show_traces_once_and_each_change_once(monkeypatch):
    import gradwalk.server.widget as widget

    calls = []
    real = widget.trace_body
    monkeypatch.setattr(widget, "trace_body", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    w = gradwalk.show(PROGRAM, mode="forward", output="L", theme="dark")
    assert calls == [PROGRAM]
    w.mode = "reverse"
    w.step = 3   # a step is the page's: nothing to trace
    assert calls == [PROGRAM, PROGRAM]
