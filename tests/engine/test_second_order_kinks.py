"""Second derivatives at a kink (issue 9, section 6; found by a fresh review): the numbers are
PyTorch's, and a "non_differentiable" warning says so, naming `vector` in hvp mode and no
field for a `# hessian:` line, as forward mode names `tangents`. Away from the kink, none."""
from __future__ import annotations

import torch

from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import run_trace

torch.set_default_dtype(torch.float64)


def torch_hessian(f, *xs):
    return torch.autograd.functional.hessian(f, tuple(torch.tensor(x) for x in xs))


def test_hvp_at_relus_kink_is_pytorchs_and_warned_naming_vector():
    body = run_trace("x = 0.0\nL = relu(x) * x\n", options=Options(mode="hvp"))
    want = torch.autograd.functional.hvp(lambda x: torch.relu(x) * x, torch.tensor(0.0),
                                         torch.tensor(1.0))[1]
    assert body["hvp"] == {"x": float(want)} == {"x": 0.0}
    (warning,) = body["warnings"]
    assert warning["kind"] == "non_differentiable" and warning["field"] == "vector"
    assert (warning["node"], warning["line"], warning["col"]) == ("n1", 2, 4)
    assert warning["message"].startswith("relu is not differentiable at 0: in relu(x) (line 2, "
                                         "col 5) its input is 0; the Hessian-vector product")


def test_a_full_hessian_at_a_kink_is_pytorchs_and_warned_without_a_field():
    body = run_trace("# hessian: full\nx = 0.0\ny = 1.0\nL = relu(x) * x + y * y\n")
    h = torch_hessian(lambda x, y: torch.relu(x) * x + y * y, 0.0, 1.0)
    assert body["hessian"]["matrix"] == [[float(h[i][j]) for j in range(2)] for i in range(2)]
    (warning,) = body["warnings"]
    assert warning["field"] is None and "the Hessian takes PyTorch's convention" in warning["message"]


def test_abs_tie_and_sqrt_kinks_are_each_named_once():
    text = "# hessian: full\na = 0.0\nb = 2.0\nL = abs(a) * b + maximum(b, 2.0) * b\n"
    body = run_trace(text)
    ops = sorted(w["message"].split(" ")[0] for w in body["warnings"])
    assert ops == ["abs", "maximum"]
    h = torch_hessian(lambda a, b: torch.abs(a) * b + torch.maximum(b, torch.tensor(2.0)) * b,
                      0.0, 2.0)
    assert body["hessian"]["matrix"] == [[float(h[i][j]) for j in range(2)] for i in range(2)]


def test_no_warning_away_from_a_kink():
    body = run_trace("x = 1.0\nL = relu(x) * x\n", options=Options(mode="hvp"))
    assert body["hvp"] == {"x": 2.0} and "warnings" not in body
