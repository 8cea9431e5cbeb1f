"""The entry points of a trace: the body of POST /api/trace as JSON bytes or a dict.

The HTTP response, the stream and the CLI all iterate `Tracer.records()` (engine/trace/
tracer.py: the program compiled once, walked by its mode); this module only collects: the
records are serialized with orjson a batch at a time. `Tracer`, `Limits` and the reverse
walk's `_vjp` are importable from here, as they always were.
"""
from __future__ import annotations

import contextlib
import gc
import io
import threading
from itertools import islice

import orjson

from gradwalk.engine.parse import Program
from gradwalk.engine.trace.graph_out import BATCH
from gradwalk.engine.trace.limits import Limits
from gradwalk.engine.trace.options import DEFAULT, Options
from gradwalk.engine.trace.reverse import vjp as _vjp  # noqa: F401  (tests call the vjp step by this name)
from gradwalk.engine.trace.tracer import Tracer, options_apply  # noqa: F401  (the public names)

__all__ = ["BATCH", "Limits", "Tracer", "body_events", "gc_paused", "options_apply",
           "run_trace", "trace_json"]


_pausing = 0   # threads inside gc_paused now; the collector is off while any is
_paused_from_enabled = False   # whether the first of them found it on
_pause_lock = threading.Lock()


@contextlib.contextmanager
def gc_paused():
    """Pause the cyclic garbage collector: a trace allocates millions of acyclic objects, and
    collections triggered by them cost half the run time on a 100,000-node chain.

    Nothing a trace makes sits in a reference cycle (engine/graph.py keeps the networkx graph
    out of one), so reference counting frees a trace the moment it is dropped. The collector is
    simply re-enabled: handing the trace's objects to the oldest generation uncounted (freeze,
    unfreeze) kept every cycle they had alive until the next full collection, which then never
    came, and memory grew with every trace.

    The switch is the process's, and the server parses and traces in several threads: it is
    turned back on when the last pausing thread leaves, so one trace ending never re-enables
    it under another still running.
    """
    global _pausing, _paused_from_enabled
    with _pause_lock:
        if _pausing == 0:
            _paused_from_enabled = gc.isenabled()
            gc.disable()
        _pausing += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pausing -= 1
            if _pausing == 0 and _paused_from_enabled:
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


def _body(tracer: Tracer) -> bytes:
    """The body, written piece by piece into one growing buffer whose bytes are handed out
    without a copy (BytesIO.getvalue), so the peak is about one body, not two."""
    out = io.BytesIO()
    for piece in tracer.graph_parts():
        out.write(piece)
    out.seek(out.tell() - 1)   # drop the graph event's closing brace: the events follow
    out.truncate()
    out.write(b',"events":[')
    # BATCH records at a time, taken by islice (a loop in C: a test and an append per record
    # in Python were about a twentieth of the records' cost); `done`, the last record of
    # every walk (docs/trace-format.md), ends the last batch and is written below
    records = tracer.records(arrays=True)   # (OPT_SERIALIZE_NUMPY below)
    for batch in iter(lambda: list(islice(records, BATCH)), []):
        record = batch.pop() if batch[-1]["kind"] == "done" else None
        if batch:   # without its brackets, not copied (graph_out.graph_parts)
            out.write(memoryview(orjson.dumps(batch))[1:-1])
            out.write(b",")
            batch.clear()   # its records freed now, not once the next batch is made
        if record is not None:
            break
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
