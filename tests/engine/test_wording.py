"""Issue 14, section 5: counts in messages are plural by count ("the left has 2 columns,
the right 1 rows" read wrong)."""
from __future__ import annotations

import pytest

from gradwalk.engine.errors import ProgramError
from gradwalk.engine.trace.runner import Tracer, run_trace
from gradwalk.engine.wording import counted


def test_counted():
    assert [counted(1, "row"), counted(2, "row"), counted(0, "row")] == ["1 row", "2 rows", "0 rows"]
    assert counted(1, "axis", "axes") == "1 axis" and counted(3, "axis", "axes") == "3 axes"
    assert counted(1200, "element") == "1,200 elements"


def message(program: str, **kwargs) -> str:
    with pytest.raises(ProgramError) as info:
        Tracer(program) if not kwargs else run_trace(program, **kwargs)
    return info.value.message


@pytest.mark.parametrize("program, words", [
    # the input: 2 columns against 1 row
    ("X = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]\nW = [[1.0, 2.0]]\nY = X @ W\n",
     "the left has 2 columns, the right 1 row"),
    ("X = [[1.0], [2.0]]\nW = [[1.0, 2.0], [3.0, 4.0]]\nY = X @ W\n",
     "the left has 1 column, the right 2 rows"),
    ("a = [1.0, 2.0]\nb = a[0, 1]\n", "2 indices for shape (2,), which has 1 axis"),
    ("a = [[1.0, 2.0]]\nb = transpose(a, (0, 1, 2))\n", "(2 axes)"),
    ("a = [1.0]\nb = reshape(a, 2, 2)\n", "(1 element)"),
])
def test_shape_messages_count_in_the_singular_and_the_plural(program, words):
    assert words in message(program)


def test_cross_entropy_counts_its_rows_and_indices():
    text = message("Z = [[1.0, 2.0]]\nL = cross_entropy(Z, [0, 1])\n")
    assert "hold 1 row but 2 class indices were given" in text, text
    text = message("Z = [[1.0, 2.0], [3.0, 4.0]]\nL = cross_entropy(Z, [0])\n")
    assert "hold 2 rows but 1 class index was given" in text, text


def test_a_list_times_one_is_not_said_to_repeat_it_1_times():
    trace = run_trace("x = [1.0, 2.0] * 1\nL = sum(x)\n")
    said = " ".join(w["message"] for w in trace["warnings"])
    assert "repeat the list 1 time," in said, said
