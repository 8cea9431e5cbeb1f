"""Memory given back to the system once a load has gone.

CPython frees a trace's objects the moment it is done, but glibc's malloc keeps the freed
pages of its heaps for the next allocation: after sixteen big streams had closed the server
still held 1.24 GB (issue 14). malloc_trim(0) hands every wholly free page back (measured: a
28 MB trace body and 100 MB of stream pieces freed, RSS 159 MB -> 54 MB in 11 ms; 0.03 ms when
there is nothing to give). glibc only: elsewhere (musl, macOS) this does nothing.
"""
from __future__ import annotations

import ctypes
import logging
import threading

log = logging.getLogger("gradwalk")
DELAY_SECONDS = 0.2   # let the last request's objects be freed first (seconds)

try:
    _malloc_trim = ctypes.CDLL(None).malloc_trim   # the running process's C library
except (AttributeError, OSError):   # not glibc
    _malloc_trim = None
_pending = threading.Lock()   # held while a give-back is scheduled: one at a time


def give_back() -> None:
    """Return the C heap's free pages to the system now (ctypes releases the GIL)."""
    if _malloc_trim is not None:
        _malloc_trim(0)


def give_back_soon() -> None:
    """give_back() in a short-lived thread DELAY_SECONDS from now, unless one is already
    scheduled: never on the event loop, and at most one at a time however often it is asked."""
    if _malloc_trim is None or not _pending.acquire(blocking=False):
        return

    def run() -> None:
        try:
            give_back()
        finally:
            _pending.release()

    timer = threading.Timer(DELAY_SECONDS, run)
    timer.daemon = True   # never delays the process's exit
    timer.start()
