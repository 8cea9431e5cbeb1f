"""Gradients of randomly generated programs agree with central differences."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from gradwalk.engine.numeric import central_differences
from gradwalk.engine.parse import parse
from gradwalk.engine.trace.runner import run_trace
from gradwalk.engine.trace.values import decode

SHAPES = {"scalar": (), "vector": (3,), "matrix": (2, 3)}
BINARY = ["+", "-", "*"]
UNARY = ["tanh", "sigmoid", "gelu", "exp"]


def _literal(draw, shape):
    values = draw(st.lists(st.floats(-1.5, 1.5, allow_nan=False), min_size=int(np.prod(shape)),
                           max_size=int(np.prod(shape))))
    return repr(np.array(values).reshape(shape).tolist()) if shape else repr(values[0])


@st.composite
def programs(draw):
    """A program of 1-3 leaves (scalars, vectors, matrices that broadcast together), 1-8 ops,
    names reused (fan-out), ending in a scalar loss."""
    lines, names = [], []
    for i in range(draw(st.integers(1, 3))):
        shape = SHAPES[draw(st.sampled_from(sorted(SHAPES)))]
        lines.append(f"x{i} = {_literal(draw, shape)}")
        names.append(f"x{i}")
    for i in range(draw(st.integers(1, 8))):
        if draw(st.booleans()):
            a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
            expr = f"{a} {draw(st.sampled_from(BINARY))} {b}"
        else:
            expr = f"{draw(st.sampled_from(UNARY))}({draw(st.sampled_from(names))} * 0.5)"
        name = draw(st.sampled_from([f"h{i}", *names[-1:]]))   # sometimes reassign a name
        lines.append(f"{name} = {expr}")
        names.append(name)
    lines.append(f"L = sum({names[-1]} * {names[-1]}) + mean({names[0]})")
    return "\n".join(lines) + "\n"


@settings(max_examples=60, deadline=None)
@given(programs())
def test_gradients_match_central_differences(text):
    body = run_trace(text)
    program = parse(text)
    numeric = central_differences(program, program.names["L"])
    for name, want in numeric.items():
        np.testing.assert_allclose(decode(body["grads"][name]), want, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name} in\n{text}")
