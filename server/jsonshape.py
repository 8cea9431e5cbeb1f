"""Bounds on the shape of a JSON request body, checked before it is parsed or validated.

pydantic reports every unknown field and every bad element of a body: a 12 MB body with a
million unknown keys took 14.5 s and 1.27 GB to refuse (a million error objects), and stalled
the server meanwhile (issue 14). `check_shape` reads the raw bytes once, keeping only a stack of
open brackets and three counters, and stops at the first bound passed, so a refusal costs time
and memory in proportion to the bound, not to the body:

- depth: objects and arrays nested in one another (max_json_depth);
- keys: the object keys of the whole body (max_json_keys);
- items: array elements of the whole body, counted as their separating commas plus one per
  array (exact for arrays that are not empty; an empty one counts one) (max_json_items);
- fields: a top-level key that is not a field of the request model is refused at once, with
  pydantic's own error (`extra_forbidden`), so no body's unknown keys are all reported.

It is a lexer, not a parser: it finds strings (so that brackets, commas and colons inside them
are skipped), brackets and runs of innermost arrays; commas and colons are counted between them
with bytes.count, in C.
It accepts what pydantic accepts and more (NaN, 1e999, integers of any size, lone surrogate
escapes), which a JSON library's lexer (ijson's yajl) refuses; pydantic still checks the JSON.
A body that is not JSON may be counted wrongly, which can only refuse it sooner.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

# A JSON string (escapes included; the unrolled form runs in C without backtracking), a run of
# sibling arrays that hold no string, object or array (the rows of a matrix: one token, so a
# tensor costs Python one step per block of rows, not one per row), or one bracket.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"'
                    rb'|\[[^\[\]{}"]*\](?:[\s,]*\[[^\[\]{}"]*\])*'
                    rb'|[\[\]{}]')
_OPEN = {ord("{"), ord("[")}
_CLOSE = {ord("}"), ord("]")}


@dataclass(frozen=True)
class Bounds:
    """The largest body shape accepted: depth (levels), keys and items (counts)."""

    depth: int
    keys: int
    items: int


class ShapeTooLarge(ValueError):
    """The body passes one of the Bounds; the message names the bound and its setting."""


class UnknownField(ValueError):
    """A top-level key that the request model does not have (`name`, as decoded)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def check_shape(raw: bytes, bounds: Bounds, fields: frozenset[str] | None = None) -> None:
    """Refuse a body whose shape passes `bounds`, or whose top-level object has a key not in
    `fields` (None: any key). O(len(raw)) time in C plus O(tokens read) in Python, O(depth)
    memory. Raises ShapeTooLarge, UnknownField."""
    stack = bytearray()   # the open brackets, innermost last
    keys = items = 0
    end = 0               # where the previous token ended
    last = b""            # the previous token
    for match in _TOKEN.finditer(raw):
        start = match.start()
        if start > end:   # the gap between tokens: numbers, literals, commas, colons
            colons = raw.count(b":", end, start)
            if colons and last[:1] == b'"':
                keys += colons
                if fields is not None and len(stack) == 1:
                    _known(last, fields)
            if stack[-1:] == b"[":
                items += raw.count(b",", end, start)
            _within(keys, items, bounds)
        token = match.group()
        if len(token) > 1 and token[0] == ord("["):   # rows of leaf arrays
            _deep(len(stack) + 1, bounds)
            items += token.count(b",") + token.count(b"[")
            _within(keys, items, bounds)
        elif token[0] in _OPEN:
            stack.append(token[0])
            _deep(len(stack), bounds)
            if token == b"[":
                items += 1
                _within(keys, items, bounds)
        elif token[0] in _CLOSE and stack:
            stack.pop()
        end, last = match.end(), token


def _deep(depth: int, bounds: Bounds) -> None:
    if depth > bounds.depth:
        raise ShapeTooLarge(f"the body nests objects and arrays more than {bounds.depth} deep "
                            "(GRADWALK_MAX_JSON_DEPTH)")


def _within(keys: int, items: int, bounds: Bounds) -> None:
    if keys > bounds.keys:
        raise ShapeTooLarge(f"the body has more than {bounds.keys:,} object keys "
                            "(GRADWALK_MAX_JSON_KEYS)")
    if items > bounds.items:
        raise ShapeTooLarge(f"the body has more than {bounds.items:,} array elements "
                            "(GRADWALK_MAX_JSON_ITEMS)")


def _known(key: bytes, fields: frozenset[str]) -> None:
    try:
        name = json.loads(key)
    except ValueError:   # not a JSON string after all: pydantic will say what is wrong
        return
    if name not in fields:
        raise UnknownField(name)
