"""The gradient check (issue 9, section 3): every leaf's adjoint against central differences,
ok on correct programs, flagging a wrong rule and the bug lab's wrong gradients, its step
changeable, its cost bounded."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import torch_program
from gradwalk.engine.errors import ProgramError
from gradwalk.engine.ops.registry import REGISTRY
from gradwalk.engine.trace import gradcheck
from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import Tracer, run_trace
from gradwalk.engine.trace.values import decode
from gradwalk.server.presets import presets

PRESETS = {p["id"]: p["program"] for p in presets()}
GOOD = [k for k in PRESETS if not k.startswith("bug-")] + ["bug-zero-grad"]
CHECK = Options(check=True)


@pytest.mark.parametrize("name", GOOD)
def test_every_preset_passes_the_check(name):
    body = run_trace(PRESETS[name], options=CHECK)
    check = body["gradcheck"]
    assert set(check) == set(body["grads"])
    for leaf, row in check.items():
        assert row["ok"] is True, (leaf, row["max_abs_error"], row["max_rel_error"])
        assert row["max_abs_error"] <= 1e-5
        assert row["eps"] == 1e-6 and row["atol"] == 1e-5 and row["rtol"] == 1e-3
        np.testing.assert_array_equal(decode(row["analytic"]), decode(body["grads"][leaf]))
        np.testing.assert_allclose(decode(row["numeric"]), decode(body["grads"][leaf]),
                                   rtol=1e-4, atol=1e-6)


def test_the_numbers_of_the_first_example():
    check = run_trace(PRESETS["seed-tanh-fanout"], options=CHECK)["gradcheck"]
    assert check["a"]["numeric"] == pytest.approx(0.7864477329659274, abs=1e-9)
    assert check["b"]["numeric"] == pytest.approx(1.5728954659318548, abs=1e-9)
    assert 0 < check["a"]["max_abs_error"] < 1e-9   # O(h²) truncation plus rounding


def test_a_wrong_vjp_is_flagged(monkeypatch):
    tanh = REGISTRY["tanh"]
    wrong = lambda g, out, x: g * (1.0 - out)   # noqa: E731 - forgot to square t
    monkeypatch.setitem(REGISTRY, "tanh", dataclasses.replace(tanh, vjp=(wrong,)))
    body = run_trace(PRESETS["seed-tanh-fanout"], options=CHECK)
    check = body["gradcheck"]
    assert check["a"]["ok"] is False and check["b"]["ok"] is False
    assert check["c"]["ok"] is True   # c's gradient does not pass through tanh
    th = math.tanh(0.5)
    assert check["a"]["analytic"] == pytest.approx((1 - th) * 2 * 0.5, abs=1e-12)
    assert check["a"]["numeric"] == pytest.approx((1 - th * th) * 2 * 0.5, abs=1e-8)
    assert check["a"]["max_abs_error"] == pytest.approx(abs((1 - th) - (1 - th * th)), abs=1e-8)


@pytest.mark.parametrize("name, wrong", [
    ("bug-overwrite", {"a"}), ("bug-wrong-order", {"a", "b"}),
    ("bug-no-zero-grad", {"a", "b", "c"}), ("bug-detach", {"a", "b"}),
])
def test_the_bug_labs_wrong_gradients_are_flagged(name, wrong):
    if name not in PRESETS:
        pytest.skip("the bug lab's presets are not in")
    check = run_trace(PRESETS[name], options=CHECK)["gradcheck"]
    assert {leaf for leaf, row in check.items() if not row["ok"]} == wrong


def test_tensor_elements_each_checked_against_torch():
    text = "X = [[1.0, -2.0], [0.5, 3.0]]\nw = [0.3, -0.7]\nL = sum(sigmoid(X @ w) ** 2)\n"
    check = run_trace(text, options=CHECK)["gradcheck"]
    jac = torch_program.jacobian(text)[0]
    np.testing.assert_allclose(np.ravel(decode(check["X"]["numeric"])), jac[:4], atol=1e-8)
    np.testing.assert_allclose(decode(check["w"]["numeric"]), jac[4:], atol=1e-8)
    assert check["X"]["ok"] and check["w"]["ok"]


def test_one_wrong_element_of_a_tensor_is_caught(monkeypatch):
    mul = REGISTRY["mul"]
    # the first element's gradient is off by 1: a rule that is almost right
    def wrong(g, out, x, y):
        r = np.array(g * y, dtype=np.float64)
        r.flat[0] += 1.0
        return r
    monkeypatch.setitem(REGISTRY, "mul", dataclasses.replace(mul, vjp=(wrong, mul.vjp[1])))
    check = run_trace("x = [1.0, 2.0, 3.0]\ny = const([4.0, 5.0, 6.0])\nL = sum(x * y)\n",
                      options=CHECK)["gradcheck"]
    assert check["x"]["ok"] is False
    assert check["x"]["max_abs_error"] == pytest.approx(1.0, abs=1e-6)
    assert decode(check["x"]["numeric"]) == pytest.approx([4.0, 5.0, 6.0], abs=1e-6)


def test_the_step_is_shown_and_can_be_changed():
    a = run_trace(PRESETS["seed-tanh-fanout"], options=Options(check=True, eps=1e-3))
    row = a["gradcheck"]["a"]
    assert row["eps"] == 1e-3 and row["ok"] is True
    # central differences: the error grows as h² (about 1e-7 at h = 1e-3, not 1e-11)
    assert 1e-9 < row["max_abs_error"] < 1e-5


def test_a_kink_is_flagged_not_hidden():
    """relu at 0: the rule says 0 (PyTorch's), the central difference (1 - 0) / 2 = 0.5."""
    check = run_trace("x = 0.0\nL = relu(x)\n", options=CHECK)["gradcheck"]
    assert check["x"]["analytic"] == 0.0 and check["x"]["numeric"] == pytest.approx(0.5)
    assert check["x"]["ok"] is False


def test_a_tensor_output_is_checked_through_its_seed():
    text = "x = [1.0, -2.0]\ny = x * x\n"
    check = run_trace(text, output_grad=[3.0, 0.5], options=CHECK)["gradcheck"]
    assert decode(check["x"]["numeric"]) == pytest.approx([6.0, -2.0], abs=1e-6)
    assert check["x"]["ok"]


def test_float32_programs_are_checked_in_float64():
    body = run_trace("# dtype: float32\n" + PRESETS["seed-bias-broadcast"], options=CHECK)
    assert all(row["ok"] for row in body["gradcheck"].values())


def test_forward_mode_also_checks_the_reverse_gradient():
    body = run_trace(PRESETS["seed-tanh-fanout"], options=Options(mode="forward", check=True))
    assert all(row["ok"] for row in body["gradcheck"].values())


def test_too_many_elements_are_refused_naming_the_limit():
    with pytest.raises(ProgramError) as e:
        Tracer("W = randn(50, 50, seed=0)\nL = sum(W * W)\n", options=CHECK)
    assert e.value.kind == "too_large"
    assert "2,500" in str(e.value) and "2,000 elements" in str(e.value)


def test_too_much_work_is_refused():
    text = "x = randn(500, seed=0)\n" + "".join(f"y{k} = tanh(x)\n" for k in range(1500))
    with pytest.raises(ProgramError) as e:
        Tracer(text, options=CHECK)
    assert e.value.kind == "too_large" and "1,000,000 passes × op nodes" in str(e.value)


@pytest.mark.parametrize("eps", [0.0, -1e-6, 2.0, math.nan, math.inf])
def test_a_bad_step_is_bad_argument(eps):
    with pytest.raises(ProgramError) as e:
        Tracer(PRESETS["seed-tanh-fanout"], options=Options(check=True, eps=eps))
    assert e.value.kind == "bad_argument" and "eps" in str(e.value)


def test_the_module_constants_are_torch_gradchecks_defaults():
    import inspect

    import torch

    defaults = inspect.signature(torch.autograd.gradcheck).parameters
    assert gradcheck.EPS == defaults["eps"].default
    assert gradcheck.ATOL == defaults["atol"].default
    assert gradcheck.RTOL == defaults["rtol"].default


def test_a_step_below_rounding_is_refused_not_blamed_on_the_gradient():
    # eps = 1e-300: a + h == a, so every central difference would be 0 and every leaf would
    # "disagree" (review finding); the request is refused, naming eps and the leaf.
    with pytest.raises(ProgramError) as e:
        run_trace("a = 1.0\nb = -0.5\nL = a * b\n", options=Options(check=True, eps=1e-300))
    assert e.value.kind == "bad_argument" and "eps = 1e-300" in e.value.message
    assert "leaf a" in e.value.message


@pytest.mark.parametrize("options,field", [
    (Options(tangents={"a": 1.0}), "tangents"),
    (Options(mode="hvp", tangents={"a": 1.0}), "tangents"),
    (Options(mode="forward", vector={"a": 1.0}), "vector"),
    (Options(eps=1e-3), "eps"),
])
def test_a_field_its_mode_does_not_use_is_refused_by_name(options, field):
    with pytest.raises(ProgramError) as e:
        run_trace("a = 1.0\nb = -0.5\nL = a * b\n", options=options)
    assert e.value.kind == "bad_argument" and e.value.message.startswith(f"`{field}` applies")


# ---- a disagreement at a kink is explained, not blamed on the engine (review finding) --------
def test_a_kink_disagreement_says_why():
    import torch

    a = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    torch.relu(a).backward()
    body = run_trace("a = 0.0\nL = relu(a)\n", options=CHECK)
    row = body["gradcheck"]["a"]
    assert row["analytic"] == float(a.grad) == 0.0 and row["numeric"] == pytest.approx(0.5)
    assert row["ok"] is False   # still a disagreement...
    assert row["kink"] == ("relu at 0 (line 2): central differences average the one-sided "
                           "slopes 0 and 1, and the engine takes PyTorch's slope 0")
    (warning,) = body["warnings"]   # ...explained, at the node
    assert (warning["kind"], warning["field"], warning["node"]) == \
        ("non_differentiable", "check", "n1")
    assert (warning["line"], warning["col"], warning["end_line"], warning["end_col"]) == \
        (2, 4, 2, 11)
    assert warning["message"].startswith("The gradient check of a disagrees at a point where "
                                         "an op has no derivative, not because of a wrong "
                                         "gradient: relu at 0 (line 2)")


def test_clip_at_its_bound_and_sqrt_at_0_are_explained():
    body = run_trace("x = 1.0\nL = clip(x, -1, 1)\n", options=CHECK)
    row = body["gradcheck"]["x"]
    # torch.clamp's slope at a bound, 0 since PyTorch 2.14 (engine/ops/minmax.py)
    assert (row["analytic"], row["numeric"]) == (0.0, pytest.approx(0.5))
    assert row["kink"].startswith("clip at its bounds (line 2): central differences average "
                                  "the one-sided slopes 0 and 1")
    body = run_trace("x = 0.0\nL = sqrt(x)\n", options=CHECK)
    row = body["gradcheck"]["x"]
    assert row["analytic"] == "Infinity" and row["numeric"] == "NaN" and not row["ok"]
    assert row["kink"].startswith("sqrt at 0 (line 2): the slope is infinite there")


def test_a_kink_on_another_leafs_path_is_not_blamed():
    """Only a kink on the way from the leaf to the output explains its disagreement; a wrong
    gradient elsewhere (the bug lab's) stays unexplained."""
    body = run_trace(PRESETS["bug-overwrite"], options=CHECK)
    assert not body["gradcheck"]["a"]["ok"] and "kink" not in body["gradcheck"]["a"]
    assert "warnings" not in body
    body = run_trace("a = 0.0\nb = 2.0\nL = relu(a) + b * b\n", options=CHECK)
    assert body["gradcheck"]["b"]["ok"] and "kink" not in body["gradcheck"]["b"]
    assert "kink" in body["gradcheck"]["a"]


def test_a_tie_that_agrees_is_not_warned_about():
    """maximum(x, y) at x = y: the rule's ½ and the central difference's ½ agree."""
    body = run_trace("x = 1.0\ny = 1.0\nL = maximum(x, y)\n", options=CHECK)
    assert all(row["ok"] for row in body["gradcheck"].values()) and "warnings" not in body
