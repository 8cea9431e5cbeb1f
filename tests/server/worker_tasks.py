"""Module-level functions for tests/server/test_trace_workers.py to run in trace workers (a
worker imports a task's function by its module and name)."""
from __future__ import annotations

import logging
import os
import time

from gradwalk.engine.errors import ProgramError


def add(a: int, b: int) -> int:
    return a + b


def pid() -> int:
    return os.getpid()


def niceness() -> int:
    """This process's nice value (os.nice(0) reads it without changing it)."""
    return os.nice(0)


def program_error() -> None:
    raise ProgramError("syntax", "invalid syntax", 3, 4)


def divide(a: float, b: float) -> float:
    return a / b


def blob(size: int) -> bytes:
    return bytes(i % 251 for i in range(size))


def count(n: int, pause: float, put, check) -> int:
    """Puts b"0", b"1", ... n pieces, `pause` seconds apart, checking before each."""
    for i in range(n):
        check()
        put(b"%d" % i)
        time.sleep(pause)
    return n


def deaf(seconds: float, put, check) -> None:
    """Puts one piece, then works `seconds` without ever checking."""
    put(b"started")
    time.sleep(seconds)


def sleep(seconds: float) -> None:
    time.sleep(seconds)


def warn(message: str) -> int:
    logging.getLogger("gradwalk").warning("from the worker: %s", message)
    return 1


_held: list = []


def hold(size: int) -> int:
    """Keeps `size` bytes (written, so resident) in this process."""
    _held.append(bytearray(b"x" * size))
    return len(_held)
