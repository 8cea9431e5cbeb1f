"""The tensor presets (issue 7, section 6) against PyTorch float64: every leaf's gradient and the
output, each preset written again in torch; and the ledger's figures for the MLP presets
(seed 003_70db1bc89ad395af.txt, Step 5: 9*s*h, 1*s*h)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from gradwalk.engine.trace.runner import run_trace
from gradwalk.engine.trace.values import decode
from gradwalk.server.presets import presets

PRESETS = {p["id"]: p for p in presets()}


def randn(*shape, seed):
    """The program's randn(shape..., seed=S) (engine/parse_tensors.py), as a leaf tensor."""
    data = np.random.default_rng(seed).standard_normal(shape)
    return torch.tensor(data, dtype=torch.float64, requires_grad=True)


def leaf(data):
    return torch.tensor(data, dtype=torch.float64, requires_grad=True)


def linear_layer():
    X, W, b = randn(4, 3, seed=0), randn(3, 2, seed=1), leaf([0.1, -0.2])
    Y = X @ W + b
    return (Y * Y).sum(), {"X": X, "W": W, "b": b}


def mlp_classifier():
    X, W1, b1 = randn(6, 4, seed=0), randn(4, 8, seed=1), leaf(np.zeros(8))
    W2, b2 = randn(8, 3, seed=2), leaf(np.zeros(3))
    logits = torch.relu(X @ W1 + b1) @ W2 + b2
    L = F.cross_entropy(logits, torch.tensor([0, 2, 1, 1, 0, 2]))
    return L, {"X": X, "W1": W1, "b1": b1, "W2": W2, "b2": b2}


def attention_head():
    X, Wq, Wk, Wv = (randn(*s, seed=k) for k, s in enumerate([(4, 8), (8, 4), (8, 4), (8, 4)]))
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    O = torch.softmax(Q @ K.T / 2.0, dim=-1) @ V
    return (O * O).sum(), {"X": X, "Wq": Wq, "Wk": Wk, "Wv": Wv}


def ledger_mlp():
    X0, W1, b1 = randn(4, 8, seed=0), randn(8, 32, seed=1), leaf(np.zeros(32))
    W2, b2 = randn(32, 8, seed=2), leaf(np.zeros(8))
    y = F.gelu(torch.tanh(X0) @ W1 + b1) @ W2 + b2
    return y.sum(), {"X0": X0, "W1": W1, "b1": b1, "W2": W2, "b2": b2}


def two_blocks():
    X0 = randn(4, 8, seed=0)
    W = {f"W{k}": randn(*s, seed=k) for k, s in
         zip(range(1, 5), [(8, 32), (32, 8), (8, 32), (32, 8)])}
    y = F.gelu(torch.tanh(X0) @ W["W1"]) @ W["W2"]
    z = F.gelu(y @ W["W3"]) @ W["W4"]
    return z.sum(), {"X0": X0, **W}


def layer_norm():
    x, weight, bias = randn(3, 5, seed=0), leaf(np.ones(5)), leaf(np.zeros(5))
    G = torch.tensor(np.random.default_rng(1).standard_normal((3, 5)))
    y = F.layer_norm(x, (5,), weight, bias, eps=1e-5)
    return (y * G).sum(), {"x": x, "weight": weight, "bias": bias}


TORCH = {"linear-layer": linear_layer, "mlp-classifier": mlp_classifier,
         "attention-head": attention_head, "ledger-mlp": ledger_mlp,
         "ledger-mlp-checkpoint": ledger_mlp, "ledger-two-blocks-checkpoint": two_blocks,
         "layer-norm": layer_norm}


@pytest.mark.parametrize("preset_id", list(TORCH))
def test_tensor_preset_matches_pytorch(preset_id):
    body = run_trace(PRESETS[preset_id]["program"])
    L, leaves = TORCH[preset_id]()
    L.backward()
    assert decode(body["output"]["value"]) == pytest.approx(L.item(), rel=1e-12)
    assert set(body["grads"]) == set(leaves)
    for name, t in leaves.items():
        np.testing.assert_allclose(decode(body["grads"][name]), t.grad.numpy(), rtol=1e-10,
                                   atol=1e-12, err_msg=f"{preset_id}: d{name}")
    assert body["first_non_finite"] is None


def test_ledger_presets_show_the_seed_figures():
    s, h = 4, 8
    plain = run_trace(PRESETS["ledger-mlp"]["program"])["ledger"]
    ck = run_trace(PRESETS["ledger-mlp-checkpoint"]["program"])["ledger"]
    assert plain["activation_elements"] == 9 * s * h
    assert ck["activation_elements"] == 1 * s * h
    assert ck["flops_recompute"] > 0 == plain["flops_recompute"]
    two = run_trace(PRESETS["ledger-two-blocks-checkpoint"]["program"])["ledger"]
    # without the checkpoints: 18*s*h at once; with them 2*s*h kept, 10*s*h at the peak
    assert two["activation_elements"] == 2 * s * h
    assert two["peak_activation_bytes"] == 10 * s * h * 8


def test_the_linear_layer_preset_sums_the_bias_gradient_over_the_batch():
    events = run_trace(PRESETS["linear-layer"]["program"])["events"]
    unbroadcast = [e for e in events if e["kind"] == "unbroadcast"]
    assert [(e["from_shape"], e["to_shape"], e["axes"]) for e in unbroadcast] == \
        [([4, 2], [2], [0])]
