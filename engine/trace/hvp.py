"""Second derivatives from the backward pass recorded as a graph (engine/trace/backward_graph.py):
Hessian-vector products two ways, the full Hessian, and its largest eigenvalue.

For a scalar L(x) with gradient g(x) = ∇L, the Hessian-vector product is H v = ∇⟨g(x), v⟩
(Pearlmutter, "Fast exact multiplication by the Hessian", Neural Computation 1994; PyTorch's
torch.autograd.functional.hvp). The backward pass, recorded as a program, computes g(x) from x
with registry ops, so it can be differentiated like any program:

- reverse-over-reverse: append s = ⟨g, v⟩ = Σ v_x ⊙ x̄ (v as constants) and run the normal
  reverse walk from s: each leaf's adjoint ∂s/∂x is (H v)_x. Its events are the normal `seed`
  and `accumulate` events, on the backward graph.
- forward-over-reverse: carry tangents through the backward graph (engine/trace/
  forward_mode.py, the ops' jvp rows), the leaves' tangents being v: each adjoint node x̄'s
  tangent is (H v)_x. Its events are forward mode's `tangent` events (value and tangent).
Both walks take one convention where a partial is NaN or ∞ (sqrt, log, pow at 0; issue 14
§4), `zero_terms` on the tracer: a term of an elementwise op whose upstream gradient (reverse
over reverse) or tangent (forward over reverse) is exactly 0 adds exactly 0, not 0 · ∞ = NaN
(inside matmul's jvp too: engine/ops/linalg.py contract_zero).
H v is then the directional derivative of the gradient along v, the same both ways: v's zero
entries move nothing (PyTorch's torch.autograd.functional.hvp instead takes 0 · ∞ = NaN).
hvp mode (options.mode == "hvp", or a program's `# hvp:` header: engine/second_order.py)
traces the program [backward graph; v; s]: `tangent` events in creation order (forward over
reverse), then `seed` at s and `accumulate` events (reverse over reverse), then `done` with
`hvp` (reverse over reverse) and `hvp_forward_over_reverse`; both equal H v.

The full Hessian (`# hessian: full`, at most MAX_HESSIAN_INPUTS scalar inputs) and its largest
eigenvalue (`# hessian: power_iteration N`) are engine/trace/hessian.py's.
"""
from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import Program
from gradwalk.engine.source import clip
from gradwalk.engine.trace import forward_mode, forward_text, kinks, narrate, seed, warn
from gradwalk.engine.trace import hessian as matrices
from gradwalk.engine.trace.backward_graph import BackwardProgram, Builder, backward_program
from gradwalk.engine.trace.limits import Limits
from gradwalk.engine.trace.mode import Mode
from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.values import encode, non_finite

MAX_HESSIAN_INPUTS = 50
"""The full Hessian is for programs whose leaves hold at most this many elements together
(one pass over the backward graph per element; a 50 × 50 heat map)."""


@dataclass
class Plan:
    """What a trace does beyond the reverse walk of its program.

    program: what the Tracer traces (hvp mode: the backward graph, the v constants and s;
    otherwise the program itself); output: the name to seed; backward: the backward graph;
    vector: {leaf name: v} in hvp mode, else None; full, power_iteration: the header's asks.
    """

    program: Program
    output: str | None
    backward: BackwardProgram
    vector: dict[str, object] | None
    full: bool = False
    power_iteration: int = 0
    forward_result: dict | None = None   # hvp by forward over reverse, set by records()
    origin: tuple | None = None   # hvp mode: (the program as written, its output's node)

    def symbols(self, tracer) -> list[str]:
        """The reverse walk's adjoint symbols over the backward graph: ∂s/∂ā, ∂s/∂t, never a
        bar (the graph's nodes ā, t̄ are the first-order adjoints); a leaf's is `(H v)_a`,
        what its adjoint ∂s/∂a is; s's own is s̄."""
        out = [f"∂{self.output}/∂{narrate.wrap(n.label)}" for n in tracer.program.nodes]
        for name, i in tracer.program.leaves.items():
            out[i] = hv_symbol(name)
        out[tracer.output] = narrate.bar(self.output, self.output)
        return out

    def traced(self, output_grad, options: Options):
        """(program, output, output_grad, options) for the Tracer."""
        if self.vector is None:
            return self.program, self.output, output_grad, options
        shown = {k: v if type(v) is float else v.tolist() for k, v in self.vector.items()}
        return self.program, self.output, None, dataclasses.replace(
            options, mode="hvp", vector=shown, tangents=shown)


