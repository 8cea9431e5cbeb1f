"""How the CLI reads a number a flag was given (the argparse types of server/cli.py and
server/cli_train.py), in one place: a refusal quotes what the user typed and says what the
flag takes ("'abc' is not a learning rate: give a number above 0 and at most 1,000,000"),
never the value the text became on the way ('abc' was said as "nan", a review). argparse
makes the refusal a usage error: one line, exit 2.

Whole numbers are ASCII digits only: int() reads some other digits ('١٢' as 12) and not
others ('²' was argparse's own "invalid _steps value"), and no more than MAX_DIGITS of them
(past Python's 4,300, int() refuses to read them at all).
"""
from __future__ import annotations

import argparse
import json
import math

MAX_DIGITS = 4000
SHOWN = 40   # characters of what was typed that a message quotes


def quoted(value: str) -> str:
    """What the user typed, as a refusal quotes it: repr of its first SHOWN characters, and
    "…" when there were more."""
    return repr(value[:SHOWN]) + ("…" if len(value) > SHOWN else "")


def refusal(value: str, what: str, expected: str) -> argparse.ArgumentTypeError:
    """"'abc' is not a number of steps: give a whole number from 1"."""
    return argparse.ArgumentTypeError(f"{quoted(value)} is not {what}: give {expected}")


def whole(value: str, least: int = 0) -> int | None:
    """`value` as an int of at most MAX_DIGITS ASCII digits, at least `least`; else None."""
    if not (value.isascii() and value.isdigit()) or len(value) > MAX_DIGITS:
        return None
    n = int(value)
    return n if n >= least else None


def number(value: str, what: str, expected: str, fits) -> float:
    """`value` read by float() ('1e-3', ' 0.5'; '1e999' is inf) when the float is finite and
    fits(x); else the refusal quoting `value`, saying `expected`."""
    try:
        x = float(value)
    except ValueError:
        raise refusal(value, what, expected) from None
    if not (math.isfinite(x) and fits(x)):
        raise refusal(value, what, expected)
    return x


class _NotFinite(Exception):
    """A JSON number no float64 holds: NaN, Infinity, 1e999, an integer past 1.8e308."""


def _float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise _NotFinite(text)
    return x


def _int(text: str) -> int:
    if len(text.lstrip("-")) > 309:   # past float64's 1.8e308 whatever its digits (int() of
        raise _NotFinite(f"an integer of {len(text.lstrip('-')):,} digits")   # 4,301 refuses)
    n = int(text)
    try:
        float(n)
    except OverflowError:
        raise _NotFinite(f"an integer of {len(text.lstrip('-')):,} digits") from None
    return n


def _constant(text: str):
    raise _NotFinite(text)


def finite_json(value: str, example: str):
    """`value` read as JSON whose numbers are all finite floats (the --output-grad,
    --tangents and --vector flags; Python's json reads NaN and Infinity, which no tensor of
    the trace may hold): ArgumentTypeError quoting `value` and the number refused, saying
    `example`."""
    try:
        return json.loads(value, parse_float=_float, parse_int=_int, parse_constant=_constant)
    except _NotFinite as e:
        raise argparse.ArgumentTypeError(f"{quoted(value)} holds {e}, which is not a finite "
                                         f"number: give {example}") from None
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quoted(value)} is not JSON: give {example}") \
            from None
