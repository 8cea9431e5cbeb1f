"""The narration says why a local derivative has its value at an edge point (issue 14 §4,
A2): engine/trace/edge_notes.py, in the first-order walk (reverse mode), forward mode and the
walks of the backward pass recorded as a graph (hvp mode: forward over reverse, then reverse).

The values are the rules' (PyTorch's); the words are asserted here, and that they are absent
away from the edge points."""
from __future__ import annotations

import pytest

from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import run_trace

POW = "c = 0.0\nd = 2.5\nL = c ** d + d * d\n"
LOG_ZERO = "(c ** d) * log(c) is taken as 0 at c = 0 (PyTorch's convention, its limit: " \
           "log(c) is -∞ there)"


def _said(body: dict, kind: str) -> list[str]:
    return [e["narration"] for e in body["events"] if e["kind"] == kind]


def test_pows_exponent_at_a_zero_base_says_why_it_is_0_in_reverse_mode():
    """The issue's case: d̄ += ((c ** d) * log(c)) · ∂L/∂(c ** d) = 0 · 1 = 0 read as false
    arithmetic (log 0 is -∞); the step now says the 0 is PyTorch's convention."""
    said = _said(run_trace(POW), "accumulate")
    step = [s for s in said if "d̄ += ((c ** d) * log(c))" in s]
    assert step == ["c ** d: d̄ += ((c ** d) * log(c)) · ∂L/∂(c ** d) = 0 · 1 = 0; "
                    f"d̄ = 5 + 0 = 5; {LOG_ZERO}"]
    assert [s for s in said if "convention" in s] == step   # and nowhere else


def test_the_backward_graphs_walks_say_why_at_the_same_point():
    """hvp mode: the first-order tangent of c ** d, the masked row L̄ * c ** d * log(c)'s
    tangent (its partials hold log(c) too) and its reverse steps each say why."""
    body = run_trace(POW, options=Options(mode="hvp", vector={"c": 0.0, "d": 1.0}))
    tangents = _said(body, "tangent")
    assert tangents[2].endswith(f"c ** d = 0 + 0ε; {LOG_ZERO}")
    row = [s for s in tangents if s.startswith("L̄ * c ** d * log(c):")]
    assert len(row) == 1 and row[0].endswith(   # one reason, said once for both partials
        "; L̄ * c ** (d - 1) * (d * log(c) + 1) and L̄ * c ** d * log(c)² are taken as 0 at "
        "c = 0 (PyTorch's convention, its limit: log(c) is -∞ there)")
    steps = [s for s in _said(body, "accumulate") if s.startswith("L̄ * c ** d * log(c):")]
    assert len(steps) == 2 and all("is taken as 0 at c = 0 (PyTorch's convention" in s
                                   for s in steps)


# (program, the node's narration starts with, the words) for every op with an edge point
EDGES = [
    ("x = 0.0\nL = relu(x) * 3.0\n", "relu(x)",
     "relu is not differentiable at 0: [x > 0] takes PyTorch's convention (slope 0)"),
    ("x = 0.0\nL = abs(x) * 3.0\n", "abs(x)",
     "abs is not differentiable at 0: sign(x) takes PyTorch's convention (slope sign(0) = 0)"),
    ("x = 0.0\nL = leaky_relu(x, 0.2) * 3.0\n", "leaky_relu(x, 0.2)",
     "leaky_relu is not differentiable at 0: [x > 0] + 0.2 [x ≤ 0] takes PyTorch's "
     "convention (slope 0.2, the negative side's)"),
    ("x = 1.0\nL = clip(x, 0.0, 1.0) * 3.0\n", "clip(x, 0.0, 1.0)",
     "clip is not differentiable at its bounds: [0.0 < x and x < 1.0] takes PyTorch's "
     "convention (slope 0: a bound counts as outside, as torch.clamp since PyTorch 2.14)"),
    ("a = 1.0\nb = 1.0\nL = maximum(a, b) * 3.0\n", "maximum(a, b)",
     "maximum is not differentiable where its inputs tie: [a > b] (½ on a tie)"),   # (and
    # [b > a] in forward mode's one sentence: "... take PyTorch's convention (½ to each input)")
    ("a = 1.0\nb = 1.0\nL = minimum(a, b) * 3.0\n", "minimum(a, b)",
     "minimum is not differentiable where its inputs tie"),
    ("x = [2.0, 2.0, 1.0]\nL = max(x) * 3.0\n", "max(x)",
     "max is not differentiable where elements tie for the max: [x = max(x)] / (number of "
     "ties) takes PyTorch's "
     "convention (the tied elements share the slope evenly, as torch.amax)"),
    ("x = [2.0, 1.0, 1.0]\nL = min(x) * 3.0\n", "min(x)",
     "min is not differentiable where elements tie for the min"),
    ("x = 0.0\nL = sqrt(x) * 3.0\n", "sqrt(x)",
     "sqrt is not differentiable at 0: 1/(2 * sqrt(x)) is ∞ at x = 0 (an infinite slope; "
     "PyTorch's is ∞ too)"),
    ("x = 0.0\nL = log(x) * 3.0\n", "log(x)", "1/x is ∞ at x = 0 (1/0; PyTorch's is ∞ too)"),
    ("c = 0.0\nd = 0.0\nL = c ** d * 3.0\n", "c ** d",
     "d * c^(d-1) is taken as 0 at c = 0 with d = 0 (PyTorch's convention: 0 · 0^(-1) has no "
     "value)"),
    ("x = 0.0\nL = where(x > 0.0, 1.0 / x, x * 2.0) * 3.0\n", "where(x > 0.0, 1.0 / x, x * 2.0)",
     "is 0 where x > 0.0 is false: where did not take 1.0 / x, so its ∞ or NaN there does "
     "not reach the output"),
]


