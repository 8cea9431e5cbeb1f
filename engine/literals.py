"""Big list literals read straight from the program's text, before Python's parser sees them.

A 1024 x 1024 weight matrix written as a literal is a million numbers: `ast.parse` makes a
million AST nodes of it and a walk over them in Python cost 88% of a tensor trace. Here each
big bracketed run of plain numbers is read with a JSON parser (orjson) into a float64 array and
replaced, in the text handed to `ast.parse`, by a parenthesized placeholder name with the same
newlines (`[[1.0, 2.0], ...]` -> `(_gw_list_0\n)`), so every line keeps its number. Where text
follows the literal on its last line, the placeholder is padded with blanks to the literal's
length, so that text keeps its columns; where none does, the placeholder stays short and the
parser maps the one position that moved (where the placeholder ends: the end of every node that
ends with the literal) back to the literal's end (`Lifted.code_end_col`). The parser
(engine/parse.py) treats a placeholder as the literal it stands for, with the literal's own
span.

Only a run that JSON and Python read alike is lifted: digits, signs, points, exponents,
brackets, commas and blanks, at least MIN_CHARS long, balanced, parsed by orjson, rectangular,
non-empty, at most MAX_DIMS deep, and standing where a value stands (after `=`, `(`, `,`, an
operator or a bracket, not after a name as in `x[...]`; not before `=` or `:` as a target). Both read a decimal as the nearest
float64, so the values are those the AST walk gives (tests/engine/test_fast_paths.py compares
whole traces). Everything else is left in the text for the usual path and its error messages.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np
import orjson

from gradwalk.engine.syntax import MAX_DIMS

MIN_CHARS = 256   # a shorter list is parsed as before (as cheap, and no JSON call)
_VALUE_BEFORE = set("=(,[+-*/@")   # what may come before a value (blanks skipped)
# what makes a list a target rather than a value: `[...] = `, `[...] += `, `[...]: ` (Python
# refuses a literal there; a placeholder name it would accept)
_TARGET_AFTER = re.compile(r"[ \t]*(?:(?:\*\*|//|>>|<<|[-+*/@%&|^])?=(?!=)|:)")


@dataclass(frozen=True)
class Lifted:
    """A literal taken out of the text: its value and its place (1-based lines, 0-based
    character columns, end exclusive)."""

    value: np.ndarray
    line: int
    col: int
    end_line: int
    end_col: int
    code_end_col: int   # where the placeholder ends on end_line in the text ast.parse sees


def lift(text: str, min_chars: int | None = None) -> tuple[str, dict[str, Lifted]]:
    """(the text with big list literals replaced by placeholders, placeholder -> Lifted).

    The text is returned unchanged, with no placeholders, when it has no big literal (or is not
    ASCII: `ast` counts columns in bytes, and the page in characters).
    """
    min_chars = MIN_CHARS if min_chars is None else min_chars
    if len(text) < min_chars or "[" not in text or not text.isascii():
        return text, {}
    prefix = _placeholder_prefix(text)
    pieces, lifted, last = [], {}, 0
    cursor = [0, 1]   # a position and its line, so lines are counted once over the text
    for run in _runs(min_chars).finditer(text):
        for start, end in _groups(text, run.start(), run.end(), min_chars):
            if not _stands_for_a_value(text, start) or _TARGET_AFTER.match(text, end):
                continue
            value = read_numbers(text[start:end])
            name = f"{prefix}{len(lifted)}"
            if value is None:
                continue
            short = _ends_its_line(text, end)   # nothing after it to keep in its column
            if not short and not _fits(text, start, end, name):
                continue
            line, col, end_line, end_col = _place(text, start, end, cursor)
            if short:
                stand_in = "(" + name + "\n" * (end_line - line) + ")"
                code_end_col = col + len(stand_in) if end_line == line else 1
            else:
                stand_in, code_end_col = _stand_in(text[start:end], name), end_col
            pieces += [text[last:start], stand_in]
            lifted[name] = Lifted(value, line, col, end_line, end_col, code_end_col)
            last = end
    if not lifted:
        return text, {}
    pieces.append(text[last:])
    return "".join(pieces), lifted


@functools.lru_cache(maxsize=4)
def _runs(min_chars: int) -> re.Pattern:
    """Runs of at least min_chars JSON-number characters."""
    return re.compile(r"[\[\]0-9eE.\-,\s]{%d,}" % min_chars)


def _placeholder_prefix(text: str) -> str:
    """A name prefix that the program does not use."""
    prefix = "_gw_list_"
    while prefix in text:
        prefix = "_" + prefix
    return prefix


def _groups(text: str, start: int, end: int, min_chars: int):
    """(start, end) of each balanced top-level [...] in text[start:end] at least min_chars
    long. Brackets are found with str.find (a memchr scan), each position scanned once."""
    depth, opened = 0, -1
    next_open, next_close = text.find("[", start, end), text.find("]", start, end)
    while next_open >= 0 or next_close >= 0:
        if next_open >= 0 and (next_close < 0 or next_open < next_close):
            if depth == 0:
                opened = next_open
            depth += 1
            next_open = text.find("[", next_open + 1, end)
            continue
        i = next_close
        next_close = text.find("]", i + 1, end)
        if depth > 0:
            depth -= 1
            if depth == 0 and i + 1 - opened >= min_chars:
                yield opened, i + 1


def _stands_for_a_value(text: str, start: int) -> bool:
    i = start - 1
    while i >= 0 and text[i] in " \t\n":
        i -= 1
    return i >= 0 and text[i] in _VALUE_BEFORE


def read_numbers(source: str) -> np.ndarray | None:
    """A JSON array of numbers as a float64 array with 1 to MAX_DIMS axes and an element, or
    None (not JSON, ragged, empty, too deep, too large for float64)."""
    try:
        value = np.array(orjson.loads(source), dtype=np.float64)
    except (orjson.JSONDecodeError, ValueError, TypeError, OverflowError):
        return None
    if value.ndim == 0 or value.size == 0 or value.ndim > MAX_DIMS:
        return None
    return value


def _fits(text: str, start: int, end: int, name: str) -> bool:
    """The padded placeholder `(name` fits on the literal's first line."""
    first_end = text.find("\n", start, end)
    return (end if first_end < 0 else first_end) - start >= len(name) + 2


def _ends_its_line(text: str, end: int) -> bool:
    """Only blanks follow `end` on its line."""
    newline = text.find("\n", end)
    return not text[end:len(text) if newline < 0 else newline].strip()


def _stand_in(source: str, name: str) -> str:
    """`(name)` padded with blanks to the literal's exact shape: same lines, same lengths."""
    blanked = "\n".join(" " * len(line) for line in source.split("\n"))
    return "(" + name + blanked[len(name) + 1:-1] + ")"


def _place(text: str, start: int, end: int, cursor: list[int]) -> tuple[int, int, int, int]:
    """Line and column of start and end; cursor = [position, its line], moved to end."""
    line = cursor[1] + text.count("\n", cursor[0], start)
    col = start - (text.rfind("\n", 0, start) + 1)
    end_line = line + text.count("\n", start, end)
    end_col = end - (text.rfind("\n", 0, end) + 1)
    cursor[0], cursor[1] = end, end_line
    return line, col, end_line, end_col
