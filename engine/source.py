"""The program's text, for locating nodes: UTF-8 byte columns to character columns, bounded
slices for labels, and where to point when Python's parser gives up without a location.

Every lookup costs O(log n) or the length of what it returns, never the length of the line, so
a 2,000,000-character line with thousands of nodes is as cheap to locate as a short one.
"""
from __future__ import annotations

import ast
import bisect
import re
import sys
import threading
import warnings
from dataclasses import dataclass

from gradwalk.engine.clip import clip  # noqa: F401  (also imported from here: user text in messages)
from gradwalk.engine import pasted
from gradwalk.engine.errors import ProgramError

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_OPERATOR = re.compile(r"\*\*|[-+*/@~]|\.\s*[A-Za-z_]")


class Lines:
    """The program split at `\\n` (after `\\r\\n` and `\\r` were made `\\n`)."""

    def __init__(self, text: str):
        self.lines = text.split("\n")
        self.ascii = text.isascii()   # then every byte column is a character column
        self._extra: dict[int, tuple[list[int], list[int]]] = {}

    def line(self, line: int) -> str:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""

    def char_col(self, line: int, byte_col: int) -> int:
        """`ast` counts columns in UTF-8 bytes; the page counts characters (code points)."""
        if self.ascii:   # every line is ASCII: a byte column is a character column
            return byte_col
        text = self.line(line)
        if text.isascii():
            return byte_col
        starts, extra = self._extra_bytes(line, text)
        # characters before byte_col = bytes before it minus the extra bytes of the non-ASCII
        # characters that start before it
        k = bisect.bisect_left(starts, byte_col)
        return byte_col - (extra[k - 1] if k else 0)

    def _extra_bytes(self, line: int, text: str) -> tuple[list[int], list[int]]:
        """For each non-ASCII character: its byte offset, and the running count of extra bytes
        (beyond one per character) up to and including it. Computed once per line."""
        if line not in self._extra:
            starts, extra, total = [], [], 0
            for m in _NON_ASCII.finditer(text):
                starts.append(m.start() + total)
                total += len(m.group().encode("utf-8", "surrogatepass")) - 1
                extra.append(total)
            self._extra[line] = (starts, extra)
        return self._extra[line]

    def segment(self, line: int, col: int, end_line: int, end_col: int) -> str:
        """The text of a range (1-based lines, 0-based columns of `line` and `end_line`)."""
        if line == end_line:
            return self.line(line)[col:end_col]
        return "\n".join([self.line(line)[col:], *self.lines[line:end_line - 1],
                          self.line(end_line)[:end_col]])

    def clipped(self, line: int, col: int, end_line: int, end_col: int, most: int) -> str | None:
        """The source text of a one-line range, at most `most` characters (engine/clip.py: cut
        between tokens, brackets closed); None for a range over several lines."""
        if line != end_line:
            return None
        # a bounded slice: a label never costs the length of a long line
        return clip(self.line(line)[col:min(end_col, col + 4 * most)], most)

    def busiest_line(self) -> tuple[int, int, int, int]:
        """(line, col, end_line, end_col) of the line with the most operators: where to point
        when Python's parser refuses an expression as too deep without saying where."""
        counts = [len(_OPERATOR.findall(t)) if len(t) > 2 else 0 for t in self.lines]
        if not any(counts):   # a chain of something else (a[0][0]..., f()()...): the longest
            counts = [len(t) for t in self.lines]
        best = max(range(len(counts)), key=counts.__getitem__)
        text = self.lines[best]
        start = len(text) - len(text.lstrip())
        return best + 1, start, best + 1, len(text)




# CPython 3.11's ast module keeps its recursion counter in interpreter-wide state, so two threads
# in ast.parse at once can fail with "SystemError: AST constructor recursion depth mismatch"
# (seen with the server's worker threads): one parse at a time.
_AST_LOCK = threading.Lock()


def python_ast(text: str, lines: Lines) -> ast.Module:
    """Python's own parse of the text (exec mode), its refusals as located ProgramErrors."""
    try:
        # Python's compiler warns about some user text (`"\="`, `1if x`): SyntaxWarning and
        # DeprecationWarning on the server's stderr, once per request. The program's errors are
        # what we report; its warnings are dropped. (catch_warnings is process-wide: the lock
        # keeps two parses from restoring each other's filters.)
        with _AST_LOCK, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return _parse_in_pieces(text)
            except RecursionError:
                return _deep_parse(text)
    except SyntaxError as e:
        if "digits" in str(e.msg):   # an integer literal of thousands of digits
            raise ProgramError("bad_argument", "a number has too many digits (more than "
                               "4,300)", *first_long_number(text)) from None
        if e.lineno is None:   # e.g. a null byte: locate it ourselves
            raise ProgramError("syntax", str(e.msg), *first_bad_char(text)) from None
        # Python may point one past a line's end (the newline after a stray `\`, as in
        # `a = 1.\` then `\ = -0.5`): the column is kept within the line the page shows
        width = len(lines.line(e.lineno))
        col = min(max((e.offset or 1) - 1, 0), width)
        end_col = (e.end_offset - 1) if e.end_offset and e.end_lineno == e.lineno else None
        end_col = None if end_col is None else min(end_col, width)
        if end_col is not None and end_col < col:
            end_col = None
        raise ProgramError("syntax", str(e.msg), e.lineno, col,
                           e.end_lineno, end_col, hint=pasted.hint(str(e.msg))) from None
    except UnicodeError:
        raise ProgramError("syntax", "the program contains an invalid character (a lone "
                           "surrogate)", *first_bad_char(text)) from None
    except (MemoryError, RecursionError):
        # Python's parser (MemoryError: its stack) or its conversion to `ast` objects
        # (RecursionError: depth over 3 x sys.getrecursionlimit()) gave up on an expression
        # a few thousand operators deep, without a location.
        raise ProgramError(
            "too_large", "this expression is too long for Python's parser (it takes about "
            "thousands of `**` or unary signs in a row); split it over several lines", *lines.busiest_line(),
            hint="e.g. s1 = x + x + ... + x, then s2 = s1 + x + ... + x") from None
    except ValueError as e:   # null bytes
        raise ProgramError("syntax", f"cannot parse the program: {e}", *first_bad_char(text))


