"""Issue 15 §1: the stream sends its first event, the graph, before the work the graph does not
need: the body's size estimate (engine/trace/budget*.py, a sixth of what came before the first
event of the 10,001-node chain) is not made at all when a light bound shows the body within
max_response_bytes; when that bound passes the limit the estimate is made before the graph, so a
trace past the limit is refused by the stream's only event, as POST /api/trace refuses it with
422 before any byte."""
from __future__ import annotations

import pytest

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.trace import budget
from gradwalk.engine.trace.runner import Limits, Tracer
from gradwalk.server.settings import Settings, get_settings
from gradwalk.server.tracing import stream_body
from helpers import sse_events

CHAIN = "x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 25   # 101 nodes


def test_the_size_is_checked_once_before_the_graph_and_costs_no_estimate(monkeypatch):
    said = []
    light = budget.light_bound

    def bound(tracer, *limit):
        said.append("light bound")
        return light(tracer, *limit)
    monkeypatch.setattr(budget, "light_bound", bound)
    monkeypatch.setattr(budget, "scalar_bound", lambda t, *a: said.append("estimate"))
    stream_body(CHAIN, None, Settings(), lambda data: said.append(data.split(b"\n")[0]))
    assert said[:2] == ["light bound", b"event: graph"]   # the check, then the graph event
    assert said.count("light bound") == 1 and "estimate" not in said


def test_a_trace_over_the_size_limit_is_refused_before_the_graph(client, monkeypatch):
    """The light bound (budget_scalar.light_bound) passes 5,000 bytes, so the estimate is made
    before the graph, and its refusal is the stream's only event, as POST's 422."""
    monkeypatch.setattr(get_settings(), "max_response_bytes", 5_000)
    r = client.post("/api/trace/stream", json={"program": CHAIN})
    assert r.status_code == 200
    kinds = [kind for kind, _ in sse_events(r.text)]
    assert kinds == ["error"]
    error = sse_events(r.text)[-1][1]["error"]
    assert error["kind"] == "too_large" and "max_response_bytes" in error["message"]
    post = client.post("/api/trace", json={"program": CHAIN})
    assert post.status_code == 422 and post.json()["error"] == error


def test_a_body_that_fits_by_the_light_bound_costs_no_estimate(monkeypatch):
    """Issue 15 §1: the 10,001-node chain is within the default limit by the light bound
    alone, so neither the scalar bound nor the per-node estimate is made; the records are all
    there."""
    def refused(*args, **kwargs):
        raise AssertionError("an estimate was made")
    monkeypatch.setattr(budget, "scalar_bound", refused)
    monkeypatch.setattr(budget, "per_node", refused)
    chain = "x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 2_500
    records = list(Tracer(chain).records())
    assert records[-1]["kind"] == "done" and len(records) == 10_001 + 1 + 5_000 + 1


def test_the_estimate_comes_before_the_graph_when_the_light_bound_does_not_fit(monkeypatch):
    """Whatever the program's size (the node-count rule it replaces refused only programs of
    more than 20,000 nodes before the graph): the light bound over the limit, the estimate is
    made in the constructor, where a refusal comes before the graph; a body that fits by the
    estimate then sends every event, with no second estimate."""
    light = budget.light_bound(Tracer(CHAIN))
    estimate = sum(budget.per_node(Tracer(CHAIN), 64))
    assert estimate < light
    with pytest.raises(ProgramError) as refused:
        Tracer(CHAIN, limits=Limits(max_response_bytes=estimate - 1))
    assert refused.value.kind == "too_large"
    made = []
    for name in ("graded_bound", "scalar_bound"):
        spy = (lambda bound, name: lambda t, *a: made.append(name) or bound(t, *a))(
            getattr(budget, name), name)
        monkeypatch.setattr(budget, name, spy)
    between = Tracer(CHAIN, limits=Limits(max_response_bytes=light - 1))
    # the graded bound (budget_graded.py), made in the constructor, is the next step; it fits,
    # so the closer scalar_bound is not asked
    assert made == ["graded_bound"]
    assert b'"nodes":[' in between.graph_bytes()
    assert list(between.records())[-1]["kind"] == "done" and made == ["graded_bound"]


def test_the_parse_before_the_stream_sets_off_no_collection(monkeypatch):
    """The route parses before it takes a trace slot (server/tracing.py parse_program): with
    the collector paused there too, as for the trace, a 10,001-node chain's parse sets off no
    collection while it runs (about 50 of them, a tenth to a fifth of its time, before), and
    the collector is on again after it. Only the test's own thread is counted: an explicit
    collection another thread makes (server/memory.py give_back, scheduled by an earlier test)
    is not one the parse set off."""
    import gc
    import threading

    from gradwalk.server import tracing

    chain, settings = "x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 2_500, Settings()
    started, during, me = [], [], threading.get_ident()
    parse = tracing.parse

    def parse_counted(*args, **kwargs):
        before = len(started)
        program = parse(*args, **kwargs)
        during.append(len(started) - before)
        return program

    def count(phase, info):
        if phase == "start" and threading.get_ident() == me:
            started.append(info["generation"])
    monkeypatch.setattr(tracing, "parse", parse_counted)
    assert gc.isenabled()
    gc.callbacks.append(count)
    try:
        program = tracing.parse_program(chain, settings)
    finally:
        gc.callbacks.remove(count)
    assert len(program.nodes) == 10_001 and during == [0] and gc.isenabled()
