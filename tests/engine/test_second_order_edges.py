"""Second derivatives at every op's edge points (issue 14, section 4): the backward pass recorded
as a graph masks as the first-order rules do.

For every row of tests/engine/edge_points*.py whose ops all have a second-order rule:
- the backward graph's gradient nodes (x̄, evaluated forward) equal reverse mode's `grads`,
  NaN and inf where it has them;
- where the leaves and the gradients are finite, H v by reverse over reverse (`hvp`) and by
  forward over reverse (`hvp_forward_over_reverse`), for v each basis vector, equal PyTorch's
  float64 H v (torch.autograd.functional.hvp, which is torch.autograd.grad with
  create_graph=True, twice) where PyTorch's is finite, and are NaN where it is NaN.

Where PyTorch's Hessian is not symmetric (its first-order mask at an undefined point kills a
mixed partial in one direction only: d(x^y)/dx selected to 0 at y = 0 makes ∂²/∂y∂x 0 while
∂²/∂x∂y is 1/x), the entry is left out: there is no one H to compare with; the engine gives the
same selection (the same numbers as PyTorch for each v's own direction). Where a row's
`expect` says PyTorch's first derivative is wrong (it overflows), its NaN positions are not
compared either.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from edge_points import EDGES, Edge
from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import parse
from gradwalk.engine.trace.backward_graph import backward_program
from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import Tracer, run_trace
from gradwalk.engine.trace.values import decode
from test_edges import assert_same, program_text

torch.set_default_dtype(torch.float64)


def _second_order(e: Edge):
    """(program, backward graph)."""
    program = parse(program_text(e))
    return program, backward_program(program, program.last)


def _refused(e: Edge) -> bool:
    """A row with an op that has no second-order rule (gelu, indexing: refused with
    "unsupported", tests/engine/test_hvp.py); any other error is the test's failure."""
    try:
        _second_order(e)
    except ProgramError as error:
        return error.kind == "unsupported"
    return False


ROWS = [e for e in EDGES if not _refused(e)]


def test_every_op_with_a_rule_has_rows():
    assert {e.op for e in EDGES} - {e.op for e in ROWS} == {"gelu", "index"}


@pytest.mark.parametrize("e", ROWS, ids=[e.id for e in ROWS])
def test_backward_graph_gradients_equal_reverse_mode(e: Edge):
    program, back = _second_order(e)
    values = Tracer(back.program, program.last).values
    grads = run_trace(program_text(e))["grads"]
    for name, node in back.grads.items():
        assert_same(values[node], decode(grads[name]), f"the backward graph's {name}̄")


def _leaves(e: Edge) -> list[str]:
    return [k for k in e.leaves if k not in e.consts]


def torch_hvp(e: Edge, v: dict) -> list[np.ndarray]:
    """PyTorch's H v of sum(output) at the row's leaves, one array per leaf of _leaves(e), by
    reverse over reverse as the issue names it: g = torch.autograd.grad(L, x, create_graph=
    True), then the vjp of g·v (every leaf's term, also where v is 0: 0 · ∞ is NaN there)."""
    names = list(e.leaves)
    free = _leaves(e)
    xs = {k: torch.tensor(e.leaves[k], requires_grad=k in free) for k in names}
    out = e.torch(*(xs[k] for k in names)).sum()
    grads = torch.autograd.grad(out, [xs[k] for k in free], create_graph=True)
    s = sum((g * torch.tensor(v[k])).sum() for g, k in zip(grads, free))
    if not s.requires_grad:   # L is linear in the leaves: H = 0
        return [np.zeros(np.shape(e.leaves[k])) for k in free]
    hv = torch.autograd.grad(s, [xs[k] for k in free], allow_unused=True)
    return [np.zeros(np.shape(e.leaves[k])) if h is None else h.detach().numpy(force=True)
            for h, k in zip(hv, free)]


def _basis(e: Edge):
    """(leaf, index, v) for each basis vector over the free leaves' elements, then v = ones."""
    for name in _leaves(e):
        for ix in np.ndindex(*np.shape(e.leaves[name])):
            v = {k: np.zeros(np.shape(e.leaves[k])) for k in _leaves(e)}
            v[name][ix] = 1.0
            yield name, ix, v
    yield "ones", (), {k: np.ones(np.shape(e.leaves[k])) for k in _leaves(e)}


