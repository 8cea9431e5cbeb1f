"""Memory given back to the system once a load has gone.

CPython frees a trace's objects the moment it is done, but glibc's malloc keeps the freed
pages of its heaps for the next allocation: after sixteen big streams had closed the server
still held 1.24 GB (issue 14). malloc_trim(0) hands every wholly free page back (measured: a
28 MB trace body and 100 MB of stream pieces freed, RSS 159 MB -> 54 MB in 11 ms; 0.03 ms when
there is nothing to give). glibc only: elsewhere (musl, macOS) this does nothing.
"""
from __future__ import annotations

import ctypes
import gc
import logging
import threading

log = logging.getLogger("gradwalk")
DELAY_SECONDS = 0.2   # let the last request's objects be freed first (seconds)
SLICE = 2048   # items freed at once by free_in_pieces: a couple of milliseconds

try:
    _malloc_trim = ctypes.CDLL(None).malloc_trim   # the running process's C library
except (AttributeError, OSError):   # not glibc
    _malloc_trim = None
_pending = threading.Lock()   # held while a give-back is scheduled: one at a time


def give_back() -> None:
    """Return the free pages to the system now: a full collection first, which also empties
    the interpreter's free lists so that whole small-object arenas can be unmapped (10-16 ms
    holding the GIL; two 60,000-node streams' leftovers: RSS 89-103 MB after the trim alone,
    63-69 MB with the collection, from 42 MB before), then malloc_trim (ctypes releases the
    GIL)."""
    if _malloc_trim is not None:
        gc.collect()
        _malloc_trim(0)


def freeze_startup_heap() -> None:
    """Move every object alive now (the app, its routes, the imported modules: about 118,000
    objects) out of the collector's sight (gc.freeze), once the server has started. A full
    collection, give_back's or one the allocator triggers, then walks only what was made
    since: beside two 60,000-node traces give_back's collection held the GIL, and so the
    event loop, for 70-355 ms at load 7-8 (the /healthz probe waiting then was the slowest);
    frozen, under a millisecond idle. The objects stay alive, as they would anyway."""
    gc.collect()   # what startup left as garbage is freed, not frozen
    gc.freeze()


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


def free_in_pieces(obj: object) -> None:
    """Empty obj's lists and dicts, and those of the objects it holds directly (a parsed
    program's nodes and names, its lines), SLICE items at a time. Freeing a 60,000-node program is one
    cascade of deallocations, 60 ms in which no other thread runs (the event loop, when the
    route's last reference went there); in slices, the GIL can pass between them. obj is
    unusable afterwards."""
    for value in list(vars(obj).values()):
        for items in [value, *vars(value).values()] if hasattr(value, "__dict__") else [value]:
            if isinstance(items, list):
                while items:
                    del items[-SLICE:]
            elif isinstance(items, dict):
                while items:
                    for _ in range(min(SLICE, len(items))):
                        items.popitem()
