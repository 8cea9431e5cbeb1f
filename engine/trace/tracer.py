"""The tracer: a program compiled once (parse, then engine/tape.py's `compile`: order, shapes,
op rows; the tape's first pass for the forward values; then formulas, adjoint symbols,
ledger), then walked by a mode (engine/trace/mode.py, listed in modes.py).

The HTTP response, the stream and the CLI all iterate `Tracer.records()` (the events as plain
dicts, serialized with orjson: engine/trace/runner.py); `Tracer.events()` gives the same
sequence as typed models. Forward values are computed once in the constructor, so a shape
error is raised before the first event is sent.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Iterator

import numpy as np

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.graph import build_graph, node_ids
from gradwalk.engine.parse import Program, parse
from gradwalk.engine.source import clip
from gradwalk.engine.tape import compile as compile_tape
from gradwalk.engine.tape_first import Checks, numpy_inputs
from gradwalk.engine.trace import (budget, graph_out, ledger, nonfinite, reverse, scalar, seed,
                          warn)
from gradwalk.engine.trace import budget_early
from gradwalk.engine.trace import cuts as cut_paths
from gradwalk.engine.trace.deadline import Deadline
from gradwalk.engine.trace.forward import evaluate_op
from gradwalk.engine.trace.limits import Limits, two_sizes
from gradwalk.engine.trace.modes import MODES
from gradwalk.engine.trace.node_texts import node_texts
from gradwalk.engine.trace.options import DEFAULT, Options
from gradwalk.engine.trace.values import Encoder
from gradwalk.engine.trace.warn import Warnings

if TYPE_CHECKING:   # pydantic is imported when typed events are asked for (events())
    from gradwalk.engine.trace.events import _Event


def _early(limits: Limits, options: Options, output: str | None):
    """The parse's early check (engine/trace/budget_early.py) where its lower bound holds: the
    reverse walk of the last statement, no bug lab; else None."""
    if options.mode != "reverse" or options.bugs or output is not None:
        return None
    limit = limits.max_response_bytes
    return lambda tree, lines: budget_early.check(tree, limit, lines)


class Tracer:
    """One program, traced.

    text: the program, or a Program already parsed by engine.parse.parse (the server parses
    before it takes a trace slot); output: the name whose adjoint is seeded (default: the last
    assigned); output_grad: the output's starting adjoint (a number or nested list of the
    output's shape; None: 1, or ones for a tensor output; engine/trace/seed.py); dtype:
    "float64" or "float32" for a program given as text (None: its `# dtype:` line, else
    float64; engine/dtypes.py); options: the mode and its inputs (engine/trace/options.py).
    Raises ProgramError for a bad program, an unknown output name, a shape error (found by a
    pass over the IR before any value is computed: engine/trace/shape_pass.py), a bad
    output_grad, a mode's refusal or a program beyond `limits`, a body past
    max_response_bytes among them (checked here, a light bound first: a body that fits by it
    costs no estimate; a refusal always comes before the graph event).

    The trace runs on the program's tape (`tape`, engine/tape.py: nodes in creation order,
    which is topological; the values are its first, checked pass, engine/tape_first.py):
    `records()` yields each event as a plain dict, the form the body and the stream serialize;
    `events()` is the same sequence as typed pydantic models (engine/trace/events.py). The
    networkx DAG of the program (`graph`, engine/graph.py) is built in bulk when first asked
    for; nothing in the trace walks it.
    """

    def __init__(self, text: str | Program, output: str | None = None,
                 limits: Limits = Limits(), output_grad=None, dtype: str | None = None,
                 options: Options = DEFAULT):
        options_apply(options)
        self.deadline = Deadline(limits.timeout_seconds)   # from here to the last event
        self.program = text if isinstance(text, Program) else \
            parse(text, limits.max_statements, limits.max_depth, dtype=dtype,
                  max_elements=limits.max_elements, max_total_elements=limits.max_total_elements,
                  max_nodes=limits.max_nodes, early=_early(limits, options, output))
        if dtype is not None and dtype != self.program.dtype:
            raise ProgramError("bad_argument", f"the program was parsed as "
                               f"{self.program.dtype}, not {dtype}")
        self.first_non_finite = None   # the walk's first NaN or infinity (set as it goes)
        self.states: dict[str, object] = {}   # each active mode's state, by name
        for mode in MODES:   # a mode may trace another program (hvp: the backward graph)
            planned = mode.plan and mode.plan(self.program, output, output_grad, options,
                                              limits, self.deadline)
            if planned:
                self.states[mode.name], self.program, output, output_grad, options = planned
        self.options = options   # mode, tangents, vector, check, bugs
        self._compile(output, output_grad, limits)
        # what the numbers are not (engine/trace/warn.py): cut paths now, kinks as found
        self.warnings = Warnings()
        for kind, message, i, span in self.program.notes:   # what the text may mislead on
            self.warnings.add(kind, message, self.ids[i], span=span)
        self.cuts = self._cuts()
        for mode in MODES:   # each refuses what it cannot do before the first event
            if mode.name in self.states or (mode.plan is None and mode.wanted and
                                            mode.wanted(self.options, self.program)):
                state = self.states.get(mode.name, True)
                state = mode.prepare(self, limits, state) if mode.prepare else state
                if state is None:
                    self.states.pop(mode.name, None)
                else:
                    self.states[mode.name] = state
        # last: the estimate counts the warnings and the bug walk. A body that fits by far
        # (budget_scalar.light_bound, a few passes over per-node lists) costs no estimate at
        # all; one that may not fit is estimated here, before the graph event, whatever the
        # caller: a refusal after the graph would come after the page had read and laid out
        # megabytes of it (a 100,004-node zip loop was refused 16-23 s after Trace, after
        # "Laying out 100,004 nodes")
        self._size_limits = limits
        self._check_size()

    # ---- compiling -----------------------------------------------------------------------
    def _compile(self, output: str | None, output_grad, limits: Limits) -> None:
        """The program's tape (engine/tape.py: order, shapes, rows, `requires`), its first
        pass's values and FLOPs, the output's seed, ledger, formulas and symbols."""
        self.limit = limits.inline
        self.encode = Encoder()   # values.encode, each big tensor summarized once
        self.arrays = False   # records(arrays=True): done's full data as numpy arrays
        nodes = self.program.nodes
        if len(nodes) > limits.max_nodes:
            raise ProgramError("too_large", f"the program makes {len(nodes):,} "
                               f"nodes; the limit (max_nodes) is {limits.max_nodes:,}")
        # every shape first: a mismatch is refused before any value is computed
        self.tape = tape = compile_tape(self.program, output, limits.max_elements)
        self.output_name = self.program.last if output is None else output
        self.output = tape.output
        self.output_label = nodes[self.output].label   # c' when c was reassigned
        self.ids = node_ids(len(nodes))   # graph.node_id's f"n{i}", used per event
        # the ids are `n` and their index: the size bounds work their bytes out from the
        # index (budget_graded.indexed_ids) instead of measuring each
        self.ids_indexed = True
        self.requires, self.order = tape.requires, tape.order
        # the first pass: the walk's values (no saved tensors: the walk has its own backward)
        self.values = tape.forward(checks=Checks(limits.max_total_elements, limits.max_flops,
                                                 self.deadline, saves=False))
        self.shapes, self.flops = tape.shapes, tape.flops
        self.output_grad = seed.output_grad(output_grad, self.values[self.output],
                                            self.program, self.output)
        self.ledger = ledger.build(self.program, self.values, self.flops, self.requires,
                                   self.output)
        self.formulas, self.symbols, self.strengths = node_texts(self.program,
                                                                 self.output_label)

    def evaluate(self, node, max_elements):
        """An op node's value from its inputs' values: a Python float on the scalar path,
        else numpy's (evaluate_op checks shapes and `max_elements`)."""
        values = self.values
        if node.op in scalar.FORWARD and self.tape.scalar:
            xs = [values[k] for k in node.inputs]
            if all(type(x) is float or np.ndim(x) == 0 for x in xs):
                out = scalar.forward(node.op, [float(x) for x in xs])
                if out is not None:
                    return out
        return evaluate_op(node, self.inputs(node), max_elements)   # errstate: the caller's

    def inputs(self, node) -> list:
        """A node's input values as the numpy path always had them (engine/tape_first.py's
        numpy_inputs: a 0-d literal as a 0-d array, a scalar result as a numpy float64)."""
        return numpy_inputs(self.program.nodes, self.values, node)

    _inputs = inputs   # the name tests and older callers use

    def _fits(self, passes) -> bool:
        """Whether the light bound (engine/trace/budget_scalar.py light_bound) shows the body
        within max_response_bytes; then the size is checked, with no estimate made."""
        limit = self._size_limits.max_response_bytes
        light = budget.light_bound(self, limit, passes)   # past the limit: not worked out whole
        if light is not None and light <= limit:
            self._size_limits = None
            return True
        return False

    def _check_size(self) -> None:
        """Refuse a trace whose body would pass max_response_bytes (ProgramError "too_large",
        at the node where the estimate crosses it), before any stepper event is made; once.
        The bounds first, cheapest first: the estimate only when they pass the limit."""
        limits = self._size_limits
        if limits is None:   # checked already
            return
        passes = budget.passes(self)   # the lists the bounds read, made once
        if self._fits(passes):   # fits by far
            return
        self._size_limits = None
        # closer, then closer still (a scalar program's: budget_graded.py, budget_scalar.py;
        # scalar_bound's is per_node's with no number worked out for any other)
        for bound in (budget.graded_bound, budget.scalar_bound):
            figure = bound(self, passes)
            if figure is not None and figure <= limits.max_response_bytes:
                return   # within the limit whatever the per-node estimate says
        del passes
        costs = budget.per_node(self, limits.inline)
        total = sum(costs)
        if total <= limits.max_response_bytes:
            return
        running = 0
        for at, i in enumerate(self.order):
            running += costs[i]
            if running > limits.max_response_bytes:
                break
        node = self._named_at(at)
        s = node.span
        estimate, limit = two_sizes(total, limits.max_response_bytes)
        raise ProgramError(
            "too_large", f"the trace would take about {estimate}; the limit "
            f"(max_response_bytes) is {limit}, passed at "
            f"{clip(node.label)}", s.line, s.col, s.end_line, s.end_col,
            hint="trace fewer nodes or smaller tensors; the setting is "
                 "GRADWALK_MAX_RESPONSE_BYTES")

    def _named_at(self, at: int):
        """The node at position `at` of the order, or, when it is a constant, the first node
        after it that is not: "passed at 1.0001" named a number, not the operation where the
        trace passed its limit (review of 454e759)."""
        nodes = self.program.nodes
        for i in self.order[at:]:
            if nodes[i].role != "const":
                return nodes[i]
        return nodes[self.order[at]]

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

    # ---- what modes share (engine/trace/mode.py's Compiled) -------------------------------
    def state(self, name: str):
        """Mode `name`'s state (None when the mode is not part of this trace)."""
        return self.states.get(name)

    @property
    def second(self):
        """hvp's plan (engine/trace/hvp.py) when second derivatives are asked for, else None."""
        return self.states.get("hvp")

    @property
    def lab(self):
        """The bug lab's walk (engine/trace/bugs.py) when a switch is on, else None."""
        return self.states.get("bugs")

    def why_forward(self, i: int) -> str:
        node = self.program.nodes[i]
        return nonfinite.forward(node.op, [self.values[k] for k in node.inputs], self.values[i])

    # backward, watch_adjoints and records hand out their walk's generator itself, not one of
    # their own around it: each `yield from` level costs every record of the trace (issue 15 §1)
    def backward(self, seq, watch: bool = False) -> Iterator[dict]:
        """The backward pass (the reverse walk's, or an active mode's own: the bug lab's): its
        records, returning every node's adjoint. watch: the reverse walk's records may come
        watched already (reverse.backward); watch_adjoints must follow either way."""
        for mode in MODES:
            if mode.backward is not None and mode.name in self.states:
                return mode.backward(self, self.states[mode.name], seq)
        return reverse.backward(self, seq, watch)

    def watch_adjoints(self, records: Iterator[dict]):
        """engine/trace/reverse.py's watch_adjoints: first non-finite and underflowed adjoints."""
        return reverse.watch_adjoints(self, records)

    def full(self, value):
        """A done-event tensor with all its data (records' `arrays`: an array when finite)."""
        if self.arrays:
            return self.encode.full(value, self.limit)
        return self.encode(value, None)

    def result(self, value):
        """A leaf gradient of the done event: with all its data for the body and the stream
        (records' `arrays`), else over the inline limit as its summary, as node values travel
        in the events (issue 15 §1: a Python float per element of a million-element gradient
        cost more than numpy's whole forward and backward)."""
        if self.arrays:
            return self.encode.full(value, self.limit)
        return self.encode(value, self.limit)

    def done(self, seq: int, adjoints: list) -> dict:
        """The `done` event: output, grads, first_non_finite, each active mode's fields, and
        the warnings with their narration."""
        grads = {}
        for name, i in self.program.leaves.items():
            adj = adjoints[i] if adjoints[i] is not None else np.zeros_like(self.values[i])
            grads[name] = self.result(adj)
        output = {"name": self.output_name, "node": self.ids[self.output],
                  "value": self.full(self.values[self.output])}
        record = {"seq": seq, "kind": "done", "output": output, "grads": grads,
                  "first_non_finite": self.first_non_finite}
        for mode in MODES:
            if mode.done is not None and mode.name in self.states:
                record.update(mode.done(self, self.states[mode.name], adjoints))
        if self.warnings:   # engine/trace/warn.py: said by the done event's narration too
            record["warnings"] = self.warnings.listed()
            record["narration"] = warn.narration(record["warnings"])
        return record

    # ---- output ----------------------------------------------------------------------------
    @functools.cached_property
    def graph(self):
        """The program as a networkx.DiGraph (engine/graph.py's schema), built on first use."""
        return build_graph(self.program, self.requires)

    def graph_json(self) -> dict:
        """{nodes, edges, blocks, groups} (engine/trace/graph_out.py)."""
        return graph_out.graph_json(self)

    def graph_parts(self) -> Iterator[bytes]:
        """The `graph` event's data as JSON in pieces (engine/trace/graph_out.py)."""
        return graph_out.graph_parts(self)

    def graph_bytes(self) -> bytes:
        """The `graph` event's data as JSON: {"version": 1, "graph": {nodes, edges}}."""
        return b"".join(self.graph_parts())

    def events(self) -> Iterator[_Event]:
        """The events as typed models (engine/trace/events.py), in the order of `records`."""
        from gradwalk.engine.trace.events import MODELS

        for record in self.records():
            yield MODELS[record["kind"]](**record)

    def records(self, arrays: bool = False) -> Iterator[dict]:
        """The events of the request's mode, `done` last, each a dict with the fields of its
        model in the model's order (docs/trace-format.md).

        arrays: the done event's full-data tensors (the output and the leaf gradients) are
        numpy arrays instead of nested lists (values.Encoder.full), for a caller that writes
        them with orjson.OPT_SERIALIZE_NUMPY (the body, the stream): same JSON, less time.
        Without it a leaf gradient over the inline limit is its summary (`data` null), as
        node values are in the events; the body and the stream always carry full data."""
        self.arrays = arrays
        walk = next(m.walk for m in MODES if m.name == self.options.mode and m.walk)
        return walk(self)


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
