"""`gradwalk serve`: uvicorn on sockets bound here, in one process or a bounded number of worker
processes that the parent stops on SIGTERM or Ctrl-C, whenever it comes.

Binding here rather than in uvicorn turns a port in use or a host that does not resolve into
one line and exit 2 (uvicorn logs it and exits with a status of its own, after a traceback for
a port out of range), and gives every listener the protocol number IPPROTO_TCP. uvicorn (0.55)
binds its workers' socket as `socket.socket(family)`, protocol 0; accepted connections inherit
the number, and asyncio turns on TCP_NODELAY only for IPPROTO_TCP sockets, so Nagle's
algorithm held the body of every keep-alive response back until the client's delayed ACK:
about 45 ms a request (uvicorn issue 3149; bench/load.py measured 20 answers a second for one
client against 175 with one process).

`--workers` is bounded (MAX_WORKERS_PER_CORE per core): `--workers 100000000` started over 450
processes in ten seconds, and uvicorn's supervisor only looks at its signals once it has
started them all, so a SIGTERM meanwhile stopped nothing (issue 14).
"""
from __future__ import annotations

import logging
import os
import signal
import socket
import time

import uvicorn
from uvicorn.supervisors import Multiprocess

# A trace keeps one core busy; past a few workers a core, more only multiply the memory.
MAX_WORKERS_PER_CORE = 4
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
BACKLOG = 2048   # connections the kernel queues before the app accepts them (uvicorn's default)
KILL_GRACE_SECONDS = 5.0   # after the graceful shutdown, before a worker is killed (seconds)
READY_SECONDS = 0.5        # how long a starting worker's readiness is waited for per look
STARTING_GRACE_SECONDS = 0.5   # a worker that never served, stopped: then killed (seconds)


class CannotServe(Exception):
    """The address cannot be listened on (exit 2): said in one line."""


