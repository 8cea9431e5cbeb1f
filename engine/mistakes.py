"""The mistakes table of the quiz (issue 16, section 1): which wrong number each known mistake
gives for a node, so the page can name the mistake a student's wrong answer is.

For every scalar node the backward pass reaches, `mistakes` lists the wrong adjoints, each
{"kind", "value", "text"}, most telling first:

- from the bug lab's engines (engine/trace/bugs.py), each run on the program: `overwrite`
  (`=` where `+=` belongs: the last write survives), `wrong_order` (nodes in forward order: a
  node passes on an adjoint its consumers have not finished), `no_zero_grad` (two passes
  without zeroing: every leaf's gradient doubled), asked only of a program that runs two
  backward passes (a `# bugs: no_zero_grad` or `# bugs: zero_grad` line): in a single walk
  there is no previous pass whose gradient could be left over;
- from a small table of hand-computation slips, worked out from the correct walk's own
  accumulate events (x̄ += local · upstream, one per edge; contribution c_i = local_i · ū_i):
    overwrite      one contribution c_i alone, where x̄ has two or more (the other order of
                   the writes than the bug lab's engine walks);
    missing_local  the local derivative of one edge left out: x̄ - c_i + ū_i (local_i ≠ 1);
    other_factor   the product rule's halves swapped, for z = x * y: x̄ - c_i + x · z̄, the
                   factor x itself (which is ȳ's local) instead of y;
    transpose      a matmul's transpose left out, for Y = X @ W: Ȳ @ W for Ȳ @ Wᵀ, X @ Ȳ
                   for Xᵀ @ Ȳ (where the shapes allow it: square factors);
    added_twice    one contribution added twice: x̄ + c_i;
    sign           -x̄, or one contribution with its sign flipped: x̄ - 2 c_i.
  A forward value has one slip: `sign` (-v).

A value within `close` of the right answer is no mistake (it would be judged right), and a
kind gives each value once; one value may be two kinds' (the page names the first).

A tensor node (its data inlined in the trace: at most Limits' inline count) gets the same
mistakes elementwise: each entry's `value` is the whole wrong tensor as nested lists (the
trace's `data` layout), and the page judges the one element it asks (static/js/quiz.js).
An entry is kept when some element of it is not `close` to the right one. Slips whose shapes
do not line up elementwise (a matmul's local derivative is a product, not a factor) are
left out.

The correct walk is the engine's own (tested against PyTorch float64); tests/engine/
test_mistakes.py checks every entry of the tanh fan-out example against PyTorch.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Iterable

import numpy as np

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import Program
from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import Limits, Tracer
from gradwalk.engine.trace.values import short

ENGINES = ("overwrite", "wrong_order", "no_zero_grad")   # the bug lab's switches asked
TWO_PASSES = {"no_zero_grad", "zero_grad"}   # the `# bugs:` switches that walk backward twice
# Which kind names a value two kinds give (ā = 1.5729 in the tanh fan-out example is both the
# contribution through d alone and the doubled gradient of no_zero_grad: overwrite is what
# a student who stopped at the first contribution did).
ORDER = ("overwrite", "missing_local", "other_factor", "transpose", "wrong_order",
         "no_zero_grad", "added_twice", "sign")
RELATIVE = 1e-3   # the quiz's default tolerance (static/js/quiz.js RELATIVE)


def shown_unit(b: float) -> float:
    """The unit of the last digit the page shows of b (values.short: 4 decimals for
    1e-3 <= |b| < 1e5, else 4 significant digits)."""
    m = abs(b)
    return 1e-4 if m == 0 or 1e-3 <= m < 1e5 else 10.0 ** (math.floor(math.log10(m)) - 3)


def close(a: float, b: float, rel: float = RELATIVE) -> bool:
    """The quiz's test of an answer a for b (static/js/quiz.js matches): |a - b| <= rel · |b|,
    or within half a unit of the last digit shown when the page shows fewer digits than rel
    resolves (0.0012 for 0.0012345 is typed to the digits shown), or printed the same."""
    unit, gap = shown_unit(b), abs(a - b)
    if gap <= max(rel * abs(b), unit / 2) * (1 + 1e-9):
        return True
    return gap <= unit and short(a) == short(b)   # a tie rounded the other way; else apart


def mistakes(program: str | Program, output: str | None = None,
             limits: Limits = Limits(), max_nodes: int | None = None) -> dict:
    """{"adjoint": {node id: [mistake]}, "value": {node id: [mistake]}} for `program`.

    Each mistake is {"kind": str, "value": float, "text": str}. `max_nodes`: refuse a
    program with more nodes (the table runs the program up to four times). Raises
    ProgramError as the tracer does, and "too_large" past max_nodes.
    """
    tracer = Tracer(program, output, limits)
    if max_nodes is not None and len(tracer.program.nodes) > max_nodes:
        raise ProgramError("too_large", f"the quiz's mistakes table is made for programs of "
                           f"at most {max_nodes:,} nodes; this one has "
                           f"{len(tracer.program.nodes):,}", hint="quiz on a smaller program")
    records = list(tracer.records())
    walk = _Walk(tracer, records)
    table: dict[str, dict[str, list]] = {"adjoint": {}, "value": {}}
    for node, value in walk.values.items():
        table["value"][node] = _unique(value, [("sign", -value, "you have the sign wrong")])
    engines = {name: _engine_adjoints(tracer.program, output, limits, name)
               for name in _engines_of(tracer.program)}
    for node, right in walk.adjoints.items():
        found = [*_from_engines(walk, node, right, engines), *_slips(walk, node, right)]
        found.sort(key=lambda m: ORDER.index(m[0]))   # stable: the engine's value first
        table["adjoint"][node] = _unique(right, found)
    return table


# ---- the correct walk ------------------------------------------------------------------------
def _num(x):
    """A record's number as a float, a tensor's inlined data as a float64 array, or None
    (a non-finite string, a tensor sent as a summary, no number at all)."""
    if type(x) is float:
        return x
    if isinstance(x, dict) and x.get("data") is not None:
        return np.asarray(x["data"], dtype=np.float64)
    return None


class _Walk:
    """What the correct trace says, by node id: values and final adjoints (floats, or
    arrays for inlined tensors), and the accumulate events into each node (in walk order),
    their numbers read by _num."""

    def __init__(self, tracer: Tracer, records: list[dict]):
        nodes = tracer.program.nodes
        self.labels = {tracer.ids[i]: n.label for i, n in enumerate(nodes)}
        self.symbols = {tracer.ids[i]: tracer.symbols[i] for i in range(len(nodes))}
        self.ops = {tracer.ids[i]: n.op for i, n in enumerate(nodes)}
        self.inputs = {tracer.ids[i]: [tracer.ids[j] for j in n.inputs] for i, n in enumerate(nodes)}
        self.formulas = {tracer.ids[i]: tracer.formulas[i] for i in range(len(nodes))}
        role = {tracer.ids[i]: n.role for i, n in enumerate(nodes)}
        evaluated = {r["node"]: _num(r["value"]) for r in records if r["kind"] == "evaluate"}
        self.all_values = {k: v for k, v in evaluated.items() if v is not None}
        self.values = {k: v for k, v in self.all_values.items() if role[k] == "op"}
        self.into: dict[str, list[dict]] = {}
        self.adjoints: dict = {}
        for r in records:
            after = _num(r["adjoint_after"]) if r["kind"] == "accumulate" else None
            if after is not None:
                self.into.setdefault(r["input"], []).append(
                    {**r, **{k: _num(r[k]) for k in ("contribution", "upstream", "local")}})
                self.adjoints[r["input"]] = after


def _engines_of(program: Program) -> tuple[str, ...]:
    """The bug lab's engines whose mistake a student of this program can make: forgetting
    zero_grad needs a previous backward pass, which only a two-pass program has."""
    two = bool(TWO_PASSES & set(program.bugs))
    return tuple(e for e in ENGINES if e != "no_zero_grad" or two)


def _engine_adjoints(program, output, limits, switch: str) -> dict | None:
    """{node id: (final adjoint, consumer id of the last write)} of the bug lab's engine
    `switch`, or None when the switch changes nothing in this program."""
    if switch == "no_zero_grad":   # the program's own two passes, less their fix
        program = replace(program, bugs=tuple(b for b in program.bugs if b != "zero_grad"))
    try:
        records = Tracer(program, output, limits, options=Options(bugs=(switch,))).records()
        final = {}
        for r in records:
            after = _num(r["adjoint_after"]) if r["kind"] == "accumulate" else None
            if after is not None:
                final[r["input"]] = (after, r["node"])
        return final
    except ProgramError as e:
        if e.kind == "bad_argument":   # bugs.setup: the switch changes nothing here
            return None
        raise


def _from_engines(walk: _Walk, node: str, right: float, engines: dict) -> Iterable[tuple]:
    sym = walk.symbols[node]
    for name, final in engines.items():
        if not final or node not in final:
            continue
        wrong, last = final[node]
        if name == "overwrite":
            text = (f"you overwrote {sym} instead of adding to it ({_only(wrong)} the "
                    f"contribution through {walk.labels[last]})")
        elif name == "wrong_order":
            text = ("you walked the graph in forward order, so a node passed on its "
                    "adjoint before its consumers had added to it"
                    + (f" ({sym} would be {short(wrong)})" if type(wrong) is float else ""))
        else:
            text = (f"you forgot zero_grad: the previous pass's gradient is still in "
                    f"{sym}, so it is counted twice"
                    + (f" ({short(wrong)})" if type(wrong) is float else ""))
        yield name, wrong, text


def _only(x) -> str:
    """"1.5729 is only" for a scalar; "that is only" for a tensor (the page names the
    element it asked)."""
    return f"{short(x)} is only" if type(x) is float else "that is only"


def _fits(x, right) -> bool:
    """x is a number of right's shape (an array of it, or a float for a float): the slips
    are elementwise, and a broadcast or a matmul's product is not."""
    return x is not None and np.shape(x) == np.shape(right)


