"""The tracer: parse, build the graph, run the forward values, then yield the events.

The HTTP response, the stream and the CLI all iterate `Tracer.records()` (the events as plain
dicts, serialized with orjson); `Tracer.events()` gives the same sequence as typed models. One
code path. Forward values are computed once in the constructor, so a shape error is raised
before the first event is sent.
"""
from __future__ import annotations

import contextlib
import functools
import io
import gc
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Iterator

import numpy as np
import orjson

from engine.errors import ProgramError
from engine.graph import (build_graph, creation_order, graph_edges, graph_json, graph_nodes,
                          node_id, requires_grad, topological_order)
from engine.groups import groups
from engine.labels import ATOM, strength
from engine.ops import get_op
from engine.ops.broadcast import unbroadcast
from engine.parse import Program, parse
from engine.source import clip
from engine.syntax import MAX_DEPTH, MAX_STATEMENTS
from engine.trace import budget, ledger, narrate, nonfinite, scalar, underflow, warn
from engine.trace import cuts as cut_paths
from engine.trace.deadline import Deadline
from engine.trace import seed
from engine.trace.forward import evaluate_op
from engine.trace.options import DEFAULT, Options
from engine.trace.shapes import infer_shapes
from engine.trace.warn import Warnings
from engine.trace.values import (TRACE_VERSION, Encoder, decode_lenient, encode, non_finite,
                                 number)

