"""SIGTERM ends the process within shutdown_timeout_seconds, however loaded it is.

uvicorn gives open connections timeout_graceful_shutdown seconds, but it counts them from a
point its event loop reaches late when trace threads hold the GIL (the signal is seen at its
next 0.1 s tick, then it closes the listeners and sleeps 0.1 s, each step waiting for the GIL),
and after them it still waits for its tasks: with four slow stream readers the process exited
13.9 s after SIGTERM with the setting at 5 s (issue 14). A watchdog armed by the signal itself
ends the process EXIT_MARGIN_SECONDS after the setting if uvicorn has not by then, with exit
status 143 (128 + SIGTERM, the shell's status of a process ended by SIGTERM; uvicorn's own
exit re-raises the signal, status -15 to a parent in Python).
"""
from __future__ import annotations

import logging
import os
import signal
import threading

log = logging.getLogger("gradwalk")
# Set by SIGTERM: a stream cancelled after it is being shut down, not failing
# (routers/traces.py EventStream says so in one line instead of uvicorn's traceback).
stopping = threading.Event()
EXIT_MARGIN_SECONDS = 0.5   # for uvicorn's own orderly exit after its graceful timeout


def exit_within(seconds: float) -> None:
    """Chain a handler before the SIGTERM handler in place (uvicorn's, which the app is created
    under) that arms the watchdog. Only in the main thread (where Python runs handlers)."""
    if threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGTERM)

    def on_sigterm(signum, frame) -> None:
        stopping.set()
        _arm(seconds + EXIT_MARGIN_SECONDS)
        if callable(previous):
            previous(signum, frame)
        elif previous != signal.SIG_IGN:   # the default action: end now
            _terminate()

    signal.signal(signal.SIGTERM, on_sigterm)


def _arm(seconds: float) -> None:
    def expire() -> None:
        log.error("shutdown took longer than %.1f s: exiting with work still running", seconds)
        logging.shutdown()   # flush the handlers: os._exit does not
        os._exit(128 + signal.SIGTERM)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True   # the process may well end first
    timer.start()


def _terminate() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)
