"""Trace workers: a bounded pool of processes that parse and trace, read by the event loop
without blocking.

Why processes: a trace in a thread of the server shares the server's GIL with the event loop,
so beside two 60,000-node traces /healthz took up to 1.4 s (p95 150-240 ms) while the same
traces in another process left it under 50 ms (issue 14; docs/performance.md, "The health
check under load"). A worker is started by multiprocessing's forkserver, which imports the
engine once (server/worker_process.py); starting one is a fork (milliseconds).

Bounds: at most `size` workers exist at once (the trace slots: server/slots.py); a worker is
retired after MAX_TASKS_PER_WORKER tasks, IDLE_SECONDS without one, or a task that grew it by
more than 32 MB (what a big trace leaves in a heap goes with the process), and killed when its
task is cancelled (the request was cancelled, the server shuts down) or, streaming, when it
does not stop within STOP_GRACE_SECONDS of being told to (its client went away). Workers end
with the server, even after a kill -9 of it (server/worker_process.py _die_with_parent).

Every method runs on the event loop's thread; only Process.start, which waits for the
forkserver (about a second the first time, while it imports the engine), runs in a thread.
"""
from __future__ import annotations

import asyncio
import ctypes
import logging
import multiprocessing
import os
import pickle
import socket
from typing import Callable

import anyio.to_thread
import orjson

from gradwalk.engine.errors import ProgramError
from gradwalk.server import worker_process
from gradwalk.server.worker_process import (BYTES, BYTES_END, FAILED, HEAD, LOG, PIECE, PROGRAM_ERROR,
                                   RESULT, RETIRING, TASK)

log = logging.getLogger("gradwalk")
MAX_TASKS_PER_WORKER = 100   # then a fresh process: whatever a worker's heap kept goes
IDLE_SECONDS = 60.0   # a worker idle this long is retired (seconds)
STOP_GRACE_SECONDS = 0.5   # a stopped stream's worker not done by then is killed (seconds)
_context = multiprocessing.get_context("forkserver")
# What the tasks import (the trace, the node's data, the exports), imported once by the
# forkserver, so each worker starts with it.
_context.set_forkserver_preload(
    ["gradwalk.server.worker_process", "gradwalk.server.tracing", "gradwalk.server.exports",
     "gradwalk.server.export_html", "gradwalk.engine.trace.node_data",
     "gradwalk.engine.trace.table"])


def start_forkserver() -> None:
    """Start the forkserver now and wait until it has imported the engine (about a second, 3 s
    at load 8), by running one process that does nothing through it: done before the server
    listens (server/main.py prepare), the first worker is then a fork, and the first trace
    does not wait for the import while it holds a slot."""
    process = _context.Process(target=os.getpid, name="gradwalk-forkserver-ready", daemon=True)
    process.start()
    process.join()
    process.close()


class WorkerFailed(RuntimeError):
    """A task failed in its worker (a bug of ours, logged with the worker's traceback), or the
    worker ended before it answered."""