if TYPE_CHECKING:   # pydantic is imported when typed events are asked for (events())
    from engine.trace.events import _Event


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
    max_statements: the most statements (lines) a program may have, checked before any node
        is made (`y = x` makes no node, so the node limit alone would not bound them).
    max_depth: how deeply an expression may nest: calls, lists, right operands (engine/parse.py);
        a left-associative chain `x + x + ... + x` stays at one level.
    timeout_seconds: the wall-clock budget of one trace from the Tracer's construction to its
        last event (seconds; None: none), checked every 1,024 nodes or edges
        (engine/trace/deadline.py); past it, ProgramError "timeout".
    """

    inline: int = 64
    max_elements: int = 1_000_000
    max_nodes: int = 120_000
    max_total_elements: int = 5_000_000
    max_flops: int = 1_000_000_000
    max_response_bytes: int = 100_000_000
    max_statements: int = MAX_STATEMENTS
    max_depth: int = MAX_DEPTH
    timeout_seconds: float | None = None


class Tracer:
    """One program, traced.

    text: the program, or a Program already parsed by engine.parse.parse (the server parses
    before it takes a trace slot); output: the name whose adjoint is seeded (default: the last
    assigned); output_grad: the output's starting adjoint (a number or nested list of the
    output's shape; None: 1, or ones for a tensor output; engine/trace/seed.py); dtype:
    "float64" or "float32" for a program given as text (None: its `# dtype:` line, else
    float64; engine/dtypes.py).
    Raises ProgramError for a bad program, an unknown output name, a shape error (found by a
    pass over the IR before any value is computed: engine/trace/shapes.py), a bad output_grad
    or a program beyond `limits`.

    The trace runs on the flat IR (a tape: nodes in creation order, which is topological):
    `records()` yields each event as a plain dict, the form the body and the stream serialize;
    `events()` is the same sequence as typed pydantic models (engine/trace/events.py). The
    networkx DAG of the program (`graph`, engine/graph.py) is built in bulk when first asked
    for; nothing in the trace walks it.
    """

    def __init__(self, text: str | Program, output: str | None = None,
                 limits: Limits = Limits(), output_grad=None, dtype: str | None = None,
                 options: Options = DEFAULT):
        self.options = options   # mode, tangents, vector, check, bugs (engine/trace/options.py)
        options_apply(options)
        self.deadline = Deadline(limits.timeout_seconds)   # from here to the last event
        self.program = text if isinstance(text, Program) else \
            parse(text, limits.max_statements, limits.max_depth, dtype=dtype,
                  max_elements=limits.max_elements, max_total_elements=limits.max_total_elements)
        if dtype is not None and dtype != self.program.dtype:
            raise ProgramError("bad_argument", f"the program was parsed as "
                               f"{self.program.dtype}, not {dtype}")
        # issue 9, second order (engine/trace/hvp.py): hvp mode traces the backward pass
        # recorded as a graph; `# hessian:` adds results. None when neither is asked.
        self.second = None
        if options.mode == "hvp" or self.program.second_order is not None:
            from engine.trace import hvp
            self.second = hvp.prepare(self.program, output, output_grad, options,
                                      limits.max_elements, limits.max_nodes, self.deadline)
            if self.second is not None:
                self.program, output, output_grad, options = self.second.traced(output_grad,
                                                                                options)
                self.options = options
        # Python floats are float64: the scalar path (engine/trace/scalar.py) is for float64
        # programs only; a float32 program's scalars stay 0-d float32 arrays.
        self.scalar_path = self.program.dtype == "float64"
        self.limit = limits.inline
        self.encode = Encoder()   # values.encode, each big tensor summarized once
        self.arrays = False   # records(arrays=True): done's full data as numpy arrays
        nodes = self.program.nodes
        if len(nodes) > limits.max_nodes:
            raise ProgramError("too_large", f"the program makes {len(nodes):,} "
                               f"nodes; the limit (max_nodes) is {limits.max_nodes:,}")
        self.output_name = self.program.last if output is None else output
        if self.output_name not in self.program.names:
            raise ProgramError("unknown_output", f"the program has no name "
                               f"`{clip(self.output_name)}` to differentiate")
        self.output = self.program.names[self.output_name]
        self.output_label = nodes[self.output].label   # c' when c was reassigned
        self.ids = [node_id(i) for i in range(len(nodes))]   # made once, used per event
        self.requires = requires_grad(self.program)
        self.order = creation_order(self.program)
        if self.order is None:   # the parser never makes this; a hand-built Program might
            self.order = [self.graph.nodes[n]["index"] for n in topological_order(self.graph)]
        # every shape first: a mismatch is refused before any value is computed
        self.shapes = infer_shapes(self.program, limits.max_elements)
        self.values: list = [None] * len(nodes)
        self._forward(limits)
        self.output_grad = seed.output_grad(output_grad, self.values[self.output],
                                            self.program, self.output)
        self.ledger = ledger.build(self.program, self.values, self.flops, self.requires,
                                   self.output)
        self.formulas = [self._formula(n) for n in nodes]
        output_label, bars = self.output_label, {}   # a label's symbol, worked out once
        self.symbols = [bars.get(n.label) or bars.setdefault(n.label, narrate.bar(n.label,
                        output_label)) for n in nodes]
        self.lab = None   # the bug lab's walk (engine/trace/bugs.py), when a switch is on
        if options.bugs or self.program.bugs or self.program.inplace:
            from engine.trace import bugs
            self.lab = bugs.setup(self, limits)
        if self.options.mode == "hvp":   # ∂s/∂a: the backward graph's own ā is a node
            self.symbols = self.second.symbols(self)
        # what the numbers are not (engine/trace/warn.py): cut paths now, kinks as found
        self.warnings = Warnings()
        for kind, message, i, span in self.program.notes:   # what the text may mislead on
            self.warnings.add(kind, message, self.ids[i], span=span)
        self.cuts = self._cuts()
        if self.options.mode == "reverse":   # a node L does not use gets no gradient: said
            from engine.trace import unused
            unused.warn_unused(self.warnings, self.program, self.output, self.ids,
                               self.formulas)
        if self.program.bugs and self.options.mode != "reverse":   # said, never dropped
            self.warnings.add("ignored", f"the `# bugs:` line (line {self.program.bugs_span.line})"
                              f" is not applied in {self.options.mode} mode: the bug lab's "
                              "switches change the reverse walk, so these numbers are the "
                              "program's own", span=self.program.bugs_span)
        if self.second is not None:   # second derivatives at a kink: said, as forward mode
            from engine.trace import hvp
            hvp.warn_kinks(self)
            if self.options.mode == "hvp" and self.second.vector is not None:
                first = next(iter(self.program.leaves), "a")
                warn.zero_direction(self.warnings, "vector", self.second.vector,
                                    f'{{"{first}": 1}}')
        if options.mode == "forward" or options.check:   # issue 9: bad tangents, or passes
            from engine.trace import forward_mode, gradcheck   # over their limits, are refused
            forward_mode.prepare(self)                         # before the first event
            gradcheck.prepare(self)
        self._check_size(limits)   # last: the estimate counts the warnings and the bug walk

    def _cuts(self):
        """The program's cut paths (engine/trace/cuts.py), warned about; None without any. In
        hvp mode they are the program's before its backward pass was recorded."""
        program, output = self.program, self.output
        if self.second is not None and self.second.origin is not None:
            program, output = self.second.origin
        found = cut_paths.find(program, output, self.requires, self.formulas)
        if found is not None:
            found.warn(self.warnings, self.ids, program.nodes[output].label)
        return found

    @functools.cached_property
    def graph(self):
        """The program as a networkx.DiGraph (engine/graph.py's schema), built on first use."""
        return build_graph(self.program, self.requires)

    def _forward(self, limits: Limits) -> None:
        """Every node's value, within the budgets of `limits` (ProgramError "too_large").

        In a float64 program, 0-d values of + - * / and negation are Python floats
        (engine/trace/scalar.py); a 0-d literal is kept as a float too. A float32 program
        never takes that path (Python floats are float64): its scalars are 0-d float32 arrays. Every other op gets its inputs as the numpy objects it
        always got (`_inputs`), so its numbers are numpy's.
        """
        elements = flops = 0
        nodes, values = self.program.nodes, self.values
        max_total, max_flops = limits.max_total_elements, limits.max_flops
        self.flops = costs = [0] * len(nodes)   # each node's forward FLOPs, for the ledger
        with np.errstate(all="ignore"):
            for i in self.deadline.paced(self.order):
                node = nodes[i]
                literal = node.literal
                if literal is not None:
                    if literal.ndim == 0 and self.scalar_path:
                        values[i] = float(literal)
                        elements += 1
                    else:
                        values[i] = literal
                        elements += literal.size
                    continue
                out = self._evaluate(node, limits.max_elements)
                if type(out) is float:
                    elements += 1
                    cost = 1   # the elementwise ops' FLOPs: one per output element
                else:
                    elements += np.size(out)
                    cost = int(get_op(node.op).flops(out, *self._inputs(node)))
                costs[i] = cost
                flops += cost
                values[i] = out
                if elements > max_total or flops > max_flops:
                    s = node.span
                    raise ProgramError(
                        "too_large", f"the program is too big to trace: by {node.label} its "
                        f"values hold {elements:,} elements and cost {flops:,} FLOPs (limits: "
                        f"max_total_elements {max_total:,}, max_flops {max_flops:,})",
                        s.line, s.col, s.end_line, s.end_col)

    def _evaluate(self, node, max_elements):
        """An op node's value from its inputs' values: a Python float on the scalar path,
        else numpy's (evaluate_op checks shapes and `max_elements`)."""
        values = self.values
        if node.op in scalar.FORWARD and self.scalar_path:
            xs = [values[k] for k in node.inputs]
            if all(type(x) is float or np.ndim(x) == 0 for x in xs):
                out = scalar.forward(node.op, [float(x) for x in xs])
                if out is not None:
                    return out
        return evaluate_op(node, self._inputs(node), max_elements)   # errstate: the caller's

    def _inputs(self, node) -> list:
        """A node's input values as the numpy path always had them: a 0-d literal as its 0-d
        array, a scalar result as a numpy float64 (numpy's `**` on a 0-d array may round
        differently from C's pow on a scalar, so the kind matters)."""
        nodes, xs = self.program.nodes, []
        for k in node.inputs:
            x = self.values[k]
            if type(x) is float:
                literal = nodes[k].literal
                x = literal if literal is not None else np.float64(x)
            xs.append(x)
        return xs

    def _check_size(self, limits: Limits) -> None:
        """Refuse a trace whose body would pass max_response_bytes (ProgramError "too_large",
        at the node where the estimate crosses it), before any event is made."""
        bound = budget.scalar_bound(self)
        if bound is not None and bound <= limits.max_response_bytes:
            return   # within the limit whatever the per-node estimate says
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
        if n.role != "op" and n.name and n.params.get("init"):   # randn(4, 5, seed=0), ...
            made = n.params["init"]
            return f"{n.label} = const({made})" if n.role == "const" else f"{n.label} = {made}"
        if n.role != "op":
            return narrate.leaf_formula(n.label, n.literal, n.role == "const") if n.name \
                else n.label
        inputs = [self.program.nodes[i] for i in n.inputs]
        return narrate.formula(get_op(n.op), n.label, [x.label for x in inputs], n.params,
                               n.name is not None, [strength(x) for x in inputs])

    def graph_json(self) -> dict:
        """{nodes, edges, blocks, groups} as docs/trace-format.md describes them, for orjson (a
        node's or group's `span` is its Span dataclass; `graph_bytes` gives the JSON)."""
        every = range(len(self.values))
        return {**graph_json(self.program, self.deadline.paced(self.order), self.ids,
                             self.requires, self.node_shapes(every), self.formulas,
                             self.symbols, self.node_ledgers()), "blocks": self.blocks_json(),
                "groups": groups(self.program)}

    def node_ledgers(self, indices: Iterable[int] | None = None) -> dict[int, dict | None]:
        """Each node's `ledger` field (docs/trace-format.md), by node index: None for leaves and
        constants. `indices`: only those nodes (a batch of the graph event: a dict per node of
        the whole graph at once was about 400 bytes a node of the trace's peak memory)."""
        led, ids, nodes = self.ledger, self.ids, self.program.nodes
        return {i: None if nodes[i].role != "op" else {
            "saves": [ids[k] for k in led.saves[i]], "saved_elements": led.saved_elements[i],
            "saved_bytes": led.saved_bytes[i], "flops_forward": led.flops_forward[i],
            "flops_backward": led.flops_backward[i],
            "activation_bytes": led.activation_bytes[i],
            "released_by": None if led.released_by[i] is None else ids[led.released_by[i]],
            "recomputed": led.recomputed[i]}
            for i in (range(len(nodes)) if indices is None else indices)}

    def node_shapes(self, indices: Iterable[int]) -> dict[int, list[int]]:
        """Each node's `shape` field by node index ([] for a scalar)."""
        values = self.values
        return {i: [] if type(values[i]) is float else list(np.shape(values[i]))
                for i in indices}

    def graph_bytes(self) -> bytes:
        """The `graph` event's data as JSON: {"version": 1, "graph": {nodes, edges}}."""
        return b"".join(self.graph_parts())

    def graph_parts(self) -> Iterator[bytes]:
        """graph_bytes in pieces, BATCH nodes at a time, so no dict per node of the whole
        graph, and no second copy of its JSON, is ever held at once."""
        order, program, ids = self.order, self.program, self.ids
        runs = [order[k:k + BATCH] for k in range(0, len(order), BATCH)]
        yield b'{"version":%d,"graph":{"nodes":[' % TRACE_VERSION
        for k, run in enumerate(self.deadline.paced(runs)):
            yield (b"," if k else b"") + orjson.dumps(graph_nodes(
                program, run, ids, self.requires, self.node_shapes(run), self.formulas,
                self.symbols, self.node_ledgers(run)))[1:-1]
        yield b'],"edges":['
        comma = b""
        for run in runs:
            edges = orjson.dumps(graph_edges(program, run, ids))[1:-1]
            if edges:   # a run of leaves has none
                yield comma + edges
                comma = b","
        yield b'],"blocks":' + orjson.dumps(self.blocks_json()) + b',"groups":' + \
            orjson.dumps(groups(self.program)) + b'},"ledger":' + \
            orjson.dumps(self.ledger.totals) + b"}"

    def blocks_json(self) -> list[dict]:
        """The graph's `blocks` (docs/trace-format.md): `with checkpoint():` and
        `with no_grad():` bodies, in the program's order."""
        blocks = sorted([*self.program.blocks, *self.program.no_grad], key=lambda b: b.first)
        return [{"kind": b.kind, "nodes": self.ids[b.first:b.end], "span": b.span}
                for b in blocks]

    # ---- events ------------------------------------------------------------------------------
    def events(self) -> Iterator[_Event]:
        """The events as typed models (engine/trace/events.py), in the order of `records`."""
        from engine.trace.events import MODELS

        for record in self.records():
            yield MODELS[record["kind"]](**record)

    def records(self, arrays: bool = False) -> Iterator[dict]:
        """Forward `evaluate` events, then `seed`, `unbroadcast`/`accumulate`, then `done`, each
        a dict with the fields of its model in the model's order (docs/trace-format.md).

        arrays: the done event's full-data tensors (the output and the leaf gradients) may be
        numpy arrays instead of nested lists (values.Encoder.full), for a caller that writes
        them with orjson.OPT_SERIALIZE_NUMPY (the body, the stream): same JSON, less time."""
        self.arrays = arrays
        if self.options.mode == "forward":   # tangents carried forward (forward_mode.py)
            from engine.trace import forward_mode
            yield from forward_mode.records(self)
            return
        if self.options.mode == "hvp":   # forward and reverse over the backward graph
            from engine.trace import hvp
            yield from hvp.records(self)
            return
        ids, values, limit = self.ids, self.values, self.limit
        seq = 0
        self.first_non_finite = None
        tiny = underflow.tiny(self.program.dtype)   # below it a number underflowed
        for i in self.deadline.paced(self.order):
            v = values[i]
            value = v if type(v) is float and v - v == 0.0 else self.encode(v, limit)
            if type(value) is not float and self.first_non_finite is None and \
                    non_finite(value):
                self.first_non_finite = {"node": ids[i], "phase": "forward",
                                         "why": self._why_forward(i)}
            elif self.first_non_finite is None and \
                    (type(value) is not float or not abs(value) >= tiny):
                underflow.note(self, i, "forward", seq)
            yield {"seq": seq, "kind": "evaluate", "node": ids[i], "value": value}
            seq += 1
        seq = itertools.count(seq)
        backward = self._backward(seq)
        if self.cuts is not None and self.cuts.program is self.program:   # say where it's cut
            backward = self.cuts.narrate(backward, self.ids)
        adjoints = yield from self._watch_adjoints(backward)
        yield self._done(next(seq), adjoints)

    def _watch_adjoints(self, records: Iterator[dict]):
        """The backward records passed through, noting in `first_non_finite` the first input
        whose adjoint stops being finite (phase "backward"); returns what `records` returns."""
        while True:
            try:
                record = next(records)
            except StopIteration as stop:
                return stop.value
            if self.first_non_finite is None and record["kind"] == "accumulate":
                after = record["adjoint_after"]
                if type(after) is not float and non_finite(after):
                    self.first_non_finite = {"node": record["input"], "phase": "backward",
                                             "why": self._why_backward(record)}
                elif type(after) is not float or \
                        not abs(after) >= underflow.tiny(self.program.dtype):
                    underflow.note(self, int(record["input"][1:]), "backward", record["seq"],
                                   record)
            yield record

    def _why_forward(self, i: int) -> str:
        node = self.program.nodes[i]
        xs = [self.values[k] for k in node.inputs]
        return nonfinite.forward(node.op, xs, self.values[i])

    def _why_backward(self, record: dict) -> str:
        node = self.program.nodes[int(record["node"][1:])]
        return nonfinite.backward(node.op, decode_lenient(record["local"]),
                                  decode_lenient(record["contribution"]),
                                  decode_lenient(record["adjoint_after"]), record.get("arg", 0),
                                  [self.values[k] for k in node.inputs])

    def _backward(self, seq) -> Iterator[dict]:
        if self.lab is not None:   # a bug switch is on: the bug lab walks (bugs.py)
            return (yield from self.lab.backward(seq))
        nodes, values, ids = self.program.nodes, self.values, self.ids
        requires = self.requires
        adjoints: list = [None] * len(nodes)
        out = values[self.output]
        adjoints[self.output] = self.output_grad if self.output_grad is not None else \
            1.0 if type(out) is float else np.ones_like(out)
        yield {"seq": next(seq), "kind": "seed", "node": ids[self.output],
               "adjoint": self.encode(adjoints[self.output], self.limit),
               "narration": seed.narration(self.output_label, self.symbols[self.output], out,
                                           self.output_grad is not None)}
        fast = scalar.FORWARD
        pending = list(self.program.blocks)   # checkpoints not yet recomputed
        for i in self.deadline.paced(reversed(self.order)):
            node, g = nodes[i], adjoints[i]
            if g is None or node.role != "op":
                continue
            if pending and requires[i]:
                yield from self._recompute(i, pending, seq)
            is_scalar = type(values[i]) is float and node.op in fast
            for arg, j in enumerate(node.inputs):
                if not requires[j]:
                    continue
                record = self._scalar_edge(node, arg, j, g, adjoints, seq) if is_scalar \
                    else None
                if record is not None:
                    yield record
                else:
                    yield from self._edge(node, arg, j, g, adjoints, seq)
        return adjoints

    def _recompute(self, i: int, pending: list, seq) -> Iterator[dict]:
        """Before the first backward step inside a checkpoint block: its forward again, one
        `recompute` event per node (torch.utils.checkpoint; the block kept only its inputs)."""
        for block in [b for b in pending if i in b]:
            pending.remove(block)
            for k in range(block.first, block.end):
                node = self.program.nodes[k]
                if node.role == "op":
                    with np.errstate(all="ignore"):
                        self.values[k] = self._evaluate(node, np.inf)
                v = self.values[k]
                yield {"seq": next(seq), "kind": "recompute", "node": self.ids[k],
                       "value": v if type(v) is float and v - v == 0.0 else
                       encode(v, self.limit),
                       "narration": f"checkpoint: recompute {self.formulas[k]} (the forward "
                                    "pass did not keep it)"}

    def _scalar_edge(self, node, arg: int, j: int, g, adjoints: list, seq) -> dict | None:
        """One backward edge of a scalar + - * / or negation on floats (engine/trace/scalar.py),
        or None when Python would raise and numpy must answer."""
        op, values = get_op(node.op), self.values
        xs = [float(values[k]) for k in node.inputs]
        local = scalar.local(op.vjp[arg], values[node.index], xs)
        if local is None:
            return None
        g = float(g)
        contrib = local * g
        if contrib - contrib != 0.0:   # inf or NaN: the numpy path applies the rule to g (_vjp)
            return None
        before = adjoints[j]
        after = contrib if before is None else float(before) + contrib
        adjoints[j] = after
        nodes = self.program.nodes
        partial = narrate.fill(op.partials[arg], [_wrapped(nodes[k]) for k in node.inputs],
                               node.params, out=_wrapped(node))
        text = narrate.scalar_edge(self.formulas[node.index],
                                   ", so" if node.name is not None else ":", self.symbols[j],
                                   self.symbols[node.index], partial, local, g, contrib,
                                   before, after)
        return {"seq": next(seq), "kind": "accumulate", "node": self.ids[node.index],
                "input": self.ids[j], "arg": arg, "upstream": _number(g),
                "local": _number(local), "partial": partial, "contribution": _number(contrib),
                "adjoint_before": 0.0 if before is None else _number(before),
                "adjoint_after": _number(after), "narration": text}

    def _edge(self, node, arg: int, j: int, g, adjoints: list, seq) -> Iterator[dict]:
        """One backward edge: vjp, unbroadcast when needed, then input-bar += contribution."""
        op, limit, encode = get_op(node.op), self.limit, self.encode
        xs = self._inputs(node)
        out = self.values[node.index]
        if type(out) is float:
            out = np.float64(out)
        # errstate is entered per edge: a context held across `yield` breaks when the stream
        # resumes the generator in another thread.
        with np.errstate(all="ignore"):
            local, raw = _vjp(op, arg, g, out, xs, node.params)
            contrib, axes = unbroadcast(raw, np.shape(xs[arg]))
        src, dst = self.ids[j], self.ids[node.index]
        if axes:
            yield {"seq": next(seq), "kind": "unbroadcast", "node": dst, "input": src,
                   "arg": arg, "from_shape": list(np.shape(raw)),
                   "to_shape": list(np.shape(contrib)), "axes": list(axes),
                   "before": encode(raw, limit), "after": encode(contrib, limit)}
        before = adjoints[j]
        with np.errstate(all="ignore"):
            after = contrib if before is None else before + contrib
        adjoints[j] = after
        labels = [self.program.nodes[k].label for k in node.inputs]
        partial, text = narrate.accumulate(
            self.formulas[node.index], op, arg, node.label, labels, node.params, local, g,
            contrib, before, after, axes, self.output_label,
            node.name is not None, (np.shape(out), [np.shape(x) for x in xs]),
            (self.symbols[j], self.symbols[node.index]))
        yield {"seq": next(seq), "kind": "accumulate", "node": dst, "input": src, "arg": arg,
               "upstream": encode(g, limit),
               "local": None if local is None else encode(local, limit), "partial": partial,
               "contribution": encode(contrib, limit),
               "adjoint_before": encode.zeros(contrib, limit) if before is None else
               encode(before, limit),
               "adjoint_after": encode(after, limit), "narration": text}

    def full(self, value):
        """A done-event tensor with all its data (records' `arrays`: an array when finite)."""
        if self.arrays:
            return self.encode.full(value, self.limit)
        return self.encode(value, None)

    def _done(self, seq: int, adjoints: list) -> dict:
        grads = {}
        for name, i in self.program.leaves.items():
            adj = adjoints[i] if adjoints[i] is not None else np.zeros_like(self.values[i])
            grads[name] = self.full(adj)
        output = {"name": self.output_name, "node": self.ids[self.output],
                  "value": self.full(self.values[self.output])}
        done = {"seq": seq, "kind": "done", "output": output, "grads": grads,
                "first_non_finite": self.first_non_finite}
        if self.options.check:   # central differences against these adjoints (gradcheck.py)
            from engine.trace import gradcheck
            done["gradcheck"] = gradcheck.check(self, adjoints)
        if self.lab is not None:   # the bug lab's switches (engine/trace/bugs.py)
            done["bugs"] = list(self.lab.on)
        if self.second is not None:   # hvp, hessian, eigen (engine/trace/hvp.py)
            from engine.trace import hvp
            done.update(hvp.results(self, adjoints))
        if self.warnings:   # engine/trace/warn.py: said by the done event's narration too
            done["warnings"] = self.warnings.listed()
            done["narration"] = warn.narration(done["warnings"])
        return done


