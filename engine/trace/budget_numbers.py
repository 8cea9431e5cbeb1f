"""The numbers a trace's events will carry, counted before any event is made, for the body's size
estimate (engine/trace/budget.py).

An unknown number may take 24 characters ("-1.2345678901234567e-300"), a zero takes 3 or 4
("0.0", "-0.0"): counting every unknown number at its longest put the estimate up to 4.6 times
the body where most numbers are 0 (forward mode's one-hot tangent, a sparse H v; issue 14 §6).
So where the numbers are cheap next to the events, they are worked out first:

- tangents (forward mode, and hvp mode's forward over reverse) by the same function the walk
  uses (forward_mode.carry), so their printed lengths are counted exactly;
- in hvp mode, the reverse walk's adjoints over the backward graph (the vjp rows and
  unbroadcast, as the walk applies them, without events or narration), counted as a bound: a
  number that is not 0 at its longest, a 0 as "-0.0" (the walk's scalar path may round a
  non-zero number differently, never a 0 into a non-zero one: products and sums of the same
  exact zeros).

- in reverse mode, the same adjoints for a program with small tensors (SMALL); a scalar
  program's, or a big one's, stay unknown (working them out would double the backward pass's
  numpy work for a few per cent of the estimate).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import orjson


ELEMENT = 25   # a float64 at its longest (24 characters) and its comma
SCALAR = 24
TENSOR = len('{"shape":[],"dtype":"float64","summary":{"min":,"max":,"mean":,"norm":},'
             '"data":}') + 4 * SCALAR
NON_FINITE = 11   # '"-Infinity"', the longest of "NaN", "Infinity", "-Infinity" as JSON strings


def scalar_bytes(x) -> int:
    """A known scalar as JSON (values.number): orjson's shortest form, or its string."""
    x = float(x)
    return len(orjson.dumps(x)) if x - x == 0.0 else NON_FINITE


def data_bytes(value) -> int:
    """The `data` of a known tensor as JSON, exactly: orjson writes the nested list of its
    float64 numbers (values.encode) as it writes the array; a non-finite element is a string."""
    a = np.ascontiguousarray(value, dtype=np.float64)
    finite = np.isfinite(a)
    if finite.all():
        return len(orjson.dumps(a, option=orjson.OPT_SERIALIZE_NUMPY))
    bad = int(a.size - np.count_nonzero(finite))
    return len(orjson.dumps(np.where(finite, a, 0.0), option=orjson.OPT_SERIALIZE_NUMPY)) + \
        (NON_FINITE - 3) * bad


def value_bytes(shape: tuple, inline: int | None) -> int:
    """An encoded value (engine.trace.values.encode) of this shape, its numbers unknown: each
    at its longest."""
    if not shape:
        return SCALAR
    size = int(np.prod(shape))
    rows = size // shape[-1] if shape[-1] else 0   # each row's brackets, and the outer ones
    data = size * ELEMENT + 2 * (rows + len(shape)) if inline is None or size <= inline else 4
    return TENSOR + 8 * len(shape) + data


# Bytes of JSON. A float64 is at most 24 characters ("-1.2345678901234567e-300"), plus a comma.
# Each record's fixed part is its skeleton: field names and punctuation with every value empty
# (the values are counted apart, from the texts and numbers that fill them).
NODE = len('{"id":"","index":,"name":null,"label":"","op":"","role":"","inputs":[],"params":,'
           '"requires_grad":false,"span":{"line":,"col":,"end_line":,"end_col":},"shape":[],'
           '"formula":"","adjoint_symbol":"","ledger":null},') + 16   # op and role words
LEDGER = len('{"saves":[],"saved_elements":,"saved_bytes":,"flops_forward":,"flops_backward":,'
             '"activation_bytes":,"released_by":null,"recomputed":false}') - len("null")
# (EDGE_SKELETON and ACCUMULATE_SKELETON alone: engine/trace/budget_early.py's lower bound)
EDGE_SKELETON = len('{"id":"->#","source":"","target":"","arg":},')
EDGE = EDGE_SKELETON + 2   # the arg's digits
EVALUATE = len('{"seq":,"kind":"evaluate","node":"","value":},')
RECOMPUTE = len('{"seq":,"kind":"recompute","node":"","value":,"narration":"checkpoint: '
                'recompute  (the forward pass did not keep it)"},')
