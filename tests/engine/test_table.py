"""The backward-pass table (engine/trace/table.py): one set of rows, three layouts."""
from __future__ import annotations

import json

import pytest

from gradwalk.engine.trace.runner import Limits, trace_json
from gradwalk.engine.trace.table import render_markdown, render_table, results, rows
from helpers import case


def body(case_id: str, inline: int = 64) -> dict:
    return json.loads(trace_json(case(case_id)["program"], None, Limits(inline=inline)))


@pytest.fixture(scope="module")
def fanout() -> dict:
    return body("seed-tanh-fanout")


def test_rows_of_the_fanout_example(fanout):
    assert rows(fanout) == [
        ("L = t * c", "c = 2 for t, t = 0.4621 for c", "1", "dL/dt += 2, dL/dc += 0.4621"),
        ("t = tanh(d)", "1 - t² = 0.7864 for d", "2", "dL/dd += 1.5729"),
        ("d = e + a", "1 for e, 1 for a", "1.5729", "dL/de += 1.5729, dL/da += 1.5729"),
        ("e = a * b", "b = -0.5 for a, a = 1 for b", "1.5729", "dL/da += -0.7864, dL/db += 1.5729"),
    ]
    # a is used twice: its adjoint 0.7864 is the sum of the two contributions it was sent.
    assert results(fanout) == ["L = 0.9242", "dL/da = 0.7864", "dL/db = 1.5729", "dL/dc = 0.4621"]


def test_text_table_keeps_its_columns(fanout):
    lines = render_table(fanout).splitlines()
    assert lines[0].startswith("Node         Local slopes")
    assert lines[5] == ("e = a * b    b = -0.5 for a, a = 1 for b    1.5729             "
                        "dL/da += -0.7864, dL/db += 1.5729")
    assert lines[-3:] == ["dL/da = 0.7864", "dL/db = 1.5729", "dL/dc = 0.4621"]


def test_markdown(fanout):
    md = render_markdown(fanout).splitlines()
    assert md[0] == ("| Node        | Local slopes                  | Upstream gradient |"
                     " Gradients it sends back           |")
    assert set(md[1]) == {"|", " ", "-"}
    # `*` is escaped, or "t * c" could turn into emphasis with a neighbour.
    assert md[2] == ("| L = t \\* c  | c = 2 for t, t = 0.4621 for c | 1                 |"
                     " dL/dt += 2, dL/dc += 0.4621       |")
    assert md[5].startswith("| e = a \\* b  | b = -0.5 for a, a = 1 for b   | 1.5729 ")
    assert md[6:] == ["", "- L = 0.9242", "- dL/da = 0.7864", "- dL/db = 1.5729", "- dL/dc = 0.4621"]


def test_tensors_print_their_numbers_up_to_the_inline_limit():
    b = body("seed-matmul-2x2")
    table = dict((r[0], r) for r in rows(b))
    # The seed's hand results: dL/dX = G W^T, dL/dW = X^T G.
    assert "dL/dX += [[17, 23], [-5, -7]]" in table["Y = X @ W"][3]
    assert "dL/dW += [[-2, 2], [-2, 4]]" in table["Y = X @ W"][3]
    assert table["L = sum(G * Y)"][2] == "1"
    assert "dL/dX = [[17, 23], [-5, -7]]" in results(b)
    # Over the limit a tensor is its shape.
    small = body("seed-matmul-2x2", inline=3)
    assert "dL/dX += [2×2]" in dict((r[0], r) for r in rows(small))["Y = X @ W"][3]


def test_a_slope_of_ones_is_written_once():
    b = body("seed-bias-broadcast")
    adds = dict((r[0], r) for r in rows(b))["X @ W + b"]
    assert adds[1] == "1 for (X @ W), 1 for b"
    assert adds[3].endswith("dL/db += [0.0044, 0.143]")


def test_markdown_escapes():
    from gradwalk.engine.trace.table import _md
    assert _md("a*b | y_hat <x> `c` [[1, 2]]") == r"a\*b \| y\_hat \<x\> \`c\` [[1, 2]]"