def _finite(x) -> bool:
    """Whether every element of a vjp's result is finite (a 0-d one without a ufunc call)."""
    if type(x) is np.float64:
        return x - x == 0.0
    return bool(np.isfinite(x).all())


def options_apply(options: Options) -> None:
    """Refuse a request field its mode does not use (a field silently ignored would hide a
    mistake): `tangents` outside forward mode, `vector` outside hvp mode, `eps` without
    `check`. Raises ProgramError("bad_argument") naming the field."""
    unused = [(options.tangents is not None and options.mode != "forward",
               "tangents", "forward mode (mode: \"forward\")"),
              (options.vector is not None and options.mode != "hvp",
               "vector", "Hessian-vector products (mode: \"hvp\")"),
              (options.eps is not None and not options.check,
               "eps", "the gradient check (check: true)")]
    for wrong, field, where in unused:
        if wrong:
            raise ProgramError("bad_argument", f"`{field}` applies to {where} only; this "
                               f"request is in {options.mode} mode" +
                               (" without the check" if field == "eps" else ""),
                               hint=f"remove `{field}`, or ask for {where}")


def _wrapped(node) -> str:
    """narrate.wrap of a node's label, from the IR (labels.strength) rather than by reading the
    label's text back: a label in the rule's math, parenthesized unless it is an atom."""
    return node.label if strength(node) == ATOM else f"({node.label})"