# Where PyTorch's reverse over reverse is not the Hessian, gradwalk's reasons (docs/trace-format.md,
# "Second derivatives at edge points"): row id -> (what it gives instead, why).
CONVENTIONS = {}


def assert_hv(got, want, what: str) -> None:
    """Element for element: NaN where PyTorch has NaN, the same ±inf, else to 1e-9."""
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    msg = f"{what}: got {got.tolist()}, PyTorch {want.tolist()}"
    assert np.array_equal(np.isnan(got), np.isnan(want)), msg
    inf = np.isinf(want)
    assert np.array_equal(got[inf], want[inf]) and np.array_equal(np.isinf(got), inf), msg
    fin = np.isfinite(want)
    scale = 1e-12 * max(1.0, float(np.max(np.abs(want[fin]), initial=0.0)))
    np.testing.assert_allclose(got[fin], want[fin], rtol=1e-9, atol=scale, err_msg=msg)


# (row id, way) pairs that still differ from PyTorch's reverse over reverse, each with its
# reason (strict: one that starts to agree fails here, and is taken off the list).
_FORWARD_ZERO_INF = ("forward over reverse carries a tangent 0 into an infinite partial "
                     "(0 · ∞ = NaN) where reverse over reverse multiplies a nonzero adjoint, "
                     "or the other way round: the two walks meet different products at ∞")
_SYMMETRIC = ("at x ≠ 0, y = 0 PyTorch's x̄ rule selects 0 by its y == 0 mask (for 0 ** 0), so its "
              "∂²/∂y∂x is 0 while ∂²/∂x∂y is 1/x; gradwalk gives 1/x both ways, the symmetric "
              "Hessian of central differences, so that its two methods agree (docs/trace-format.md)")
_LOGS = ("x ** y at x = 1e-310: gradwalk works y x^(y-1) out in logs where PyTorch's overflows "
         "(the row's `expect`), so its second derivatives are finite where PyTorch's are NaN")
_UNEXPLAINED = ("not explained yet: an engine constant inf (1e400) in the branch where does not "
                "take meets a 0 adjoint in the backward graph (NaN) where PyTorch's has no path")
KNOWN: dict[tuple[str, str], str] = {
    ('div: y = a / b at a=[1.0, 0.0, -1.0, 1e+200, 1e-200, 0.0, inf, 1.0], b=[0.0, 0.0, -0.0, 1e+200, 1e+200, inf, inf, 1e-310]',
     'hvp_forward_over_reverse'): _FORWARD_ZERO_INF,
    ('div: z = y * 1e-300 at a=1.0, b=1e-310',
     'hvp_forward_over_reverse'): _FORWARD_ZERO_INF,
    ('div: y = sqrt(a) / b at a=0.0, b=2.0',
     'hvp_forward_over_reverse'): _FORWARD_ZERO_INF,
    ('pow: y = a ** b at a=[-2.0, -2.0, -2.0, -2.0, -1.5], b=[2.0, 3.0, -1.0, 0.5, 0.0]',
     'hvp_forward_over_reverse'): _FORWARD_ZERO_INF,
    ('pow: y = a ** b at a=[inf, -inf, 2.0, 0.5, 1.0, 1.0, -1.0], b=[2.0, 2.0, inf, inf, inf, -inf, inf]',
     'hvp_forward_over_reverse'): _FORWARD_ZERO_INF,
    ('pow: y = a ** b at a=[10.0, 1e+200, 1e-200, 2.0], b=[400.0, 2.0, 2.0, -2000.0]',
     'hvp_forward_over_reverse'): _FORWARD_ZERO_INF,
    ('pow: y = a ** b at a=[2.0, 0.5, 3.0], b=[0.0, -3.0, 1.5]',
     'hvp'): _SYMMETRIC,
    ('pow: y = a ** b at a=[2.0, 0.5, 3.0], b=[0.0, -3.0, 1.5]',
     'hvp_forward_over_reverse'): _FORWARD_ZERO_INF,
    ('pow: y = a ** b at a=1e-310, b=0.001',
     'hvp'): _LOGS,
    ('pow: y = a ** b at a=1e-310, b=0.001',
     'hvp_forward_over_reverse'): _FORWARD_ZERO_INF,
    ('matmul: y = X @ W at X=[[0.0, 0.0], [1.0, -1.0]], W=[[inf, 1.0], [2.0, -inf]]',
     'hvp_forward_over_reverse'): _FORWARD_ZERO_INF,
    ('matmul: y = x @ W at x=[1.0, 0.0], W=[[1.0, 2.0], [inf, 0.0]]',
     'hvp_forward_over_reverse'): _FORWARD_ZERO_INF,
    ('where: y = where(x >= 0.0, x, 1e400 * x) at x=[-1.0, 0.0, -0.0, 2.0]',
     'hvp'): _UNEXPLAINED,
    ('where: y = where(x >= 0.0, x, 1e400 * x) at x=[-1.0, 0.0, -0.0, 2.0]',
     'hvp_forward_over_reverse'): _UNEXPLAINED,
}


