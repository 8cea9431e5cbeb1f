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
