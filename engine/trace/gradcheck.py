"""The gradient check: each leaf's adjoint, element by element, against a central difference.

For the trace's output y and its seed v (1 for a scalar output, ones or the request's
output_grad for a tensor), the reverse pass gives x̄ = ∂⟨v, y⟩/∂x for every leaf x. The check
perturbs one element x_k at a time and takes

    numeric_k = (f(x + h e_k) - f(x - h e_k)) / (2h),   f(x) = Σ v ⊙ y(x),

whose truncation error is h²/6 · f'''(ξ) (Taylor's theorem on both sides; Nocedal & Wright,
"Numerical Optimization", 2nd ed., §8.1, eq. 8.7) plus a rounding error of about
ε_mach · |f| / h. h = eps · max(1, |x_k|): eps = 1e-6 by default (torch.autograd.gradcheck's
default), scaled by the element's size so that x_k ± h is not lost to rounding when |x_k| is
large. The perturbed forward passes run in float64, also for a float32 program (its adjoints
are then compared with the float64 derivative).

An element agrees when |analytic - numeric| <= ATOL + RTOL · |numeric| (torch.allclose with
torch.autograd.gradcheck's default atol 1e-5, rtol 1e-3); a leaf is `ok` when all its elements
agree. Only the Tracer's final adjoints are read, so whatever made them (a bug-lab switch
included) is what is checked.

Cost: two forward passes per element, each over the nodes downstream of the leaf only; at most
MAX_ELEMENTS elements, MAX_NODE_PASSES passes × op nodes and MAX_FLOPS FLOPs in all (else
ProgramError "too_large", before the first event); the trace's deadline applies as well.
"""
from __future__ import annotations

import math

import numpy as np

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.ops import get_op
from gradwalk.engine.source import clip
from gradwalk.engine.trace import kinks
from gradwalk.engine.trace.mode import Mode
from gradwalk.engine.trace.values import encode

EPS = 1e-6          # the step h's scale (torch.autograd.gradcheck's eps)
ATOL = 1e-5         # torch.autograd.gradcheck's atol
RTOL = 1e-3         # and rtol
MAX_ELEMENTS = 2_000          # leaf elements perturbed (each costs two forward passes)
MAX_NODE_PASSES = 1_000_000   # passes × op nodes (Python pays about 1-3 µs per node)
MAX_FLOPS = 2_000_000_000     # FLOPs over all passes


def step(tracer) -> float:
    """The check's eps: options.eps, or EPS. Raises ProgramError "bad_argument" unless
    0 < eps <= 1 and finite."""
    eps = tracer.options.eps
    if eps is None:
        return EPS
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not math.isfinite(eps) \
            or not 0 < eps <= 1:
        raise ProgramError("bad_argument", f"eps must be a number with 0 < eps <= 1, not "
                           f"{eps!r:.24}")
    return float(eps)


def prepare(tracer) -> None:
    """Refuse a check over its limits, or a bad eps, before the first event (called by the
    Tracer's constructor). Raises ProgramError "too_large" naming the limit."""
    if not tracer.options.check:
        return
    eps = step(tracer)
    leaves = tracer.program.leaves
    for name, i in leaves.items():   # a step below rounding would blame a right gradient
        x = np.asarray(tracer.values[i], dtype=np.float64)
        h = eps * np.maximum(1.0, np.abs(x))
        if np.any(x + h == x):
            raise ProgramError(
                "bad_argument", f"eps = {eps:g} is below float64's rounding at the leaf "
                f"{clip(name)}: x + h rounds to x, so a central difference would be 0",
                hint="use eps of 1e-10 or more (the default is 1e-6)")
    elements = sum(int(np.size(tracer.values[i])) for i in leaves.values())
    passes = 2 * elements
    # bounds, not counts: every pass may reach every op node (counting each leaf's downstream
    # nodes would itself cost leaves × nodes)
    nodes = passes * sum(1 for n in tracer.program.nodes if n.role == "op")
    flops = passes * sum(tracer.flops)
    if elements > MAX_ELEMENTS or nodes > MAX_NODE_PASSES or flops > MAX_FLOPS:
        raise ProgramError(
            "too_large", f"the gradient check perturbs each of the {elements:,} leaf elements "
            f"twice ({passes:,} forward passes, {nodes:,} passes × op nodes, {flops:,} FLOPs); "
            f"its limits are {MAX_ELEMENTS:,} elements, {MAX_NODE_PASSES:,} passes × op nodes "
            f"and {MAX_FLOPS:,} FLOPs", hint="check a smaller program (fewer or smaller "
                                             "leaves)")


def _prepare(tracer, limits, state):
    prepare(tracer)
    return state


MODE = Mode("check", wanted=lambda options, program: options.check, prepare=_prepare,
            done=lambda tracer, state, adjoints: {"gradcheck": check(tracer, adjoints)})


