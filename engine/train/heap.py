"""Keep the C allocator's heap from shrinking and growing again on every training iteration.

A training step allocates its activations afresh and frees them together when the step's
values are dropped. glibc's malloc gives the top of its heap back to the system whenever more
than its trim threshold is free there (twice the largest array it has mmapped, about 300 KB
for the spirals network's (300, 64) activations), and the next step touches those pages again:
80 page faults a step, as long as the whole numpy step (bench/train.py's spirals; measured
with getrusage's ru_minflt). mallopt(M_TOP_PAD) makes every trim keep that much free memory at
the top (and every growth take it), so a step's arrays are served from pages the process
already has (glibc's manual, "Malloc Tunable Parameters"; the same as the environment's
MALLOC_TOP_PAD_). The process keeps up to TOP_PAD bytes more than it uses; elsewhere than
glibc (no mallopt) nothing changes.
"""
from __future__ import annotations

import ctypes
import functools

M_TOP_PAD = -2   # glibc's malloc.h
TOP_PAD = 4 * 1024 * 1024   # bytes: the spirals' step (about 1 MB of arrays) and more fit


@functools.cache
def keep_heap() -> bool:
    """Set glibc's M_TOP_PAD to TOP_PAD, once a process; True when it was set, False where
    the C library has no mallopt (musl, macOS) or refuses it."""
    try:
        mallopt = ctypes.CDLL(None).mallopt   # the running process's C library
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(M_TOP_PAD, TOP_PAD))
