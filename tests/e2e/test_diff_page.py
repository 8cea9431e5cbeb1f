"""Edit and diff in Chromium (issue 16, sections 2 and 3): compare the tanh fan-out example
with a = 1.0 and with a = 1.001, node by node; the output moves by about 0.001 · ā, as
PyTorch float64 says, and the link holds both programs."""
from __future__ import annotations

import pytest
import torch

from page_helpers import node, trace
from test_links import fragment, unpack

TANH = "a = 1.0\nb = -0.5\nc = 2.0\ne = a * b\nd = e + a\nt = tanh(d)\nL = t * c\n"
NUDGED = TANH.replace("a = 1.0", "a = 1.001")


def torch_run(a: float) -> tuple[float, float]:
    """(L, ā) of the program at a, by PyTorch float64."""
    x = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    L = torch.tanh(x * -0.5 + x) * 2.0
    L.backward()
    return float(L.detach()), float(x.grad)


def delta_of(page, name: str) -> tuple[float, float | None]:
    row = page.locator(f'#diff tr[data-node="{node(page, name).get_attribute("data-node")}"]')
    adjoint = row.get_attribute("data-delta-adjoint")
    return float(row.get_attribute("data-delta-value")), None if adjoint is None else float(adjoint)


def test_nudging_a_moves_the_output_by_about_h_times_a_bar(explorer, chromium, app_url):
    page = explorer.page
    page.locator("#diff-toggle").check()
    page.wait_for_selector('#diff[data-state="ready"]')   # against itself: nothing changed
    assert page.locator("#diff .diff-summary").inner_text().startswith("0 of 7 nodes changed")
    trace(page, NUDGED)
    page.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
    L0, a_bar = torch_run(1.0)
    L1, _ = torch_run(1.001)
    dL, _ = delta_of(page, "L")
    assert dL == pytest.approx(L1 - L0, rel=1e-9)          # the difference of the two runs
    assert dL == pytest.approx(0.001 * a_bar, rel=1e-2)    # first order: ΔL ≈ h · ā
    assert delta_of(page, "a")[0] == pytest.approx(0.001, rel=1e-9)
    assert node(page, "L").locator(".diff-delta").text_content() == "Δ +0.0007863"
    # drawn just over L's box, at its right end
    label, box = (node(page, "L").locator(sel).bounding_box() for sel in (".diff-delta", "rect.box"))
    assert box["y"] - 30 < label["y"] + label["height"] <= box["y"] + 2
    assert abs((label["x"] + label["width"]) - (box["x"] + box["width"])) < 8
    assert node(page, "L").get_attribute("data-changed") == "value"
    assert node(page, "b").get_attribute("data-changed") == "adjoint"   # b̄ = a · ē moved
    assert node(page, "c").get_attribute("data-changed") == "adjoint"   # c̄ = t moved
    summary = page.locator("#diff .diff-summary").inner_text()
    assert summary == ("7 of 7 nodes changed; L: 0.9242 → 0.925 (Δ +0.0007863); first order: "
                       "Δa · a\u0304 = 0.001 · 0.7864 = 0.0007864.")
    # both numbers in the detail panel
    node(page, "L").dispatch_event("click")
    page.wait_for_selector("#detail:not([hidden]) .diff-detail")
    assert "value: 0.9242 → 0.925 (Δ +0.0007863)" in page.locator("#detail .diff-detail").inner_text()
    # the link holds both programs, and opens the same comparison elsewhere
    state = unpack(page.url)
    assert state["program"] == NUDGED and state["diff_base"] == TANH
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    try:
        other = context.new_page()
        other.set_default_timeout(20_000)
        other.goto(f"{app_url}/#{fragment(state)}")
        other.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
        assert delta_of(other, "L")[0] == pytest.approx(L1 - L0, rel=1e-9)
    finally:
        context.close()
    assert explorer.unexpected_errors() == []


def test_the_changed_filter_and_turning_it_off(explorer):
    page = explorer.page
    two = "a = 1.0\nb = 2.0\nu = a * 3.0\nv = b * 4.0\nL = u + v\n"   # two branches
    trace(page, two)
    page.locator("#diff-toggle").check()
    trace(page, two.replace("b = 2.0", "b = 2.5"))   # only b's branch moves
    page.wait_for_selector('#diff[data-state="ready"] tr[data-node]')
    page.locator("#diff-changed").check()
    assert page.locator("#graph").evaluate("s => s.classList.contains('diff-filter')")
    assert page.locator("#diff tr[data-node] th").all_inner_texts() == ["b", "v", "L"]
    assert delta_of(page, "v") == (2.0, 0.0)   # 4 · 0.5; v̄ = 1 unchanged
    assert node(page, "a").get_attribute("data-changed") is None
    page.wait_for_function("() => getComputedStyle(document.querySelector('g.node[data-name=u]')).opacity === '0.25'")
    linked = page.evaluate("location.hash")
    page.locator("#diff-toggle").uncheck()
    assert page.locator("#diff").get_attribute("data-state") == "off"
    page.wait_for_function("h => location.hash !== h", arg=linked)   # the address is written again
    assert page.locator("g.node[data-changed]").count() == 0
    assert "diff_base" not in unpack(page.url)
