"""The command line's input and output: the program read from a file or stdin, the result
written to stdout, one line on stderr. Every failure to read is InputError (exit 2), every
failure to write OutputError (exit 4): server/cli.py says them and picks the code.
"""
from __future__ import annotations

import io
import os
import select
import sys


class InputError(Exception):
    """The program's file or stdin cannot be read (exit 2)."""


class OutputError(Exception):
    """The output cannot be written: stdout closed, a broken pipe, a full disk (exit 4). Its
    message is the one line said."""


def read_program(path: str, limit: int) -> str:
    """At most limit + 1 characters of the file ('-': stdin), as UTF-8, line ends kept as they
    are (the same text the API would get). One leading byte-order mark is not part of the
    program (Windows editors save one): the utf-8-sig codec drops it; one further on stays
    in the text, an error at its line and column. One character more than the limit is enough to
    refuse a program as too large, so a huge or endless input is never read whole.
    Raises InputError."""
    try:
        if path == "-":
            if sys.stdin is None:
                raise InputError("stdin is closed")
            stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", newline="")
            try:
                return stdin.read(limit + 1)
            finally:
                stdin.detach()   # leave sys.stdin open
        with open(path, encoding="utf-8-sig", newline="") as f:
            return f.read(limit + 1)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise InputError(str(e)) from None


# ---- output --------------------------------------------------------------------------------
def write_stdout(data: bytes) -> None:
    """Write all of data and flush, so a failure is raised here (and said in main), not at
    exit. Raises OutputError for any failure to write: stdout closed, a broken pipe (`| head`),
    a full disk (ENOSPC)."""
    if sys.stdout is None:
        raise OutputError("cannot write the output: stdout is closed")
    try:
        sys.stdout.flush()
        out, view = sys.stdout.buffer, memoryview(data)
        while view:
            # Under `python -u` (PYTHONUNBUFFERED) stdout.buffer is the raw file, whose write
            # may take only part of the data: a pipe whose reader left after a first read
            # took 64 KiB and the rest went unwritten, exit 0 (issue 14).
            view = view[_written(out, view):]
        out.flush()
    except BrokenPipeError:
        raise OutputError("the output was closed before all of it was written (broken pipe)") \
            from None
    except OSError as e:
        raise OutputError(f"cannot write the output: {e.strerror or e}") from None


def _written(out, view: memoryview) -> int:
    """One write of view to out; the bytes it took (a non-blocking stdout that is full is
    waited on rather than spun on)."""
    n = out.write(view)
    if n is None:   # a non-blocking raw stream, full for now
        select.select([], [out.fileno()], [])
        return 0
    return n


def say(message: str) -> None:
    """One line on stderr (if there is a stderr)."""
    if sys.stderr is not None:
        try:
            print(f"gradwalk: {message}", file=sys.stderr, flush=True)
        except OSError:
            pass


def silence_stdout() -> None:
    """Point stdout at /dev/null, so Python's flush at exit does not raise the broken pipe again
    (the recipe of the `signal` module's documentation)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, AttributeError, ValueError):
        pass