# One ast.parse call holds the GIL from start to end: a 60,000-line program took 1.0-1.5 s, in
# which no other thread of the process ran (the server's event loop, its health check: issue
# 14). Parsed in pieces of about PIECE_CHARS, it lets them in between: 40 pieces of 20 ms at
# the median, 36 ms at most, 0.82 s in all against 1.38 s for the whole text at once.
PIECE_CHARS = 32 * 1024
_CONTINUES = ("else", "elif", "except", "finally")   # a line that cannot start a piece


def _parse_in_pieces(text: str) -> ast.Module:
    """ast.parse(text), made piece by piece where the text can be cut between top-level
    statements: a piece starts at a line that starts a statement at column 0. A piece that does
    not parse alone (a bracket, a string or a backslash across its edge) means the whole text
    is parsed at once instead, so the result and any error are exactly ast.parse's. Each piece
    is parsed behind as many newlines as lines come before it, so line numbers are the text's.
    Raises what ast.parse raises."""
    if len(text) <= PIECE_CHARS:
        return ast.parse(text, mode="exec")
    body: list[ast.stmt] = []
    for lines_before, piece in _pieces(text):
        try:
            body += ast.parse("\n" * lines_before + piece, mode="exec").body
        except SyntaxError:
            return ast.parse(text, mode="exec")
    return ast.Module(body=body, type_ignores=[])


def _pieces(text: str):
    """(lines before it, piece) of about PIECE_CHARS each, cut before a line at column 0 that
    is neither blank, a comment, a closing bracket nor a clause (else, elif, ...), and not
    after a backslash."""
    start, lines_before = 0, 0
    while start < len(text):
        cut = text.find("\n", start + PIECE_CHARS)
        while cut != -1 and not _starts_statement(text, cut):
            cut = text.find("\n", cut + 1)
        end = len(text) if cut == -1 else cut + 1
        yield lines_before, text[start:end]
        lines_before += text.count("\n", start, end)
        start = end


def _starts_statement(text: str, newline: int) -> bool:
    nxt = text[newline + 1:newline + 2]
    return (nxt != "" and nxt not in " \t\n#)]}\\" and text[newline - 1:newline] != "\\"
            and not text.startswith(_CONTINUES, newline + 1))


# A left-associative chain `x + x + ... + x` is as deep as it is long, and CPython 3.11 turns
# its parse into `ast` objects recursively (depth at most 3 x sys.getrecursionlimit()). Such a
# program is parsed again on a thread of its own with a stack big enough for the longest line
# the program limit allows (500,000 terms took 7 s and under 256 MB of stack here), with the
# recursion limit raised only while that one parse runs (callers hold _AST_LOCK).
_DEEP_STACK_BYTES = 512 * 1024 * 1024
_DEEP_RECURSION_LIMIT = 1_000_000


def _deep_parse(text: str) -> ast.Module:
    """ast.parse on a big-stack thread. Raises what ast.parse raises (SyntaxError, MemoryError:
    the parser's own stack, e.g. for thousands of `**` or unary minus in a row)."""
    result: dict = {}

    def work() -> None:
        try:
            result["tree"] = ast.parse(text, mode="exec")
        except BaseException as e:   # noqa: BLE001 - handed to the calling thread
            result["error"] = e

    old_limit, old_stack = sys.getrecursionlimit(), threading.stack_size()
    sys.setrecursionlimit(_DEEP_RECURSION_LIMIT)
    try:
        threading.stack_size(_DEEP_STACK_BYTES)   # read when the thread starts
        worker = threading.Thread(target=work, name="gradwalk-deep-parse")
        try:
            worker.start()
        finally:
            threading.stack_size(old_stack)
        worker.join()
    finally:
        sys.setrecursionlimit(old_limit)
    if "error" in result:
        raise result["error"]
    return result["tree"]


def first_long_number(text: str) -> tuple[int, int, int, int]:
    """Line, column and end of the first run of more than 4,300 digits."""
    for i, line in enumerate(text.split("\n"), 1):
        m = re.search(r"\d{4301,}", line)
        if m:
            return i, m.start(), i, m.end()
    return 1, 0, 1, 0


def first_bad_char(text: str) -> tuple[int, int]:
    """Line and column of the first character `ast` cannot take (a null byte or a lone UTF-16
    surrogate), else (1, 0)."""
    for i, line in enumerate(text.split("\n"), 1):
        for j, ch in enumerate(line):
            if ch == "\x00" or "\ud800" <= ch <= "\udfff":
                return i, j
    return 1, 0


@dataclass(slots=True)
class Span:
    """Source range: 1-based lines, 0-based character columns, end_col exclusive."""

    line: int
    col: int
    end_line: int
    end_col: int

    def to_dict(self) -> dict:
        return {"line": self.line, "col": self.col, "end_line": self.end_line,
                "end_col": self.end_col}
