"""Second derivatives at every op's edge points (issue 14, section 4): the backward pass recorded
as a graph masks as the first-order rules do.

For every row of tests/engine/edge_points*.py whose ops all have a second-order rule:
- the backward graph's gradient nodes (x̄, evaluated forward) equal reverse mode's `grads`,
  NaN and inf where it has them;
- where the leaves and the gradients are finite, H v by reverse over reverse (`hvp`) and by
  forward over reverse (`hvp_forward_over_reverse`), for v each basis vector, equal PyTorch's
  float64 H v (torch.autograd.functional.hvp, which is torch.autograd.grad with
  create_graph=True, twice) where PyTorch's is finite, and are NaN where it is NaN.

- at every row, for every basis vector and v = ones, the two walks agree with each other
  (NaN for NaN, ∞ for ∞), except the DIFFER cases, strict expected failures with reasons;
- NOT_PYTORCH rows take the true limit as the reference (0 ** 0's mixed partial has no value;
  tests/engine/test_second_order_sweep.py has the whole table of pow at base 0).

Where PyTorch's Hessian is not symmetric (its first-order mask at an undefined point kills a
mixed partial in one direction only: d(x^y)/dx selected to 0 at y = 0 makes ∂²/∂y∂x 0 while
∂²/∂x∂y is 1/x), the entry is left out: there is no one H to compare with; the engine gives the
same selection (the same numbers as PyTorch for each v's own direction). Where a row's
`expect` says PyTorch's first derivative is wrong (it overflows), its NaN positions are not
compared either.
"""
from __future__ import annotations

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
    """PyTorch's H v of sum(output) at the row's leaves, one array per leaf of _leaves(e)."""
    names = list(e.leaves)
    free = _leaves(e)

    def f(*xs):
        full = dict(zip(free, xs))
        args = [full[k] if k in full else torch.tensor(e.leaves[k]) for k in names]
        return e.torch(*args).sum()

    primals = tuple(torch.tensor(e.leaves[k]) for k in free)
    _, hv = torch.autograd.functional.hvp(f, primals, tuple(torch.tensor(v[k]) for k in free))
    return [h.detach().numpy(force=True) for h in hv]


def _basis(e: Edge):
    """(leaf, index, v) for each basis vector over the free leaves' elements."""
    for name in _leaves(e):
        for ix in np.ndindex(*np.shape(e.leaves[name])):
            v = {k: np.zeros(np.shape(e.leaves[k])) for k in _leaves(e)}
            v[name][ix] = 1.0
            yield name, ix, v


def _finite(e: Edge) -> bool:
    try:
        grads = run_trace(program_text(e))["grads"]
    except ProgramError:
        return True   # the test then fails on it
    return all(np.all(np.isfinite(np.asarray(x, dtype=np.float64)))
               for x in [*e.leaves.values(), *(decode(g) for g in grads.values())])


FINITE = [e for e in ROWS if _finite(e)]
# rows whose reference is not PyTorch's: {row id: (the Hessian, flat over the leaves, why)}
NOT_PYTORCH = {
    "pow: L = a ** b at a=0.0, b=0.0": (
        np.array([[0.0, np.nan], [np.nan, 0.0]]),
        "0 ** 0: the mixed partial has no value (b · 0^(b-1) is ∞ for 0 < b < 1, 0 at b = 0; "
        "engine/ops/masked.py); PyTorch's masks give 0"),
}