def _mentions(said: list[str], start: str, words: str) -> list[str]:
    return [s for s in said if s.startswith(start) and words in s]


@pytest.mark.parametrize("text, start, words", EDGES, ids=[e[1] for e in EDGES])
def test_every_edge_point_is_said_in_reverse_forward_and_hvp(text, start, words):
    if start.startswith("maximum"):   # both partials, one reason: said once in forward mode
        forward = _said(run_trace(text, options=Options(mode="forward")), "tangent")
        assert any("[a > b] (½ on a tie) and [b > a] (½ on a tie) take PyTorch's convention "
                   "(½ to each input)" in s for s in forward), forward
    leaves = [line.split(" = ")[0] for line in text.splitlines()[:-1]]
    reverse = _said(run_trace(text), "accumulate")
    assert _mentions(reverse, start, words), reverse
    forward = _said(run_trace(text, options=Options(mode="forward")), "tangent")
    assert _mentions(forward, start, words), forward
    hvp = run_trace(text, options=Options(mode="hvp", vector={k: 1.0 if k != "x" or
                                                              "[" not in text else
                                                              [1.0, 1.0, 1.0]
                                                              for k in leaves}))
    assert _mentions(_said(hvp, "tangent"), start, words)
    # the backward graph's masked row: where its own derivative is a convention, the walks
    # of the recorded backward pass say so at the row (not at the op's own node)
    op = start.split("(")[0] if "(" in start else "pow"
    row = {"pow": "is taken as 0 at c = 0 with d = 0 (PyTorch's convention",
           **{k: f"{k} is not differentiable" for k in ("relu", "abs", "leaky_relu", "clip",
                                                      "maximum", "minimum", "max", "min")}}
    if op in row:
        said = [s for s in _said(hvp, "tangent") + _said(hvp, "accumulate")
                if row[op] in s and not s.startswith(start)]
        assert said, _said(hvp, "tangent") + _said(hvp, "accumulate")
        if op != "pow":
            assert all("its second derivative there is taken as 0 (PyTorch's convention)" in s
                       for s in said)


@pytest.mark.parametrize("text", [
    "x = 0.5\nL = relu(x) * abs(x) + sqrt(x) + log(x) + clip(x, 0.0, 1.0)\n",
    "a = 1.0\nb = 2.0\nL = maximum(a, b) * minimum(a, b) + a ** b + b ** 0.0\n",
    "x = [3.0, 2.0, 1.0]\nL = max(x) * min(x)\n",
    "x = 2.0\nL = where(x > 0.0, 1.0 / x, x * 2.0)\n",
])
def test_no_words_away_from_edge_points(text):
    for options in (None, Options(mode="forward")):
        body = run_trace(text) if options is None else run_trace(text, options=options)
        for e in body["events"]:
            assert "convention" not in (e.get("narration") or "") or e["kind"] == "done", e
            assert "did not take" not in (e.get("narration") or ""), e
