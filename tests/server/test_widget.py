"""The notebook widget (issue 18 §2, server/widget.py, server/magic.py): gradwalk.show's traits
with the engine's real numbers (PyTorch float64 the reference), the %%gradwalk cell magic, and
the standalone-HTML fallback that nbconvert and GitHub's preview show."""
from __future__ import annotations

import base64
import gzip
import html
import json
import re

import pytest
import torch
import traitlets

import gradwalk
from gradwalk.engine.errors import ProgramError

pytest.importorskip("anywidget")
from gradwalk.server.widget import Walk, _bundle_text, widget_css  # noqa: E402

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
    # the ESM is the bundle built by `npm run build`, packed, with no way to fetch anything else
    bundle = unpacked(w._esm)
    assert bundle == _bundle_text() and "gradwalk-widget" in bundle
    assert "export" in bundle and "sourceMappingURL" not in bundle
    for code in (w._esm, bundle):
        assert not re.search(r"https?://[^\s\"'`]*(cdn|unpkg|esm\.sh|jsdelivr)", code)


def unpacked(esm: str) -> str:
    """The bundle inside the widget's `_esm` (static/js/widget-loader.js's BUNDLE)."""
    data = re.search(r'const BUNDLE = "([A-Za-z0-9+/=]+)";', esm).group(1)
    return gzip.decompress(base64.b64decode(data)).decode("utf-8")


def state_bytes(w: Walk) -> dict[str, int]:
    """The bytes of each of the widget's synced traits as the kernel sends them (JSON)."""
    return {name: len(json.dumps(value, separators=(",", ":")).encode()) for name, value in w.get_state().items()}


def test_each_instance_sends_under_0_4_MB_of_code_and_style():
    """Issue 18 §2's size: anywidget sends `_esm` (and our stylesheets) in the state of every
    instance, and a notebook saves it again for each. The module is packed (gzip, base64:
    0.51 MB -> 0.22 MB) and the KaTeX faces are the narration's two (server/widget.py FACES:
    0.35 MB of fonts -> 0.06 MB). Before: 1.0 MB a widget, 3.1 MB for three."""
    w = gradwalk.show(PROGRAM)
    sizes = state_bytes(w)
    assets = sizes["_esm"] + sizes["_style"] + sizes["_bundle_style"]
    assert assets < 400_000, sizes
    faces = re.findall(r"@font-face\{[^}]*font-family:([\w]+);font-style:(\w+)", w._bundle_style)
    assert sorted(faces) == [("KaTeX_Main", "normal"), ("KaTeX_Math", "italic")]
    assert w._bundle_style.count("data:font/woff2;base64,") == 2


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
    """After a walk, a refused program keeps that walk, as the explorer keeps it faded: the
    traits stayed the last walk's only in the page (steps went to 0, the page drew the old
    walk), so `w.steps` and the drawing disagreed (issue 18 residue)."""
    with pytest.raises(ProgramError, match="unknown name"):
        gradwalk.show("L = q * 2\n")
    w = gradwalk.show(PROGRAM)
    steps, trace = w.steps, w._trace
    w.step = 4
    w.program = "L = q * 2\n"   # a cell or the page: no exception in the frontend's handler
    assert w.error == "Not traced (line 1, column 5): unknown name: `q` is not defined"
    assert (w.steps, w.step, w._trace) == (steps, 4, trace)   # the last good walk, at its step
    assert w.grads == pytest.approx(torch_grads(), rel=1e-12)
    w.step = 10**6   # a step of the walk shown: clamped to it
    assert w.step == steps
    fallback = w._repr_html_()   # the message, then the last good walk with its own program
    assert fallback.startswith('<pre class="gradwalk-error">Not traced (line 1, column 5): '
                               'unknown name: `q` is not defined The walk below is the last good one.</pre><iframe')
    page = html.unescape(re.search(r'srcdoc="([^"]*)"', fallback).group(1))
    state = json.loads(re.search(r'id="initial-state">(.*?)</script>', page).group(1))
    assert (state["program"], state["step"]) == (PROGRAM, steps)
    w.program = "a = ("   # a syntax error, located
    assert w.error.startswith("Not traced (line 1, column ") and w.steps == steps
    w.program = PROGRAM
    assert (w.error, w.steps, w._trace) == ("", len(gradwalk.trace(PROGRAM)["events"]), trace)


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
    assert ':host([data-theme="projector"])' in css and ":host{" in css
    assert "/*" not in css and "  " not in css   # compacted: sent in every widget's state


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
    ("", "L = q * 2\n", "not traced: line 1, column 5: unknown name: `q` is not defined"),
])
def test_the_cell_magic_refuses_in_one_line(shell, line, cell, says):
    from IPython.core.error import UsageError

    with pytest.raises(UsageError, match=re.escape(says)):
        shell.run_cell_magic("gradwalk", line, cell)


