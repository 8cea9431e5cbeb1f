"""Counts in messages: "1 row", "2 rows" (issue 14: "the left has 2 columns, the right 1
rows"). One helper, so a message never pluralizes by hand."""
from __future__ import annotations

import math

LONG_INT = 10 ** 15   # an int from here on is said by its digits, not written out


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` and `noun`, plural unless n is 1: counted(1, "row") is "1 row", counted(3, "row")
    "3 rows", counted(2, "index", "indices") "2 indices"; thousands are separated
    ("1,200 elements")."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def said(x) -> str:
    """`x` as a message quotes it: repr, except an int of 16 digits or more, said by its count
    of digits ("an integer of 401 digits"): 10**400 in a message was 401 digits to read, and
    past 4,300 digits Python refuses to write an int out at all (ValueError)."""
    if type(x) is int and abs(x) >= LONG_INT:
        return f"{'a negative' if x < 0 else 'an'} integer of {int(math.log10(abs(x))) + 1:,} digits"
    return repr(x)
