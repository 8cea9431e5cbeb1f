"""The program's floating-point type: float64 by default, float32 on request.

A program asks for float32 with a comment on its first line, `# dtype: float32` (in any
case: `# DTYPE: Float32`); a caller
(the API's `dtype` field, the CLI's `--dtype`) may ask too. Every literal, leaf helper, value
and gradient of the trace is then of that type (engine/parse.py casts the literals; numpy keeps
float32 through every op; the tracer's Python-float path for scalars is float64 and is used by
float64 programs only: engine/trace/tracer.py).
"""
from __future__ import annotations

import re

import numpy as np

from gradwalk.engine.errors import ProgramError

DTYPES = {"float64": np.dtype(np.float64), "float32": np.dtype(np.float32)}
DEFAULT = "float64"
# case-insensitive, as `# DTYPE: Float32` means the same to a reader (not silently float64)
_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*dtype[ \t]*:[ \t]*(?P<value>.*?)[ \t]*$", re.M | re.I)
_LARGEST = {"float64": "1.8e308", "float32": "3.4e38"}


def program_dtype(text: str, requested: str | None = None) -> str:
    """The dtype name a program runs in: `requested`, else its first line's `# dtype: NAME`,
    else float64.

    Raises ProgramError "bad_argument": an unknown dtype (at the comment's value), a `# dtype:`
    comment on a later line (it must be the first), a request that contradicts the comment,
    an unknown requested dtype (no place in the text).
    """
    if requested is not None and requested not in DTYPES:
        raise ProgramError("bad_argument", f"unknown dtype {requested!r}; the dtypes are "
                           "float64 (the default) and float32")
    directives = _DIRECTIVE.finditer(text) if "dtype" in text.lower() else iter(())
    found = next(directives, None)
    if found is None:
        return requested or DEFAULT
    line = text.count("\n", 0, found.start()) + 1
    later = next(directives, None) if line == 1 else None
    if later is not None:   # one directive, on the first line
        found, line = later, text.count("\n", 0, later.start()) + 1
    col = found.start("value") - found.start()
    written = found.group("value")
    value = written.lower()
    where = dict(line=line, col=col, end_line=line, end_col=col + len(value))
    if line != 1:
        raise ProgramError("bad_argument", "a `# dtype:` comment must be the program's first "
                           "line", **where)
    if value not in DTYPES:
        raise ProgramError("bad_argument", f"unknown dtype `{written[:24]}`; the dtypes are "
                           "float64 (the default) and float32", **where)
    if requested is not None and requested != value:
        raise ProgramError("bad_argument", f"the program's first line asks for {value} but the "
                           f"request asks for {requested}", **where,
                           hint="drop one of them")
    return value


def cast(value: np.ndarray, dtype: str) -> np.ndarray | None:
    """A float64 array in `dtype`, or None when a finite number does not fit (it would become
    infinite: 1e39 in float32)."""
    if dtype == DEFAULT:
        return value
    with np.errstate(over="ignore"):
        out = value.astype(DTYPES[dtype])
    if not np.isfinite(out).all() and (np.isfinite(out) != np.isfinite(value)).any():
        return None
    return out


def too_large(dtype: str) -> str:
    return f"a number is too large for {dtype} (the largest is about {_LARGEST[dtype]})"
