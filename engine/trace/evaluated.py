"""The reverse walk's `evaluate` records (engine/trace/reverse.py `walk`), a run of nodes at a
time: each node's value, with the first non-finite value (`first_non_finite`, phase
"forward") and every underflowed one (engine/trace/underflow.py) marked as they are met."""
from __future__ import annotations

import math

from gradwalk.engine.trace import underflow
from gradwalk.engine.trace.values import non_finite

_INF = math.inf


def records(t, run: list[int], seq: int, tiny: float) -> list[dict]:
    """The `evaluate` records of the nodes in `run` (creation order), numbered from `seq`;
    tiny: the smallest normal number of the program's dtype (underflow.tiny).

    A value that is a normal Python float (a scalar program's, nearly every one) is the
    record's as it is, after one test; any other is `_marked`. About 0.25 µs a record, most
    of it the dict (issue 15 §1)."""
    ids, values = t.ids, t.values
    made: list[dict] = []
    for seq, i in enumerate(run, seq):
        v = values[i]
        if type(v) is not float or not (tiny <= v < _INF or -_INF < v <= -tiny):   # (NaN: not)
            v = _marked(t, i, v, seq, tiny)
        made.append({"seq": seq, "kind": "evaluate", "node": ids[i], "value": v})
    return made


def _marked(t, i: int, v, seq: int, tiny: float):
    """Node i's value `v` as JSON (values.encode), the first non-finite one noted in
    `first_non_finite` and every underflow marked (underflow.note)."""
    value = v if type(v) is float and v - v == 0.0 else t.encode(v, t.limit)
    if type(value) is float and abs(value) >= tiny:
        pass   # a normal number (a numpy scalar's, written as a float)
    elif type(value) is not float and non_finite(value):
        if t.first_non_finite is None:
            t.first_non_finite = {"node": t.ids[i], "phase": "forward", "why": t.why_forward(i)}
    else:   # every underflow is marked, not only the first (underflow.note)
        underflow.note(t, i, "forward", seq)
    return value