TANGENT = len('{"seq":,"kind":"tangent","node":"","value":,"tangent":,"rule":"",'
              '"narration":""},') + 100   # the rule's and narration's own words
ACCUMULATE_SKELETON = len('{"seq":,"kind":"accumulate","node":"","input":"","arg":,"upstream":,'
                          '"local":,"partial":"","contribution":,"adjoint_before":,'
                          '"adjoint_after":,"narration":""},')
ACCUMULATE = ACCUMULATE_SKELETON + 2 + 80   # the arg's digits, the narration's words
# (the words hold an underflowed step's note, underflow.NOTE: the 5,000-line chain whose steps
# underflow stays under the estimate, tests/engine/test_numbers_seen.py)
UNBROADCAST = len('{"seq":,"kind":"unbroadcast","node":"","input":"","arg":,"from_shape":[],'
                  '"to_shape":[],"axes":[],"before":,"after":},') + 40
SHOW_ELEMENTS = 6  # tensors up to this size have their numbers narrated (narrate.py)
NUMBERS = 12       # a number as narration writes it (4 significant digits: "-1.235e-300")
ZERO = 4           # 0.0 and a comma: the adjoint before a node's first contribution
RESULTS = 120      # the results' field names: output, grads, first_non_finite, a mode's
SEED = 200         # the backward pass's first event, `seed`, and the `done` event
CHECK = 200        # a gradient-check entry's field names and errors, per leaf
FIRST = 200        # first_non_finite when the walk meets a NaN, an infinity or an underflow
UNDERFLOW = 420    # an underflow's warning, its words in the narration (and its label's bytes)


def unknown_bytes(shape: tuple, inline: int) -> int:
    """A value not computed yet (an adjoint, a tangent, a partial) of this shape: every
    number at its longest."""
    return value_bytes(shape, inline)


def ascii_bytes(text: str) -> int:
    """A string in the graph's JSON, which escapes non-ASCII characters as \\uXXXX."""
    return len(text) if text.isascii() else len(text.encode("ascii", "backslashreplace"))


def elements(shape: tuple) -> int:
    return int(np.prod(shape)) if shape else 1



def zeros_bytes(shape: tuple, inline: int | None) -> int:
    """An adjoint before its first contribution, zeros of this shape (values.Encoder.zeros):
    each 0.0 and its comma."""
    if not shape:
        return ZERO
    size = elements(shape)
    if inline is not None and size > inline:
        return value_bytes(shape, inline)
    rows = size // shape[-1] if shape[-1] else 0
    return value_bytes(shape, 0) - 4 + size * ZERO + 2 * (rows + len(shape))