def prepare(program: Program, output: str | None, output_grad, options: Options,
            max_elements: int, max_nodes: int | None = None, deadline=None) -> Plan | None:
    """The plan for `options` and the program's `# hvp:` / `# hessian:` header, or None when
    neither asks for second derivatives.

    Raises ProgramError: "unknown_output"; "bad_argument" naming `vector` and the leaf for a
    vector entry for a name that is not a leaf, not numbers, of another shape than the leaf
    or not finite; "too_large" for the full Hessian of more than MAX_HESSIAN_INPUTS scalar
    inputs; "unsupported" for an op whose second derivative is not available
    (backward_graph.py); the output_grad errors of engine/trace/seed.py.
    """
    header = program.second_order
    mode, vector = options.mode, options.vector
    if header is not None and header.vector is not None:
        _header_fits(mode, vector, header)
        if vector is None:   # the request is in reverse or hvp mode (forward: refused)
            mode, vector = "hvp", header.vector
    full = bool(header and header.full)
    steps = header.power_iteration if header else 0
    if mode != "hvp" and not full and not steps:
        return None
    name = program.last if output is None else output
    if name not in program.names:
        raise ProgramError("unknown_output", f"the program has no name `{clip(name)}` to "
                           "differentiate")
    b = Builder(program, max_elements, max_nodes)   # shapes first: the vector is checked
    out = program.names[name]
    start = seed.output_grad(output_grad, np.zeros(b.shapes[out]), program, out)
    if full:
        try:
            _check_size(program, b.shapes)
        except ProgramError as e:
            raise header.located(e, "hessian") from None
    if mode == "hvp" and not program.leaves:
        raise ProgramError("bad_argument", "hvp mode differentiates by the leaves, and the "
                           "program has none (a literal assigned to a name is a leaf; "
                           "const(...) is not)")
    try:
        values = None if mode != "hvp" else \
            _vector(program, b.shapes, _first_element(program, b.shapes) if vector is None
                    else vector)
    except ProgramError as e:   # about the `# hvp:` line when the vector is the line's
        if header is None or vector is not header.vector:
            raise
        raise header.located(e, "hvp") from None
    if values is not None and header is not None and header.vector is not None and \
            vector is not header.vector:
        _same_vectors(values, _vector(program, b.shapes, header.vector), header)
    back = backward_program(program, name, start, max_elements, b, deadline)
    if mode != "hvp":
        return Plan(program, output, back, None, full, steps)
    with_s, s_name = _with_inner_product(program, back, values)
    return Plan(with_s, s_name, back, values, full, steps, origin=(program, out))


def _plan(program: Program, output, output_grad, options: Options, limits: Limits, deadline):
    """The mode's `plan` hook: (plan, program, output, output_grad, options) to trace, or None."""
    plan = prepare(program, output, output_grad, options, limits.max_elements,
                   limits.max_nodes, deadline)
    return None if plan is None else (plan, *plan.traced(output_grad, options))


def _prepare(tracer, limits, plan: Plan) -> Plan:
    """After compiling: hvp mode's adjoint symbols (∂s/∂ā), and warnings at kinks and for a
    zero vector."""
    if tracer.options.mode == "hvp":   # ∂s/∂a: the backward graph's own ā is a node
        tracer.symbols = plan.symbols(tracer)
        tracer.zero_terms = True   # both walks: a zero upstream or tangent adds 0 (above)
    warn_kinks(tracer)   # second derivatives at a kink: said, as forward mode
    if tracer.options.mode == "hvp" and plan.vector is not None:
        first = next(iter(tracer.program.leaves), "a")
        warn.zero_direction(tracer.warnings, "vector", plan.vector, f'{{"{first}": 1}}')
    return plan


