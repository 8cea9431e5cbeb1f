"""Fuzzing the bug lab (issue 9, sections 4 and 6): well-formed programs, some with an in-place
update, `detach` or a `with no_grad():` block, under random switches. Only ProgramError ever
escapes, located inside the text; and the two-pass switches keep their promise on every
program that traces: no_zero_grad gives twice the gradients, zero_grad once (up to the rounding of the
second pass's additions)."""
from __future__ import annotations

import json

import numpy as np
from hypothesis import example, given, strategies as st
from test_fuzz_programs import EXPRESSIONS, programs

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.trace.options import Options
from gradwalk.engine.trace.runner import trace_json
from gradwalk.engine.trace.values import decode
from oracle import LIMITS, bounded, check_location

SWITCHES = st.lists(st.sampled_from(["overwrite", "wrong_order", "no_zero_grad", "zero_grad",
                                     "inplace"]), max_size=2)


@st.composite
def bug_programs(draw) -> str:
    """A well-formed program, then maybe an in-place update, a cut or a no_grad block."""
    text = draw(programs())
    extra = draw(st.sampled_from(["", "inplace", "detach", "no_grad"]))
    target = draw(st.sampled_from(["h0", "p0", "p1"]))
    op = draw(st.sampled_from(["+=", "-=", "*=", "/="]))
    if extra == "inplace":
        text += f"{target} {op} {draw(EXPRESSIONS)}\nz9 = {target} * h0\n"
    elif extra == "detach":
        text += f"z9 = detach({target}) * h0 + {target}\n"
    elif extra == "no_grad":
        text += f"with no_grad():\n    z8 = {draw(EXPRESSIONS)}\nz9 = z8 * h0\n"
    return text


def _trace(text: str, bugs) -> dict | ProgramError:
    try:
        return json.loads(trace_json(text, None, LIMITS, options=Options(bugs=tuple(bugs))))
    except ProgramError as e:
        check_location(e, text)
        return e


def _added(body: dict, leaf: str) -> np.ndarray:
    """|first pass's .grad| + the sum of |contribution| onto the leaf in one pass."""
    node = next(n["id"] for n in body["graph"]["nodes"] if n["role"] == "leaf" and n["name"] == leaf)
    total = np.abs(np.asarray(decode(body["grads"][leaf]), dtype=float))
    for event in body["events"]:
        if event["kind"] == "accumulate" and event["input"] == node:
            total = total + np.abs(np.asarray(decode(event["contribution"]), dtype=float))
    return total


@bounded(150)
@given(bug_programs(), SWITCHES)
def test_bug_switches_trace_or_refuse(text, bugs):
    body = _trace(text, bugs)
    if isinstance(body, ProgramError) or "no_zero_grad" in bugs or "zero_grad" in bugs:
        return
    assert body["events"][-1]["kind"] == "done"


@bounded(80)
@given(bug_programs(), st.sampled_from(["no_zero_grad", "zero_grad"]))
@example("p0 = 1e-06\np1 = 0.0\np2 = 0.0\nh0 = p0\nz9 = detach(h0) * h0 + h0\n", "no_zero_grad")
@example("p0 = 0.0\np1 = 0.0\np2 = 0.0\np1 = log(p0)\nh1 = tanh(p1)\n", "no_zero_grad")  # NaN
def test_two_passes_give_twice_or_once_the_gradients(text, switch):
    plain, bugged = _trace(text, ()), _trace(text, (switch,))
    if isinstance(plain, ProgramError) or isinstance(bugged, ProgramError):
        return
    factor = 2.0 if switch == "no_zero_grad" else 1.0
    for name, grad in plain["grads"].items():
        with np.errstate(over="ignore"):   # 2 * 1e308 is inf, in the engine's += too
            want = factor * np.asarray(decode(grad), dtype=float)
        # The second pass adds each contribution onto the first pass's .grad one at a time
        # (the walk shows every +=), where PyTorch adds the pass's sum once: the same up to
        # the rounding of those additions (found: p0 = 1e-06, z = detach(p0) * p0 + p0 gives
        # 2.0000020000000004 against 2 * 1.000001), bounded by 4 ulp of what was added.
        got = np.asarray(decode(bugged["grads"][name]), dtype=float)
        scale = factor * _added(plain, name)
        with np.errstate(invalid="ignore"):   # inf - inf where both are inf
            close = (got == want) | (np.isnan(got) & np.isnan(want)) | \
                (np.abs(got - want) <= 4 * np.finfo(float).eps * scale)
        assert close.all(), (name, got, want)