def _number(x):
    """A scalar as JSON: the float itself when finite (the common case, without a call)."""
    return x if type(x) is float and x - x == 0.0 else number(x)


def _vjp(op, arg: int, g, out, xs: list, params: dict):
    """(local derivative or None, vjp result before unbroadcast) for one argument.

    Where the local derivative is elementwise (elementwise ops, scalar outputs), the vjp is that
    derivative times g, so one call gives both. Where that product is not finite the rule is
    applied to g itself: a rule that selects (relu passes an infinite g as 0 where x <= 0,
    pow's 0 where y = 0) would otherwise give 0 * inf = NaN (issue 7, section 2).
    """
    if op.elementwise or np.ndim(out) == 0:
        local = op.vjp[arg](np.ones_like(out), out, *xs, **params)
        contrib = local * g
        if not _finite(contrib):
            contrib = op.vjp[arg](g, out, *xs, **params)
        return local, contrib
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


def trace_json(text: str | Program, output: str | None = None,
               limits: Limits = Limits(), output_grad=None, dtype: str | None = None,
               options: Options = DEFAULT) -> bytes:
    """The body of POST /api/trace as JSON bytes: {version, graph, events, output, grads}.
    output_grad, dtype, options: as Tracer's.

    Raises ProgramError. Events are serialized straight from their records with orjson, a
    batch at a time (no model per event, no list of every record). The tracer is dropped
    before the collector is re-enabled, so its first pass has only the body to look at.
    """
    with gc_paused():
        body = _body(Tracer(text, output, limits, output_grad, dtype, options))
    return body