def _ways():
    for e in ROWS:
        for way in ("hvp", "hvp_forward_over_reverse"):
            reason = KNOWN.get((e.id, way))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            yield pytest.param(e, way, marks=marks, id=f"{way}-{e.id}")


@pytest.mark.parametrize("e, way", list(_ways()))
def test_hvp_at_edge_points_equals_pytorch_both_ways(e: Edge, way: str):
    """Issue 14 §4: both methods equal PyTorch's reverse over reverse, NaN == NaN, for every
    basis vector and v = ones (each method and each row its own case)."""
    free = _leaves(e)
    for name, ix, v in _basis(e):
        want = np.concatenate([np.ravel(w) for w in torch_hvp(e, v)])
        request = {n: float(v[n]) if v[n].ndim == 0 else v[n].tolist() for n in free}
        body = run_trace(program_text(e), options=Options(mode="hvp", vector=request))
        got = np.concatenate([np.ravel(np.asarray(decode(body[way][n]), dtype=np.float64))
                              for n in free])
        assert_hv(got, want, f"{way} for v = e({name}{list(ix)})")


# ---- the issue's case ---------------------------------------------------------------------------
ISSUE = [   # (program, vector): the issue's two cases, and the old one at d = 2.5
    ('c = 0.0\nd = 1.0\nL = c ** d + d * d\n', {"c": 1.0, "d": 1.0}),
    ('c = 0.0\nd = 0.5\nL = c ** d + d\n', {"c": 0.0, "d": 1.0}),
    ('c = 0.0\nd = 2.5\nL = c ** d + d * d\n', {"c": 0.0, "d": 1.0}),
]


@pytest.mark.parametrize("text, v", ISSUE, ids=["d=1", "d=0.5", "d=2.5"])
def test_pow_with_a_zero_base_has_pytorchs_nan_both_ways_with_a_warning(text, v):
    """Issue 14 §4: at c = 0 reverse over reverse gave (0, 3) and forward over reverse (1, 2)
    for d = 1, with no warning; PyTorch's reverse over reverse is NaN for both (the mixed
    derivative c^(d-1)(1 + d log c) has no limit). Both methods now give NaN, the
    `# hvp:` line too, and a warning names the pow node; reverse mode's gradients are
    untouched (the backward graph's c̄, d̄ are reverse mode's)."""
    body = run_trace(text, options=Options(mode="hvp", vector=v))
    assert body["hvp"] == body["hvp_forward_over_reverse"] == {"c": "NaN", "d": "NaN"}
    header = run_trace(f"# hvp: {json.dumps(v)}\n" + text)
    assert header["hvp"] == header["hvp_forward_over_reverse"] == {"c": "NaN", "d": "NaN"}
    warned = [w for w in body["warnings"] if w["kind"] == "non_differentiable"]
    assert len(warned) == 1 and warned[0]["node"] == "n2" and warned[0]["field"] == "vector"
    assert warned[0]["message"].startswith("pow has no second derivative at base 0: in c ** d")
    program = parse(text)
    back = backward_program(program, "L")
    values = Tracer(back.program, "L").values
    grads = run_trace(text)["grads"]
    assert [values[back.grads[n]] for n in "cd"] == [decode(grads[n]) for n in "cd"]
    xs = [torch.tensor(program.nodes[program.leaves[n]].literal.item(), requires_grad=True)
          for n in "cd"]
    c, d = xs
    g = torch.autograd.grad(c ** d + (d * d if "d * d" in text else d), xs, create_graph=True)
    want = torch.autograd.grad(g[0] * v["c"] + g[1] * v["d"], xs)
    assert all(torch.isnan(w) for w in want)


