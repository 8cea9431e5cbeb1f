"""`gradwalk serve` with one test-only route: POST /test/busy?seconds=S keeps the event loop
inside one C call for about S seconds (hashlib.pbkdf2_hmac, which lets go of the GIL and never
looks at signals, as a big numpy operation or a blocking read on the loop would). Python runs
a signal's handler between bytecodes of the main thread, so during the call a SIGTERM's
Python handler waits for it to return.

    python -m busy_server serve ...   (tests/server on PYTHONPATH: server_process.served)
"""
from __future__ import annotations

import hashlib
import sys
import time

from gradwalk.server import main as server_main
from gradwalk.server.cli import main

ROUNDS = 20_000   # pbkdf2 iterations timed to size the one long call
_create_app = server_main.create_app


def _busy(seconds: float) -> float:
    """One pbkdf2_hmac call of about `seconds` (sized from a short one); its duration."""
    start = time.monotonic()
    hashlib.pbkdf2_hmac("sha256", b"busy", b"salt", ROUNDS)
    per_round = max(time.monotonic() - start, 1e-6) / ROUNDS
    start = time.monotonic()
    hashlib.pbkdf2_hmac("sha256", b"busy", b"salt", int(seconds / per_round))
    return time.monotonic() - start


def create_app():
    app = _create_app()

    @app.post("/test/busy")
    async def busy(seconds: float) -> dict:   # async: it runs on the event loop itself
        return {"seconds": _busy(seconds)}

    return app


server_main.create_app = create_app   # what uvicorn's factory string names

if __name__ == "__main__":
    sys.exit(main())