def check(tracer, adjoints: list) -> dict:
    """{leaf: {max_abs_error, max_rel_error, ok, eps, atol, rtol, numeric, analytic}}: the
    leaf's adjoint (`analytic`, from `adjoints`) against central differences (`numeric`), both
    of the leaf's shape with full data; errors as JSON numbers (a NaN is "NaN", not ok)."""
    eps = step(tracer)
    base = [np.float64(v) if type(v) is float else v for v in tracer.values]
    out = tracer.values[tracer.output]
    v = np.ones(np.shape(out)) if tracer.output_grad is None else \
        np.asarray(tracer.output_grad, dtype=np.float64)
    result = {}
    feeds = None   # the nodes the output depends on, worked out at the first disagreement
    for name, i in tracer.program.leaves.items():
        nodes = _downstream(tracer, i)
        numeric = _numeric(tracer, base, i, v, eps, nodes)
        adj = adjoints[i]
        analytic = np.zeros(np.shape(base[i])) if adj is None else \
            np.asarray(adj, dtype=np.float64)
        result[name] = entry = _compare(numeric, analytic, eps)
        if not entry["ok"]:
            feeds = feeds if feeds is not None else _feeds_output(tracer)
            _explain(tracer, name, entry, [j for j in nodes if feeds[j]])
    return result


def _feeds_output(tracer) -> list[bool]:
    """Per node: the output depends on it (or is it)."""
    nodes = tracer.program.nodes
    feeds = [False] * len(nodes)
    feeds[tracer.output] = True
    for j in reversed(tracer.order):
        if feeds[j]:
            for k in nodes[j].inputs:
                feeds[k] = True
    return feeds


def _explain(tracer, name: str, entry: dict, path: list[int]) -> None:
    """A disagreement at a kink on the way from the leaf to the output is said to be one:
    the entry gains `kink` (why a central difference differs there) and the trace a
    "non_differentiable" warning naming `check` (engine/trace/kinks.py). Still not ok."""
    program = tracer.program
    for j in path:
        node = program.nodes[j]
        if node.op in kinks.TABLE and kinks.at(node.op, tracer.values[j],
                                               tracer.inputs(node), node.params):
            entry["kink"] = reason = kinks.check_reason(node.op, node)
            tracer.warnings.add(
                "non_differentiable", f"The gradient check of {clip(name)} disagrees at a "
                f"point where an op has no derivative, not because of a wrong gradient: "
                f"{reason}", tracer.ids[j], "check", node.span)
            return


def _numeric(tracer, base: list, i: int, v: np.ndarray, eps: float,
             nodes: list[int]) -> np.ndarray:
    """The central difference of f = Σ v ⊙ y with respect to each element of leaf i (nodes:
    the op nodes downstream of it, _downstream)."""
    x = np.array(base[i], dtype=np.float64)
    grad = np.zeros_like(x)
    if tracer.output not in nodes and tracer.output != i:
        return grad   # the output does not depend on this leaf
    for k in tracer.deadline.paced(list(np.ndindex(x.shape))):
        h = eps * max(1.0, abs(float(x[k])))
        up, down = x.copy(), x.copy()
        up[k] += h
        down[k] -= h
        with np.errstate(all="ignore"):
            f_up = _f(tracer, base, i, up, nodes, v)
            f_down = _f(tracer, base, i, down, nodes, v)
            grad[k] = (f_up - f_down) / (2 * h)
    return grad


def _f(tracer, base: list, i: int, x: np.ndarray, nodes: list[int], v: np.ndarray) -> float:
    """Σ v ⊙ y with leaf i set to x: only the nodes downstream of it are evaluated again."""
    program = tracer.program
    changed = {i: x}
    for j in tracer.deadline.paced(nodes):
        node = program.nodes[j]
        xs = [changed.get(k, base[k]) for k in node.inputs]
        changed[j] = get_op(node.op).forward(*xs, **node.params)
    y = changed.get(tracer.output, base[tracer.output])
    return float(np.sum(v * np.asarray(y, dtype=np.float64)))


def _downstream(tracer, i: int) -> list[int]:
    """The op nodes that depend on node i, in creation order."""
    nodes = tracer.program.nodes
    reached = {i}
    out = []
    for j in tracer.order:
        node = nodes[j]
        if node.role == "op" and any(k in reached for k in node.inputs):
            reached.add(j)
            out.append(j)
    return out


def _compare(numeric: np.ndarray, analytic: np.ndarray, eps: float) -> dict:
    with np.errstate(all="ignore"):
        diff = np.abs(analytic - numeric)
        size = np.maximum(np.abs(analytic), np.abs(numeric))
        rel = np.where(diff == 0, 0.0, diff / np.where(size == 0, 1.0, size))
        agree = diff <= ATOL + RTOL * np.abs(numeric)
    return {"max_abs_error": _max(diff), "max_rel_error": _max(rel),
            "ok": bool(np.all(agree)), "eps": eps, "atol": ATOL, "rtol": RTOL,
            "numeric": encode(_scalar(numeric), None), "analytic": encode(_scalar(analytic), None)}


def _max(x: np.ndarray):
    if x.size == 0:
        return 0.0
    return encode(float("nan") if np.isnan(x).any() else float(x.max()), None)


def _scalar(x: np.ndarray):
    return float(x) if x.ndim == 0 else x


def render_table(gradcheck: dict) -> str:
    """The check as lines for `gradwalk trace --check --format table`: each leaf's errors and
    ok or DIFFERS (with the reason when it is a kink)."""
    lines = ["", "gradient check (central differences):"]
    for leaf, row in gradcheck.items():
        verdict = "ok" if row["ok"] else "DIFFERS" + (f" at a kink: {row['kink']}"
                                                      if row.get("kink") else "")
        lines.append(f"  {leaf}: max abs error {_e(row['max_abs_error'])}, max rel error "
                     f"{_e(row['max_rel_error'])}, h = {row['eps']:g}: {verdict}")
    return "\n".join(lines) + "\n"


def _e(x) -> str:
    return x if isinstance(x, str) else f"{x:.2g}"
