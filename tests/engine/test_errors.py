"""Bad programs: every construct the language rejects gets its kind, line and column."""
from __future__ import annotations

import numpy as np
import pytest

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.trace.runner import Limits, Tracer, run_trace

BAD = [
    # (program, kind, line, col, words in the message)
    ('x = __import__("os")\n', "reserved_name", 1, 4, "__import__"),
    ("a = 1.0\nb = a.shape\n", "unsupported", 2, 4, ".shape"),
    ("a = 1.0\nf = lambda z: z\n", "unsupported", 2, 4, "lambda"),
    ("a = [1.0, 2.0]\nb = [v * 2 for v in a]\n", "unsupported", 2, 20, "a comprehension goes over range"),
    ("a = 1.0\nb = a * q\n", "unknown_name", 2, 8, "`q`"),
    ("a = 1.0\nb = c * a\nc = 2.0\n", "used_before_assignment", 2, 4, "`c`"),
    ("a = 1.0\nb = 2.0\na = 3.0\n", "duplicate_leaf", 3, 0, "`a`"),
    ("a = 1.0\nb = a +* 2\n", "syntax", 2, 7, "syntax"),
    ("import os\n", "unsupported", 1, 0, "import"),
    ("a = 1.0\nprint(a)\n", "unsupported", 2, 0, "bare expression"),
    ("a = 1.0\na += 1\n", "inplace", 2, 0, "leaf Variable"),   # PyTorch's words (the bug lab)
    ("a = 1.0\nb = a * 2\nb **= 2\n", "unsupported", 3, 0, "+= -= *= /="),
    ("a = [1.0]\nb = a[a]\n", "unsupported", 2, 6, "integer literal"),   # an index is a literal
    ("a = 1.0\nb = a[0]\n", "shape", 2, 4, "shape ()"),   # a scalar has no axes to index
    ("a = 1.0\nb = a if a else a\n", "unsupported", 2, 4, "conditional"),
    ("a = 1.0\nb = open(a)\n", "unsupported", 2, 4, "unknown function `open`"),
    ("a = 1.0\nb = a.T.foo\n", "unsupported", 2, 4, ".foo"),
    ('a = 1.0\nb = gelu(a, approximate="fast")\n', "bad_argument", 2, 24, "approximate"),
    ("z = [1.0, 2.0]\nL = cross_entropy(z, 5)\n", "bad_argument", 2, 4, "out of range"),
    ("z = [[1.0, 2.0], [3.0]]\n", "bad_argument", 1, 4, "rectangular"),
    ("A = [[1.0, 2.0]]\nB = [[1.0, 2.0]]\nC = A @ B\n", "shape", 3, 4, "C"),
    ("a = 1.0\nb = 2.0; c = 3.0\n", "unsupported", 2, 9, "one statement per line"),
    ("a, b = 1.0\n", "unsupported", 1, 0, "as many values as names"),
    ("tanh = 1.0\n", "unsupported", 1, 0, "tanh"),
    ("a = 'hello'\n", "unsupported", 1, 4, "str"),
    ("\n# nothing here\n", "empty", 1, 0, "assigns nothing"),
    ("a = 1.0\nb = sum(a, axis=3)\n", "bad_argument", 2, 4, "axis"),
    ("a = 1.0\nb = a * 1" + "0" * 400 + "\n", "bad_argument", 2, 8, "too large for float64"),
    ("a = [1" + "0" * 400 + ", 2]\n", "bad_argument", 1, 4, "too large for float64"),
    ("a = []\n", "unsupported", 1, 4, "empty list"),
    ("a = [*[1.0, 2.0]]\n", "unsupported", 1, 4, "only numbers"),
    ("a = " + "[" * 40 + "1.0" + "]" * 40 + "\n", "bad_argument", 1, 4, "at most 32 deep"),
    ("A = [[1.0, 2.0], [3.0, 4.0]]\nW = [[1.0, 2.0, 3.0]]\nY = A @ W\n", "shape", 3, 4,
     "the left has 2 columns, the right 1 row"),
    ("a = [1.0, 2.0]\nb = [1.0, 2.0, 3.0]\nc = a + b\n", "shape", 3, 4,
     "(2,) and (3,) cannot be broadcast"),
    ("a = 1.0\nb = " + "-" * 100_000 + "a\n", "too_large", 2, 0, "split it"),
    ("a = 1.0\nb = a * 1" + "0" * 5000 + "\n", "bad_argument", 2, 8, "too many digits"),
    ("a = 1.0\nb = a // 2\n", "unsupported", 2, 4, "operator //"),
    ("a = 1.0\nb = not a\n", "unsupported", 2, 4, "operator `not`"),
    ("a = 1.0\nb = ~a\n", "unsupported", 2, 4, "operator ~"),
    ("a = [1.0]\nb = a.T()\n", "unsupported", 2, 6, "`.T` is an attribute"),
    ("x = ().__class__.__bases__[0].__subclasses__()\n", "reserved_name", 1, 7, "`__class__`"),
    ("a = [1.0, 2.0]\nb = [[1.0], [2.0]]\nc = a\rd = c + \r", "syntax", 4, None, "syntax"),
    ("a = 1.0\nb = (a)\x00\n", "syntax", 2, 7, "null"),
    ("a = 1.0\nb = a * \ud800\n", "syntax", 2, 8, "invalid character"),
]