class Pool:
    """size: the most worker processes at once. One per app; the caller bounds how many tasks
    run at once to `size` (the trace slots). nice: how much lower the workers' CPU priority
    is than this process's (the setting trace_worker_nice)."""

    def __init__(self, size: int, nice: int = 0) -> None:
        self.size = size
        self.nice = nice
        self._idle: list[_Worker] = []
        self._live: set[_Worker] = set()
        self._loop: asyncio.AbstractEventLoop | None = None   # the workers' channels' loop
        self._warming: asyncio.Task | None = None   # warm_soon's

    @property
    def processes(self) -> int:
        """The worker processes alive now (started, idle or busy)."""
        return len(self._live)

    async def run(self, fn: Callable, args: tuple, put: Callable[[bytes], None] | None = None,
                  stopping: asyncio.Event | None = None, parts: bool = False):
        """fn(*args) in a worker; with `put`, fn(*args, put, check) (server/tracing.py
        stream_body), each piece handed to `put` on the event loop as it arrives. fn and args
        must pickle (a module-level function, plain values). `stopping`, once set, makes the
        worker's `check` raise ClientGone; a worker that has not returned STOP_GRACE_SECONDS
        later is killed. Returns fn's value (None for a stopped stream; with `parts`, a bytes
        value as the list of its parts of at most 1 MiB, not joined); raises ProgramError as
        fn raised it, WorkerFailed for anything else."""
        await self._warmed()
        worker = await self._take()
        watch = None
        try:
            done = worker.send(fn, args, put, parts)
            if stopping is not None:
                watch = asyncio.ensure_future(_stop_when(stopping, worker, done))
            return await asyncio.shield(done)
        except WorkerFailed:
            if stopping is not None and stopping.is_set():
                return None   # killed after it was told to stop: nobody wants its answer
            raise
        except asyncio.CancelledError:
            worker.kill()   # the request is gone (or the server is stopping): stop its work now
            raise
        finally:
            if watch is not None:
                watch.cancel()
            self._give_back(worker)

    async def warm(self) -> None:
        """Start one worker now (the first also starts the forkserver, which imports the
        engine: about a second), so that the first trace does not wait for it."""
        self._give_back(await self._take())

    def warm_soon(self) -> None:
        """warm() in a task of its own: the server answers meanwhile, and a task that comes
        before the worker is ready waits for it (never starts a second: the pool may have room
        for one)."""
        self._warming = asyncio.get_running_loop().create_task(self.warm())
        self._warming.add_done_callback(_warmed_or_said)

    async def _warmed(self) -> None:
        """Wait for warm_soon's worker if it is still starting on this loop. Its failure is
        not this task's: the task then starts a worker of its own (and fails as that fails)."""
        warming = self._warming
        if warming is not None and warming.get_loop() is asyncio.get_running_loop():
            await asyncio.wait([warming])   # a cancelled waiter leaves the warming running

    async def _take(self) -> _Worker:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:   # a new event loop (TestClient makes one per request)
            self.close()   # the workers' channels were the old loop's
            self._loop = loop
        while self._idle:
            worker = self._idle.pop()
            if worker.alive:
                worker.retire_timer.cancel()
                return worker
        if len(self._live) >= self.size:   # the caller's bound was broken: a bug of ours
            raise WorkerFailed(f"all {self.size} trace workers are busy")
        worker = _Worker(self)
        self._live.add(worker)
        try:
            await worker.start()
        except BaseException:
            worker.kill()
            raise
        return worker

    def _give_back(self, worker: _Worker) -> None:
        if not worker.alive:
            return
        if worker.retiring or worker.tasks >= MAX_TASKS_PER_WORKER:
            worker.close()
            return
        worker.retire_timer = asyncio.get_running_loop().call_later(IDLE_SECONDS, worker.close)
        self._idle.append(worker)

    def _ended(self, worker: _Worker) -> None:
        self._live.discard(worker)
        if worker in self._idle:
            self._idle.remove(worker)

    def close(self) -> None:
        """Kill every worker (the app is shutting down)."""
        if self._warming is not None:
            self._warming.cancel()
            self._warming = None
        for worker in list(self._live):
            worker.kill()


def _warmed_or_said(warming: asyncio.Task) -> None:
    if not warming.cancelled() and warming.exception() is not None:
        log.warning("the first trace worker did not start: %s", warming.exception())


async def _stop_when(stopping: asyncio.Event, worker: _Worker, done: asyncio.Future) -> None:
    await stopping.wait()
    worker.stop_flag.value = True   # its `check` raises ClientGone at the next event
    try:
        await asyncio.wait_for(asyncio.shield(done), STOP_GRACE_SECONDS)
    except asyncio.TimeoutError:
        log.info("stream stopped: its trace worker was still busy %.1f s after it was told "
                 "to stop (the client went away, or the stream was dropped), and was killed",
                 STOP_GRACE_SECONDS)
        worker.kill()
    except Exception:   # noqa: BLE001 - its outcome is the task's, reported there
        pass