def _ones(x) -> bool:
    """The local derivative is 1 (everywhere, for a tensor): leaving it out changes nothing."""
    return bool(np.all(np.asarray(x) == 1.0))


def _slips(walk: _Walk, node: str, right: float) -> Iterable[tuple]:
    """The hand slips of the module docstring, edge by edge."""
    sym, into = walk.symbols[node], walk.into[node]
    for r in into:
        c, up, local, via = r["contribution"], r["upstream"], r["local"], walk.labels[r["node"]]
        if not _fits(c, right):
            continue
        if len(into) > 1:
            yield ("overwrite", c, f"you overwrote {sym} instead of adding to it ({_only(c)} "
                                   f"the contribution through {via})")
        if local is not None and not _ones(local) and _fits(up, right):
            yield ("missing_local", right - c + up,
                   f"you forgot the local derivative ({r['partial']}) of {via}")
        other = walk.all_values.get(node)
        if (walk.ops[r["node"]] == "mul" and other is not None and local is not None
                and _fits(up, right) and _fits(other, right) and not np.array_equal(other, local)):
            numbers = (f" = {short(local)}, not {walk.labels[node]} = {short(other)}"
                       if type(other) is float else f", not {walk.labels[node]}")
            yield ("other_factor", right - c + up * other,
                   f"you used the other factor's gradient: in {walk.formulas[r['node']]}, "
                   f"{sym} takes the other factor {r['partial']}{numbers}")
        yield from _transpose(walk, node, right, r)
        yield ("added_twice", right + c, f"you added the contribution through {via} twice")
    yield ("sign", -right, "you have the sign wrong")
    for r in into:
        if len(into) > 1 and _fits(r["contribution"], right):
            yield ("sign", right - 2 * r["contribution"],
                   f"you flipped the sign of the contribution through {walk.labels[r['node']]}")


