"""Forward mode: tangents carried forward with the values, as dual numbers `a + ȧε` (ε² = 0).

Seed 000_83dd1fd5d418f184.txt ("There is a second way to apply the chain rule"): give every
value v a tangent v̇ = ∂v/∂x for one chosen direction, set the inputs' tangents, and update the
tangents alongside the values with each op's jvp (its registry row, engine/ops/registry.py):
for v = a·b the product rule v̇ = ȧ·b + a·ḃ, for t = tanh(d) the rule ṫ = (1 - t²)·ḋ. The
output's tangent is the Jacobian-vector product J·ẋ; for a one-hot direction it is one column
of the Jacobian (Baydin et al., "Automatic Differentiation in Machine Learning: a Survey",
2018, §3.1).

Which nodes carry a tangent follows torch.func.jvp: every node that depends on a leaf (each leaf
is a primal with a tangent, zero when not chosen) has its jvp applied, so a rule undefined at a
point gives PyTorch's number there (sqrt at 0 with a zero tangent: 0/0 = NaN, as torch's
`self_t / (2 * result)`); constants carry no tangent at all, so their terms are absent, not
0 times a NaN (PyTorch's zero tensors), and a comparison's mask none.

Events (docs/trace-format.md): one `tangent` event per node in creation order, with its value
and its tangent together (the dual number is one step; its words are engine/trace/
forward_text.py's), then `done` with `jvp`, `passes` and,
when no tangents were given, `all_forward`: every one of the n forward passes run and checked
against the reverse-mode gradient.
"""
from __future__ import annotations

import itertools
from typing import Iterator

import numpy as np

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.ops import get_op
from gradwalk.engine.source import clip
from gradwalk.engine.trace import kinks, seed, warn
from gradwalk.engine.trace.forward_text import narration
from gradwalk.engine.trace.mode import Mode
from gradwalk.engine.trace.reverse import drain, zero_term
from gradwalk.engine.trace.values import encode, non_finite

MAX_PASSES = 256
"""all_forward runs one forward pass per scalar input: at most this many (a reverse-mode
gradient is one pass whatever n is: the point of the comparison)."""
MAX_PASS_FLOPS = 200_000_000
"""...and at most this many FLOPs over all of them (passes × the forward pass's FLOPs)."""
AGREE = 1e-9
"""Forward and reverse mode agree when they differ by at most AGREE × max(1, |gradient|):
both are exact up to rounding, summed in different orders."""


# ---- tangents of the leaves ------------------------------------------------------------------
def seeds(tracer) -> tuple[dict[int, object], str]:
    """({leaf node: its tangent}, a description of the direction) from options.tangents.

    None: 1 on the first leaf's first element, 0 elsewhere (one column of the Jacobian);
    a dict {leaf: number or nested list of the leaf's shape exactly}: leaves not named get 0.
    Raises ProgramError "bad_argument" (naming `tangents` and the leaf) for a name that is
    not a leaf, a value that is not numbers, of another shape, or not finite.
    """
    program, given = tracer.program, tracer.options.tangents
    leaves = program.leaves
    if given is None:
        if not leaves:   # as hvp mode: a tangent starts at a leaf
            raise ProgramError("bad_argument", "forward mode carries a tangent from a leaf, "
                               "and the program has none (a literal assigned to a name is a "
                               "leaf; const(...) is not)")
        name, i = next(iter(leaves.items()))
        tangent = _zeros(tracer.values[i])
        if type(tangent) is float:
            return {i: 1.0}, f"∂/∂{name}"
        tangent.flat[0] = 1.0
        where = f"{name}[{', '.join('0' * tangent.ndim)}]"
        return {i: tangent}, f"∂/∂{where}"
    if not isinstance(given, dict):
        raise ProgramError("bad_argument", "tangents must be an object {leaf: tangent}")
    out = {}
    for name, value in given.items():
        if name not in leaves:
            raise seed.not_a_leaf(program, "tangents", name)
        out[leaves[name]] = _tangent(tracer, name, leaves[name], value)
    return out, _named_direction(program, out) or "the given tangents"


def _named_direction(program, seeds: dict) -> str | None:
    """"∂/∂W[1, 1]" when the given tangents are 1 at one element of one leaf and 0 elsewhere
    (a column of the Jacobian, named as the default direction is); else None."""
    hot = [(i, np.asarray(t)) for i, t in seeds.items() if np.any(np.asarray(t) != 0)]
    if len(hot) != 1 or np.count_nonzero(hot[0][1]) != 1:
        return None
    i, a = hot[0]
    k = int(np.flatnonzero(a)[0])
    if a.flat[k] != 1:
        return None
    name = program.nodes[i].name
    if a.ndim == 0:
        return f"∂/∂{name}"
    return f"∂/∂{name}[{', '.join(str(int(x)) for x in np.unravel_index(k, a.shape))}]"


