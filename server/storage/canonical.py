"""The canonical text of a page state and the short-link id derived from it."""
from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

ID_CHARS = 16   # 96 bits of sha256: collisions are out of reach for any real number of links


def canonical_json(state: dict[str, Any]) -> bytes:
    """UTF-8 JSON with sorted keys, no spaces and non-ASCII kept as is.

    The same state always gives the same bytes, so the same id (docs: notes/contract.md).
    Raises ValueError for NaN or infinities (not JSON).
    """
    return json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def link_id(canonical: bytes) -> str:
    """The first 16 characters of base64url(sha256(canonical)): URL-safe, [A-Za-z0-9_-]."""
    digest = hashlib.sha256(canonical).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")[:ID_CHARS]
