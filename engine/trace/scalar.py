"""The scalar path: + - * / and unary minus on 0-d values, computed on Python floats.

A chain of scalar arithmetic is most of what a lecture's program holds, and a numpy 0-d array
costs a microsecond per operation where a Python float costs tens of nanoseconds. The results
are the same float64 numbers: IEEE 754 rounds + - * / and negation correctly, so Python's float
arithmetic and numpy's ufunc loops give bit-identical results (tests/engine/test_scalar_path.py
checks it against numpy, and the golden traces assert the numbers).

Only these five ops take the path. Everything else (tanh, exp, **, ...) goes through numpy,
whose transcendental loops may differ from the C library's in the last bit, and which is the
reference the golden traces were made with. A division by zero, which Python raises and numpy
answers with inf or nan, falls back to numpy too.
"""
from __future__ import annotations

import operator

# op name -> the forward rule on Python floats
FORWARD = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
           "div": operator.truediv, "neg": operator.neg}


def forward(op: str, xs: list) -> float | None:
    """The op's value on Python floats `xs`, or None where Python would raise
    (ZeroDivisionError) and numpy must answer instead."""
    try:
        return FORWARD[op](*xs)
    except ArithmeticError:
        return None