def _same(a, b) -> bool:
    """close element by element (a and b of one shape): the quiz would judge a right for b."""
    if type(b) is float:
        return close(a, b)
    return all(close(x, y) for x, y in zip(np.ravel(a).tolist(), np.ravel(b).tolist()))


def _transpose(walk: _Walk, node: str, right, r: dict) -> Iterable[tuple]:
    """The matmul slip: Y = X @ W's contribution to X̄ taken as Ȳ @ W (not Ȳ @ Wᵀ), or to
    W̄ as X @ Ȳ (not Xᵀ @ Ȳ), where both factors are inlined matrices and the shapes allow."""
    if walk.ops[r["node"]] != "matmul":
        return
    x, w = (walk.all_values.get(i) for i in walk.inputs[r["node"]])
    up = r["upstream"]
    if any(np.ndim(v) != 2 for v in (x, w, up)):
        return
    if r["arg"] == 0 and np.shape(up)[1] == np.shape(w)[0]:
        slip = up @ w
    elif r["arg"] == 1 and np.shape(x)[1] == np.shape(up)[0]:
        slip = x @ up
    else:
        return
    if not _fits(slip, right):
        return
    said = f"{r['partial'].replace('ᵀ', '')} in place of {r['partial']}"
    yield ("transpose", right - r["contribution"] + slip,
           f"you left out the transpose in {walk.formulas[r['node']]}'s rule: {said}")


def _unique(right, found: Iterable[tuple]) -> list[dict]:
    """The mistakes in order, without those the quiz would judge right (at every element),
    each kind's value once; a tensor's value as nested lists."""
    out: list[tuple] = []
    for kind, value, text in found:
        if not np.all(np.isfinite(value)) or _same(value, right) or \
                any(k == kind and _same(value, v) for k, v, _ in out):
            continue
        out.append((kind, value, text))
    return [{"kind": k, "value": v if type(v) is float else np.asarray(v).tolist(), "text": t}
            for k, v, t in out]