def _tangent(tracer, name: str, i: int, given):
    """One leaf's tangent, checked (seed.leaf_entry): numbers only, the leaf's shape, finite."""
    value = seed.leaf_entry(tracer.program, "tangents", name, np.shape(tracer.values[i]), given)
    return float(value) if type(tracer.values[i]) is float else value


def _zeros(value):
    return 0.0 if type(value) is float else np.zeros_like(value)


def prepare(tracer) -> None:
    """Refuse bad tangents, or all forward passes over their limits, before the first event
    (called by the Tracer's constructor). Raises ProgramError."""
    if tracer.options.mode != "forward":
        return
    given, _ = seeds(tracer)
    if tracer.options.tangents is not None:
        first = next(iter(tracer.program.leaves))
        warn.zero_direction(tracer.warnings, "tangents", given, f'{{"{first}": 1}}')


def _prepare(tracer, limits, state):
    prepare(tracer)
    return state


MODE = Mode("forward", wanted=lambda options, program: options.mode == "forward",
            prepare=_prepare, walk=lambda tracer: records(tracer))


# ---- carrying tangents -----------------------------------------------------------------------
def tangent_of(tracer, i: int, tangents: list, given: dict):
    """Node i's tangent from its inputs' (None: zero; a node no leaf reaches has None)."""
    node = tracer.program.nodes[i]
    if node.role == "leaf":
        return given.get(i, _zeros(tracer.values[i]))
    if node.role != "op":
        return None   # a constant: no tangent
    if not tracer.requires[i]:
        return None
    xs = tracer.inputs(node)
    dots = [tangents[k] if tangents[k] is not None else _zeros(tracer.values[k])
            for k in node.inputs]
    dots = [np.float64(d) if type(d) is float else d for d in dots]
    out = tracer.values[i]
    out_ = np.float64(out) if type(out) is float else out
    op = get_op(node.op)
    active = [tracer.requires[k] for k in node.inputs]
    zero_terms = getattr(tracer, "zero_terms", False)
    with np.errstate(all="ignore"):
        if op.elementwise and (zero_terms or not all(active)):
            # A constant has no tangent, so its term is absent, not 0 · ∂out/∂c: pow's
            # exponent term is NaN for a negative base, and 0 · NaN would poison the sum
            # (PyTorch's forward AD gives an input without a tangent a zero tensor whose
            # products are zero). An elementwise op's term for input k is its local
            # derivative times ẋ_k: the row's vjp applied to the tangent. Over the backward
            # graph (zero_terms: engine/trace/hvp.py) an element whose tangent is 0 adds 0 too.
            t = sum(zero_term(zero_terms, dots[arg],
                              op.vjp[arg](dots[arg], out_, *xs, **node.params))
                    for arg in range(len(dots)) if active[arg])
            if zero_terms and op.jvp_grouped is not None:
                ungrouped, t = t, grouped(t, op, dots, out_, xs, node.params)
                if t is not ungrouped:   # the narration says so (forward_text.narration)
                    vars(tracer).setdefault("grouped", set()).add(i)
        elif zero_terms and op.jvp_zero is not None:   # a contraction: 0 · ∞ = 0 inside it
            t = op.jvp_zero(dots, out_, *xs, **node.params)
        else:
            t = op.jvp(dots, out_, *xs, **node.params)
    if type(out) is float:
        return float(t)
    t = np.asarray(t, dtype=out.dtype)
    return t if t.shape == out.shape else np.broadcast_to(t, out.shape).copy()


def grouped(t, op, dots: list, out, xs: list, params: dict):
    """`t` with the row's jvp_grouped where `t` is NaN from ∞ - ∞ and an input's tangent is
    itself infinite, when that is not NaN.

    Why: an infinite tangent carries a partial met upstream (sqrt's 1/(2 sqrt x) at 0). Reverse
    over reverse sums the finite adjoints at that node first and multiplies by the ∞ once, so it
    finds the limit; forward over reverse has multiplied already and meets ∞ - ∞ between the
    terms. Written over their common factor (the quotient rule over 1/y) the terms give that
    limit again: `sqrt(x) * y` at x = 0, v = (1, 1) has (H v)_x = -y/(4 x^1.5) + 1/(2 sqrt x)
    -> -∞, as reverse over reverse and PyTorch's vhp say. Where no tangent is infinite (log(x)
    * y: both terms' ∞ are the div's own 1/x) the NaN stays, as reverse over reverse has it."""
    nan = np.isnan(t)
    if not nan.any():
        return t
    infinite = np.zeros(np.shape(t), dtype=bool)
    for d in dots:
        infinite = infinite | np.isinf(d)
    g = op.jvp_grouped(dots, out, *xs, **params)
    use = nan & infinite & ~np.isnan(g)
    if not use.any():
        return t
    return np.where(use, g, t) if np.ndim(use) else np.float64(g)


