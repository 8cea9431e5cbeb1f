"""A program's second-order header (issue 9, section 2): the `# hvp:` and `# hessian:`
comments before its first statement, so a permalink or a preset keeps what it asks for.

    # hvp: {"a": 1.0, "b": 0.0}          trace in hvp mode with this vector (when the request
                                         asks for the default reverse mode and names no vector)
    # hessian: full                      the body gains `hessian` (at most 50 scalar inputs)
    # hessian: power_iteration 20        the body gains `eigen`: the largest (in magnitude)
                                         Hessian eigenvalue by 20 steps of power iteration
    # hessian: full, power_iteration 20  both

What the results are and how they are computed: engine/trace/hvp.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import orjson

from gradwalk.engine.errors import ProgramError

MAX_ITERATIONS = 100
"""power_iteration takes at most this many steps (each one Hessian-vector product: one pass
over the backward graph)."""
_HEADER = re.compile(r"^[ \t]*#[ \t]*(?P<key>hvp|hessian)[ \t]*:(?P<value>[^\n]*)$", re.M)
_POWER = re.compile(r"^power_iteration(?:[ \t]+(?P<n>\S+))?$")


@dataclass(frozen=True)
class SecondOrder:
    """vector: the `# hvp:` vector ({leaf: number or nested list}) or None.
    full: the full Hessian is asked for. power_iteration: the number of power-iteration steps
    (0: none). vector_where, hessian_where: the `# hvp:` and `# hessian:` values' places
    {line, col, end_line, end_col}, for an error about them."""

    vector: dict | None = None
    full: bool = False
    power_iteration: int = 0
    vector_where: dict | None = None
    hessian_where: dict | None = None

    def located(self, error: ProgramError, key: str) -> ProgramError:
        """`error` about the `# hvp:` (key "hvp") or `# hessian:` line's value, located at
        that line when it has no place of its own (a name in the vector that is not a leaf,
        too many inputs for the full Hessian); else `error` as it is."""
        where = self.vector_where if key == "hvp" else self.hessian_where
        if error.line is not None or where is None:
            return error
        return ProgramError(error.kind, f"the `# {key}:` line (line {where['line']}): "
                            f"{error.message}", hint=error.hint, **where)


def read(text: str, first_statement_line: int | None) -> SecondOrder | None:
    """The program's second-order header, or None without one.

    Raises ProgramError "bad_argument", located at the comment's value, for a comment after
    the first statement, a `# hvp:` value that is not a JSON object, or a `# hessian:` item
    other than `full` and `power_iteration N` (1 <= N <= MAX_ITERATIONS).
    """
    if "hvp" not in text and "hessian" not in text:
        return None
    vector, full, steps, found_any, vector_where = None, False, 0, False, None
    hessian_where = None
    for found in _HEADER.finditer(text):
        found_any = True
        line = text.count("\n", 0, found.start()) + 1
        value = found.group("value")
        col = found.start("value") - found.start() + len(value) - len(value.lstrip())
        where = dict(line=line, col=col, end_line=line, end_col=col + len(value.strip()))
        key = found.group("key")
        if first_statement_line is not None and line > first_statement_line:
            raise ProgramError("bad_argument", f"a `# {key}:` comment must come before the "
                               "program's first statement", **where)
        if key == "hvp":
            vector, vector_where = _vector(value, where), where
            continue
        hessian_where = where
        for item in (v.strip() for v in value.split(",")):
            if item == "full":
                full = True
                continue
            match = _POWER.match(item)
            if match is None:
                raise ProgramError("bad_argument", f"`# hessian:` takes `full` or "
                                   f"`power_iteration N`, not `{item[:24]}`", **where)
            steps = _steps(match.group("n"), where)
    return SecondOrder(vector, full, steps, vector_where, hessian_where) if found_any \
        else None


def _vector(value: str, where: dict) -> dict:
    try:
        vector = orjson.loads(value.strip() or "null")
    except orjson.JSONDecodeError:
        vector = None
    if not isinstance(vector, dict):
        raise ProgramError("bad_argument", "`# hvp:` takes the vector as a JSON object "
                           '{leaf: value}, e.g. `# hvp: {"a": 1.0}`', **where)
    return vector


def _steps(text: str | None, where: dict) -> int:
    try:
        n = int(text) if text is not None else 20
    except ValueError:
        n = 0
    if not 1 <= n <= MAX_ITERATIONS:
        raise ProgramError("bad_argument", f"power_iteration takes a number of steps from 1 "
                           f"to {MAX_ITERATIONS}", **where)
    return n
