"""The property every fuzzer checks: a program either traces completely or raises the one
documented error, ProgramError, whose location (where it has one) lies inside the text."""
from __future__ import annotations

import json
import os

from hypothesis import HealthCheck, event, settings

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.trace.runner import Limits, trace_json

# Small limits keep every example cheap; the limits themselves are tested in test_limits.py.
LIMITS = Limits(max_nodes=2_000, max_elements=10_000, max_total_elements=100_000,
                max_flops=1_000_000, max_response_bytes=5_000_000, timeout_seconds=10)
KINDS = {"syntax", "unsupported", "unknown_name", "used_before_assignment", "duplicate_leaf",
         "bad_argument", "shape", "unknown_output", "too_large", "timeout", "empty",
         "reserved_name", "name_too_long", "inplace"}   # docs/trace-format.md, "Errors"

# Bounded for CI (2 cores, the whole fuzz suite in about 3 minutes); GRADWALK_FUZZ_SCALE
# scales every fuzzer up for a longer run by hand.
SCALE = float(os.environ.get("GRADWALK_FUZZ_SCALE", "1"))


def bounded(examples: int):
    """Hypothesis settings for one fuzzer: `examples` (times GRADWALK_FUZZ_SCALE), no
    per-example deadline (a shared CI machine has pauses), no health check on slow draws."""
    return settings(max_examples=max(1, int(examples * SCALE)), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much],
                    print_blob=True)


def lines_of(text: str) -> list[str]:
    """The program's lines as the engine counts them (\\r\\n and \\r end lines too)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def check_location(e: ProgramError, text: str) -> None:
    """line/col (1-based line, 0-based character column) and the range's end lie in the text."""
    assert e.kind in KINDS, e.kind
    assert isinstance(e.message, str) and e.message
    lines = lines_of(text)
    if e.line is None:
        assert e.col is None and e.end_line is None and e.end_col is None, e
        return
    assert 1 <= e.line <= len(lines), (e, len(lines))
    assert e.col is not None and 0 <= e.col <= len(lines[e.line - 1]), (e, lines[e.line - 1])
    if e.end_line is not None:
        assert e.line <= e.end_line <= len(lines), e
        if e.end_col is not None:
            assert 0 <= e.end_col <= len(lines[e.end_line - 1]), e
            assert (e.end_line, e.end_col) >= (e.line, e.col), e


def trace_or_refuse(text: str) -> ProgramError | None:
    """Trace the text to its last event and its JSON (as the server would), or return the
    ProgramError it raises, checked. Any other exception fails the test."""
    try:
        body = json.loads(trace_json(text, None, LIMITS))
        assert body["events"][-1]["kind"] == "done"
        assert len(body["graph"]["nodes"]) == sum(e["kind"] == "evaluate" for e in body["events"])
        event("traced")   # hypothesis statistics (--hypothesis-show-statistics): what was reached
        return None
    except ProgramError as e:
        event(e.kind)
        check_location(e, text)
        assert json.dumps({"error": e.to_dict()})
        return e