class _Worker:
    """One worker process, its socket (a Protocol on the event loop) and its stop flag."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.alive = True
        self.retiring = False   # it asked for no more tasks (server/worker_process.py)
        self.tasks = 0
        self.stop_flag = _context.RawValue(ctypes.c_bool, False)
        self._sock, self._theirs = socket.socketpair()
        self.process = _context.Process(target=worker_process.serve,
                                        args=(self._theirs, self.stop_flag, pool.nice),
                                        name="gradwalk-trace", daemon=True)
        self.transport: asyncio.Transport | None = None
        self.channel = _Channel(self)
        self.retire_timer: asyncio.TimerHandle | None = None

    async def start(self) -> None:
        await anyio.to_thread.run_sync(self.process.start)
        self._theirs.close()
        self.loop = asyncio.get_running_loop()
        self.transport, _ = await self.loop.connect_accepted_socket(lambda: self.channel,
                                                                    self._sock)

    def send(self, fn: Callable, args: tuple, put, parts: bool) -> asyncio.Future:
        """Start a task; the future gets its outcome (Pool.run)."""
        self.tasks += 1
        self.stop_flag.value = False
        payload = pickle.dumps((fn, args, put is not None), protocol=pickle.HIGHEST_PROTOCOL)
        self.channel.begin(put, parts)
        self.transport.write(HEAD.pack(TASK, len(payload)))
        self.transport.write(payload)
        return self.channel.done

    def close(self) -> None:
        """Retire: closing the channel ends the worker's loop (it reads the end)."""
        self.alive = False
        if self.retire_timer is not None:
            self.retire_timer.cancel()
        if self.transport is not None and not self.loop.is_closed():
            self.transport.close()
        else:
            self._sock.close()
        self.pool._ended(self)
        _reap_soon(self.process)

    def kill(self) -> None:
        if self.alive and self.process.pid is not None:
            self.process.kill()
        self.close()

    def ended(self) -> str:
        """How the process ended, as far as is known yet."""
        try:
            code = self.process.exitcode
        except ValueError:   # already reaped and closed (_reap_soon)
            return "reaped"
        return "still ending" if code is None else f"exit code {code}"

    def lost(self) -> None:
        """The channel ended: the worker exited, or was retired or killed."""
        if self.alive:
            self.alive = False
            self.pool._ended(self)
            _reap_soon(self.process)


def _reap_soon(process: multiprocessing.Process) -> None:
    """Collect an ended worker's exit status in a thread (join waits for it), so its
    sentinel is closed and multiprocessing forgets it."""
    if process.pid is None or getattr(process, "_reaping", False):
        return
    process._reaping = True

    def reap() -> None:
        process.join(10)
        if process.exitcode is None:   # still there: a retired worker that did not stop
            process.kill()
            process.join(10)
        process.close()

    asyncio.get_running_loop().run_in_executor(None, reap)


class _Channel(asyncio.BufferedProtocol):
    """The frames a worker writes (server/worker_process.py), read into buffers of their size:
    the header, then the payload, with no copy."""

    def __init__(self, worker: _Worker) -> None:
        self.worker = worker
        self.put = None
        self.done: asyncio.Future | None = None
        self.parts: list[bytes] = []   # of a bytes value
        self.joined = True   # hand the parts over joined, as bytes
        self._head = bytearray(HEAD.size)
        self._payload: bytearray | None = None
        self._kind = 0
        self._got = 0

    def begin(self, put, parts: bool) -> None:
        self.put, self.parts, self.joined = put, [], not parts
        self.done = asyncio.get_running_loop().create_future()

    def get_buffer(self, sizehint: int) -> memoryview:
        if self._payload is None:
            return memoryview(self._head)[self._got:]
        return memoryview(self._payload)[self._got:]

    def buffer_updated(self, nbytes: int) -> None:
        self._got += nbytes
        if self._payload is None:
            if self._got < HEAD.size:
                return
            self._kind, size = HEAD.unpack(self._head)
            self._payload, self._got = bytearray(size), 0
        if self._got == len(self._payload):
            kind, payload = self._kind, self._payload
            self._payload, self._got = None, 0
            self._frame(kind, payload)

    def _frame(self, kind: int, payload: bytearray) -> None:
        if kind == LOG:   # the worker's `gradwalk` logger, logged here as the server's
            record = orjson.loads(payload)
            log.log(record["level"], "%s", record["message"])
            return
        if kind == RETIRING:
            self.worker.retiring = True
            return
        if kind == PIECE:
            if self.put is not None:
                self.put(bytes(payload))
            return
        if self.done is None or self.done.done():
            return
        if kind == BYTES:
            self.parts.append(bytes(payload))
        elif kind == BYTES_END:
            parts, self.parts = self.parts, []
            self.done.set_result(b"".join(parts) if self.joined else parts)
        elif kind == RESULT:
            self.done.set_result(pickle.loads(payload))
        elif kind == PROGRAM_ERROR:
            self.done.set_exception(ProgramError(**orjson.loads(payload)))
        elif kind == FAILED:
            self.done.set_exception(WorkerFailed(
                "the trace worker failed:\n" + payload.decode("utf-8", "replace")))

    def eof_received(self) -> bool:
        return False   # close the transport

    def connection_lost(self, exc: Exception | None) -> None:
        if self.done is not None and not self.done.done():
            self.done.set_exception(WorkerFailed(
                f"the trace worker ended before it answered ({self.worker.ended()})"))
        self.worker.lost()