@pytest.mark.parametrize("e", FINITE, ids=[e.id for e in FINITE])
def test_hvp_at_edge_points_equals_pytorch_both_ways(e: Edge):
    free = _leaves(e)
    columns = {(name, ix): torch_hvp(e, v) for name, ix, v in _basis(e)}
    flat = np.stack([np.concatenate([np.ravel(c) for c in col]) for col in columns.values()],
                    axis=1)   # PyTorch's Hessian, column k for basis vector k
    if e.id in NOT_PYTORCH:
        flat = NOT_PYTORCH[e.id][0]
    symmetric = np.isclose(flat, flat.T, rtol=1e-9, atol=1e-300) | \
        (np.isnan(flat) & np.isnan(flat.T))
    scale = 1e-12 * max(1.0, float(np.max(np.abs(flat[np.isfinite(flat)]), initial=0.0)))
    for k, ((name, ix), v) in enumerate(zip(columns, (v for *_, v in _basis(e)))):
        request = {n: float(v[n]) if v[n].ndim == 0 else v[n].tolist() for n in free}
        body = run_trace(program_text(e), options=Options(mode="hvp", vector=request))
        want = flat[:, k]
        for way in ("hvp", "hvp_forward_over_reverse"):
            got = np.concatenate([np.ravel(np.asarray(decode(body[way][n]), dtype=np.float64))
                                  for n in free])
            keep = symmetric[:, k]
            what = f"{way} for v = e({name}{list(ix)})"
            fin = keep & np.isfinite(want)
            np.testing.assert_allclose(got[fin], want[fin], rtol=1e-9, atol=scale,
                                       err_msg=what)
            if not e.expect:
                assert np.array_equal(np.isnan(got[keep]), np.isnan(want[keep])), \
                    f"{what}: NaN at {np.isnan(got).tolist()}, PyTorch {np.isnan(want).tolist()}"


def _vectors(e: Edge):
    """(name, v) for each basis vector over the free leaves' elements, then v = ones."""
    for name, ix, v in _basis(e):
        yield f"e({name}{list(ix)})", v
    yield "ones", {k: np.ones(np.shape(e.leaves[k])) for k in _leaves(e)}


# row id -> (why the two walks differ there, the vectors where they do; None: all), each a
# strict expected failure, so that a fix shows. None is a pow, log, relu, abs, clip, maximum,
# minimum, max, min or where edge point (issue 14 §4's sweep; sqrt only behind var or
# matmul): they are at infinite inputs (0 · ∞ inside one jvp) or meet ∞ - ∞ in another
# order. matmul at an infinite operand agrees since the zero-direction rule reaches inside
# the contraction (engine/ops/linalg.py contract_zero; its two rows were strict xfails).
DIFFER = {
    "matmul: y = sqrt(X @ W) at X=[[0.0, 1.0]], W=[[1.0], [0.0]]":
        ("sqrt at 0 through matmul: ∞ - ∞ summed in different orders, and 0 · ∞ inside "
         "matmul's jvp", ("e(X[0, 0])", "e(X[0, 1])", "e(W[0, 0])", "e(W[1, 0])")),
    "var: y = sqrt(var(x)) at x=[1.0, 1.0]":
        ("sqrt at 0 after var: the first-order gradient is already 0/0 = NaN, and the two "
         "walks meet ∞ - ∞ in different orders", None),
    "logsumexp: y = logsumexp(x) at x=[inf, 0.0]":
        ("an infinite input: logsumexp's jvp takes exp(x - out) = exp(inf - inf) = NaN, "
         "which its vjp's zero upstream skips", ("e(x[1])",)),
    "silu: y = silu(x) at x=[0.0, -0.0, inf, -inf, 1000.0, -1000.0, 1e+300, -1e+300, "
    "5e-324, 36.0, -36.0, 709.0, -709.0, -746.0]":
        ("silu at ±∞: the backward graph's sigmoid node meets ∞ · 0 in reverse over reverse "
         "only", ("e(x[2])", "e(x[3])", "ones")),
    "layer_norm: L = sum(y * const([1.0, -2.0, 3.0])) at x=[inf, 0.0, 1.0], "
    "w=[1.0, 2.0, 3.0], b=[0.5, 0.0, -0.5]":
        ("an infinite input: its row normalizes to NaN, which reaches w and b in one walk "
         "only", ("ones",)),
    "layer_norm: y = layer_norm(x, w, b) at x=[[0.0, 0.0], [1.0, 3.0]], w=[inf, 0.0], "
    "b=[0.0, 1e+200]": ("an infinite weight: ∞ · 0 in reverse over reverse only", ("ones",)),
}


def _agree_cases():
    for e in ROWS:
        why, where = DIFFER.get(e.id, (None, ()))
        for name, v in _vectors(e):
            differ = why is not None and (where is None or name in where)
            marks = pytest.mark.xfail(strict=True, reason=why) if differ else ()
            yield pytest.param(e, name, v, id=f"{e.id} {name}", marks=marks)


