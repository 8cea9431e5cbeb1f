"""The trace worker's own side (server/procs.py starts it): a loop that reads one task at a
time from its socket, runs it and writes back its pieces and its result.

It runs in a process of its own, so a trace's Python work, its long C calls (`ast.parse`, a
deallocation cascade, orjson of a big graph) and its memory are never the server's: the event
loop keeps a GIL and a heap of its own (issue 14, docs/performance.md).

Frames, both ways: a header HEAD (kind, payload length in bytes) and the payload. The server
sends TASK frames (pickled `(fn, args, streaming)`); the worker answers with PIECE frames (raw
bytes, streaming tasks only), then one RESULT (pickled return value), PROGRAM_ERROR (JSON of
ProgramError.to_dict()) or FAILED (text: the exception and its traceback), after an empty
RETIRING when the worker asks not to be given another task (RETIRE_GROWTH_BYTES). A bytes value comes
as BYTES frames of at most PART_BYTES and an empty BYTES_END: the server then never makes,
copies or unpickles one buffer the size of a whole trace body (56 MB for a 60,000-node chain,
30-40 ms holding its GIL each time). A LOG frame (JSON: level, message) carries a record of
the `gradwalk` logger, which the server logs as its own.
"""
from __future__ import annotations

import ctypes
import logging
import os
import pickle
import signal
import socket
import struct
import traceback
from typing import Callable

HEAD = struct.Struct("!BQ")   # kind, payload length (bytes)
TASK, PIECE, RESULT, PROGRAM_ERROR, FAILED, BYTES, BYTES_END, LOG, RETIRING = range(9)
PART_BYTES = 1 << 20   # a bytes value is sent in parts of this size (bytes)
# A worker whose resident memory grew by more than this in a task asks to be retired: a fresh
# process from the forkserver costs milliseconds, while what a big trace leaves in a heap
# (partly used arenas that neither gc nor malloc_trim can return) stays for good: two
# workers kept 86 MB after sixteen 60,000-node streams had gone (docs/performance.md).
RETIRE_GROWTH_BYTES = 32 * 1024 * 1024
GIVE_BACK_AFTER_SECONDS = 0.2   # idle this long after a task: return its memory (seconds)
PR_SET_PDEATHSIG = 1   # linux/prctl.h


def serve(sock: socket.socket, stop_flag, nice: int = 0) -> None:
    """Run tasks from `sock` (one end of a socketpair) until the server closes it. stop_flag
    (a shared ctypes bool) is set by the server to stop a streaming task at its next check
    (its client went away, or it was dropped). nice: how much lower this process's CPU
    priority is than the server's (the setting trace_worker_nice, 0 to 19)."""
    _die_with_parent()
    _own_group(nice)
    sock.setblocking(True)
    _log_to(sock)
    # The server's own imports, made once here (the forkserver preloads this module): the
    # engine, numpy, orjson, and what the tasks' functions import.
    import gradwalk.server.tracing  # noqa: F401
    from gradwalk.server.memory import give_back

    start_rss = _rss()
    dirty = False
    while True:
        if dirty and not _readable(sock, GIVE_BACK_AFTER_SECONDS):
            give_back()   # the trace's freed heap back to the system while idle
            dirty = False
        frame = _read_frame(sock)
        if frame is None:   # the server closed the channel (retired, or gone)
            return
        fn, args, streaming = pickle.loads(frame[1])
        _run(sock, fn, args, streaming, stop_flag, start_rss)
        dirty = True


def _run(sock: socket.socket, fn: Callable, args: tuple, streaming: bool, stop_flag,
         start_rss: int) -> None:
    """fn's outcome written back (after RETIRING when this process has grown too much)."""
    try:
        kind, payload = _outcome(sock, fn, args, streaming, stop_flag)
        if _rss() - start_rss > RETIRE_GROWTH_BYTES:
            _write_frame(sock, RETIRING, b"")
        if kind == BYTES:
            view = memoryview(payload)
            for start in range(0, len(view), PART_BYTES):
                _write_frame(sock, BYTES, view[start:start + PART_BYTES])
            _write_frame(sock, BYTES_END, b"")
        else:
            _write_frame(sock, kind, payload)
    except (BrokenPipeError, ConnectionResetError):
        raise SystemExit(0) from None   # the server has gone: nobody to answer