def carry(tracer, given: dict) -> list:
    """Every node's tangent (None: zero) for the leaves' tangents `given` {node: tangent}."""
    tangents: list = [None] * len(tracer.program.nodes)
    for i in tracer.deadline.paced(tracer.order):
        tangents[i] = tangent_of(tracer, i, tangents, given)
    return tangents


# ---- events --------------------------------------------------------------------------------
def records(tracer) -> Iterator[dict]:
    """`tangent` events in creation order, then `done` (with `jvp`, `passes`, `all_forward`)."""
    given, direction = seeds(tracer)
    ids, limit, values = tracer.ids, tracer.limit, tracer.values
    tangents: list = [None] * len(values)
    tracer.first_non_finite = None
    seq = 0
    for i in tracer.deadline.paced(tracer.order):
        t = tangents[i] = tangent_of(tracer, i, tangents, given)
        v = values[i]
        shown = _zeros(v) if t is None else t
        value, tangent = _encode(tracer, v, limit), _encode(tracer, shown, limit)
        if tracer.first_non_finite is None:
            _watch(tracer, i, value, tangent)
        rule, text = narration(tracer, i, tangents, given)
        if t is not None and tracer.program.nodes[i].op in kinks.TABLE:
            _kink(tracer, i)   # the warning; the narration says why (edge_notes)
        yield {"seq": seq, "kind": "tangent", "node": ids[i], "value": value,
               "tangent": tangent, "rule": rule, "narration": text}
        seq += 1
    adjoints = reverse_adjoints(tracer)
    done = tracer.done(seq, adjoints)
    out = tangents[tracer.output]
    done["jvp"] = encode(_zeros(values[tracer.output]) if out is None else out, None)
    n, m = _inputs_size(tracer), int(np.size(values[tracer.output]))
    done["passes"] = {"direction": direction, "inputs": n, "outputs": m, "forward": n,
                      "reverse": m}
    if tracer.options.tangents is None:
        done["all_forward"] = all_forward(tracer, adjoints)
    yield done


def _kink(tracer, i: int) -> None:
    """At a point where node i's op has no derivative: a "non_differentiable" warning naming
    `tangents` (engine/trace/kinks.py); the event's words are engine/trace/edge_notes.py's."""
    node = tracer.program.nodes[i]
    out = tracer.values[i]
    count = kinks.at(node.op, out, tracer.inputs(node), node.params)
    if not count:
        return
    message = kinks.forward_message(node.op, node, tracer.formulas[i], count,
                                    int(np.size(out)))
    tracer.warnings.add("non_differentiable", message, tracer.ids[i], "tangents", node.span)


def _encode(tracer, v, limit):
    return v if type(v) is float and v - v == 0.0 else tracer.encode(v, limit)


def _watch(tracer, i: int, value, tangent) -> None:
    """The walk's first non-finite number: a value (phase "forward") or a tangent."""
    if type(value) is not float and non_finite(value):
        tracer.first_non_finite = {"node": tracer.ids[i], "phase": "forward",
                                   "why": tracer.why_forward(i)}
    elif type(tangent) is not float and non_finite(tangent):
        node = tracer.program.nodes[i]
        tracer.first_non_finite = {
            "node": tracer.ids[i], "phase": "tangent",
            "why": f"the tangent of {clip(node.label)} is not finite: its jvp rule has no "
                   "finite value here (the same number torch.func.jvp gives)"}


def reverse_adjoints(tracer, output_grad=None) -> list:
    """The Tracer's own reverse pass run without sending its events: every node's adjoint
    (None where none arrives). output_grad: the output's seed for this pass (None: the
    trace's)."""
    if output_grad is None:
        return drain(tracer.backward(itertools.count()))
    kept = tracer.output_grad
    tracer.output_grad = output_grad
    try:
        return drain(tracer.backward(itertools.count()))
    finally:
        tracer.output_grad = kept


def _inputs_size(tracer) -> int:
    return sum(int(np.size(tracer.values[i])) for i in tracer.program.leaves.values())