MODE = Mode("hvp", plan=_plan, prepare=_prepare, walk=lambda tracer: records(tracer),
            done=lambda tracer, plan, adjoints: results(tracer, adjoints))


def _header_fits(mode: str, vector, header) -> None:
    """A `# hvp:` line is never ignored: in forward mode it is refused, located at the line
    ("bad_argument"); with a request `vector` in hvp mode the two must be equal (checked by
    _same_vectors once both are read)."""
    if mode == "forward":
        raise ProgramError(
            "bad_argument", "the `# hvp:` line asks for a Hessian-vector product, which is "
            "mode hvp; this request is in forward mode", **(header.vector_where or {}),
            hint="trace in hvp mode (or the default reverse mode, which the line turns into "
                 "hvp), or remove the `# hvp:` line for forward mode")


def _same_vectors(given: dict, line: dict, header) -> None:
    """Refuse a request `vector` that differs from the program's `# hvp:` line ("bad_argument"
    naming both, at the line): neither silently wins."""
    for name, v in given.items():
        if not np.array_equal(np.asarray(v), np.asarray(line[name])):
            where = header.vector_where or {}
            at = f" (line {where['line']})" if where else ""
            raise ProgramError(
                "bad_argument", f"`vector` and the program's `# hvp:` line{at} give different "
                f"vectors (they differ at the leaf {clip(name)}); give one of them, or make "
                "them equal", **where,
                hint="remove `vector` from the request to use the line's, or edit the line")


def _check_size(program: Program, shapes: list) -> None:
    n = sum(int(np.prod(shapes[i])) for i in program.leaves.values())
    if n > MAX_HESSIAN_INPUTS:
        raise ProgramError("too_large", f"the full Hessian is for programs with at most "
                           f"{MAX_HESSIAN_INPUTS} scalar inputs (the leaves' elements "
                           f"together); this one has {n:,}",
                           hint="use `# hessian: power_iteration N` or hvp mode (a "
                                "Hessian-vector product), which need no n×n matrix")


def _first_element(program: Program, shapes: list) -> dict:
    """The default vector: 1 on the first leaf's first element, 0 elsewhere, so H v is the
    Hessian's first column (as forward mode's default tangent gives the Jacobian's)."""
    if not program.leaves:
        return {}
    name, i = next(iter(program.leaves.items()))
    one = np.zeros(shapes[i])
    one.flat[0] = 1.0
    return {name: one.tolist()}


def _vector(program: Program, shapes: list, given) -> dict[str, object]:
    """{leaf name: v} for every leaf (0 where not named), each of its leaf's shape, in the
    program's dtype (a float for a float64 scalar leaf). Errors name `vector` and the leaf."""
    if not isinstance(given, dict):
        raise ProgramError("bad_argument", "vector must be an object {leaf: value}")
    leaves = program.leaves
    for key in given:
        if key not in leaves:
            raise seed.not_a_leaf(program, "vector", key)
    return {name: seed.leaf_entry(program, "vector", name, shapes[i], given[name])
            if name in given else _unnamed(program, shapes[i]) for name, i in leaves.items()}


def _unnamed(program: Program, shape: tuple):
    """A leaf the vector does not name: 0 (zeros of its shape)."""
    if not shape and program.dtype == "float64":
        return 0.0
    return np.zeros(shape, dtype=program.dtype)