@pytest.mark.parametrize("text,kind,line,col,words", BAD, ids=[b[0][:30] for b in BAD])
def test_bad_program_gets_a_located_error(text, kind, line, col, words):
    with pytest.raises(ProgramError) as info:
        run_trace(text)
    e = info.value
    assert e.kind == kind, e
    assert e.line == line, e
    if col is not None:
        assert e.col == col, e
    assert words in e.message
    assert str(e).startswith(f"line {line}, column ")
    assert e.end_col is None or e.end_line != e.line or e.end_col >= e.col


@pytest.mark.parametrize("output", ["zz", ""])
def test_unknown_output_name(output):
    with pytest.raises(ProgramError) as info:
        run_trace("a = 1.0\nb = a * 2\n", output=output)
    assert info.value.kind == "unknown_output"
    assert info.value.line is None   # it is not in the program text


def test_indented_line_has_a_sane_range():
    with pytest.raises(ProgramError) as info:
        run_trace("a = 1.0\n\tb = a\n")
    e = info.value
    assert e.line == 2 and (e.end_col is None or e.end_col >= e.col)


def test_deep_nesting_is_an_error_not_a_crash():
    with pytest.raises(ProgramError) as info:
        run_trace("a = 1.0\nb = " + "(" * 500 + "a" + ")" * 500 + "\n")
    assert info.value.kind in ("syntax", "too_large")


def test_too_large_value_is_refused():
    text = "a = [[1.0], [2.0], [3.0], [4.0]]\nb = [1.0, 2.0, 3.0, 4.0]\nc = sum(a * b)\n"
    with pytest.raises(ProgramError) as info:
        Tracer(text, limits=Limits(max_elements=10))
    assert info.value.kind == "too_large" and info.value.line == 3
    assert "16 elements" in info.value.message


def test_too_many_nodes_is_refused():
    with pytest.raises(ProgramError) as info:
        Tracer("x = 1.0\n" + "x = x * 2\n" * 10, limits=Limits(max_nodes=15))
    # 1 + 2 * 8 = 17 > 15 nodes at line 9: refused there, not after the 21 nodes are built
    assert info.value.kind == "too_large" and info.value.line == 9
    assert "more than 15 nodes by line 9" in info.value.message


def test_budgets_for_total_elements_and_flops():
    text = "a = [[1.0], [2.0], [3.0]]\nb = [1.0, 2.0, 3.0]\nc = a * b\nd = c @ c\nL = sum(d)\n"
    assert run_trace(text)["output"]["value"] == pytest.approx(
        float(np.sum((np.outer([1, 2, 3], [1, 2, 3])) @ np.outer([1, 2, 3], [1, 2, 3]))))
    with pytest.raises(ProgramError) as info:
        Tracer(text, limits=Limits(max_total_elements=20))
    assert info.value.kind == "too_large" and info.value.line == 4
    with pytest.raises(ProgramError) as info:
        Tracer(text, limits=Limits(max_flops=50))
    assert info.value.kind == "too_large" and "FLOPs" in info.value.message


def test_huge_broadcast_is_refused_before_numpy_allocates():
    col = "[" + ", ".join(["[1.0]"] * 2000) + "]"
    row = "[" + ", ".join(["1.0"] * 2000) + "]"
    text = f"a = {col}\nb = {row}\nc = a * b\nd = c @ c\n"
    with pytest.raises(ProgramError) as info:
        Tracer(text)
    assert info.value.kind == "too_large" and info.value.line == 3
    assert "4,000,000 elements" in info.value.message
