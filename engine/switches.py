"""The bug lab's switches (issue 9, section 4): their names, the program's `# bugs:` directive,
and the checks that refuse a switch by name or a switch that has nothing to change.

A switch makes the backward pass misbehave the way hand-written engines do; what each one does
is engine/trace/bugs.py. A program names its switches in a comment before its first statement,

    # bugs: overwrite, wrong_order

so a permalink (which carries the program text) keeps the bug; a request names them in its
`bugs` field (the API, the CLI's `--bug`). The two are merged.
"""
from __future__ import annotations

import re

from gradwalk.engine.errors import ProgramError

SWITCHES = {
    "overwrite": "`=` where `+=` belongs: each contribution replaces the input's adjoint "
                 "instead of adding to it, so a value used twice keeps only one path's share",
    "wrong_order": "nodes visited in forward (creation) order instead of reverse topological "
                   "order, so a node passes on its adjoint before its consumers have added to it",
    "no_zero_grad": "two backward passes without zeroing: the leaves' .grad accumulates across "
                    "them, as in PyTorch, so every gradient is doubled",
    "zero_grad": "the fix of no_zero_grad: the same two backward passes with zero_grad() "
                 "between them, so the gradients are those of one pass",
    "inplace": "no version counter: a backward rule reads a tensor that an in-place update "
               "(`x += ...`) changed after the rule saved it, and gives a silently wrong "
               "gradient (without the switch the engine raises as PyTorch does)",
}
EXCLUSIVE = (("no_zero_grad", "zero_grad"),)   # pairs that cannot be on together
_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*bugs[ \t]*:(?P<value>[^\n]*)$", re.M)


def listing() -> str:
    return ", ".join(SWITCHES)


def check(names, field: str = "bugs") -> tuple[str, ...]:
    """The switches `names` (an iterable of str) in a fixed order, without repeats.

    Raises ProgramError "bad_argument" naming the field for an unknown switch (the switches
    listed) and for two switches that exclude each other.
    """
    names = tuple(names)
    for name in names:
        if name not in SWITCHES:
            shown = name[:24] if isinstance(name, str) else repr(name)[:24]
            raise ProgramError("bad_argument", f"{field}: unknown switch `{shown}`; the "
                               f"switches are {listing()}")
    return _ordered(names)


def _ordered(names) -> tuple[str, ...]:
    chosen = tuple(s for s in SWITCHES if s in names)
    for a, b in EXCLUSIVE:
        if a in chosen and b in chosen:
            raise ProgramError("bad_argument", f"bugs: `{a}` and `{b}` cannot both be on "
                               f"({b} is the fix of {a})")
    return chosen


def program_bugs(text: str, first_statement_line: int | None
                 ) -> tuple[tuple[str, ...], tuple[int, int] | None]:
    """(the switches a program's `# bugs: a, b` comment names, (the comment's line, its
    length in characters)): ((), None) without one.

    The comment must come before the first statement (the program's header, with the
    `# dtype:` line). Raises ProgramError "bad_argument", located at the comment's value, for
    an unknown switch, a comment after the first statement, or an empty list.
    """
    if "bugs" not in text:
        return (), None
    names: list[str] = []
    for found in _DIRECTIVE.finditer(text):
        line = text.count("\n", 0, found.start()) + 1
        value = found.group("value")
        col = found.start("value") - found.start() + len(value) - len(value.lstrip())
        where = dict(line=line, col=col, end_line=line, end_col=col + len(value.strip()))
        if first_statement_line is not None and line > first_statement_line:
            raise ProgramError("bad_argument", "a `# bugs:` comment must come before the "
                               "program's first statement", **where)
        items = [v.strip() for v in value.split(",")]
        if not any(items):
            raise ProgramError("bad_argument", f"`# bugs:` names no switch; the switches are "
                               f"{listing()}", **where)
        for item in items:
            if item not in SWITCHES:
                at = value.find(item) if item else 0
                start = found.start("value") - found.start() + max(at, 0)
                raise ProgramError("bad_argument", f"unknown bug switch `{item[:24]}`; the "
                                   f"switches are {listing()}", line=line, col=start,
                                   end_line=line, end_col=start + max(len(item), 1))
            names.append(item)
    if not names:
        return (), None
    first = _DIRECTIVE.search(text)
    s, length = text.count("\n", 0, first.start()) + 1, first.end() - first.start()
    try:
        return _ordered(names), (s, length)
    except ProgramError as e:
        e.line, e.col, e.end_line, e.end_col = s, 0, s, length
        raise