def _outcome(sock: socket.socket, fn: Callable, args: tuple, streaming: bool,
             stop_flag) -> tuple[int, bytes]:
    """(kind, payload) of fn's outcome: BYTES for a bytes value, else RESULT, PROGRAM_ERROR
    or FAILED. Pieces of a streaming fn are written as they come."""
    from gradwalk.engine.errors import ProgramError
    from gradwalk.server.tracing import ClientGone

    def put(piece: bytes) -> None:
        _write_frame(sock, PIECE, piece)

    def check() -> None:
        if stop_flag.value:
            raise ClientGone()

    try:
        result = fn(*args, put, check) if streaming else fn(*args)
    except ClientGone:
        result = None
    except ProgramError as e:
        import orjson

        return PROGRAM_ERROR, orjson.dumps(e.to_dict())
    except (BrokenPipeError, ConnectionResetError):
        raise
    except BaseException:   # noqa: BLE001 - the server logs it and answers `internal`
        return FAILED, traceback.format_exc().encode("utf-8", "replace")
    if isinstance(result, bytes):
        return BYTES, result
    return RESULT, pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)


class _ToServer(logging.Handler):
    """The `gradwalk` logger's records, sent to the server as LOG frames."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__(logging.INFO)
        self.sock = sock

    def emit(self, record: logging.LogRecord) -> None:
        import orjson

        message = record.getMessage()
        if record.exc_info:
            message += "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip()
        _write_frame(self.sock, LOG, orjson.dumps({"level": record.levelno, "message": message}))


def _log_to(sock: socket.socket) -> None:
    log = logging.getLogger("gradwalk")
    log.handlers[:] = [_ToServer(sock)]
    log.setLevel(logging.INFO)
    log.propagate = False


def _die_with_parent() -> None:
    """Linux: be killed when the forkserver (this process's parent) ends, which it does when
    the server ends, however it ends (even kill -9); elsewhere the next write fails instead."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (AttributeError, OSError):
        pass
    if os.getppid() == 1:   # the parent ended before the call above
        raise SystemExit(0)


def _own_group(nice: int) -> None:
    """Run `nice` lower than the server, in a session of this worker's own.

    The nice: a trace is batch work, the server's event loop answers probes and streams, so
    when the server's own traces fill the cores the kernel gives one to the event loop first.
    It counts where the worker and the server are scheduled together: one cgroup (a
    container, a systemd service) or one autogroup. With equal priorities /healthz beside two
    60,000-node traces had a slowest probe of 152-442 ms at load 8 (docs/performance.md).

    The session: with the kernel's autogroups (Linux, sched_autogroup_enabled, for processes
    outside any CPU cgroup) the CPU is shared between sessions first and by nice only within
    one, so a worker in the server's session spent the session's share and the event loop
    waited with it for a core: bench/healthz.py --watch found the loop late for up to 478 ms
    with its threads idle, at load 28 from other programs. The worker's group keeps the
    default weight: with the group itself niced, two 60,000-node traces starved at load 20.
    So under autogroups the nice above changes nothing (the worker is alone in its group)."""
    if nice:
        os.nice(nice)   # from the server's nice, which the forkserver inherited; capped at 19
    try:
        os.setsid()
    except OSError:   # not Linux, or already a session's leader
        pass


def _rss() -> int:
    """This process's resident set size (bytes; Linux, else 0: never retires for memory)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def _readable(sock: socket.socket, seconds: float) -> bool:
    import select

    return bool(select.select([sock], [], [], seconds)[0])


def _read_exact(sock: socket.socket, size: int) -> bytearray | None:
    data = bytearray(size)
    view, got = memoryview(data), 0
    while got < size:
        n = sock.recv_into(view[got:])
        if n == 0:
            return None
        got += n
    return data


def _read_frame(sock: socket.socket) -> tuple[int, bytearray] | None:
    """(kind, payload), or None at the end of the channel."""
    head = _read_exact(sock, HEAD.size)
    if head is None:
        return None
    kind, size = HEAD.unpack(head)
    payload = _read_exact(sock, size) if size else bytearray()
    return None if payload is None else (kind, payload)


def _write_frame(sock: socket.socket, kind: int, payload: bytes) -> None:
    sock.sendall(HEAD.pack(kind, len(payload)))
    if payload:
        sock.sendall(payload)