def test_show_traces_once_and_each_change_once(monkeypatch):
    import gradwalk.server.widget_modes as widget

    calls = []
    real = widget.trace_body
    monkeypatch.setattr(widget, "trace_body", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    w = gradwalk.show(PROGRAM, mode="forward", output="L", theme="dark")
    assert calls == [PROGRAM]
    w.mode = "reverse"
    w.step = 3   # a step is the page's: nothing to trace
    assert calls == [PROGRAM, PROGRAM]


# ---- hvp and train modes (issue 18 §2: the widget walks every mode the page does) ---------
HVP = '# hvp: {"a": 1.0, "b": 0.5}\n' + PROGRAM


def torch_hvp() -> dict[str, float]:
    """H v of PROGRAM's L at (a, b) = (0.5, -1.5), v = (1.0, 0.5): PyTorch float64's double
    backward (create_graph=True)."""
    a = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(-1.5, dtype=torch.float64, requires_grad=True)
    c = torch.tanh(a * b)
    ga, gb = torch.autograd.grad(c * c + a, (a, b), create_graph=True)
    hv = torch.autograd.grad(ga * 1.0 + gb * 0.5, (a, b))
    return {"a": hv[0].item(), "b": hv[1].item()}


def test_hvp_mode_walks_the_programs_hvp_line_with_pytorchs_numbers():
    w = gradwalk.show(HVP, mode="hvp")
    body = json.loads(w._trace)
    assert (w.mode, w.error) == ("hvp", "")
    assert {k: float(v) for k, v in body["hvp"].items()} == pytest.approx(torch_hvp(), rel=1e-12)
    assert w.steps == len(body["events"]) > len(gradwalk.trace(PROGRAM)["events"])
    # reverse mode on a program with the line is that walk: the synced mode says so
    r = gradwalk.show(HVP)
    assert (r.mode, r._trace) == ("hvp", w._trace)


def test_hvp_mode_without_the_line_is_refused_and_said():
    with pytest.raises(ProgramError, match="`# hvp:` line"):
        gradwalk.show(PROGRAM, mode="hvp")
    w = gradwalk.show(PROGRAM)
    steps, trace = w.steps, w._trace   # the reverse walk, kept while hvp is refused
    w.mode = "hvp"
    assert w.error.startswith("Not traced: bad argument: hvp mode takes its vector from the "
                              "program's "
                              "`# hvp:` line") and (w.steps, w._trace) == (steps, trace)
    # the hint a sentence of its own (the reviewer read "... has none add a first line ...")
    assert "this program has none. Add a first line such as `# hvp:" in w.error
    w.mode = "reverse"
    assert (w.error, w.grads) == ("", pytest.approx(torch_grads(), rel=1e-12))


LINE = "w = 0.5\nb = -0.2\nx = const(1.5)\ny = const(2.0)\nL = (w * x + b - y) ** 2\n"


def torch_sgd(steps: int, lr: float) -> tuple[list[float], list[float]]:
    """LINE trained by torch.optim.SGD in float64: (the loss before each update, [w, b])."""
    w = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(-0.2, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.SGD([w, b], lr=lr)
    losses = []
    for _ in range(steps):
        loss = (w * 1.5 + b - 2.0) ** 2
        losses.append(loss.item())
        opt.zero_grad()
        loss.backward()
        opt.step()
    return losses, [w.item(), b.item()]


def test_train_mode_steps_a_recorded_iteration_beside_pytorchs_losses():
    w = gradwalk.show(LINE, mode="train", train_steps=6, lr=0.1, iteration=2)
    body = json.loads(w._trace)
    losses, _ = torch_sgd(6, 0.1)
    assert w.losses == pytest.approx(losses, rel=1e-12)
    assert body["train"]["losses"] == w.losses and body["train"]["iteration"] == 2
    kinds = [e["kind"] for e in body["events"]]
    assert "zero_grad" in kinds and "update" in kinds and w.steps == len(kinds)
    # iteration 2's gradients are PyTorch's at the weights after two updates
    _, (w2, b2) = torch_sgd(2, 0.1)
    wt = torch.tensor(w2, dtype=torch.float64, requires_grad=True)
    bt = torch.tensor(b2, dtype=torch.float64, requires_grad=True)
    ((wt * 1.5 + bt - 2.0) ** 2).backward()
    assert w.grads == pytest.approx({"w": wt.grad.item(), "b": bt.grad.item()}, rel=1e-12)
    # a setting changed from a cell (or the page) trains again; another mode ignores them
    w.lr = 0.05
    assert w.losses == pytest.approx(torch_sgd(6, 0.05)[0], rel=1e-12)
    w.mode = "reverse"
    assert (w.losses, w.mode) == ([], "reverse")


def test_train_mode_refuses_in_the_widget_what_the_api_refuses():
    w = gradwalk.show(LINE, mode="train", train_steps=3)
    w.iteration = 3
    assert w.error == ("Not traced: bad argument: iteration must be from 0 to 2 "
                       "(train_steps - 1), not 3")
    w.iteration = 1
    assert w.error == ""
    steps, losses = w.steps, w.losses
    w.lr = -1.0
    assert w.error.startswith("Not traced: ") and "lr" in w.error
    assert (w.steps, w.losses) == (steps, losses)   # iteration 1's walk, kept
    with pytest.raises(traitlets.TraitError):
        gradwalk.show(LINE, mode="train", optimizer="rmsprop")
    with pytest.raises(traitlets.TraitError, match="no argument 'speed'"):
        gradwalk.show(LINE, speed=2)
