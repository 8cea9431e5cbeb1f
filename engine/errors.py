"""The one error type a user's program can cause."""
from __future__ import annotations

from dataclasses import dataclass

# The one form every place writes an error in (issue 14 §5): where, the kind's words, then the
# message, which never repeats the kind: "line 1, column 5: syntax error: '(' was never
# closed", "line 2, column 5: unsupported: unknown function `foo`". The page's error box
# (static/js/format.js kindWords, the same words) and the widget write the same.
_WORDS = {"syntax": "syntax error"}


def kind_words(kind: str) -> str:
    """The words a kind is written in: `unknown_name` -> "unknown name", `syntax` ->
    "syntax error"."""
    return _WORDS.get(kind, kind.replace("_", " "))


@dataclass
class ProgramError(ValueError):
    """A problem in the user's program, located in its text.

    A ValueError, as json.JSONDecodeError is: the program is the value refused (the Python
    API's rule, __init__.py: TypeError for an argument's type, ValueError for its value).

    `line` is 1-based, `col` 0-based (as Python's `ast` counts); `end_line`/`end_col` close the
    range when known. `kind` is one of the kinds listed in docs/trace-format.md. `hint` says
    what to do about it, where there is something useful to say (else None).
    """

    kind: str
    message: str
    line: int | None = None
    col: int | None = None
    end_line: int | None = None
    end_col: int | None = None
    hint: str | None = None

    def __str__(self) -> str:
        """The error's one line (the CLI's): "line 2, column 5: unsupported: unknown function
        `foo`"."""
        where = f"line {self.line}, column {self.col + 1}: " if self.line is not None else ""
        return f"{where}{kind_words(self.kind)}: {self.message}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "message": self.message, "line": self.line, "col": self.col,
                "end_line": self.end_line, "end_col": self.end_col, "hint": self.hint}