# ---- the engine's masks are the engine's (issue 14 §4, the review's follow-up) -----------------
def test_pow_with_a_zero_base_steps_in_few_nodes_with_nothing_reported():
    """The review's hvp.py: the backward graph holds one masked-rule node per pow argument
    (engine/ops/masked.py), not 71 nodes of where/equal/abs/log/exp, and the trace reports no
    non-finite number (an engine constant inf) and no kink (an engine abs) it did not write."""
    text = '# hvp: {"c": 0, "d": 1}\nc = 0.5\nd = 2.5\nL = c ** d + d * d\n'
    body = run_trace(text)
    ops = [n["op"] for n in body["graph"]["nodes"]]
    # 17 nodes: s holds every leaf's term, v_c = 0 too (PyTorch's g·v; it was 14 without it)
    assert len(ops) == 17 and len(body["events"]) == 33
    assert ops.count("pow_vjp_base") == 1 and ops.count("pow_vjp_exponent") == 1
    assert not {"where", "equal", "abs", "log", "exp"} & set(ops)
    assert body["first_non_finite"] is None and not body.get("warnings")
    labels = {n["op"]: n["label"] for n in body["graph"]["nodes"]}
    assert labels["pow_vjp_exponent"] == "L̄ * c ** d * log(c)"
    c, d = (torch.tensor(x, requires_grad=True) for x in (0.5, 2.5))
    g = torch.autograd.grad(c ** d + d * d, (c, d), create_graph=True)
    want = [float(w) for w in torch.autograd.grad(g[1], (c, d))]   # PyTorch's H e_d
    for way in ("hvp", "hvp_forward_over_reverse"):
        np.testing.assert_allclose([body[way]["c"], body[way]["d"]], want, rtol=1e-14)


def _engine_nodes(body: dict, program) -> list[dict]:
    """The hvp trace's graph nodes the engine added (after the program's own)."""
    return body["graph"]["nodes"][len(program.nodes):]


@pytest.mark.parametrize("e", ROWS, ids=[e.id for e in ROWS])
def test_engine_nodes_report_nothing_the_program_did_not_write(e: Edge):
    """At every edge row, in hvp mode: no kink is warned at a node the engine added (its
    selections are the engine's, by construction), and no engine constant is inf or NaN, so
    none is the first non-finite value. (An adjoint of the walk that underflows or overflows
    is the walk's own number and is reported as in reverse mode.)"""
    program = parse(program_text(e))
    v = {k: np.ones(np.shape(e.leaves[k])).tolist() for k in _leaves(e)}
    body = run_trace(program_text(e), options=Options(mode="hvp", vector=v))
    engine = _engine_nodes(body, program)
    mine = {n["id"] for n in body["graph"]["nodes"][:len(program.nodes)]}
    for w in body.get("warnings") or []:
        if w["kind"] == "non_differentiable":
            assert w.get("node") is None or w["node"] in mine, w
    values = {ev["node"]: ev["value"] for ev in body["events"] if ev["kind"] == "tangent"}
    for n in engine:
        if n["role"] == "const" and not n["label"].startswith("v_"):
            x = np.asarray(decode(values[n["id"]]), dtype=np.float64)
            assert np.all(np.isfinite(x)), f"engine constant {n['label']} = {x}"


