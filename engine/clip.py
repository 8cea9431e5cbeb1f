"""Text cut to a width without leaving it unreadable (issue 14: `gelu(z, approximate="ta…`
left its brackets and its string open, and every symbol built on it, `∂L/∂(gelu(z,
approximate="ta…)`, read wrong). The page clips the same way (static/js/clip.js).

The cut falls at a token boundary (never inside a name, a number or a string's word), drops
the openers and separators it would end on (an operator stays: `a + …` is a sum), and closes every bracket and quote the kept part
opened, after the "…": `gelu(z, approximate…)`. A trailing repeat count (" ×50", a group's
title, engine/groups.py) is kept whole. Only a single token longer than the room is cut inside.
"""
from __future__ import annotations

import re

ELLIPSIS = "…"
_CLOSER = {"(": ")", "[": "]", "{": "}", '"': '"', "'": "'"}
_WORD = re.compile(r"[\w.⁰¹²³⁴⁵⁶⁷⁸⁹⁽⁾\u0300-\u036f]")   # a name, 0.9, x⁽²⁾, w̄
_COUNT = re.compile(r"\s×\d+$")
_DANGLING = re.compile(r"[\s(\[{\"'=,:;]+$")   # openers and separators a cut drops
_OPERATOR = re.compile(r"[-+*/@<>|&^%~]$")    # an operator a cut keeps: `a + …` is a sum
_TRAILING_OPERATOR = re.compile(r"[\s\-+*/@<>|&^%~]+$")
_CUT_ALREADY = re.compile(r"…[\s\-+*/@<>|&^%~]*$")


def closers(text: str) -> str:
    """What closes the brackets and the quote `text` left open, innermost first (brackets
    inside a string are text)."""
    open_: list[str] = []
    for c in text:
        top = open_[-1] if open_ else None
        if top in ('"', "'"):
            if c == top:
                open_.pop()
        elif c in _CLOSER:
            open_.append(c)
        elif top is not None and c == _CLOSER[top]:
            open_.pop()
    return "".join(_CLOSER[c] for c in reversed(open_))


def _ending(head: str) -> tuple[str, str]:
    """A cut head and the mark after it: openers and separators dropped, an operator kept
    (`a + …`), and no second "…" after one already there (`a + …`, not `a + … + …`)."""
    head = _DANGLING.sub("", head)
    if _CUT_ALREADY.search(head):
        return _TRAILING_OPERATOR.sub("", head), ""
    return head + (" " if _OPERATOR.search(head) else ""), ELLIPSIS


def clip(text: str, most: int = 24, more: bool = False) -> str:
    """`text` in at most `most` characters: itself when it fits (and `more` is false), else
    its head cut at a token boundary, "…", the closers of what the head opened, and its repeat
    count if it ends with one. `more`: the text goes on beyond what is given (a statement over
    several lines), so it is marked cut even when it fits."""
    if len(text) <= most and not more:
        return text
    match = _COUNT.search(text)
    # The count is kept only with room for a character of the text and the "…" beside it.
    count = match.group() if match and len(match.group()) + len(ELLIPSIS) < most else ""
    body = text[:len(text) - len(count)]
    room = most - len(count) - len(ELLIPSIS)
    cuts = range(min(room, len(body) - (0 if more else 1)), 0, -1)
    for cut in cuts:
        if cut < len(body) and _WORD.match(body[cut - 1]) and _WORD.match(body[cut]):
            continue   # inside a token
        head, mark = _ending(body[:cut])
        close = closers(head)
        if head.strip() and len(head) + len(mark) + len(close) + len(count) <= most:
            return f"{head}{mark}{close}{count}"
    for cut in cuts:   # one token longer than the room: cut inside it
        head = body[:cut]
        close = closers(head)
        if cut + len(ELLIPSIS) + len(close) + len(count) <= most:
            return f"{head}{ELLIPSIS}{close}{count}"
    return ELLIPSIS + count