BATCH = 512   # records serialized per orjson call: few calls, and a bounded list of dicts


def _body(tracer: Tracer) -> bytes:
    """The body, written piece by piece into one growing buffer whose bytes are handed out
    without a copy (BytesIO.getvalue), so the peak is about one body, not two."""
    out = io.BytesIO()
    for piece in tracer.graph_parts():
        out.write(piece)
    out.seek(out.tell() - 1)   # drop the graph event's closing brace: the events follow
    out.truncate()
    out.write(b',"events":[')
    batch: list[dict] = []
    for record in tracer.records(arrays=True):   # written with OPT_SERIALIZE_NUMPY below
        if record["kind"] == "done":
            break
        batch.append(record)
        if len(batch) == BATCH:
            out.write(orjson.dumps(batch)[1:-1])
            out.write(b",")
            batch.clear()
    if batch:
        out.write(orjson.dumps(batch)[1:-1])
        out.write(b",")
    # The done event's results are the body's top-level fields, written once (issue 6): the
    # stream's done event carries them itself (docs/trace-format.md).
    # Its narration (when the trace has warnings: engine/trace/warn.py) stays on it.
    out.write(orjson.dumps({k: record[k] for k in ("seq", "kind", "narration")
                            if k in record}) + b"],")
    # Every result of the done event (output, grads, first_non_finite, and a mode's or the
    # gradient check's: jvp, gradcheck, warnings, ...) becomes a top-level field.
    out.write(orjson.dumps({k: v for k, v in record.items()
                            if k not in ("seq", "kind", "narration")},
                           option=orjson.OPT_SERIALIZE_NUMPY)[1:])
    return out.getvalue()


def run_trace(text: str, output: str | None = None, limits: Limits = Limits(),
              output_grad=None, dtype: str | None = None, options: Options = DEFAULT) -> dict:
    """The body of POST /api/trace as a dict. Raises ProgramError."""
    return orjson.loads(trace_json(text, output, limits, output_grad, dtype, options))


def body_events(body: dict) -> list[dict]:
    """The events of a POST /api/trace body with the results put back on its `done` event, as
    the stream sends it (the body writes them once, at its top level: docs/trace-format.md)."""
    *events, done = body["events"]
    results = {k: v for k, v in body.items() if k not in ("version", "graph", "ledger", "events")}
    return [*events, {**done, **results}]
