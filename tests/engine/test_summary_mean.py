"""A tensor summary's mean within the rounding error of its sum shows as 0 (issue 14 §4, the
review's follow-up): at Done of the "2-layer MLP classifier" the narration said "dL/dW2 ...
mean -4.626e-18" where the true mean is 0 (each row of a softmax cross-entropy gradient sums
to 0). The rule is engine/trace/values.py `_mean`: |mean| <= n eps max|x| reads 0. The page's
narration, its boxes and heat-map cells and the CLI's table all print the summary's mean, so
the rule holds for each of them here."""
from __future__ import annotations

import numpy as np
import torch

from gradwalk.engine.trace import table
from gradwalk.engine.trace.runner import run_trace
from gradwalk.engine.trace.values import encode

MLP = """X = randn(6, 4, seed=0)
W1 = randn(4, 8, seed=1)
b1 = zeros(8)
W2 = randn(8, 3, seed=2)
b2 = zeros(3)
h = relu(X @ W1 + b1)
logits = h @ W2 + b2
L = cross_entropy(logits, [0, 2, 1, 1, 0, 2])
"""


def test_the_mlp_classifiers_output_gradients_have_mean_zero():
    body = run_trace(MLP)
    for name in ("W2", "b2"):   # rows of (softmax - onehot) / N sum to 0: the mean is 0
        g = body["grads"][name]
        raw = np.asarray(g["data"], dtype=np.float64)
        assert raw.mean() != 0.0 and abs(raw.mean()) < 1e-15   # the noise the page showed
        assert g["summary"]["mean"] == 0.0
    # what PyTorch float64 computes for the same gradient is noise of the same size, not 0
    w2 = torch.tensor(np.asarray(body["grads"]["W2"]["data"]))
    assert abs(float(w2.mean())) < 8 * 3 * np.finfo(np.float64).eps * float(w2.abs().max())
    # a gradient whose mean is not noise keeps it
    assert abs(body["grads"]["W1"]["summary"]["mean"] - 0.016981839450429092) < 1e-15


def test_the_rule_keeps_small_true_means_and_non_finite_ones():
    assert encode(np.array([0.1, 0.2, -0.3]))["summary"]["mean"] == 0.0
    tiny = encode(np.array([1e-20, 2e-20]))["summary"]["mean"]   # small, but all signal
    assert tiny == np.array([1e-20, 2e-20]).mean() and tiny > 0
    near = encode(np.array([1.0, -1.0 + 1e-12]))["summary"]["mean"]   # above n eps max|x|
    assert near == np.array([1.0, -1.0 + 1e-12]).mean() and near > 4e-13
    assert encode(np.array([1.0, np.nan]))["summary"]["mean"] == "NaN"
    assert encode(np.array([1.0, np.inf]))["summary"]["mean"] == "Infinity"
    # float32 elements carry float32's rounding: its eps decides
    x32 = np.array([0.1, 0.2, -0.3], dtype=np.float32)
    assert float(x32.astype(np.float64).mean()) != 0.0
    assert encode(x32)["summary"]["mean"] == 0.0


def test_the_table_prints_the_summarys_zero():
    """`gradwalk trace --format table` prints a gradient of 30 × 3 by its summary."""
    wide = MLP.replace("randn(4, 8", "randn(4, 30").replace("zeros(8)", "zeros(30)") \
        .replace("randn(8, 3", "randn(30, 3")
    body = run_trace(wide)
    assert body["grads"]["W2"]["summary"]["mean"] == 0.0
    rows = {line.split(" = ")[0]: line for line in table.render_table(body).splitlines()
            if line.startswith("dL/d")}
    assert rows["dL/dW2"].endswith(", mean 0)"), rows["dL/dW2"]
    assert rows["dL/dW1"].endswith(", mean 0.0212)"), rows["dL/dW1"]
