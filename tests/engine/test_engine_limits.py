"""Every engine limit (issue 6, section 2): refused as ProgramError naming the limit, located
where the limit is passed, and the wall-clock budget stopping a trace part-way."""
from __future__ import annotations

import itertools

import pytest

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.parse import parse
from gradwalk.engine.syntax import MAX_DEPTH, MAX_STATEMENTS
from gradwalk.engine.trace import deadline as deadline_module
from gradwalk.engine.trace.runner import Limits, Tracer, trace_json


def refused(text: str, **limits) -> ProgramError:
    with pytest.raises(ProgramError) as info:
        Tracer(text, limits=Limits(**limits))
    return info.value


def nested_calls(n: int) -> str:
    return "a = 1.0\nb = " + "tanh(" * n + "a" + ")" * n + "\n"


# ---- statements ----------------------------------------------------------------------------
def test_statements_over_the_limit_are_refused_at_the_first_one_over():
    e = refused("a = 1.0\n" + "b = a\n" * 10, max_statements=5)   # `b = a` makes no node
    assert e.kind == "too_large" and "max_statements" in e.message and "11 statements" in e.message
    assert (e.line, e.col) == (6, 0)
    assert "GRADWALK_MAX_STATEMENTS" in e.hint


def test_statements_over_the_limit_after_an_unrolled_loop_are_refused_at_the_one_over():
    # the loop's body is listed once and built 3 times: the 12th statement is line 6, and the
    # program has 6 lines (was an IndexError: the 12th of its listed statements)
    e = refused("a = 1.0\nfor i in range(3):\n    a = a * 2.0\n    a = a * 2.0\n"
                "    a = a * 2.0\nb = a * 2.0\n", max_statements=11)
    assert e.kind == "too_large" and "12 statements" in e.message
    assert (e.line, e.col) == (6, 0)


def test_statements_at_the_limit_are_accepted():
    assert Tracer("a = 1.0\n" + "b = a\n" * 4, limits=Limits(max_statements=5)).output_name == "b"


def test_parse_takes_the_statement_limit_too():
    with pytest.raises(ProgramError) as info:
        parse("a = 1.0\nb = a\nc = b\n", max_statements=2)
    assert info.value.line == 3


# ---- nesting depth -------------------------------------------------------------------------
def test_calls_nested_past_the_limit_are_refused_at_the_first_level_over():
    e = refused(nested_calls(11), max_depth=10)
    assert e.kind == "too_large" and "max_depth" in e.message and "10 deep" in e.message
    # levels: the outermost tanh is 0, the innermost `a` is 11, the first over the limit
    assert (e.line, e.col, e.end_col) == (2, 4 + 5 * 11, 4 + 5 * 11 + 1)
    assert e.hint


def test_calls_nested_up_to_the_limit_are_accepted():
    tracer = Tracer(nested_calls(10), limits=Limits(max_depth=10))
    assert len(tracer.program.nodes) == 11


def test_the_default_depth_refuses_what_python_parses():
    """Python's parser takes up to 200 nested brackets; the default stops at MAX_DEPTH."""
    e = refused(nested_calls(MAX_DEPTH + 50))
    assert e.kind == "too_large" and f"{MAX_DEPTH} deep" in e.message


@pytest.mark.parametrize("text, col", [
    ("a = 1.0\nb = " + "a ** " * 12 + "a\n", 4 + 5 * 11),              # ** nests to the right
    ("a = 1.0\nb = " + "a - (" * 12 + "a" + ")" * 12 + "\n", 4 + 5 * 11),   # parenthesised
    ("a = [1.0]\nb = " + "sum(" * 12 + "a" + ")" * 12 + "\n", 4 + 4 * 11),
])
def test_right_nesting_counts_a_level_per_operand(text, col):
    e = refused(text, max_depth=10)
    assert e.kind == "too_large" and "max_depth" in e.message
    assert (e.line, e.col) == (2, col)


