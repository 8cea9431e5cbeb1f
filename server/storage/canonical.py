"""The canonical text of a page state and the short-link id derived from it."""
from __future__ import annotations

import base64
import hashlib
import json
import math
from typing import Any

ID_CHARS = 16   # 96 bits of sha256: collisions are out of reach for any real number of links


MAX_SAFE_INT = 2 ** 53 - 1   # JavaScript's Number.MAX_SAFE_INTEGER: the page's ints (state.js)


def canonical_json(state: dict[str, Any], *, checked: bool = False) -> bytes:
    """UTF-8 JSON with sorted keys, no spaces and non-ASCII kept as is.

    The same state always gives the same bytes, so the same id (docs: notes/contract.md).
    Raises ValueError, its message what is wrong and where (state_problem), for what the
    page could not read back: NaN or infinities (not JSON), a lone surrogate (not UTF-8),
    an integer past 2**53 - 1 (the page would read another number). `checked`: state_problem
    has passed already (server/pagestate.py PageState), so the state is not walked again.
    """
    problem = None if checked else state_problem(state)
    if problem:
        raise ValueError(problem)
    return json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def state_problem(state: Any) -> str | None:
    """The first value of `state` (parsed JSON) the page could not read back, said with its
    place ("state.x[0]: ..."), or None. Walked with a stack: a state's nesting is bounded by
    the body's size only. A lone surrogate ("\\ud800", valid JSON text) was refused as
    "NaN and infinities are not JSON" (a review)."""
    todo = [("state", state)]
    while todo:
        where, value = todo.pop()
        kind = type(value)
        if kind is dict:
            for key, item in value.items():
                if _lone_surrogate(key):
                    return f"{where}: a key holds a lone surrogate (not Unicode text)"
                todo.append((f"{where}.{key}", item))
        elif kind is list:
            todo.extend((f"{where}[{k}]", item) for k, item in enumerate(value))
        elif kind is str and _lone_surrogate(value):
            return f"{where}: the text holds a lone surrogate (not Unicode text)"
        elif kind is float and not math.isfinite(value):
            return f"{where}: NaN and infinities are not JSON"
        elif kind is int and abs(value) > MAX_SAFE_INT:
            return f"{where}: an integer past 2**53 - 1, which the page cannot hold exactly"
    return None


def _lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def link_id(canonical: bytes) -> str:
    """The first 16 characters of base64url(sha256(canonical)): URL-safe, [A-Za-z0-9_-]."""
    digest = hashlib.sha256(canonical).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")[:ID_CHARS]
