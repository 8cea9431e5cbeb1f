"""Counts in messages: "1 row", "2 rows" (issue 14: "the left has 2 columns, the right 1
rows"). One helper, so a message never pluralizes by hand."""
from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and `noun`, plural unless n is 1: counted(1, "row") is "1 row", counted(3, "row")
    "3 rows", counted(2, "index", "indices") "2 indices"; thousands are separated
    ("1,200 elements")."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
