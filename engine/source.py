"""The program's text, for locating nodes: UTF-8 byte columns to character columns, bounded
slices for labels, and where to point when Python's parser gives up without a location.

Every lookup costs O(log n) or the length of what it returns, never the length of the line, so
a 2,000,000-character line with thousands of nodes is as cheap to locate as a short one.
"""
from __future__ import annotations

import bisect
import re

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_OPERATOR = re.compile(r"\*\*|[-+*/@~]|\.\s*[A-Za-z_]")


class Lines:
    """The program split at `\\n` (after `\\r\\n` and `\\r` were made `\\n`)."""

    def __init__(self, text: str):
        self.lines = text.split("\n")
        self._extra: dict[int, tuple[list[int], list[int]]] = {}

    def line(self, line: int) -> str:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""

    def char_col(self, line: int, byte_col: int) -> int:
        """`ast` counts columns in UTF-8 bytes; the page counts characters (code points)."""
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

    def clipped(self, line: int, col: int, end_line: int, end_col: int, most: int) -> str | None:
        """The source text of a one-line range, at most `most` characters (cut with "…");
        None for a range over several lines."""
        if line != end_line:
            return None
        text = self.line(line)
        if end_col - col <= most:
            return text[col:end_col]
        return text[col:col + most - 1].rstrip() + "…"

    def busiest_line(self) -> tuple[int, int, int, int]:
        """(line, col, end_line, end_col) of the line with the most operators: where to point
        when Python's parser refuses an expression as too deep without saying where."""
        counts = [len(_OPERATOR.findall(t)) if len(t) > 2 else 0 for t in self.lines]
        best = max(range(len(counts)), key=counts.__getitem__)
        text = self.lines[best]
        start = len(text) - len(text.lstrip())
        return best + 1, start, best + 1, len(text)


def clip(text: str, most: int = 24) -> str:
    """User text quoted in a message or a symbol, at most `most` characters (cut with "…")."""
    return text if len(text) <= most else text[:most - 1] + "…"
