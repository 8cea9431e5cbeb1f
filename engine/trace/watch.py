"""Watching the backward pass's accumulate records (engine/trace/reverse.py): the first input
whose adjoint stops being finite is noted in the tracer's `first_non_finite` (phase
"backward"), and every step whose adjoint underflowed is marked (engine/trace/underflow.py).
The reverse walk checks its own scalar records as it makes them (`check`, `edge`); any other
backward pass (hvp's, the bug lab's, one under the cut-path narration) is wrapped
(`watch_adjoints`)."""
from __future__ import annotations

from typing import Iterator

from gradwalk.engine.trace import nonfinite, underflow
from gradwalk.engine.trace.values import decode_lenient, non_finite

UNWATCHED = (None, None)   # a Tracer's `watched` before any pass is watched (reverse.backward)


def watch_adjoints(t, records: Iterator[dict]):
    """The backward records passed through, noting in `first_non_finite` the first input
    whose adjoint stops being finite (phase "backward"); returns what `records` returns.
    A `for` loop over `records` (its return value kept by `returning`): a call to next() and
    a try block per record cost about a tenth of the chain's records (issue 15 §1)."""
    if records is getattr(t, "watched", UNWATCHED)[0]:   # the reverse pass watches as it goes
        return records
    return _checked(t, records, underflow.tiny(t.program.dtype))


def check(t, record: dict, after) -> None:
    """An accumulate record whose adjoint_after is not a normal scalar: the first non-finite
    adjoint noted, an underflowed step marked (underflow.note)."""
    if type(after) is not float and non_finite(after):
        if t.first_non_finite is None:
            t.first_non_finite = {"node": record["input"], "phase": "backward",
                                  "why": _why_backward(t, record)}
    else:   # every underflowed step is marked and says so (underflow.note)
        underflow.note(t, int(record["input"][1:]), "backward", record["seq"], record)


def returning(records: Iterator, returned: list) -> Iterator:
    """records, passed through; what they return is appended to `returned` (for a caller
    that iterates them with a `for` loop or itertools.chain)."""
    returned.append((yield from records))


def _why_backward(t, record: dict) -> str:
    node = t.program.nodes[int(record["node"][1:])]
    return nonfinite.backward(node.op, decode_lenient(record["local"]),
                              decode_lenient(record["contribution"]),
                              decode_lenient(record["adjoint_after"]), record.get("arg", 0),
                              [t.values[k] for k in node.inputs])


def edge(t, records: Iterator[dict], tiny) -> Iterator[dict]:
    """The records of one numpy-path edge (reverse.edge), each accumulate record checked
    when `tiny` is set (the walk watches as it goes); passed through as they are when not."""
    if tiny is None:
        return records
    return _checked(t, records, tiny)


def _checked(t, records: Iterator[dict], tiny) -> Iterator[dict]:
    """records, each accumulate record whose adjoint_after is not a normal scalar checked;
    returns what `records` returns."""
    returned: list = []
    for record in returning(records, returned):
        if record["kind"] == "accumulate":
            after = record["adjoint_after"]
            if type(after) is not float or not abs(after) >= tiny:   # NaN fails the test
                check(t, record, after)
        yield record
    return returned[0]
