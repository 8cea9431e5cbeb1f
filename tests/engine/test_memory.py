"""Memory comes back: a trace's objects are freed by reference counting when it is dropped.

Issue 6: `gc_paused()` handed each trace's objects to the oldest generation uncounted, and the
networkx graph sat in a reference cycle (its cached edge and degree views hold it), so every
trace's graph stayed until a full collection that never came: a server tracing a 10,000-line
tanh chain again and again grew by about 16 MB per trace.
"""
from __future__ import annotations

import gc
import os
import weakref

from gradwalk.engine.trace.runner import Tracer, trace_json



def chain(n: int) -> str:
    """`x0 = 0.5`, then n lines `x{i+1} = tanh(x{i})`: n + 1 nodes."""
    return "x0 = 0.5\n" + "".join(f"x{i + 1} = tanh(x{i})\n" for i in range(n))


CHAIN = chain(10_000)


def rss_mb() -> float:
    """Resident set size of this process (MB), from /proc/self/statm (pages)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def test_repeated_traces_keep_memory_flat():
    sizes = []
    for _ in range(15):
        body = trace_json(CHAIN)
        assert body.endswith(b"}")
        sizes.append(rss_mb())
    del body
    # After a few warm-up traces (allocator arenas, caches) the size must stop growing: a leak
    # of one trace's graph is about 16 MB per trace, 170 MB over these eleven.
    growth = sizes[-1] - sizes[3]
    assert growth < 30, f"RSS grew {growth:.0f} MB over 11 traces: {[round(s) for s in sizes]}"


def test_a_dropped_tracer_is_freed_without_a_collection():
    was_enabled = gc.isenabled()
    gc.disable()   # so only reference counting can free it
    try:
        tracer = Tracer(chain(200) + "W = [[1.0, 2.0]]\nV = W @ W.T\nL = sum(V) + x10 * x10\n")
        assert tracer.graph.number_of_nodes() > 100
        tracer.graph_json()
        assert list(tracer.events())[-1].kind == "done"
        graph, program = weakref.ref(tracer.graph), weakref.ref(tracer.program)
        del tracer
        assert graph() is None and program() is None
    finally:
        if was_enabled:
            gc.enable()


def test_a_stream_dropped_halfway_frees_its_tracer():
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        tracer = Tracer(chain(200))
        events = tracer.events()
        assert next(events).kind == "evaluate"
        graph = weakref.ref(tracer.graph)
        del tracer, events   # a client that went away after the first event
        assert graph() is None
    finally:
        if was_enabled:
            gc.enable()


def test_trace_json_leaves_nothing_for_the_collector():
    text = chain(300) + "W = [[1.0, 2.0]]\nV = W @ W.T\nL = sum(V) + x10\n"
    trace_json(text)   # warm caches (pydantic, numpy) outside the measurement
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        trace_json(text)
        assert gc.collect() == 0   # no unreachable cycles were left behind
    finally:
        if was_enabled:
            gc.enable()


def test_the_collector_stays_paused_until_the_last_pausing_thread_leaves():
    """The server parses and traces in several threads, and the collector's switch is the
    process's: the first trace to finish turned it back on under the second (the CI run of
    b222cda saw a collection in a parse that should have set off none). It is now on again only
    when the last of them leaves, and off was kept off."""
    import threading

    from gradwalk.engine.trace.runner import gc_paused

    inside, leave = threading.Event(), threading.Event()

    def other_trace():
        with gc_paused():
            inside.set()
            leave.wait(10)

    assert gc.isenabled()
    worker = threading.Thread(target=other_trace)
    with gc_paused():
        worker.start()
        assert inside.wait(10)
    assert not gc.isenabled()   # this thread has left; the other is still inside
    leave.set()
    worker.join(10)
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()   # found off, left off
    finally:
        gc.enable()
