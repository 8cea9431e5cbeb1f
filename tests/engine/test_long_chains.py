"""Left-associative chains are as deep as the line is long: the parser walks them without
recursion, with errors at the offending name (issue 6: a 1,000-term sum was refused as "nested
too deeply", and an unknown name at its end was reported at column 1).

Python 3.11 turns a chain of more than about 2,900 operators into a RecursionError while it
builds the `ast` objects; the parse is then retried with room to recurse (engine/source.py).
Its parser's own stack still refuses thousands of `**` or unary signs in a row (MemoryError):
that is reported as `too_large` at the line with the chain.
"""
from __future__ import annotations

import pytest

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.trace.runner import Tracer, run_trace


def chain(op: str, term: str, n: int) -> str:
    return f" {op} ".join([term] * n)


def refused(text: str) -> ProgramError:
    with pytest.raises(ProgramError) as info:
        Tracer(text)
    return info.value


def test_a_1000_term_flat_sum_traces():
    body = run_trace("x = 2.0\nL = " + chain("+", "x", 1000) + "\n")
    assert body["output"]["value"] == 2000.0 and body["grads"]["x"] == 1000.0
    assert len(body["graph"]["nodes"]) == 1000   # the leaf and 999 adds


def test_a_1000_term_sum_of_products_traces():
    body = run_trace("x = 2.0\nL = " + chain("+", "x * 1.0", 1000) + "\n")
    assert body["output"]["value"] == 2000.0 and body["grads"]["x"] == 1000.0


def test_a_2000_term_product_traces():
    body = run_trace("x = 1.0001\nL = " + chain("*", "x", 2000) + "\n")
    assert body["output"]["value"] == pytest.approx(1.0001 ** 2000, rel=1e-12)
    assert body["grads"]["x"] == pytest.approx(2000 * 1.0001 ** 1999, rel=1e-12)


def test_an_unknown_name_at_the_end_of_a_long_sum_is_located():
    e = refused("x = 2.0\nL = " + chain("+", "x", 1000) + " + q\n")
    # "L = " is 4 characters and each "x + " another 4
    assert (e.kind, e.line, e.col, e.end_col) == ("unknown_name", 2, 4 + 4 * 1000, 4 + 4 * 1000 + 1)
    assert "`q`" in e.message


def test_the_first_of_two_unknown_names_in_a_long_chain_is_reported():
    terms = ["x"] * 1000
    terms[500], terms[900] = "p", "q"
    e = refused("x = 2.0\nL = " + " * ".join(terms) + "\n")
    assert (e.kind, e.col) == ("unknown_name", 4 + 4 * 500) and "`p`" in e.message


def test_columns_count_characters_on_a_long_non_ascii_line():
    e = refused("é = 2.0\nL = " + chain("+", "é", 1000) + " + q\n")
    assert (e.kind, e.line, e.col) == ("unknown_name", 2, 4 + 4 * 1000)


def test_a_long_run_of_unary_minus_traces():
    body = run_trace("x = 3.0\nL = " + "-" * 2_501 + "x\n")
    assert body["output"]["value"] == -3.0 and body["grads"]["x"] == -1.0
    body = run_trace("x = 3.0\nL = +" + "-" * 2_500 + "x\n")
    assert body["output"]["value"] == 3.0 and body["grads"]["x"] == 1.0
    names = [n["name"] for n in body["graph"]["nodes"]]
    assert names.count("L") == 1 and names[-1] == "L"   # the outermost minus is L


def test_a_signed_number_with_many_signs_is_one_constant():
    body = run_trace("x = 3.0\nL = x * " + "-" * 2_001 + "1.5\n")
    assert body["output"]["value"] == -4.5 and body["grads"]["x"] == -1.5
    assert [n["op"] for n in body["graph"]["nodes"]] == ["leaf", "const", "mul"]


def test_a_long_chain_of_transposes_traces():
    body = run_trace("W = [[1.0, 2.0, 3.0]]\nL = sum(W" + ".T" * 2_001 + " * [[1.0], [2.0], [3.0]])\n")
    assert body["output"]["value"] == 14.0
    assert body["grads"]["W"]["data"] == [[1.0, 2.0, 3.0]]


@pytest.mark.parametrize("n", [3_000, 10_000])
@pytest.mark.parametrize("op", ["+", "*"])
def test_a_chain_beyond_pythons_default_recursion_limit_traces(op, n):
    # Past ~2,900 operators CPython 3.11 raises RecursionError building the `ast`; the parse is
    # retried on a big-stack thread (engine/source.py), so the chain traces with exact values.
    body = run_trace("x = 1.0\ny = 2.0\nL = " + chain(op, "x", n) + " + y\nM = L\n")
    assert body["output"]["value"] == (n + 2.0 if op == "+" else 3.0)
    assert body["grads"]["x"] == (n if op == "+" else float(n))
    assert body["grads"]["y"] == 1.0


@pytest.mark.parametrize("n", [3_000, 10_000])
def test_a_power_chain_beyond_pythons_parser_is_a_located_error(n):
    # `**` is right-associative: the parser's own stack (MemoryError) gives up, not `ast`.
    e = refused("x = 2.0\ny = 1.0\nL = " + chain("**", "x", n) + "\nM = y\n")
    assert (e.kind, e.line, e.col, e.end_line) == ("too_large", 3, 0, 3)
    assert e.end_col == 4 + 5 * (n - 1) + 1
    assert "split it over several lines" in e.message and e.hint


def test_a_long_chain_on_a_later_line_is_located_there():
    e = refused("x = 2.0\n" + "y = x + x\n" * 3 + "L = " + "-" * 20_000 + "x\n")
    assert (e.kind, e.line, e.col) == ("too_large", 5, 0)


def test_a_long_chain_without_operators_is_parsed_and_its_construct_located():
    # 5,000 subscripts in a row parse on the retry (a chain, walked without recursion); a
    # scalar has no axis to index: the first one is refused by the shape pass
    e = refused("x = 2.0\ny = x\nL = x" + "[0]" * 5_000 + "\n")
    assert (e.kind, e.line, e.col) == ("shape", 3, 4) and "shape ()" in e.message
    body = run_trace("x = [1.0, 2.0]\nL = sum(x" + "[::-1]" * 5_000 + ")\n")
    assert body["grads"]["x"]["data"] == [1.0, 1.0] and len(body["graph"]["nodes"]) == 5_002


def test_a_split_chain_traces():
    half = chain("+", "x", 2_000)
    body = run_trace(f"x = 1.0\ns1 = {half}\ns2 = s1 + {half}\n")
    assert body["output"]["value"] == 4_000.0 and body["grads"]["x"] == 4_000.0
