"""Second derivatives at every edge point the engine masks (issue 14 §4, the review of pow at
base 0): both hvp walks agree, case by case, with a named reference.

The reference is PyTorch float64's torch.autograd.functional.hvp where it equals the true
limit, and the true limit (closed form, checked by one-sided differences on c > 0) where it
does not; each such case says why. Two reasons recur:
- functional.hvp is a vhp: it differentiates ⟨∇L, v⟩ by reverse mode, so a zero entry of v
  meets a NaN or ∞ partial as 0 · ∞ = NaN. gradwalk's convention (engine/trace/hvp.py
  `zero_terms`): a term whose upstream gradient or tangent is exactly 0 adds exactly 0, so H v
  is the directional derivative of the gradient along v, the same both ways.
- pow's mixed partial ∂²(c ** d)/∂c∂d = c^(d-1) (1 + d log c) at c = 0 has no value for
  0 <= d <= 1 (engine/ops/masked.py): NaN, where PyTorch's masks give 0 in one direction.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import run_trace
from gradwalk.engine.trace.values import decode

torch.set_default_dtype(torch.float64)
NAN, INF = math.nan, math.inf
VECTORS = [(1.0, 1.0), (0.0, 1.0), (1.0, 0.0)]


def _walks(text: str, names: list[str], v: tuple) -> tuple[list, list]:
    """(hvp by reverse over reverse, by forward over reverse) as float lists, leaf order."""
    body = run_trace(text, options=Options(mode="hvp", vector=dict(zip(names, v))))
    return tuple([float(np.asarray(decode(body[way][n]), dtype=float)) for n in names]
                 for way in ("hvp", "hvp_forward_over_reverse"))


def _same(got, want) -> bool:
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    return bool(np.allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)
                and np.array_equal(np.isinf(got), np.isinf(want)))


def _torch(f, point: tuple, v: tuple) -> list[float]:
    xs = tuple(torch.tensor(x) for x in point)
    return [float(h) for h in torch.autograd.functional.hvp(f, xs, tuple(
        torch.tensor(x) for x in v))[1]]


# ---- pow at base 0, c = 0, L = c ** d + d * d (the brief's table) ---------------------------
def _pow_hessian(d: float) -> tuple[float, float, float]:
    """(H_cc, H_cd = H_dc, H_dd) of c ** d at c = 0 from the c >= 0 side (engine/ops/
    masked.py's docstring): d (d-1) 0^(d-2); the mixed partial, no value for 0 <= d <= 1;
    0^d log² 0 masked to 0 (f(0, d) = 0 near any d > 0)."""
    cc = 0.0 if d in (0.0, 1.0) or d > 2 else 2.0 if d == 2 else INF if d > 1 else -INF
    return cc, (NAN if d <= 1 else 0.0), 0.0


def pow_reference(d: float, v: tuple) -> list[float]:
    """H v of c ** d + d * d at c = 0 with the zero-direction convention (a term whose v is
    0 adds 0)."""
    cc, cd, dd = _pow_hessian(d)
    rows = ((cc, cd), (cd, dd + 2.0))
    return [sum(h * x for h, x in zip(row, v) if x != 0) for row in rows]


# where functional.hvp is not the true limit, and why
POW_TORCH_DIFFERS = {
    (0.0, (1.0, 1.0)): "0 ** 0: the mixed partial has no value (d · 0^(d-1) is ∞ for "
                       "0 < d < 1 and masked to 0 at d = 0); PyTorch's masks give 0",
    (0.0, (0.0, 1.0)): "0 ** 0: as above, (H v)_c is the mixed partial alone",
    (0.0, (1.0, 0.0)): "0 ** 0: as above, (H v)_d is the mixed partial alone",
    (0.5, (1.0, 1.0)): "H_dd + 2 = 2 is finite but H_dc has no value: NaN; PyTorch's 2 "
                       "comes from its vhp's row, whose exponent mask drops H_dc",
    (0.5, (1.0, 0.0)): "the directional derivative (H_cc, H_dc) = (-∞, NaN); a vhp gives "
                       "the row (NaN, 0), assuming H symmetric",
    (1.0, (1.0, 1.0)): "H_dc has no value at d = 1 (c ln c has slope ln c -> -∞); PyTorch 2",
    (1.0, (1.0, 0.0)): "the directional derivative (H_cc, H_dc) = (0, NaN); a vhp gives "
                       "(NaN, 0)",
    (1.5, (0.0, 1.0)): "the limit c^0.5 (1 + 1.5 ln c) -> 0; PyTorch's 0 · ∞ gives NaN",
}
POW_CASES = [(d, v) for d in (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0) for v in VECTORS]


@pytest.mark.parametrize("d, v", POW_CASES, ids=[f"d={d}-v={v}" for d, v in POW_CASES])
def test_pow_at_base_zero_both_ways_equal_the_limit(d, v):
    text = f"c = 0.0\nd = {d}\nL = c ** d + d * d\n"
    want = pow_reference(d, v)
    ror, forr = _walks(text, ["c", "d"], v)
    assert _same(ror, want) and _same(forr, want), (ror, forr, want)
    pytorch = _torch(lambda c, d_: c ** d_ + d_ * d_, (0.0, d), v)
    assert _same(pytorch, want) == ((d, v) not in POW_TORCH_DIFFERS), (pytorch, want)


@pytest.mark.parametrize("d", [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
def test_pow_at_base_zero_full_hessian_is_the_table(d):
    """`# hessian: full` (one forward-over-reverse pass per basis vector) is the table, NaN
    off the diagonal for 0 <= d <= 1 and symmetric."""
    body = run_trace(f"# hessian: full\nc = 0.0\nd = {d}\nL = c ** d + d * d\n")
    cc, cd, dd = _pow_hessian(d)
    got = [[float(x) for x in row] for row in body["hessian"]["matrix"]]   # "NaN": nan
    assert _same(got, [[cc, cd], [cd, dd + 2.0]]), got


def test_the_reviewers_case():
    """c = 0, d = 1, v = (1, 1) gave (0, 3) and (1, 2) with no warning; now NaN both ways and
    a warning at the pow node that says why; the issue's own d = 2.5 stays (0, 2)."""
    body = run_trace('# hvp: {"c": 1.0, "d": 1.0}\nc = 0.0\nd = 1.0\nL = c ** d + d * d\n')
    assert body["hvp"] == body["hvp_forward_over_reverse"] == {"c": "NaN", "d": "NaN"}
    [w] = [w for w in body["warnings"] if w["kind"] == "non_differentiable"]
    assert w["node"] == "n2" and "∂²/∂c∂d = c^(d-1) (1 + d log c) has no value for " \
        "0 ≤ d ≤ 1" in w["message"]
    issue = run_trace('# hvp: {"c": 0, "d": 1}\nc = 0.0\nd = 2.5\nL = c ** d + d * d\n')
    assert issue["hvp"] == issue["hvp_forward_over_reverse"] == {"c": 0.0, "d": 2.0}
    assert not issue.get("warnings")


@pytest.mark.parametrize("d", [0.5, 1.0, 1.5, 2.5, 3.0])
def test_pows_mixed_partial_tends_to_the_reference_from_above(d):
    """One-sided differences of the first-order rule c̄ = d c^(d-1) in d at small c > 0: they
    go to 0 for d > 1 and fall without bound for d <= 1 (where the reference is NaN)."""
    h = 1e-7
    slopes = [((d + h) * c ** (d + h - 1) - (d - h) * c ** (d - h - 1)) / (2 * h)
              for c in (1e-4, 1e-8, 1e-12)]
    if d > 1:
        assert abs(slopes[-1]) < abs(slopes[0]) and abs(slopes[-1]) < 1e-3
    else:
        assert slopes[-1] < slopes[0] < 0 and slopes[-1] < -20


# ---- the other edge points: each row's reference is PyTorch's unless said ------------------
F = torch.nn.functional
TORCH = {   # each program's L over (x, y) in PyTorch's own ops
    "sqrt(x) * y": lambda x, y: torch.sqrt(x) * y,
    "log(x) * y": lambda x, y: torch.log(x) * y,
    "x ** 3.0 * y + x ** 2.0 * y": lambda x, y: x ** 3.0 * y + x ** 2.0 * y,
    "x ** 0.5 * y": lambda x, y: x ** 0.5 * y,
    "x ** y": lambda x, y: x ** y,
    "relu(x) * y": lambda x, y: torch.relu(x) * y,
    "abs(x) * y": lambda x, y: torch.abs(x) * y,
    "leaky_relu(x, 0.2) * y": lambda x, y: F.leaky_relu(x, 0.2) * y,
    "clip(x, 0.0, 1.0) * y": lambda x, y: torch.clamp(x, 0.0, 1.0) * y,
    "maximum(x, y) * y": lambda x, y: torch.maximum(x, y) * y,
    "minimum(x, y) * y": lambda x, y: torch.minimum(x, y) * y,
    "where(x > 0.0, x * y, 0.0 * x) * y": lambda x, y: torch.where(x > 0, x * y, 0.0 * x) * y,
    "where(x > 0.0, sqrt(x), 0.0 * x) * y":
        lambda x, y: torch.where(x > 0, torch.sqrt(x), 0.0 * x) * y,
}


# (body of L over leaves x, y, point, v, the reference where it is not PyTorch's and why)
EDGES = [
    ("sqrt(x) * y", (0.0, 2.0), (1.0, 0.0), ([-INF, INF], "H_xx = -y/(4 x^1.5) -> -∞; "
                                             "PyTorch's vhp meets 0 · ∞ in the y row")),
    ("sqrt(x) * y", (0.0, 2.0), (0.0, 1.0), ([INF, 0.0], "H_xy = 1/(2 sqrt x) -> ∞, "
                                             "H_yy = 0; PyTorch: 0 · ∞ = NaN")),
    # (H v)_x = -y/(4 x^1.5) + 1/(2 sqrt x) -> -∞, PyTorch's vhp too (test below); forward
    # over reverse met ∞ - ∞ in x̄ = s̄ / (2 sqrt x) and regroups it (forward_mode.grouped)
    ("sqrt(x) * y", (0.0, 2.0), (1.0, 1.0), ([-INF, INF], "the limit and PyTorch's vhp; its "
                                             "hvp meets ∞ - ∞: NaN")),
    ("log(x) * y", (0.0, 2.0), (1.0, 0.0), ([-INF, INF], "H_xx = -y/x² -> -∞; PyTorch: "
                                            "0 · ∞ = NaN")),
    ("log(x) * y", (0.0, 2.0), (0.0, 1.0), ([INF, 0.0], "H_xy = 1/x -> ∞; PyTorch NaN")),
    ("log(x) * y", (0.0, 2.0), (1.0, 1.0), None),
    ("x ** 3.0 * y + x ** 2.0 * y", (0.0, 2.0), (1.0, 1.0), None),   # integer constants
    ("x ** 3.0 * y + x ** 2.0 * y", (0.0, 2.0), (1.0, 0.0), None),
    ("x ** 0.5 * y", (0.0, 2.0), (1.0, 0.0), ([-INF, INF], "as sqrt(x) * y")),
    ("x ** 0.5 * y", (0.0, 2.0), (0.0, 1.0), ([INF, 0.0], "as sqrt(x) * y")),
    ("x ** y", (2.0, 0.0), (0.0, 1.0), ([0.5, math.log(2.0) ** 2], "at y = 0 the mixed "
                                        "partial is 1/x (central differences); PyTorch's "
                                        "y == 0 mask kills it in this direction only")),
    ("x ** y", (2.0, 0.0), (1.0, 0.0), None),
    *[(f"{op}(x) * y", (0.0, 2.0), v, None) for op in ("relu", "abs") for v in VECTORS],
    *[("leaky_relu(x, 0.2) * y", (0.0, 2.0), v, None) for v in VECTORS],
    *[("clip(x, 0.0, 1.0) * y", (b, 2.0), v, None) for b in (0.0, 1.0) for v in VECTORS],
    *[(f"{op}(x, y) * y", (1.0, 1.0), v, None) for op in ("maximum", "minimum")
      for v in VECTORS],
    *[("where(x > 0.0, x * y, 0.0 * x) * y", (0.0, 2.0), v, None) for v in VECTORS],
    ("where(x > 0.0, sqrt(x), 0.0 * x) * y", (0.0, 2.0), (1.0, 0.0), None),
    ("where(x > 0.0, sqrt(x), 0.0 * x) * y", (0.0, 2.0), (0.0, 1.0), ([0.0, 0.0], "where "
     "took 0 * x at x = 0: moving y moves nothing there; PyTorch's untaken sqrt meets 0 · ∞")),
]


@pytest.mark.parametrize("body, point, v, expect", EDGES)
def test_edge_points_both_ways_equal_the_reference(body, point, v, expect):
    text = f"x = {point[0]}\ny = {point[1]}\nL = {body}\n"
    ror, forr = _walks(text, ["x", "y"], v)
    assert _same(ror, forr), (ror, forr)
    pytorch = _torch(TORCH[body], point, v)
    want = pytorch if expect is None else expect[0]
    assert _same(ror, want), (ror, want, pytorch)
    if expect is not None:   # the named reason is real: PyTorch differs
        assert not _same(pytorch, want), pytorch


def test_sqrt_at_zero_along_ones_is_pytorchs_vhp_and_the_limit():
    """sqrt(x) * y at x = 0, y = 2, v = (1, 1): PyTorch's vhp gives (-∞, ∞), its hvp (NaN, ∞);
    the one-sided limit of (H v)_x = -y/(4 x^1.5) + 1/(2 sqrt x) falls without bound. Both
    walks give (-∞, ∞), and the tangent step says why its terms' ∞ - ∞ is not NaN."""
    xs, v = (torch.tensor(0.0), torch.tensor(2.0)), (torch.tensor(1.0), torch.tensor(1.0))
    f = TORCH["sqrt(x) * y"]
    assert [float(h) for h in torch.autograd.functional.vhp(f, xs, v)[1]] == [-INF, INF]
    assert _same([float(h) for h in torch.autograd.functional.hvp(f, xs, v)[1]], [NAN, INF])
    slopes = [-2.0 / (4 * x ** 1.5) + 1 / (2 * math.sqrt(x)) for x in (1e-4, 1e-8, 1e-12)]
    assert slopes[2] < slopes[1] < slopes[0] < -1e5
    body = run_trace("x = 0.0\ny = 2.0\nL = sqrt(x) * y\n",
                     options=Options(mode="hvp", vector={"x": 1.0, "y": 1.0}))
    assert body["hvp"] == body["hvp_forward_over_reverse"] == {"x": "-Infinity", "y": "Infinity"}
    [step] = [e for e in body["events"] if e["kind"] == "tangent" and e["node"] == "n9"]
    assert "= 1/0 + (-Infinity)·Infinity, ∞ - ∞; over their common denominator " \
        "(2 * sqrt(x)) the numerator decides" in step["narration"], step["narration"]


MAX_MIN = [("max", [1.0, 3.0, 3.0]), ("min", [2.0, -1.0, -1.0])]


@pytest.mark.parametrize("op, x", MAX_MIN)
@pytest.mark.parametrize("v", [[1.0, 1.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 2.0]])
def test_max_min_ties_both_ways_equal_pytorch(op, x, v):
    text = f"x = {x}\ny = 2.0\nL = {op}(x) * {op}(x) * y\n"
    body = run_trace(text, options=Options(mode="hvp", vector={"x": v, "y": 1.0}))
    f = getattr(torch, "amax" if op == "max" else "amin")
    want = torch.autograd.functional.hvp(lambda a, b: f(a) * f(a) * b,
                                         (torch.tensor(x), torch.tensor(2.0)),
                                         (torch.tensor(v), torch.tensor(1.0)))[1]
    for way in ("hvp", "hvp_forward_over_reverse"):
        np.testing.assert_allclose(decode(body[way]["x"]), want[0].numpy(), rtol=1e-12)
        assert decode(body[way]["y"]) == pytest.approx(float(want[1]), rel=1e-12)


@pytest.mark.parametrize("a_shape, b_shape", [((2, 3), (3, 2)), ((3,), (3, 2)), ((2, 3), (3,)),
                                              ((3,), (3,)), ((2, 2, 3), (3, 4))])
@pytest.mark.parametrize("left", [True, False])
def test_contract_zero_is_the_masked_sum_of_products(a_shape, b_shape, left):
    """matmul under the zero-direction rule (issue 14 §4 leftover): each product whose factor
    in the masked operand is 0 adds 0, also against ∞ or NaN; the rest is numpy's matmul."""
    from gradwalk.engine.ops.linalg import contract_zero
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
    masked, other = (a, b) if left else (b, a)
    masked.flat[::2] = 0.0
    other.flat[:3] = [INF, -INF, NAN]
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    with np.errstate(invalid="ignore"):
        products = a2[..., :, :, None] * b2[..., None, :, :]
    zero = (a2 == 0)[..., :, :, None] if left else (b2 == 0)[..., None, :, :]
    want = np.where(zero, 0.0, products).sum(axis=-2)
    want = want[..., 0, :] if a.ndim == 1 else want
    want = want[..., 0] if b.ndim == 1 else want
    got = contract_zero(a, b, left)
    with np.errstate(invalid="ignore"):
        assert got.shape == np.matmul(a, b).shape
    np.testing.assert_array_equal(got, want)
