"""Numbers a student sees (issue 14, section 4): each input of the issue, with its real values."""
from __future__ import annotations

import numpy as np
import torch

from gradwalk.engine.trace.runner import run_trace
from gradwalk.engine.trace.values import decode

torch.set_default_dtype(torch.float64)


# ---- clip at a bound ----------------------------------------------------------------------------
def test_clip_at_a_bound_passes_no_gradient_as_torch_clamp_does():
    """x = [0, 1, 0.5, -0.5, 1.5]: PyTorch 2.14's torch.clamp passes 0 at the bounds 0 and 1."""
    body = run_trace("x = [0.0, 1.0, 0.5, -0.5, 1.5]\n"
                     "L = sum(clip(x, 0, 1) * [1.0, 2.0, 3.0, 4.0, 5.0])\n")
    assert decode(body["grads"]["x"]).tolist() == [0.0, 0.0, 3.0, 0.0, 0.0]
    x = torch.tensor([0.0, 1.0, 0.5, -0.5, 1.5], requires_grad=True)
    (torch.clamp(x, 0, 1) * torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0])).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 3.0, 0.0, 0.0], torch.__version__


def test_clip_in_forward_mode_and_hvp_leaves_the_bounds_out_too():
    text = "x = [0.0, 1.0, 0.5]\nL = sum(clip(x, 0, 1) * clip(x, 0, 1))\n"
    from gradwalk.engine.trace.options import Options
    body = run_trace(text, options=Options(mode="forward", tangents={"x": [1.0, 1.0, 1.0]}))
    assert decode(body["jvp"]) == 1.0    # only x = 0.5 is inside: 2 · 0.5 · 1
    body = run_trace(text, options=Options(mode="hvp", vector={"x": [1.0, 1.0, 1.0]}))
    assert decode(body["hvp"]["x"]).tolist() == [0.0, 0.0, 2.0]


# ---- a negative zero is never shown ---------------------------------------------------------------
import json  # noqa: E402
import re  # noqa: E402

import pytest  # noqa: E402

from gradwalk.engine.trace import table, table_tex  # noqa: E402
from gradwalk.engine.trace.values import short  # noqa: E402

NEGATIVE_ZERO = re.compile(r"(?<![\w.])-0(?:\.0+)?(?![\w.])")   # "-0", "-0.0000"; not -0.5


def test_the_pattern_finds_negative_zeros_only():
    assert NEGATIVE_ZERO.findall("L = -0, x = -0.0000") == ["-0", "-0.0000"]
    assert not NEGATIVE_ZERO.search("-0.5 1e-05 -0.0001 x-0 [0, -1]")


def test_a_confident_right_answer_has_its_tiny_positive_loss():
    """cross_entropy([40, 0], 0) = log1p(exp(-40)) = 4.248e-18, not -0.0."""
    body = run_trace("z = [40.0, 0.0]\nL = cross_entropy(z, 0)\n")
    assert body["output"]["value"] == np.log1p(np.exp(-40.0)) == 4.248354255291589e-18
    assert "L = 4.248e-18" in table.results(body)


def _texts(body: dict) -> list[str]:
    """Everything a person reads of a trace: narration, formulas, the table in its three forms."""
    out = [json.dumps([e.get("narration") for e in body["events"]], ensure_ascii=False)]
    out += [table.render_table(body), table.render_markdown(body), table_tex.render_latex(body)]
    out += table.results(body)
    return out


@pytest.mark.parametrize("text", [
    "z = [40.0, 0.0]\nL = cross_entropy(z, 0)\n",
    "Z = [[40.0, 0.0], [0.0, 50.0]]\nL = cross_entropy(Z, [0, 1])\n",
    "a = -0.0\nb = 2.0\nc = a * b\nL = c * -1.0\n",
    "x = [-0.0, 0.0, -1e-300]\ny = x * 1e-300\nL = sum(y * -1.0)\n",
])
def test_no_negative_zero_in_narration_tables_or_exports(text):
    body = run_trace(text)
    for shown in _texts(body):
        assert not NEGATIVE_ZERO.search(shown), shown


@pytest.mark.parametrize("x", [-0.0, -1e-9 * 1e-300, -4e-5, -0.00004999])
def test_short_never_prints_a_negative_zero(x):
    assert not NEGATIVE_ZERO.search(short(x)) and not NEGATIVE_ZERO.search(table._fmt(x))


# ---- underflow is marked as NaN and infinity are ------------------------------------------------
CHAIN = "x0 = 0.5\n" + "".join(f"x{i + 1} = tanh(x{i}) * 0.9 + 0.1\n" for i in range(5000))


def test_an_underflowed_adjoint_is_marked_at_its_first_node_with_why():
    """Over 5,000 lines dx5000/dx0 reaches 4.941e-324 (the true value is about 1e-858): the
    first adjoint below 2.2e-308 is marked, warned and narrated as not exact."""
    body = run_trace(CHAIN)
    assert body["grads"]["x0"] == 5e-324
    mark = body["first_non_finite"]
    assert mark["kind"] == "underflow" and mark["phase"] == "backward"
    assert mark["why"] == "underflow: below 2.2e-308, the float64 limit"
    (event,) = [e for e in body["events"] if e["seq"] == mark["seq"]]
    assert event["kind"] == "accumulate" and event["input"] == mark["node"]
    after = event["adjoint_after"]
    assert 0 < after < 2.2250738585072014e-308
    before = [e for e in body["events"] if e["kind"] == "accumulate" and e["seq"] < mark["seq"]]
    assert all(abs(e["adjoint_after"]) >= 2.2250738585072014e-308 for e in before)
    assert event["narration"].endswith("(underflow: below 2.2e-308, the float64 limit: not exact)")
    (warning,) = body["warnings"]   # one: every later step's note marks its own node
    assert warning["kind"] == "underflow" and warning["node"] == mark["node"]
    assert "not exact" in warning["message"]
    assert body["events"][-1]["narration"].startswith(
        "Done, with a warning: a number underflowed, so it and the numbers computed from it "
        "are not exact.")