def cores() -> int:
    """The cores this process may run on (its CPU affinity: a container's share, not the
    host's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # not Linux
        return os.cpu_count() or 1


def max_workers() -> int:
    """The largest --workers: MAX_WORKERS_PER_CORE per core."""
    return MAX_WORKERS_PER_CORE * cores()


def listeners(host: str, port: int, listen: bool = True) -> list[socket.socket]:
    """Bound TCP sockets (IPPROTO_TCP, SO_REUSEADDR, inheritable by the workers) for every
    address `host` resolves to, as asyncio's create_server binds them (an IPv6 socket is
    IPv6 only), listening unless `listen` is false (then `start_listening` does it). Raises
    CannotServe, with nothing left bound."""
    try:
        found = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                   proto=socket.IPPROTO_TCP, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as e:
        raise CannotServe(f"cannot listen on {host}:{port}: {_why(e)}") from None
    bound: list[socket.socket] = []
    for family, kind, proto, _, address in dict.fromkeys(found):   # each address once
        sock = socket.socket(family, kind, proto)
        bound.append(sock)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            if listen:
                sock.listen(BACKLOG)
        except OSError as e:
            for s in bound:
                s.close()
            raise CannotServe(f"cannot listen on {host}:{port}: {_why(e)}") from None
        sock.set_inheritable(True)
    return bound


def start_listening(sockets: list[socket.socket]) -> None:
    """Let the kernel take connections on `sockets` (bound by listeners(listen=False))."""
    for sock in sockets:
        sock.listen(BACKLOG)


def _why(e: Exception) -> str:
    return getattr(e, "strerror", None) or str(e)


def run(config: uvicorn.Config, sockets: list[socket.socket]) -> str | None:
    """Serve `config` on `sockets` until a signal stops it: in this process, or in
    config.workers processes under Supervisor. Returns why it did not start (uvicorn or the
    worker has logged the details), or None."""
    if config.workers > 1:
        supervisor = Supervisor(config, sockets)
        supervisor.run()
        return supervisor.failed
    server = uvicorn.Server(config)
    server.run(sockets=sockets)
    return None if server.started else "the server did not start (its log above says why)"


class Supervisor(Multiprocess):
    """uvicorn's worker supervisor, made to stop when told at any time: a SIGINT or SIGTERM
    that comes while the workers are being started stops the starting (uvicorn's own loop
    looks at its signals only after starting them all); a worker that outlives its graceful
    shutdown by KILL_GRACE_SECONDS is killed; SIGTTIN adds a worker only up to max_workers.
    A worker that stops before it ever served (the app cannot be built) stops them all, with
    `failed` saying so: uvicorn restarted such workers forever, one failure after another."""

    def __init__(self, config: uvicorn.Config, sockets: list[socket.socket]) -> None:
        super().__init__(config, sockets)
        self.served: set[int] = set()   # the pids of workers seen serving
        self.failed: str | None = None

    def keep_subprocess_alive(self) -> None:
        """uvicorn's, but a worker that is gone before it ever served stops them all."""
        if self.should_exit.is_set():
            return
        for index, process in enumerate(self.processes):
            if process.pid not in self.served:
                if process.exitcode is None:   # starting: waited for, however slow its start
                    if process.is_ready(timeout=READY_SECONDS):
                        self.served.add(process.pid)
                    continue
                process.join()
                self.failed = (f"a worker stopped before it served (exit code "
                               f"{process.exitcode}; its log above says why)")
                self.should_exit.set()
                return
            if process.is_alive(timeout=self.config.timeout_worker_healthcheck):
                continue
            process.kill()   # gone, or hung
            process.join()
            logging.getLogger("uvicorn.error").info("Child process [%s] died", process.pid)
            self.processes[index] = replacement = type(process)(self.config, self.sockets)
            replacement.start()

    def _stopping(self) -> bool:
        return self.should_exit.is_set() or any(s in STOP_SIGNALS for s in self.signal_queue)

    def init_processes(self) -> None:
        for _ in range(self.processes_num):
            if self._stopping():   # run() handles the signal next, and stops what started
                return
            self.spawn()

    def spawn(self) -> None:
        """Start one worker (uvicorn's Process) and keep it."""
        from uvicorn.supervisors.multiprocess import Process

        process = Process(self.config, self.sockets)
        process.start()
        self.processes.append(process)

    def terminate_all(self) -> None:
        """uvicorn's, after a last look at which starting workers serve by now (terminate
        closes the channel that asks)."""
        for process in self.processes:
            if (process.pid not in self.served and process.exitcode is None
                    and process.is_ready(timeout=0.05)):
                self.served.add(process.pid)
        super().terminate_all()

    def join_all(self) -> None:
        """Wait for the stopped workers: one that served gets the graceful shutdown and
        KILL_GRACE_SECONDS, one that never served STARTING_GRACE_SECONDS (it has no
        connection to finish, and a SIGTERM while it imports and starts the app was obeyed
        only once it had: 9.66 s after a SIGTERM 3.5 s after the start, a review), then is
        killed."""
        now = time.monotonic()
        served = now + (self.config.timeout_graceful_shutdown or 0) + KILL_GRACE_SECONDS
        starting = now + STARTING_GRACE_SECONDS
        for process in sorted(self.processes, key=lambda p: p.pid in self.served):
            deadline = served if process.pid in self.served else starting
            process.process.join(max(0.0, deadline - time.monotonic()))
            if process.process.exitcode is None:
                process.kill()
                process.process.join()

    def handle_ttin(self) -> None:
        if self.processes_num >= max_workers():
            return
        super().handle_ttin()


class AccessLog(logging.StreamHandler):
    """uvicorn's access log on stdout, which may close under a running server (`gradwalk serve
    | head`, a reader that left, a full disk). logging would print a traceback for every
    request after that; this says so once, in one line on stderr, and the server serves on
    with its access lines going nowhere (stdout pointed at /dev/null)."""

    def handleError(self, record: logging.LogRecord) -> None:
        from gradwalk.server.cli_io import say, silence_stdout

        silence_stdout()
        if not getattr(self, "said", False):
            self.said = True
            say("the access log (stdout) cannot be written any more; serving on without it")
