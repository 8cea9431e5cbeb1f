"""The body's size estimate (engine/trace/budget.py) is never under the real body, for
well-formed random programs in every mode (issue 14 §6: it was under for a tensor output's seed
and the graph's groups, found here), and the cheap bound the trace tries first bounds it."""
from __future__ import annotations

from hypothesis import example, given, strategies as st
from test_fuzz_programs import programs

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.trace import budget
from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import Limits, Tracer, trace_json
from oracle import bounded

MODES = {"reverse": Options(), "check": Options(check=True), "forward": Options(mode="forward"),
         "hvp": Options(mode="hvp"), "overwrite": Options(bugs=("overwrite",)),
         "no_zero_grad": Options(bugs=("no_zero_grad",))}


@bounded(150)
@given(programs(), st.sampled_from(list(MODES)))
# a tensor output's seed event and the groups of the `.T` statements were not counted
@example("p0 = [[[0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]]]\np1 = 0.0\np2 = 0.0\n"
         "h0 = p0\n", "reverse")
@example("p0 = const(1.5208534211169904e+16)\np1 = -6.67359064846781e+16\n"
         "p2 = const(-2.00001)\nh0 = (((p2).T).T).T\nh1 = (((p2).T).T).T\nh2 = (p0).T\n"
         "h3 = (p0).T\nh4 = -p1\n", "reverse")
def test_the_estimate_is_never_under_the_body(text, mode):
    options = MODES[mode]
    try:
        real = len(trace_json(text, options=options))
    except ProgramError:
        return   # refused: nothing to size (the other fuzzers check the refusals)
    tracer = Tracer(text, options=options)
    estimate = sum(budget.per_node(tracer, Limits().inline))
    assert real <= estimate <= budget.scalar_bound(tracer)
    light = budget.light_bound(tracer)
    assert light is None or light >= budget.scalar_bound(tracer)
