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
    added_twice    one contribution added twice: x̄ + c_i;
    sign           -x̄, or one contribution with its sign flipped: x̄ - 2 c_i.
  A forward value has one slip: `sign` (-v).

A value within `close` of the right answer is no mistake (it would be judged right), and a
kind gives each value once; one value may be two kinds' (the page names the first). Tensor nodes get no entries: the quiz asks about scalars.

The correct walk is the engine's own (tested against PyTorch float64); tests/engine/
test_mistakes.py checks every entry of the tanh fan-out example against PyTorch.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Iterable

from engine.errors import ProgramError
from engine.parse import Program
from engine.trace.options import Options
from engine.trace.runner import Limits, Tracer
from engine.trace.values import short

ENGINES = ("overwrite", "wrong_order", "no_zero_grad")   # the bug lab's switches asked
TWO_PASSES = {"no_zero_grad", "zero_grad"}   # the `# bugs:` switches that walk backward twice
# Which kind names a value two kinds give (ā = 1.5729 in the tanh fan-out example is both the
# contribution through d alone and the doubled gradient of no_zero_grad: overwrite is what
# a student who stopped at the first contribution did).
ORDER = ("overwrite", "missing_local", "other_factor", "wrong_order", "no_zero_grad",
         "added_twice", "sign")
RELATIVE = 1e-3   # the quiz's default tolerance (static/js/quiz.js RELATIVE)


def close(a: float, b: float, rel: float = RELATIVE) -> bool:
    """|a - b| <= rel · |b| (and equal when b is 0): the quiz's test of an answer."""
    return abs(a - b) <= rel * abs(b) if b else a == 0


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
class _Walk:
    """What the correct trace says, by node id: scalar values and final adjoints, and the
    accumulate events into each node (in walk order)."""

    def __init__(self, tracer: Tracer, records: list[dict]):
        nodes = tracer.program.nodes
        self.labels = {tracer.ids[i]: n.label for i, n in enumerate(nodes)}
        self.symbols = {tracer.ids[i]: tracer.symbols[i] for i in range(len(nodes))}
        self.ops = {tracer.ids[i]: n.op for i, n in enumerate(nodes)}
        self.formulas = {tracer.ids[i]: tracer.formulas[i] for i in range(len(nodes))}
        role = {tracer.ids[i]: n.role for i, n in enumerate(nodes)}
        self.values = {r["node"]: r["value"] for r in records if r["kind"] == "evaluate"
                       and type(r["value"]) is float and role[r["node"]] == "op"}
        self.all_values = {r["node"]: r["value"] for r in records if r["kind"] == "evaluate"}
        self.into: dict[str, list[dict]] = {}
        self.adjoints: dict[str, float] = {}
        for r in records:
            if r["kind"] == "accumulate" and type(r["adjoint_after"]) is float:
                self.into.setdefault(r["input"], []).append(r)
                self.adjoints[r["input"]] = r["adjoint_after"]


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
            if r["kind"] == "accumulate" and type(r["adjoint_after"]) is float:
                final[r["input"]] = (r["adjoint_after"], r["node"])
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
            text = (f"you overwrote {sym} instead of adding to it ({short(wrong)} is only the "
                    f"contribution through {walk.labels[last]})")
        elif name == "wrong_order":
            text = (f"you walked the graph in forward order, so a node passed on its "
                    f"adjoint before its consumers had added to it ({sym} would be "
                    f"{short(wrong)})")
        else:
            text = (f"you forgot zero_grad: the previous pass's gradient is still in "
                    f"{sym}, so it is counted twice ({short(wrong)})")
        yield name, wrong, text


def _slips(walk: _Walk, node: str, right: float) -> Iterable[tuple]:
    """The hand slips of the module docstring, edge by edge."""
    sym, into = walk.symbols[node], walk.into[node]
    for r in into:
        c, via = r["contribution"], walk.labels[r["node"]]
        if type(c) is not float:
            continue
        if len(into) > 1:
            yield ("overwrite", c, f"you overwrote {sym} instead of adding to it ({short(c)} "
                                   f"is only the contribution through {via})")
        if r["local"] != 1.0:
            yield ("missing_local", right - c + r["upstream"],
                   f"you forgot the local derivative ({r['partial']}) of {via}")
        other = walk.all_values.get(node)
        if walk.ops[r["node"]] == "mul" and type(other) is float and other != r["local"]:
            yield ("other_factor", right - c + r["upstream"] * other,
                   f"you used the other factor's gradient: in {walk.formulas[r['node']]}, "
                   f"{sym} takes the other factor {r['partial']} = {short(r['local'])}, not "
                   f"{walk.labels[node]} = {short(other)}")
        yield ("added_twice", right + c, f"you added the contribution through {via} twice")
    yield ("sign", -right, "you have the sign wrong")
    for r in into:
        if len(into) > 1 and type(r["contribution"]) is float:
            yield ("sign", right - 2 * r["contribution"],
                   f"you flipped the sign of the contribution through {walk.labels[r['node']]}")


def _unique(right: float, found: Iterable[tuple]) -> list[dict]:
    """The mistakes in order, without those the quiz would judge right, each kind's value
    once."""
    out: list[dict] = []
    for kind, value, text in found:
        if not math.isfinite(value) or close(value, right) or \
                any(m["kind"] == kind and close(value, m["value"]) for m in out):
            continue
        out.append({"kind": kind, "value": value, "text": text})
    return out
