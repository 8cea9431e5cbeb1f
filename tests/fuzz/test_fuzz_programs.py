"""Fuzzing well-formed programs (issue 6, section 2): every statement is `name = expression` in
the language, so the examples get past the parser and into the engine's shape, parameter and
numeric paths (broadcasting, matmul of any ranks, axes out of range, class indices, overflow,
NaN). Only ProgramError ever escapes, located inside the text."""
from __future__ import annotations

from hypothesis import given, strategies as st

from oracle import bounded, trace_or_refuse

ELEMENTWISE = ["tanh", "sigmoid", "relu", "exp", "log", "sqrt", "abs", "softmax"]
BINARY = ["+", "-", "*", "/", "**", "@"]
FLOATS = st.one_of(st.floats(-3, 3), st.sampled_from([0.0, -0.0, 1e308, -1e308, 1e-320, 710.0]),
                   st.floats(allow_nan=False))
SHAPES = st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple)


@st.composite
def literals(draw, shape=None) -> str:
    """A number or a rectangular nested list of the given (or a drawn) shape."""
    shape = draw(SHAPES) if shape is None else shape
    if not shape:
        return repr(draw(FLOATS))
    return "[" + ", ".join(draw(literals(shape[1:])) for _ in range(shape[0])) + "]"


LEAVES = ["p0", "p1", "p2"]
ATOMS = st.one_of(st.sampled_from(LEAVES), literals(), literals().map(lambda t: f"({t})"))
# built once: a strategy made inside each draw costs more than the trace it feeds
EXPRESSIONS = st.recursive(ATOMS, lambda inner: st.one_of(
    st.tuples(inner, st.sampled_from(BINARY), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
    inner.map(lambda e: f"-{e}"),
    inner.map(lambda e: f"({e}).T"),
    st.tuples(st.sampled_from(ELEMENTWISE), inner).map(lambda t: f"{t[0]}({t[1]})"),
    st.tuples(st.sampled_from(["sum", "mean"]), inner,
              st.one_of(st.none(), st.integers(-4, 4), st.sampled_from(["None", "1.5", "x"])))
    .map(lambda t: f"{t[0]}({t[1]})" if t[2] is None else f"{t[0]}({t[1]}, axis={t[2]})"),
    st.tuples(inner, st.sampled_from(['"tanh"', '"none"', '"erf"', "1", "None"]))
    .map(lambda t: f"gelu({t[0]}, approximate={t[1]})"),
    st.tuples(inner, st.one_of(st.integers(-2, 4), st.sampled_from(["1.0", "2**40", "a"])))
    .map(lambda t: f"cross_entropy({t[0]}, {t[1]})"),
), max_leaves=8)


@st.composite
def programs(draw) -> str:
    """Three leaves (or constants) of random shapes, then statements over them, some of which
    reassign a leaf's name (a new node, `p0'`)."""
    lines = [f"{name} = const({lit})" if draw(st.booleans()) else f"{name} = {lit}"
             for name, lit in ((name, draw(literals())) for name in LEAVES)]
    for k in range(draw(st.integers(1, 5))):
        target = draw(st.sampled_from([f"h{k}", *LEAVES]))
        lines.append(f"{target} = {draw(EXPRESSIONS)}")
    return "\n".join(lines) + "\n"


@bounded(1500)
@given(programs())
def test_well_formed_programs(text):
    trace_or_refuse(text)