def _with_inner_product(program: Program, back: BackwardProgram, vector: dict
                        ) -> tuple[Program, str]:
    """The backward graph with s = Σ sum(v_x ⊙ x̄) appended (v_x constants; leaves whose v is
    0 are left out unless every one is), and s's name."""
    b = back.builder
    nonzero = [n for n in program.leaves if np.any(vector[n] != 0)] or list(program.leaves)
    terms = []
    s_name = "s" if "s" not in program.names else "s_hvp"
    for k, name in enumerate(nonzero):
        leaf = program.nodes[program.leaves[name]]
        b.span = leaf.span
        v = b.const(vector[name], leaf.span, f"v_{name}")
        b.nodes[v].name = f"v_{name}"
        last = k == len(nonzero) - 1 and len(nonzero) == 1
        grad = back.grads[name]
        if b.shapes[grad] == ():
            terms.append(b.op("mul", [v, grad], label=s_name if last else None))
        else:
            terms.append(b.op("sum", [b.op("mul", [v, grad])], label=s_name if last else None))
    b.span = program.nodes[program.names[program.last]].span
    acc = terms[0]
    for k, term in enumerate(terms[1:], 2):
        acc = b.op("add", [acc, term], label=s_name if k == len(terms) else None)
    new = Program(b.nodes, b.names, dict(program.leaves), s_name, [], program.dtype,
                  no_grad=list(back.program.no_grad))
    return new, s_name


# ---- the walk ----------------------------------------------------------------------------------
def records(tracer) -> Iterator[dict]:
    """hvp mode's events: `tangent` events over the backward graph in creation order (forward
    over reverse: the leaves' tangents are v), then the reverse walk from s (`seed`,
    `accumulate`: reverse over reverse), then `done`."""
    plan = tracer.second
    program, ids, values, limit = tracer.program, tracer.ids, tracer.values, tracer.limit
    given = {program.leaves[n]: v for n, v in plan.vector.items()}
    at_grads = {g: hv_symbol(name) for name, g in plan.backward.grads.items()}
    tangents: list = [None] * len(values)
    tracer.first_non_finite = None
    seq = 0
    for i in tracer.deadline.paced(tracer.order):
        t = tangents[i] = forward_mode.tangent_of(tracer, i, tangents, given)
        v = values[i]
        value = _encode(tracer, v, limit)
        tangent = _encode(tracer, _zeros(v) if t is None else t, limit)
        if tracer.first_non_finite is None:
            _watch(tracer, i, value, tangent)
        rule, text = forward_text.narration(tracer, i, tangents, given)
        if i in at_grads:   # an adjoint node's tangent is H v's entry (forward over reverse)
            text += f"; {forward_text.dot(program.nodes[i].label)} is {at_grads[i]}"
        yield {"seq": seq, "kind": "tangent", "node": ids[i], "value": value,
               "tangent": tangent, "rule": rule, "narration": text}
        seq += 1
    plan.forward_result = _at_grads(tracer, plan, tangents)
    seq = itertools.count(seq)
    adjoints = yield from tracer.watch_adjoints(tracer.backward(seq))
    yield tracer.done(next(seq), adjoints)


def warn_kinks(tracer) -> None:
    """Where an op of the program has no derivative (engine/trace/kinks.py) it has no second
    derivative either: a "non_differentiable" warning per such node, naming `vector` in hvp
    mode (the field that asks for H v) and no field for a `# hessian:` line, as forward mode
    warns naming `tangents`. The numbers are PyTorch's (its double backward of relu is 0)."""
    what = "the Hessian-vector product" if tracer.options.mode == "hvp" else "the Hessian"
    field = "vector" if tracer.options.mode == "hvp" else None
    for node in tracer.program.nodes[:written(tracer)]:
        if node.op not in kinks.TABLE:
            continue
        out = tracer.values[node.index]
        edge = kinks.pow_second(node, tracer.inputs(node), tracer.program)
        if any(edge):   # pow at base 0: its own words (engine/ops/masked.py's numbers)
            tracer.warnings.add("non_differentiable", kinks.pow_second_message(
                node, tracer.formulas[node.index], edge, int(np.size(out)), what,
                tuple(narrate.wrap(tracer.program.nodes[k].label) for k in node.inputs)),
                tracer.ids[node.index], field, node.span)
            continue
        count = kinks.at(node.op, out, tracer.inputs(node), node.params)
        if count:
            tracer.warnings.add("non_differentiable", kinks.second_order_message(
                node.op, node, tracer.formulas[node.index], count, int(np.size(out)), what),
                tracer.ids[node.index], field, node.span)