TINY = 2.2250738585072014e-308


def test_every_underflowed_adjoint_is_marked_and_each_step_says_so():
    """Issue 14 §4: only the first underflowed adjoint (x̄3207's edge) was marked; later steps,
    `x̄0 += 0.7864 · 4.941e-324 = 4.941e-324`, read as exact. Now every accumulate step whose
    adjoint is subnormal, or 0 from a product of non-zero numbers, says so briefly (the event
    names its node); the one warning stays at the first (the body stays bounded)."""
    body = run_trace(CHAIN)
    steps = [e for e in body["events"] if e["kind"] == "accumulate"]
    under = [e for e in steps if 0 < abs(e["adjoint_after"]) < TINY
             or (e["adjoint_after"] == 0 and e["upstream"] != 0 and e["local"] != 0)]
    assert len(under) > 9_000   # from x̄3207 down to x̄0, three edges a line
    first = body["first_non_finite"]["seq"]
    for e in under:
        ending = ("(underflow: below 2.2e-308, the float64 limit: not exact)" if e["seq"] == first
                  else " (underflow: not exact)")
        assert e["narration"].endswith(ending), e["narration"]
    (x0,) = [e for e in steps if e["input"] == "n0"]
    assert x0["narration"] == ("tanh(x0): x̄0 += (1 - tanh(x0)²) · ∂x5000/∂tanh(x0) = 0.7864 · "
                               "4.941e-324 = 4.941e-324 (underflow: not exact)")
    normal = [e for e in steps if abs(e["adjoint_after"]) >= TINY]
    assert normal and not any("underflow" in e["narration"] for e in normal)
    assert [w["node"] for w in body["warnings"]] == [body["first_non_finite"]["node"]]


def test_the_size_estimate_counts_every_underflow_note():
    """Each note's words are in the estimate (budget.UNDERFLOW_NOTE per edge where the walk
    may mark one): the estimate stays over the real body."""
    from gradwalk.engine.trace import budget
    from gradwalk.engine.trace.runner import Limits, Tracer, trace_json
    estimate = sum(budget.per_node(Tracer(CHAIN), Limits().inline))
    real = len(trace_json(CHAIN))
    assert real <= estimate <= 2.5 * real
    bound = budget.scalar_bound(Tracer(CHAIN))
    assert bound is None or bound >= real


def test_a_product_that_rounds_to_0_is_an_underflow_in_the_forward_pass():
    body = run_trace("a = 1e-200\nb = 1e-200\nc = a * b\nL = c + 1.0\n")
    assert body["first_non_finite"] == {"node": "n2", "phase": "forward", "kind": "underflow",
                                        "why": "underflow: below 2.2e-308, the float64 limit",
                                        "seq": 2}
    assert [w["kind"] for w in body["warnings"]] == ["underflow"]


def test_float32_names_its_own_limit():
    body = run_trace("# dtype: float32\na = 1e-20\nb = 1e-20\nL = a * b\n")
    assert body["first_non_finite"]["why"] == "underflow: below 1.2e-38, the float32 limit"


@pytest.mark.parametrize("text", [
    "a = 1e-200\nb = 1e-100\nL = a * b\n",          # 1e-300: small, normal, exact enough
    "a = 2.0\nb = 2.0\nL = a - b\n",                 # a difference that is 0 is exact
    "a = 0.0\nb = 5.0\nL = a * b\n",                 # 0 times a number is 0 exactly
])
def test_no_underflow_where_there_is_none(text):
    body = run_trace(text)
    assert body["first_non_finite"] is None and "warnings" not in body


# ---- a node the output does not use -----------------------------------------------------------------
def test_a_node_the_output_does_not_use_is_warned_at_its_node():
    body = run_trace("Z = [[1.0, 2.0], [0.5, -1.0]]\nP = softmax(Z)\nL = cross_entropy(Z, [0, 1])\n")
    (warning,) = body["warnings"]
    assert warning["kind"] == "unused" and warning["node"] == "n1"
    assert warning["message"] == ("P = softmax(Z) (line 2, col 5) is not used by L: it does "
                                  "not reach the output, so it gets no gradient")
    assert (warning["line"], warning["col"]) == (2, 4)
    assert "not used" not in json.dumps([e.get("narration") for e in body["events"][:-1]])
    assert body["events"][-1]["narration"].startswith(
        "Done, with a warning: a node does not reach the output, so it gets no gradient.")


def test_an_unused_leaf_and_chain_are_each_named_once():
    body = run_trace("a = 1.0\nb = 2.0\nu = b * 3.0 + 1.0\nL = a * a\n")
    assert [(w["node"], w["message"].split(" (")[0]) for w in body["warnings"]] == \
        [("n1", "b = 2.0"), ("n5", "u = b * 3.0 + 1.0")]
    assert body["warnings"][0]["message"].endswith("so its gradient is 0")


def test_every_node_used_gives_no_unused_warning():
    assert "warnings" not in run_trace("a = 1.0\nb = 2.0\nL = a * b\n")