# ---- all n forward passes ------------------------------------------------------------------
def all_forward(tracer, adjoints: list) -> dict:
    """Every scalar input's forward pass (one-hot tangents): the whole Jacobian J (m × n) a
    column per pass, the gradient vᵀJ (v: the output's seed, 1 for a scalar output), and how
    far both are from reverse mode (the trace's adjoints; J a row per reverse pass, m of them
    when m ≤ MAX_PASSES).

    Beyond MAX_PASSES scalar inputs or MAX_PASS_FLOPS: {"passes": n, "skipped": why}, and
    the trace's own forward pass (the default tangent) answers as usual.
    """
    program, values = tracer.program, tracer.values
    leaves = list(program.leaves.items())
    n = _inputs_size(tracer)
    try:
        _check_cost(tracer, n)
    except ProgramError as e:   # the one pass asked for still answers; the extra says why not
        return {"passes": n, "skipped": e.message}
    out = values[tracer.output]
    m = int(np.size(out))
    columns = []
    for _, i in leaves:
        for k in range(int(np.size(values[i]))):
            one = 1.0 if type(values[i]) is float else _one_hot(values[i], k)
            t = carry(tracer, {i: one})[tracer.output]
            columns.append(np.zeros(m) if t is None else np.ravel(t).astype(np.float64))
    jacobian = np.stack(columns, axis=1) if columns else np.zeros((m, 0))
    v = np.ravel(np.ones(m) if tracer.output_grad is None else tracer.output_grad)
    flat = v.astype(np.float64) @ jacobian
    gradient, reverse, start = {}, [], 0
    for name, i in leaves:
        size = int(np.size(values[i]))
        part = flat[start:start + size].reshape(np.shape(values[i]))
        start += size
        gradient[name] = encode(float(part) if part.ndim == 0 else part, None)
        adj = adjoints[i]
        reverse.append(np.ravel(np.zeros(size) if adj is None else np.asarray(adj, np.float64)))
    reverse_flat = np.concatenate(reverse) if reverse else np.zeros(0)
    with np.errstate(all="ignore"):
        diff = _max_abs(flat - reverse_flat)
        scale = max(1.0, _max_abs(reverse_flat))
    return {"passes": n, "gradient": gradient,
            "max_abs_difference_from_reverse": _json_number(diff),
            "agree": bool(diff <= AGREE * scale),
            "jacobian": _jacobian(tracer, jacobian, leaves, adjoints)}


def _check_cost(tracer, n: int) -> None:
    flops = n * max(1, sum(tracer.flops))
    if n > MAX_PASSES or flops > MAX_PASS_FLOPS:
        raise ProgramError(
            "too_large", f"running all forward passes takes one per scalar input: {n:,} "
            f"passes, {flops:,} FLOPs; the limits are {MAX_PASSES} passes and "
            f"{MAX_PASS_FLOPS:,} FLOPs (reverse mode needs one pass: that is why training "
            "runs in reverse)", hint="give `tangents` (gradwalk trace --tangents) to run one "
                                     "forward pass")


def _jacobian(tracer, forward: np.ndarray, leaves, adjoints: list) -> dict:
    """The Jacobian as the forward passes built it, and its distance from the m reverse
    passes' rows (null when m > MAX_PASSES)."""
    m, n = forward.shape
    result = {"shape": [m, n], "forward_passes": n, "reverse_passes": m,
              "data": encode(forward, None)["data"] if m * n <= 4096 else None,
              "max_abs_difference_from_reverse": None}
    if m > MAX_PASSES:
        return result
    out = tracer.values[tracer.output]
    rows = []
    for r in range(m):
        if np.ndim(out) == 0 and tracer.output_grad is None:
            adj = adjoints   # the trace's own reverse pass is that row
        elif np.ndim(out) == 0:
            adj = reverse_adjoints(tracer, 1.0 if type(out) is float else np.ones_like(out))
        else:
            adj = reverse_adjoints(tracer, _one_hot(out, r))
        rows.append(np.concatenate([np.ravel(np.zeros(np.size(tracer.values[i]))
                                             if adj[i] is None else
                                             np.asarray(adj[i], np.float64))
                                    for _, i in leaves]) if leaves else np.zeros(0))
    with np.errstate(all="ignore"):
        result["max_abs_difference_from_reverse"] = _json_number(
            _max_abs(np.stack(rows) - forward))
    return result


def _one_hot(like, k: int):
    e = np.zeros_like(like)
    e.flat[k] = 1.0
    return e


def _max_abs(x) -> float:
    x = np.abs(np.asarray(x, dtype=np.float64))
    if x.size == 0:
        return 0.0
    return float("nan") if np.isnan(x).any() else float(x.max())


def _json_number(x: float):
    return encode(x, None)
