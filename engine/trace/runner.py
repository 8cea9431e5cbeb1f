"""The tracer: parse, build the graph, run the forward values, then yield the events.

The HTTP response, the stream, the CLI and the tests all iterate `Tracer.events()`, so there is
one code path. Forward values are computed once in the constructor, so a shape error is raised
before the first event is sent.
"""
from __future__ import annotations

import contextlib
import gc
import itertools
import json
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from engine.errors import ProgramError
from engine.graph import build_graph, graph_json, node_id, topological_order
from engine.ops import get_op
from engine.ops.broadcast import unbroadcast
from engine.parse import Program, parse
from engine.source import clip
from engine.trace import budget, narrate
from engine.trace.events import (EVENTS, TRACE_VERSION, Accumulate, Done, Evaluate, Seed,
                                 Unbroadcast, _Event)
from engine.trace.forward import evaluate
from engine.trace.values import encode



@dataclass(frozen=True)
class Limits:
    """How much a trace may hold and show.

    inline: tensors with at most this many elements carry their data in events (elements).
    max_elements: the largest value any node may hold (elements).
    max_nodes: the most nodes a program may have (nodes); a 100,000-node chain fits.
    max_total_elements: the sum of all values' sizes (elements), which bounds memory.
    max_flops: the forward pass's floating-point operations (FLOPs); the backward pass costs
        about twice as much (../shared/seeds/003_70db1bc89ad395af.txt).
    max_response_bytes: the largest body a trace may make (bytes), estimated from the graph
        before anything is serialized (engine/trace/budget.py); a 100,000-node scalar chain
        makes about 70 MB.
    """

    inline: int = 64
    max_elements: int = 1_000_000
    max_nodes: int = 120_000
    max_total_elements: int = 5_000_000
    max_flops: int = 1_000_000_000
    max_response_bytes: int = 100_000_000


class Tracer:
    """One program, traced.

    text: the program, or a Program already parsed by engine.parse.parse (the server parses
    before it takes a trace slot); output: the name whose adjoint is seeded (default: the last
    assigned).
    Raises ProgramError for a bad program, an unknown output name, a shape error or a program
    beyond `limits`.
    """

    def __init__(self, text: str | Program, output: str | None = None,
                 limits: Limits = Limits()):
        self.program = text if isinstance(text, Program) else parse(text)
        self.limit = limits.inline
        if len(self.program.nodes) > limits.max_nodes:
            raise ProgramError("too_large", f"the program makes {len(self.program.nodes):,} "
                               f"nodes; the limit is {limits.max_nodes:,}")
        self.output_name = self.program.last if output is None else output
        if self.output_name not in self.program.names:
            raise ProgramError("unknown_output", f"the program has no name "
                               f"`{clip(self.output_name)}` to differentiate")
        self.output = self.program.names[self.output_name]
        self.output_label = self.program.nodes[self.output].label   # c' when c was reassigned
        self.graph = build_graph(self.program)
        self.ids = [node_id(n.index) for n in self.program.nodes]   # made once, used per event
        self.order = [self.graph.nodes[n]["index"] for n in topological_order(self.graph)]
        self.values: list = [None] * len(self.program.nodes)
        self._forward(limits)
        self.formulas = [self._formula(n) for n in self.program.nodes]
        self.symbols = [narrate.bar(n.label, self.output_label) for n in self.program.nodes]
        self.requires = [rg for _, rg in self.graph.nodes(data="requires_grad")]
        self._check_size(limits)

    def _forward(self, limits: Limits) -> None:
        """Every node's value, within the budgets of `limits` (ProgramError "too_large")."""
        elements = flops = 0
        nodes, values = self.program.nodes, self.values
        with np.errstate(all="ignore"):
            for i in self.order:
                node = nodes[i]
                values[i] = out = evaluate(node, values, limits.max_elements)
                elements += np.size(out)
                if node.role == "op":
                    flops += get_op(node.op).flops(out, *(values[k] for k in node.inputs))
                if elements > limits.max_total_elements or flops > limits.max_flops:
                    s = node.span
                    raise ProgramError(
                        "too_large", f"the program is too big to trace: by {node.label} its "
                        f"values hold {elements:,} elements and cost {flops:,} FLOPs (limits: "
                        f"{limits.max_total_elements:,} elements, {limits.max_flops:,} FLOPs)",
                        s.line, s.col, s.end_line, s.end_col)

    def _check_size(self, limits: Limits) -> None:
        """Refuse a trace whose body would pass max_response_bytes (ProgramError "too_large",
        at the node where the estimate crosses it), before any event is made."""
        costs = budget.per_node(self, limits.inline)
        total = sum(costs)
        if total <= limits.max_response_bytes:
            return
        running = 0
        for i in self.order:
            running += costs[i]
            if running > limits.max_response_bytes:
                break
        node = self.program.nodes[i]
        s = node.span
        raise ProgramError(
            "too_large", f"the trace would take about {total / 1e6:,.1f} MB; the limit "
            f"(max_response_bytes) is {limits.max_response_bytes / 1e6:,.1f} MB, passed at "
            f"{clip(node.label)}", s.line, s.col, s.end_line, s.end_col,
            hint="trace fewer nodes or smaller tensors (the setting is "
                 "GRADWALK_MAX_RESPONSE_BYTES)")

    def _formula(self, n) -> str:
        if n.role != "op":
            return narrate.leaf_formula(n.label, n.literal, n.role == "const") if n.name \
                else n.label
        labels = [self.program.nodes[i].label for i in n.inputs]
        return narrate.formula(get_op(n.op), n.label, labels, n.params, n.name is not None)

    def graph_json(self) -> dict:
        computed = {self.ids[i]: {"shape": list(np.shape(self.values[i])),
                                 "formula": self.formulas[i],
                                 "adjoint_symbol": self.symbols[i]}
                    for i in self.order}
        return graph_json(self.graph, [self.ids[i] for i in self.order], computed)

    # ---- events ------------------------------------------------------------------------------
    def events(self) -> Iterator[_Event]:
        """Forward `evaluate` events, then `seed`, `unbroadcast`/`accumulate`, then `done`."""
        seq = itertools.count()
        for i in self.order:
            yield Evaluate(seq=next(seq), node=self.ids[i], value=encode(self.values[i], self.limit))
        adjoints = yield from self._backward(seq)
        yield self._done(next(seq), adjoints)

    def _backward(self, seq) -> Iterator[_Event]:
        nodes, values = self.program.nodes, self.values
        requires = self.requires
        adjoints: list = [None] * len(nodes)
        adjoints[self.output] = np.ones_like(values[self.output], dtype=np.float64)
        yield Seed(seq=next(seq), node=self.ids[self.output],
                   adjoint=encode(adjoints[self.output], self.limit))
        for i in reversed(self.order):
            node, g = nodes[i], adjoints[i]
            if g is None or node.role != "op":
                continue
            for arg, j in enumerate(node.inputs):
                if requires[j]:
                    yield from self._edge(node, arg, j, g, adjoints, seq)
        return adjoints

    def _edge(self, node, arg: int, j: int, g, adjoints: list, seq) -> Iterator[_Event]:
        """One backward edge: vjp, unbroadcast when needed, then input-bar += contribution."""
        op, limit = get_op(node.op), self.limit
        xs = [self.values[k] for k in node.inputs]
        # errstate is entered per edge: a context held across `yield` breaks when the stream
        # resumes the generator in another thread.
        with np.errstate(all="ignore"):
            local, raw = _vjp(op, arg, g, self.values[node.index], xs, node.params)
            contrib, axes = unbroadcast(raw, np.shape(xs[arg]))
        src, dst = self.ids[j], self.ids[node.index]
        if axes:
            yield Unbroadcast(seq=next(seq), node=dst, input=src, arg=arg,
                              from_shape=list(np.shape(raw)), to_shape=list(np.shape(contrib)),
                              axes=list(axes), before=encode(raw, limit),
                              after=encode(contrib, limit))
        before = adjoints[j]
        with np.errstate(all="ignore"):
            after = contrib if before is None else before + contrib
        adjoints[j] = after
        labels = [self.program.nodes[k].label for k in node.inputs]
        partial, text = narrate.accumulate(
            self.formulas[node.index], op, arg, node.label, labels, node.params, local, g,
            contrib, before, after, axes, self.output_label,
            node.name is not None)
        yield Accumulate(seq=next(seq), node=dst, input=src, arg=arg, upstream=encode(g, limit),
                         local=None if local is None else encode(local, limit), partial=partial,
                         contribution=encode(contrib, limit),
                         adjoint_before=encode(np.zeros_like(contrib) if before is None else before, limit),
                         adjoint_after=encode(after, limit), narration=text)

    def _done(self, seq: int, adjoints: list) -> Done:
        grads = {}
        for name, i in self.program.leaves.items():
            adj = adjoints[i] if adjoints[i] is not None else np.zeros_like(self.values[i])
            grads[name] = encode(adj, None)
        output = {"name": self.output_name, "node": self.ids[self.output],
                  "value": encode(self.values[self.output], None)}
        return Done(seq=seq, output=output, grads=grads)


