"""Second order in a real browser (issue 9, section 2): a program with a `# hvp:` header steps
through the backward pass recorded as a graph (forward over reverse, then reverse over
reverse) and the page shows H v both ways; the power-iteration preset shows the Hessian as a
heat map and the eigenvalue estimate at each step. The numbers are the engine's, which
tests/engine/test_hvp.py holds to PyTorch."""
from __future__ import annotations

import json
import os

import pytest
from page_helpers import choose, leave_editor, node, trace, wait_step

from gradwalk.engine.trace.runner import run_trace
from gradwalk.server.presets import presets

PROGRAMS = {p["id"]: p["program"] for p in presets()}
HVP = '# hvp: {"a": 1.0, "b": 0.5}\n' + PROGRAMS["seed-tanh-fanout"]
ABAR = "a\u0304"   # ā, the first-order adjoint's node


def test_hvp_mode_steps_the_backward_graph(explorer):
    page = explorer.page
    body = run_trace(HVP)
    events = body["events"]
    trace(page, HVP)
    assert int(page.locator("#player").get_attribute("data-total")) == len(events)
    # the graph is the backward pass as a program: its adjoint nodes and s are drawn
    for label in ("t\u0304", "d\u0304", ABAR, "b\u0304", "v_a", "s"):
        assert node(page, label).count() == 1, label
    # forward over reverse: stepping to ā's tangent event shows its value (ā = 0.7864)
    abar_id = next(n["id"] for n in body["graph"]["nodes"] if n["label"] == ABAR)
    k = next(e["seq"] for e in events if e["kind"] == "tangent" and e["node"] == abar_id)
    leave_editor(page)
    page.keyboard.press("Home")
    for _ in range(k + 1):
        page.keyboard.press("ArrowRight")
    wait_step(page, k + 1)
    assert float(node(page, ABAR).get_attribute("data-value")) == pytest.approx(
        0.7864477329659274, abs=1e-15)
    assert "d(a\u0304) = d(d\u0304) + d(d\u0304 * b)" in page.locator("#narration").inner_text()
    # reverse over reverse, to the end: each leaf's adjoint ∂s/∂x is (H v)_x
    page.keyboard.press("End")
    wait_step(page, len(events))
    for leaf in "abc":
        assert float(node(page, leaf).get_attribute("data-adjoint")) == pytest.approx(
            body["hvp"][leaf], abs=1e-15)
    panel = page.locator("#second-order")
    assert panel.is_visible()
    for leaf in "abc":
        row = panel.locator(f'tr[data-leaf="{leaf}"]')
        assert json.loads(row.get_attribute("data-hvp")) == pytest.approx(body["hvp"][leaf],
                                                                           abs=1e-15)
        shown = row.locator("td").all_inner_texts()
        assert shown[0] == shown[1]   # both ways, the same digits
    assert panel.locator('tr[data-leaf="a"] td').first.inner_text() == "0.0596"
    if os.environ.get("GRADWALK_SHOOT"):   # a look at the page, for a reviewer
        page.screenshot(path=os.environ["GRADWALK_SHOOT"].replace(".png", "-hvp.png"))
    assert explorer.unexpected_errors() == []


def test_power_iteration_preset_shows_the_hessian_and_the_estimates(explorer):
    page = explorer.page
    choose(page, "hessian-power-iteration")
    body = run_trace(PROGRAMS["hessian-power-iteration"])
    panel = page.locator("#second-order")
    panel.wait_for(state="visible")
    cells = panel.locator("svg.hessian-map rect.cell")
    assert cells.count() == 144
    matrix = body["hessian"]["matrix"]
    for i, j in ((0, 0), (0, 6), (6, 0), (11, 11), (3, 9)):
        cell = panel.locator(f'svg.hessian-map rect.cell[data-i="{i}"][data-j="{j}"]')
        assert float(cell.get_attribute("data-v")) == matrix[i][j]
    assert panel.locator("svg.hessian-map text.row").all_text_contents()[:3] == [
        "W[0,0]", "W[0,1]", "W[1,0]"]
    assert float(panel.get_attribute("data-eigenvalue")) == body["eigen"]["value"]
    assert body["eigen"]["value"] == pytest.approx(7.8237258, abs=1e-6)
    steps = panel.locator("ol.eigen-steps li")
    assert steps.count() == 30
    assert [float(v) for v in steps.evaluate_all("els => els.map((e) => e.dataset.v)")] == \
        body["eigen"]["estimates"]
    assert "≈ 7.8237 after 30 steps" in panel.locator(".eigen-value").inner_text()
    # the walk itself is the program's ordinary reverse walk
    assert node(page, "L").count() == 1 and node(page, "s").count() == 0
    if os.environ.get("GRADWALK_SHOOT"):   # a look at the panel, for a reviewer
        panel.screenshot(path=os.environ["GRADWALK_SHOOT"])
    # another program hides the panel
    trace(page, PROGRAMS["seed-tanh-fanout"])
    assert panel.is_hidden()
    assert explorer.unexpected_errors() == []