@pytest.mark.parametrize("chain", [
    " + ".join(["a"] * 3000),            # a left-associative chain is one level, any length
    "a" + ".T" * 500,
    " * ".join(f"(a - {k})" for k in range(500)),
])
def test_left_chains_stay_at_one_level(chain):
    tracer = Tracer(f"a = 1.0\nb = {chain}\n", limits=Limits(max_depth=3))
    assert tracer.output_name == "b"


# ---- wall-clock budget ---------------------------------------------------------------------
CHAIN = "x = 1.0\n" + "x = tanh(x) * 1.0001\n" * 3000   # 9,001 nodes (1.0001 is one each)
NODES = 9001


def test_a_spent_budget_stops_the_trace_with_a_timeout():
    with pytest.raises(ProgramError) as info:
        trace_json(CHAIN, limits=Limits(timeout_seconds=0))
    e = info.value
    assert e.kind == "timeout" and "trace_timeout_seconds" in e.message
    assert "GRADWALK_TRACE_TIMEOUT_SECONDS" in e.hint
    assert (e.line, e.col) == (None, None)


class FakeClock:
    """time.monotonic that advances one second per look, so a trace runs out of budget
    after a known number of checks, with no real waiting."""

    def __init__(self) -> None:
        self.ticks = itertools.count()

    def monotonic(self) -> float:
        return float(next(self.ticks))


def _looks(monkeypatch) -> tuple[int, int]:
    """How many looks at the clock the trace of CHAIN takes by the end of its constructor
    (forward values) and by the end of graph_json, measured on an unbounded budget, so the
    tests below follow the engine's loops as they change."""
    clock = FakeClock()
    monkeypatch.setattr(deadline_module, "time", clock)
    tracer = Tracer(CHAIN, limits=Limits(timeout_seconds=1e9))
    built = next(clock.ticks)
    tracer.graph_json()
    shown = next(clock.ticks) - 1   # minus the look this line itself took
    return built, shown


@pytest.mark.parametrize("stage", ["forward", "evaluate", "backward"])
def test_the_budget_is_checked_inside_the_loops(monkeypatch, stage):
    built, shown = _looks(monkeypatch)
    budget = {"forward": 2.5,                  # the 3rd look, in the forward pass, finds it spent
              "evaluate": shown + 1.5,         # after one run of evaluate events
              "backward": shown + 1.5 + (shown - built)}[stage]   # evaluate takes as many
    monkeypatch.setattr(deadline_module, "time", FakeClock())
    made = []
    with pytest.raises(ProgramError) as info:
        tracer = Tracer(CHAIN, limits=Limits(timeout_seconds=budget))
        tracer.graph_json()
        for event in tracer.events():
            made.append(event.kind)
    assert info.value.kind == "timeout"
    if stage == "forward":
        assert made == [] and "tracer" not in locals()
    elif stage == "evaluate":
        assert 0 < len(made) < NODES and set(made) == {"evaluate"}
    else:
        assert made.count("evaluate") == NODES and "done" not in made
        assert 0 < made.count("accumulate") < 2 * 3000


def test_without_a_budget_the_clock_is_never_read(monkeypatch):
    monkeypatch.setattr(deadline_module, "time", None)   # any look would raise
    assert Tracer(CHAIN).output_name == "x"


def test_paced_hands_out_every_item_in_order():
    d = deadline_module.Deadline(1e9)
    items = list(range(3 * deadline_module.CHECK_EVERY + 5))
    assert list(d.paced(items)) == items
    assert list(d.paced(reversed(items))) == items[::-1]
    assert list(d.paced([])) == []


def test_limit_defaults_are_the_documented_ones():
    assert (Limits().max_statements, Limits().max_depth) == (MAX_STATEMENTS, MAX_DEPTH)
    assert Limits().timeout_seconds is None   # the engine alone has no clock; the server sets it