def test_each_selection_is_one_masked_rule_node():
    """relu, leaky_relu, abs and clip differentiate into one `<op>_vjp` node each, labelled
    as the rule reads, with no comparison, where or constant of the engine's."""
    text = ("x = 0.5\nL = relu(x) * abs(x) + leaky_relu(x, 0.1) * clip(x, 0.0, 1.0)\n")
    body = run_trace(text, options=Options(mode="hvp", vector={"x": 1.0}))
    engine = _engine_nodes(body, parse(text))
    ops = [n["op"] for n in engine]
    for op in ("relu_vjp", "abs_vjp", "leaky_relu_vjp", "clip_vjp"):
        assert ops.count(op) == 1, ops
    assert not {"where", "greater", "less", "equal"} & set(ops), ops
    assert [n["label"] for n in engine if n["op"] == "abs_vjp"] == \
        ["∂L/∂abs(x) * sign(x)"]
    # L = x|x| + 0.1·... at x = 0.5: x² + x² (clip inside): L'' = 4; PyTorch agrees
    want = torch.autograd.functional.hvp(
        lambda x: torch.relu(x) * x.abs() + torch.nn.functional.leaky_relu(x, 0.1)
        * x.clamp(0.0, 1.0), torch.tensor(0.5), torch.tensor(1.0))[1]
    assert body["hvp"] == body["hvp_forward_over_reverse"] == {"x": float(want)} == {"x": 4.0}


SELECTS = [   # (program, vector, PyTorch's L of the leaves in order, each op's rows)
    ("a = 1.0\nb = 1.0\nc = 2.0\nL = maximum(a, b) * minimum(a, c) * minimum(b, c)\n",
     {"a": 1.0, "b": 0.0, "c": 1.0},
     lambda a, b, c: torch.maximum(a, b) * torch.minimum(a, c) * torch.minimum(b, c),
     {"maximum_vjp0": 1, "maximum_vjp1": 1, "minimum_vjp0": 2, "minimum_vjp1": 2}),
    ("x = [1.0, 3.0, 3.0, -2.0]\nL = max(x) * min(x) * max(x)\n", {"x": [1.0, 0.0, 1.0, 2.0]},
     lambda x: torch.amax(x) * torch.amin(x) * torch.amax(x),
     {"max_vjp": 2, "min_vjp": 1}),
    ("x = [[1.0, 3.0, 3.0], [2.0, 0.5, 2.0]]\nL = sum(max(x, axis=1) * min(x, axis=1))\n",
     {"x": [[1.0, 0.0, 1.0], [1.0, 1.0, 1.0]]},
     lambda x: torch.sum(torch.amax(x, dim=1) * torch.amin(x, dim=1)),
     {"max_vjp": 1, "min_vjp": 1}),
    ("x = 2.0\ny = 0.0\nL = where(y >= 0.0, x * y, y * y) * where(x > 2.0, y, x)\n",
     {"x": 1.0, "y": 1.0},
     lambda x, y: torch.where(y >= 0.0, x * y, y * y) * torch.where(x > 2.0, y, x),
     {"where_vjp1": 2, "where_vjp2": 2}),
]


@pytest.mark.parametrize("text, v, f, rows", SELECTS, ids=["maximum-minimum", "max-min",
                                                             "max-min-axis", "where"])
def test_where_maximum_minimum_max_min_are_one_vjp_row_each(text, v, f, rows):
    """Issue 14 §4 (A1): where, maximum, minimum, max and min differentiate into one masked-rule
    row per argument (engine/ops/masked.py), no comparison, where or engine constant of their
    own, and H v both ways is PyTorch's float64 at ties and edges."""
    body = run_trace(text, options=Options(mode="hvp", vector=v))
    engine = [n["op"] for n in _engine_nodes(body, parse(text))]
    for op, count in rows.items():
        assert engine.count(op) == count, engine
    assert not {"where", "equal", "greater", "less", "reshape"} & set(engine), engine
    assert [n for n in engine if n.endswith(tuple("0123456789")) or n.endswith("_vjp")] == \
        [n for n in engine if n in rows]
    program = parse(text)
    names = list(program.leaves)
    xs = tuple(torch.tensor(program.nodes[program.leaves[n]].literal, dtype=torch.float64)
               for n in names)
    want = torch.autograd.functional.hvp(f, xs, tuple(torch.tensor(v[n]) for n in names))[1]
    for name, w in zip(names, want):
        for way in ("hvp", "hvp_forward_over_reverse"):
            np.testing.assert_allclose(np.asarray(decode(body[way][name]), dtype=float),
                                       w.numpy(), rtol=1e-12, atol=1e-12,
                                       err_msg=f"{way} {name}")
