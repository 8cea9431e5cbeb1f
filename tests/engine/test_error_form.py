"""One form for every error (issue 14 §5): where, the kind's words, the message, which never
repeats the kind. "syntax error: ..." and "unknown name `y`" carried their kind in the
message and the page's box then left its kind out for them only."""
from __future__ import annotations

import pytest

from gradwalk.engine.errors import ProgramError, kind_words
from gradwalk.engine.trace.runner import run_trace


@pytest.mark.parametrize("program, kind, line", [
    ("x = 1.0\nL = (x\n", "syntax", "line 2, column 5: syntax error: '(' was never closed"),
    ("x = 1.0\nL = y * x\n", "unknown_name", "line 2, column 5: unknown name: `y` is not defined"),
    ("x = 1.0\nL = foo(x)\n", "unsupported", "line 2, column 5: unsupported: unknown function `foo`"),
    ("a = [1.0, 2.0]\nb = [1.0, 2.0, 3.0]\nL = sum(a + b)\n", "shape",
     "line 3, column 9: shape: a + b: shapes (2,) and (3,) cannot be broadcast together"),
])
def test_every_error_is_where_kind_then_message(program, kind, line):
    with pytest.raises(ProgramError) as e:
        run_trace(program)
    assert e.value.kind == kind
    assert str(e.value).startswith(line), str(e.value)
    assert not e.value.message.lower().startswith(kind_words(kind).split()[0])


def test_a_limits_hint_opens_no_bracket_inside_the_one_it_is_written_in():
    """The CLI writes `message (hint)`; a hint that said "(the setting is ...)" read
    "... passed at x (trace fewer nodes or smaller tensors (the setting is ...))" (review of
    454e759). Each limit's hint names its setting after a semicolon."""
    from gradwalk.engine.trace.limits import Limits
    from gradwalk.server.cli import _program_error
    program = "x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 50 + "L = x\n"
    with pytest.raises(ProgramError) as e:
        run_trace(program, limits=Limits(max_response_bytes=10))
    line = _program_error("chain.py", e.value)
    assert line.endswith("(trace fewer nodes or smaller tensors; the setting is "
                         "GRADWALK_MAX_RESPONSE_BYTES)"), line
    assert line.count("(") == line.count(")") and "((" not in line.replace(" ", "")


def test_the_size_limit_is_located_at_an_operation_never_at_a_number():
    """"passed at 1.0001" (review of 454e759): where the running size passes the limit on a
    constant, the error names the operation that takes it."""
    import re
    from gradwalk.engine.trace.limits import Limits
    program = "x = 1.0\n" + "x = x * 1.0001 + 0.001\n" * 300 + "L = x\n"
    places = set()
    for limit in range(20_000, 40_000, 97):
        with pytest.raises(ProgramError) as e:
            run_trace(program, limits=Limits(max_response_bytes=limit))
        places.add(str(e.value).rsplit("passed at ", 1)[1])
    assert "x⁽¹²⁾ * 1.0001" in places, places
    assert not [p for p in places if re.fullmatch(r"[\d.]+", p)], places