@pytest.mark.parametrize("e, name, v", list(_agree_cases()))
def test_both_walks_agree_at_every_edge_row(e: Edge, name: str, v: dict):
    """Reverse over reverse and forward over reverse give the same H v (NaN for NaN, ∞ for ∞)
    at every edge row, for every basis vector and v = ones (issue 14 §4: "the two modes must
    agree with each other everywhere")."""
    free = _leaves(e)
    request = {n: float(v[n]) if v[n].ndim == 0 else v[n].tolist() for n in free}
    body = run_trace(program_text(e), options=Options(mode="hvp", vector=request))
    ror, forr = (np.concatenate([np.ravel(np.asarray(decode(body[way][n]), dtype=np.float64))
                                 for n in free])
                 for way in ("hvp", "hvp_forward_over_reverse"))
    finite = np.isfinite(ror) & np.isfinite(forr)
    scale = 1e-12 * max(1.0, float(np.max(np.abs(ror[finite]), initial=0.0)))
    np.testing.assert_allclose(forr[finite], ror[finite], rtol=1e-9, atol=scale)
    assert np.array_equal(np.where(finite, 0.0, forr), np.where(finite, 0.0, ror),
                          equal_nan=True), (ror.tolist(), forr.tolist())


# ---- the case ---------------------------------------------------------------------------
def test_pow_with_a_zero_base_has_pytorchs_hvp_and_reverse_modes_gradients():
    """c = 0, d = 2.5, L = c ** d + d * d, v = (0, 1): H v = (0, 2) both ways (PyTorch's
    torch.autograd.functional.hvp; the limit of c^d (log c)^2 as c -> 0+ is 0), and the
    backward graph's c̄, d̄ are reverse mode's 0 and 5 (they were NaN: 0 * log 0)."""
    text = "c = 0.0\nd = 2.5\nL = c ** d + d * d\n"
    body = run_trace(text, options=Options(mode="hvp", vector={"c": 0.0, "d": 1.0}))
    assert body["hvp"] == {"c": 0.0, "d": 2.0}
    assert body["hvp_forward_over_reverse"] == {"c": 0.0, "d": 2.0}
    assert body["grads"] == body["hvp"]
    assert body["output"]["value"] == 5.0   # s = <∇L, v> = d̄
    header = run_trace('# hvp: {"c": 0, "d": 1}\n' + text)   # the program's own line
    assert (header["hvp"], header["hvp_forward_over_reverse"]) == ({"c": 0.0, "d": 2.0},) * 2
    program = parse(text)
    back = backward_program(program, "L")
    values = Tracer(back.program, "L").values
    assert [values[back.grads[n]] for n in "cd"] == [0.0, 5.0] == \
        list(run_trace(text)["grads"].values())
    want = torch.autograd.functional.hvp(lambda c, d: c ** d + d * d,
                                         (torch.tensor(0.0), torch.tensor(2.5)),
                                         (torch.tensor(0.0), torch.tensor(1.0)))[1]
    assert [float(w) for w in want] == [0.0, 2.0]


# ---- the engine's masks are the engine's (issue 14 §4, the review's follow-up) -----------------
def test_pow_with_a_zero_base_steps_in_few_nodes_with_nothing_reported():
    """The review's hvp.py: the backward graph holds one masked-rule node per pow argument
    (engine/ops/masked.py), not 71 nodes of where/equal/abs/log/exp, and the trace reports no
    non-finite number (an engine constant inf) and no kink (an engine abs) it did not write."""
    text = '# hvp: {"c": 0, "d": 1}\nc = 0.0\nd = 2.5\nL = c ** d + d * d\n'
    body = run_trace(text)
    ops = [n["op"] for n in body["graph"]["nodes"]]
    assert len(ops) == 14 and len(body["events"]) == 25
    assert ops.count("pow_vjp_base") == 1 and ops.count("pow_vjp_exponent") == 1
    assert not {"where", "equal", "abs", "log", "exp"} & set(ops)
    assert body["first_non_finite"] is None and not body.get("warnings")
    labels = {n["op"]: n["label"] for n in body["graph"]["nodes"]}
    assert labels["pow_vjp_exponent"] == "L̄ * c ** d * log(c)"
    assert (body["hvp"], body["hvp_forward_over_reverse"]) == ({"c": 0.0, "d": 2.0},) * 2


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