def _vjp(op, arg: int, g, out, xs: list, params: dict):
    """(local derivative or None, vjp result before unbroadcast) for one argument.

    Where the local derivative is elementwise (elementwise ops, scalar outputs), the vjp is that
    derivative times g, so one call gives both.
    """
    if op.elementwise or np.ndim(out) == 0:
        local = op.vjp[arg](np.ones_like(out), out, *xs, **params)
        return local, local * g
    return None, op.vjp[arg](g, out, *xs, **params)


@contextlib.contextmanager
def gc_paused():
    """Pause the cyclic garbage collector: a trace allocates millions of acyclic objects, and
    collections triggered by them cost half the run time on a 100,000-node chain.

    Nothing a trace makes sits in a reference cycle (engine/graph.py keeps the networkx graph
    out of one), so reference counting frees a trace the moment it is dropped. The collector is
    simply re-enabled: handing the trace's objects to the oldest generation uncounted (freeze,
    unfreeze) kept every cycle they had alive until the next full collection, which then never
    came, and memory grew with every trace.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def trace_json(text: str, output: str | None = None, limits: Limits = Limits()) -> bytes:
    """The body of POST /api/trace as JSON bytes: {version, graph, events, output, grads}.

    Raises ProgramError. Events are serialized in one pydantic call, not one by one. The tracer
    and its events are dropped before the collector is re-enabled, so its first pass has only
    the body to look at.
    """
    with gc_paused():
        body = _body(Tracer(text, output, limits))
    return body


def _body(tracer: Tracer) -> bytes:
    events = list(tracer.events())
    head = json.dumps({"version": TRACE_VERSION, "graph": tracer.graph_json()},
                      separators=(",", ":"), allow_nan=False)
    done = events[-1]
    tail = json.dumps({"output": done.output, "grads": done.grads}, separators=(",", ":"),
                      allow_nan=False)
    return b"".join([head[:-1].encode(), b',"events":', EVENTS.dump_json(events), b",",
                     tail[1:].encode()])


def run_trace(text: str, output: str | None = None, limits: Limits = Limits()) -> dict:
    """The body of POST /api/trace as a dict. Raises ProgramError."""
    return json.loads(trace_json(text, output, limits))