def written(tracer) -> int:
    """How many of the traced program's first nodes the user wrote: in hvp mode the backward
    graph copies the program's nodes first (same indices) and appends the engine's; a kink
    or a non-finite constant among those is the engine's by construction, not reported."""
    origin = getattr(tracer.second, "origin", None)
    return len(origin[0].nodes) if origin is not None else len(tracer.program.nodes)


def _zeros(value):
    return 0.0 if type(value) is float else np.zeros_like(value)


def hv_symbol(leaf: str) -> str:
    """How narration and tables write leaf `leaf`'s entry of H v: `(H v)_a`."""
    return f"(H v)_{clip(leaf)}"


def render_table(body: dict) -> str:
    """`gradwalk trace --mode hvp --format table`: the reverse-over-reverse walk's table
    (engine/trace/table.py), then s and each leaf's (H v)_a both ways, not as ds/da."""
    from gradwalk.engine.trace import table

    text = table.render_table(body)
    tail = "\n".join(table.results(body)) + "\n"
    head = text[:-len(tail)] if text.endswith(tail) else text + "\n"
    out = body["output"]
    lines = [f"{out['name']} = ⟨∇L, v⟩ = {table._fmt(out['value'])}"]
    other = body.get("hvp_forward_over_reverse", {})
    for name, value in body.get("hvp", {}).items():
        both = f" (forward over reverse: {table._fmt(other[name])})" if name in other else ""
        lines.append(f"{hv_symbol(name)} = ∂{out['name']}/∂{name} = {table._fmt(value)}{both}")
    return head + "\n".join(lines) + "\n"


def _encode(tracer, v, limit):
    return v if type(v) is float and v - v == 0.0 else tracer.encode(v, limit)


def _watch(tracer, i: int, value, tangent) -> None:
    """The walk's first non-finite number: a value (phase "forward") or a tangent ("tangent",
    as forward mode reports it)."""
    for phase, x in (("forward", value), ("tangent", tangent)):
        if type(x) is not float and non_finite(x):
            label = clip(tracer.program.nodes[i].label)
            why = tracer.why_forward(i) if phase == "forward" else \
                f"the tangent of {label} is not finite: its jvp rule has no finite value here"
            tracer.first_non_finite = {"node": tracer.ids[i], "phase": phase, "why": why}
            return


def _at_grads(tracer, plan: Plan, per_node: list) -> dict:
    """{leaf: the entry of `per_node` at its adjoint node x̄ (zeros where None)}, encoded."""
    out = {}
    for name, g in plan.backward.grads.items():
        t = per_node[g]
        out[name] = encode(_zeros(tracer.values[g]) if t is None else t, None)
    return out


def results(tracer, adjoints: list) -> dict:
    """The done event's second-order fields: `hvp` and `hvp_forward_over_reverse` in hvp mode,
    `hessian` and `eigen` when the header asks for them."""
    plan: Plan = tracer.second
    done = {}
    if plan.vector is not None:
        done["hvp"] = {name: encode(adjoints[i] if adjoints[i] is not None else
                                    _zeros(tracer.values[i]), None)
                       for name, i in tracer.program.leaves.items()}
        forward = plan.forward_result
        if forward is None:   # the events were not walked (events() of another caller)
            given = {tracer.program.leaves[n]: v for n, v in plan.vector.items()}
            forward = _at_grads(tracer, plan, forward_mode.carry(tracer, given))
        done["hvp_forward_over_reverse"] = forward
    if plan.full or plan.power_iteration:
        inner = matrices.inner(tracer, plan)
        if plan.full:
            done["hessian"] = matrices.hessian(inner, plan)
        if plan.power_iteration:
            done["eigen"] = matrices.power_iteration(inner, plan, plan.power_iteration)
    return done
