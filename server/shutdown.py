"""SIGTERM ends the process within shutdown_timeout_seconds, however late its event loop is.

uvicorn gives open connections timeout_graceful_shutdown seconds, but it counts them from a
point its event loop reaches late when trace threads hold the GIL (the signal is seen at its
next 0.1 s tick, then it closes the listeners and sleeps 0.1 s, each step waiting for the GIL),
and after them it still waits for its tasks: with four slow stream readers the process exited
13.9 s after SIGTERM with the setting at 5 s (issue 14).

So a watchdog thread, started with the app, ends the process EXIT_MARGIN_SECONDS after the
setting if uvicorn has not by then, with exit status 143 (128 + SIGTERM, the shell's status of
a process ended by SIGTERM; uvicorn's own exit re-raises the signal, status -15 to a parent in
Python). Its clock starts when the signal arrives, not when the event loop gets to it: Python
runs a signal's handler on the main thread, which is the event loop, at its next bytecode, so
a loop inside one long C call (a hash, a big numpy operation, a blocking read) ran the handler,
and so armed the old watchdog, only when the call returned (a review measured 7.19 s with the
setting at 5 s on a machine at load 20). faulthandler's handler for SIGTERM, C code run by the
kernel's delivery, writes to a pipe the watchdog thread waits on, then chains to Python's.

If the GIL itself is held past the deadline (one C call that never lets go), no Python thread
can run: faulthandler's own timer thread, which needs no GIL, then writes every thread's stack
to stderr (what held it) and exits with status 1, BACKSTOP_SECONDS later.
"""
from __future__ import annotations

import faulthandler
import logging
import os
import signal
import sys
import threading
import time

log = logging.getLogger("gradwalk")
# Set by SIGTERM: a stream cancelled after it is being shut down, not failing
# (routers/traces.py EventStream says so in one line instead of uvicorn's traceback).
stopping = threading.Event()
EXIT_MARGIN_SECONDS = 0.5   # for uvicorn's own orderly exit after its graceful timeout
BACKSTOP_SECONDS = 0.25     # after the watchdog's deadline, for a process whose GIL is held
EXIT_STATUS = 128 + signal.SIGTERM


def exit_within(seconds: float) -> None:
    """End the process `seconds` + EXIT_MARGIN_SECONDS after a SIGTERM (if uvicorn has not).
    Chains a handler before the SIGTERM handler in place (uvicorn's, which the app is created
    under). Only in the main thread (where Python runs handlers); the last call's `seconds`
    counts (one watchdog per process)."""
    if threading.current_thread() is not threading.main_thread():
        return
    watchdog = _Watchdog.started()
    watchdog.seconds = seconds
    previous = signal.getsignal(signal.SIGTERM)

    def on_sigterm(signum, frame) -> None:
        stopping.set()
        watchdog.wake()   # in case faulthandler's handler was replaced since
        if callable(previous):
            previous(signum, frame)
        elif previous != signal.SIG_IGN:   # the default action: end now
            _terminate()

    signal.signal(signal.SIGTERM, on_sigterm)
    # After signal.signal, which replaces the C handler faulthandler installs: unregistered
    # first, or faulthandler would keep a handler that is no longer installed.
    faulthandler.unregister(signal.SIGTERM)
    faulthandler.register(signal.SIGTERM, file=watchdog.write_fd, all_threads=False,
                          chain=True)


class _Watchdog:
    """A daemon thread blocked on a pipe (the GIL released) until a SIGTERM writes to it."""

    _instance: _Watchdog | None = None

    def __init__(self) -> None:
        self.seconds = 0.0
        self.read_fd, self.write_fd = os.pipe()
        # Written from a signal handler: a full pipe must drop bytes, never block the handler.
        os.set_blocking(self.write_fd, False)
        threading.Thread(target=self._run, name="gradwalk-shutdown-watchdog",
                         daemon=True).start()

    @classmethod
    def started(cls) -> _Watchdog:
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    def wake(self) -> None:
        try:
            os.write(self.write_fd, b"!")
        except OSError:   # full: it has been woken already
            pass

    def _run(self) -> None:
        os.read(self.read_fd, 65536)   # faulthandler's few lines, or wake()'s byte
        stopping.set()
        grace = self.seconds + EXIT_MARGIN_SECONDS
        deadline = time.monotonic() + grace
        try:
            faulthandler.dump_traceback_later(grace + BACKSTOP_SECONDS, exit=True,
                                              file=sys.stderr)
        except (AttributeError, ValueError, OSError):   # no stderr (closed, or None)
            pass
        while (left := deadline - time.monotonic()) > 0:
            time.sleep(left)
        log.error("shutdown took longer than %.1f s: exiting with work still running", grace)
        logging.shutdown()   # flush the handlers: os._exit does not
        os._exit(EXIT_STATUS)


def _terminate() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)