# ---- tangents and adjoints, computed first -------------------------------------------------------
class Numbers:
    """What the estimate knows of a trace's numbers before its events.

    tangents: each node's tangent (None: zero) in forward and hvp mode, else None;
    edges: {(node, arg): bytes of the numbers of that edge's accumulate event (upstream, local,
    contribution, adjoint before and after) and unbroadcast event} in hvp mode, else None;
    adjoints: each node's final adjoint in hvp mode (the leaves' are H v), and where reverse
    mode's are worked out (SMALL; forward mode's `grads` are reverse mode's), else None;
    walked: a bug lab's backward events' bytes per node (its seeds at the output), for a
    program with small tensors (SMALL), else None;
    marked: whether the walk may mark a first non-finite number or an underflow (True when
    its numbers are not all known: the walk's markers, engine/trace/underflow.py, look at
    them)."""

    @classmethod
    def unknown(cls) -> "Numbers":
        """Nothing worked out: every number at its longest, room for a marker."""
        numbers = cls.__new__(cls)
        numbers.tangents = numbers.edges = numbers.adjoints = numbers.walked = None
        numbers.marked = True
        return numbers

    def __init__(self, tracer, inline: int):
        self.tangents = self.edges = self.adjoints = self.walked = None
        self.marked = True
        mode = tracer.options.mode
        lab = getattr(tracer, "lab", None)
        if mode == "reverse" and _small(tracer):
            if lab is None:
                self.adjoints, self.edges, self.marked = _adjoints(tracer, inline)
            else:
                self.walked = _walked(tracer)
        if mode not in ("forward", "hvp"):
            self.marked = self.marked or _values_marked(tracer, underflow=True)
            return
        from gradwalk.engine.trace import forward_mode   # forward_mode imports what imports this
        if mode == "forward":
            given, _ = forward_mode.seeds(tracer)
        else:
            program = tracer.program
            given = {program.leaves[n]: v for n, v in tracer.second.vector.items()}
        self.tangents = forward_mode.carry(tracer, given)
        # a value or a tangent is marked when not finite (forward_mode._watch, hvp._watch)
        self.marked = any(map(_non_finite, self.tangents)) or \
            _values_marked(tracer, underflow=False)
        if mode == "hvp":   # and an adjoint of its reverse walk as in reverse mode
            self.adjoints, self.edges, marked = _adjoints(tracer, inline)
            self.marked = self.marked or marked
        elif _small(tracer):   # forward mode's `grads`: its reverse walk's, without events
            self.adjoints, _, _ = _adjoints(tracer, inline)


TINY = 1e-150
"""A product of numbers of at least this size (or 0) is never below float64's smallest normal
number, 2.2e-308: a walk whose every number is 0 or at least TINY in size and finite marks no
underflow (underflow.py: a subnormal number, or a product of non-zero numbers that is 0)."""


def _risky(x) -> bool:
    """Whether x (a number, an array or None) is not finite or has a non-zero element below
    TINY in size."""
    if x is None:
        return False
    if type(x) is float:
        return not (x == 0.0 or TINY <= abs(x) < math.inf)
    with np.errstate(all="ignore"):
        a = np.abs(np.asarray(x, dtype=np.float64))
        return not np.isfinite(a).all() or bool(np.any((a < TINY) & (a != 0)))


def _non_finite(x) -> bool:
    if x is None:
        return False
    return not math.isfinite(x) if type(x) is float else not np.isfinite(x).all()


def _values_marked(tracer, underflow: bool) -> bool:
    """Whether the walk marks a forward value: not finite, or (`underflow`: reverse mode's walk)
    underflowed as engine/trace/underflow.py judges it."""
    from gradwalk.engine.trace import underflow as judge

    nodes, dtype = tracer.program.nodes, tracer.program.dtype
    for i, v in enumerate(tracer.values):
        if _non_finite(v):
            return True
        if underflow and nodes[i].role == "op" and (_risky(v) or not np.all(v)) and \
                judge.forward(nodes[i].op, [tracer.values[k] for k in nodes[i].inputs], v, dtype):
            return True
    return False


SMALL = 1 << 16
"""A reverse walk's adjoints are worked out first for a program with a tensor whose values hold
at most this many elements together: its numbers (events, the leaves' gradients) are most of
its body, and their numpy work is small next to the events'. A long scalar program's numbers are
a small part of its body (a short one's: SHORT); a big tensor's adjoint travels as its summary, and only the leaves'
gradients carry every number (at most 25 bytes against about 20: 1.25 times)."""


SHORT = 4096
"""A scalar program of at most this many nodes has its adjoints worked out first too: its walk
is cheap (a few ms), and the room a marker may need (about 600 bytes) would otherwise be most
of a short body (`L = a * a` was estimated at 1.63x its 1,764 bytes; issue 14 §6 asks 1.5x)."""


def _small(tracer) -> bool:
    sizes = [np.size(v) for v in tracer.values if type(v) is not float]
    if not sizes:
        return len(tracer.values) <= SHORT
    return sum(sizes) <= SMALL


