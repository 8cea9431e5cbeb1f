"""The tensor presets (issue 7, section 6) step through in a real browser with the engine's
numbers (which tests/engine/test_tensor_presets.py holds to PyTorch float64), and the ledger
panel shows the engine's peak, the memory falling back to 0 by the end, and the recomputation
of a checkpointed block."""
from __future__ import annotations

import json

import numpy as np
import pytest
from page_helpers import choose, leave_editor, node, wait_step

from gradwalk.engine.trace.runner import run_trace
from gradwalk.engine.trace.values import decode
from gradwalk.server.presets import presets

TENSOR_PRESETS = ["linear-layer", "mlp-classifier", "attention-head", "ledger-mlp",
                  "ledger-mlp-checkpoint", "ledger-two-blocks-checkpoint", "layer-norm"]
PROGRAMS = {p["id"]: p["program"] for p in presets()}


def assert_shown(shown: str, grad, name: str) -> None:
    """A node's data-adjoint against the engine's gradient: its numbers when the tensor
    travelled inline, else its summary {min, max, mean, norm} (static/js/format.js)."""
    shown, grad = json.loads(shown), decode(grad)
    if isinstance(shown, dict):
        np.testing.assert_allclose(
            [shown["min"], shown["max"], shown["mean"], shown["norm"]],
            [grad.min(), grad.max(), grad.mean(), np.linalg.norm(grad)], rtol=1e-12,
            atol=1e-15, err_msg=name)
        return
    np.testing.assert_allclose(np.asarray(shown, dtype=float), grad, rtol=1e-12, err_msg=name)


@pytest.mark.parametrize("preset", TENSOR_PRESETS)
def test_tensor_preset_steps_to_the_engines_gradients(explorer, preset):
    page = explorer.page
    choose(page, preset)
    body = run_trace(PROGRAMS[preset])
    leave_editor(page)
    page.keyboard.press("End")
    wait_step(page, len(body["events"]))
    assert page.locator("#narration").inner_text().startswith("Done.")
    for name, grad in body["grads"].items():
        assert_shown(node(page, name).get_attribute("data-adjoint"), grad, name)
    ledger = page.locator("#ledger")
    assert ledger.is_visible()
    assert int(ledger.get_attribute("data-peak")) == body["ledger"]["peak_activation_bytes"]
    assert ledger.get_attribute("data-live") == "0"   # every activation freed by the end
    assert explorer.unexpected_errors() == []


def test_checkpoint_preset_narrates_the_recomputation(explorer):
    page = explorer.page
    choose(page, "ledger-mlp-checkpoint")
    body = run_trace(PROGRAMS["ledger-mlp-checkpoint"])
    first = next(e["seq"] for e in body["events"] if e["kind"] == "recompute")
    leave_editor(page)
    page.locator("#player").get_attribute("data-total")
    for _ in range(first + 1):
        page.keyboard.press("ArrowRight")
    wait_step(page, first + 1)
    assert page.locator("#narration").inner_text().startswith("checkpoint: recompute")
    assert "kept by the forward pass 256\u00a0B" in page.locator(".ledger-totals").inner_text()
    assert explorer.unexpected_errors() == []
