"""Forward mode along a tensor leaf's direction in a real browser (issue 9, section 1; review
item): the leaf, then one element (W[1, 1]) or a seeded random tangent; the request's
`tangents` is what the page chose, the output's tangent (the jvp) equals torch.func.jvp to
1e-10, and a permalink reopens the same direction."""
from __future__ import annotations

import json

import pytest
import torch
from page_helpers import leave_editor, node, own_program, wait_step

PROGRAM = ("W = [[0.5, -0.3, 0.8], [0.2, -0.4, 0.6]]\n"
           "x = const([1.0, -0.5, 2.0])\n"
           "h = tanh(W @ x)\n"
           "L = sum(h * h)\n")
W = torch.tensor([[0.5, -0.3, 0.8], [0.2, -0.4, 0.6]], dtype=torch.float64)
X = torch.tensor([1.0, -0.5, 2.0], dtype=torch.float64)


def torch_jvp(tangent) -> float:
    """PyTorch's Jacobian-vector product of the program's L along `tangent` (W's shape)."""
    def loss(w):
        h = torch.tanh(w @ X)
        return (h * h).sum()
    _, out = torch.func.jvp(loss, (W,), (torch.tensor(tangent, dtype=torch.float64),))
    return float(out)


def _sent(requests: list[dict]) -> dict | None:
    """The `tangents` of the last trace request the page sent."""
    return requests[-1].get("tangents") if requests else None


def _record(page) -> list[dict]:
    """The bodies of the page's trace requests, as they are sent."""
    bodies: list[dict] = []
    page.on("request", lambda r: r.url.endswith("/api/trace/stream") and bodies.append(json.loads(r.post_data)))
    return bodies


def _traced(page, action) -> dict:
    """Do `action`, which makes the page trace again; the `tangents` that trace request sent,
    once the page shows that trace (not the one before it: reading the last request or the
    ready state right after a select can see the previous trace)."""
    with page.expect_request(lambda r: r.url.endswith("/api/trace/stream")) as sent:
        action()
    tangents = json.loads(sent.value.post_data).get("tangents")
    page.wait_for_function("""(want) => {
        const app = document.querySelector('#app'), t = document.querySelector('#modes').dataset.tangents;
        return app.dataset.status === 'ready' && !!t && JSON.stringify(JSON.parse(t)) === JSON.stringify(want);
    }""", arg=tangents)
    return tangents


def _done(page) -> float:
    """Step to the end of the forward walk: L's tangent (the jvp) in full precision."""
    page.wait_for_selector('#app[data-status="ready"]')
    leave_editor(page)
    page.keyboard.press("End")
    wait_step(page, int(page.locator("#player").get_attribute("data-total")))
    return float(node(page, "L").get_attribute("data-tangent"))


def _forward_on_w(page) -> None:
    own_program(page, PROGRAM)
    page.select_option("#mode", "forward")
    page.wait_for_selector('#app[data-status="ready"]')
    page.select_option("#tangent-leaf", "W")
    page.wait_for_selector('#app[data-status="ready"]')


def test_one_element_of_a_tensor_leaf_gives_that_column_of_the_jacobian(explorer):
    page = explorer.page
    requests = _record(page)
    _forward_on_w(page)
    assert page.locator("#tangent-direction").is_visible()
    # every flat index, with its multi-index
    labels = page.locator("#tangent-element option").all_inner_texts()
    assert labels == ["W[0, 0]", "W[0, 1]", "W[0, 2]", "W[1, 0]", "W[1, 1]", "W[1, 2]"]
    for k in (4, 2):
        sent = _traced(page, lambda: page.select_option("#tangent-element", str(k)))
        jvp = _done(page)
        want = [[1.0 if i * 3 + j == k else 0.0 for j in range(3)] for i in range(2)]
        assert sent == _sent(requests) == {"W": want}
        assert jvp == pytest.approx(torch_jvp(want), abs=1e-10)
        # the leaf's own box shows its tangent: the unit vector
        assert json.loads(node(page, "W").get_attribute("data-tangent")) == want
    assert torch_jvp([[0, 0, 0], [0, 1, 0]]) != pytest.approx(torch_jvp([[0, 0, 1], [0, 0, 0]]), abs=1e-3)
    assert explorer.unexpected_errors() == []


def test_a_seeded_random_direction_is_sent_and_its_jvp_is_torchs(explorer, chromium):
    page = explorer.page
    requests = _record(page)
    _forward_on_w(page)
    first = _traced(page, lambda: page.select_option("#tangent-direction", "random"))["W"]
    assert page.locator("#tangent-seed").is_visible() and page.locator("#tangent-element").is_hidden()
    page.fill("#tangent-seed", "5")
    tangent = _traced(page, lambda: page.locator("#tangent-seed").press("Enter"))["W"]
    jvp = _done(page)
    assert _sent(requests)["W"] == tangent
    assert tangent != first   # another seed, another direction
    assert [len(row) for row in tangent] == [3, 3]
    assert json.loads(page.locator("#modes").get_attribute("data-tangents")) == {"W": tangent}
    assert page.locator("#tangent-direction option:checked").inner_text() == "random (seed 5)"
    assert jvp == pytest.approx(torch_jvp(tangent), abs=1e-10)
    assert explorer.unexpected_errors() == []

    # The permalink reopens the same direction: the same tangent sent, the same jvp.
    # the address bar is written a moment after a step: wait until it holds the step shown
    page.wait_for_function("() => document.querySelector('#app').dataset.urlStep"
                           " === document.querySelector('#player').dataset.step")
    url = page.url
    context = chromium.new_context(viewport={"width": 1280, "height": 800})
    try:
        fresh = context.new_page()
        again = _record(fresh)
        fresh.goto(url)
        fresh.wait_for_selector('#app[data-status="ready"]')
        wait_step(fresh, int(page.locator("#player").get_attribute("data-step")))
        assert fresh.locator("#tangent-direction").input_value() == "random"
        assert fresh.locator("#tangent-seed").input_value() == "5"
        assert _sent(again) == {"W": tangent}
        assert float(node(fresh, "L").get_attribute("data-tangent")) == jvp
    finally:
        context.close()