def _walked(tracer) -> list[int]:
    """The bug lab's backward walk (engine/trace/bugs.py) run once without sending its events,
    each one's bytes added to its node's: what a switch does to the numbers (an adjoint
    overwritten, passed on as 0, doubled) is the walk's own, and the lab is for small teaching
    programs (SMALL), whose walk is cheap."""
    walked = [0] * len(tracer.program.nodes)
    index = {node_id: i for i, node_id in enumerate(tracer.ids)}
    for record in tracer.backward(itertools.count()):
        walked[index[record["node"]]] += len(orjson.dumps(record)) + 1
    return walked


def _adjoints(tracer, inline: int) -> tuple[list, dict, bool]:
    """The reverse walk's adjoints (engine/trace/reverse.py `backward` without a bug lab, which
    hvp mode never has) and each edge's numbers' bytes, exactly: a scalar edge through the
    walk's own `scalar_edges`, a tensor edge through its vjp rule and unbroadcast, so every
    number is the walk's to the last bit; and whether one of them may be marked (_risky)."""
    from gradwalk.engine.ops import get_op
    from gradwalk.engine.ops.broadcast import unbroadcast
    from gradwalk.engine.trace import scalar
    from gradwalk.engine.trace import reverse   # the walk's own rules
    from gradwalk.engine.trace.reverse import vjp as _vjp

    nodes, values, requires = tracer.program.nodes, tracer.values, tracer.requires
    adjoints: list = [None] * len(nodes)
    out = values[tracer.output]
    adjoints[tracer.output] = tracer.output_grad if tracer.output_grad is not None else \
        1.0 if type(out) is float else np.ones_like(out)
    edges, count, marked = {}, itertools.count(), tracer.program.dtype != "float64"
    for i in tracer.deadline.paced(reversed(tracer.order)):
        node, g = nodes[i], adjoints[i]
        if g is None or node.role != "op":
            continue
        op, xs = get_op(node.op), tracer._inputs(node)
        o = np.float64(values[i]) if type(values[i]) is float else values[i]
        fast = type(values[i]) is float and node.op in scalar.FORWARD
        for arg, j in enumerate(node.inputs):
            if not requires[j]:
                continue
            record = next(iter(reverse.scalar_edges(tracer, node, g, adjoints, count, only=arg,
                                                    fallback=False)), None) if fast else None
            if record is not None:
                edges[(i, arg)] = sum(encoded_bytes(record[k], inline) for k in EDGE_FIELDS)
                marked = marked or any(map(_risky, (record[k] for k in EDGE_FIELDS[:3])))
                continue
            with np.errstate(all="ignore"):
                local, raw = _vjp(op, arg, g, o, xs, node.params)
                contrib, axes = unbroadcast(raw, np.shape(xs[arg]))
                before = adjoints[j]
                after = contrib if before is None else before + contrib
            adjoints[j] = after
            size = sum(encoded_bytes(x, inline) for x in (g, contrib, after)) + \
                (4 if local is None else encoded_bytes(local, inline)) + \
                (encoded_bytes(np.zeros(np.shape(contrib)), inline) if before is None else
                 encoded_bytes(before, inline))
            if axes:   # the unbroadcast event's before and after
                size += encoded_bytes(raw, inline) + encoded_bytes(contrib, inline)
            edges[(i, arg)] = size
            marked = marked or _risky(g) or _risky(local) or _risky(raw) or _risky(after)
    return adjoints, edges, marked


EDGE_FIELDS = ("upstream", "local", "contribution", "adjoint_before", "adjoint_after")


def encoded_bytes(x, inline: int | None) -> int:
    """values.encode(x, inline) as JSON (a number of the walk's, not yet encoded): its numbers
    exactly, a tensor's summary at its longest (known_bytes)."""
    if isinstance(x, str):
        return len(x) + 2
    return known_bytes(x, inline)


def known_bytes(x, inline: int | None) -> int:
    """An encoded value whose numbers are known (the walk computes them the same way): exact
    data, the summary's four numbers at their longest."""
    if type(x) is float or np.ndim(x) == 0:
        return scalar_bytes(x)
    if inline is not None and np.size(x) > inline:
        return value_bytes(np.shape(x), inline)
    return value_bytes(np.shape(x), 0) - 4 + data_bytes(x)
