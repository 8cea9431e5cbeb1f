"""server/livehub.py's followers without a server (issue 17, section 1): the heartbeats come from
the hub's sweep (Hub.beat), to the followers it finds quiet, instead of a timer per follower
and wait (a cost paid by each of 1,000 followers at every step); a pending state goes first and
the `end` after it; the process that committed a step hands it to its own followers at once,
without a read (its NOTIFY, when it comes, finds it delivered); a step on the listener's
connection that fails is committed from a thread instead; and, on a real server, a quiet
stream does get its comment lines."""
from __future__ import annotations

import socket
import time

from server_process import served
from test_live_fanout import _open
from test_load import run_async

from gradwalk.server.livehub import Hub
from gradwalk.server.protocol import chunk

BEAT = b": still here\n\n"


class Socket:
    """A stand-in for server/protocol.py RawBody: what was written, and whether it takes more."""

    def __init__(self) -> None:
        self.taking, self.written = True, []

    def ready(self) -> bool:
        return self.taking

    def write(self, framed: bytes) -> None:
        self.written.append(framed)


def test_an_idle_follower_is_written_its_step_at_once_without_its_task():
    async def scenario() -> None:
        hub = Hub(store=None, idle=60, max_followers=3)
        a, b = hub.join("ROOMAA"), hub.join("ROOMAA")
        a.raw, b.raw = Socket(), Socket()
        a.idle = b.idle = True   # both tasks wait for their next piece
        b.raw.taking = False     # b's socket buffer is past its high-water mark
        hub._offer("ROOMAA", (4, '{"v":1,"step":4}'))
        event = b'event: state\ndata: {"room":"ROOMAA","seq":4,"state":{"v":1,"step":4}}\nid: 4\n\n'
        assert a.raw.written == [b"%x\r\n" % len(event) + event + b"\r\n"] == [chunk(event)]
        assert a.sent == 4 and a.pending is None and not a.wake.is_set()   # no task woken
        assert b.raw.written == [] and b.pending == (4, event) and b.wake.is_set()
        hub._offer("ROOMAA", (5, '{"v":1,"step":5}'))   # b's task has not run yet
        assert len(a.raw.written) == 2 and b.raw.written == []
        assert b.pending[0] == 5   # only the newest waits for a slow socket
        a.idle = False   # a's task is sending: nothing may be written beside it
        hub._offer("ROOMAA", (6, '{"v":1,"step":6}'))
        assert len(a.raw.written) == 2 and a.pending[0] == 6 and a.wake.is_set()

    run_async(scenario())


def test_the_stepping_process_hands_its_step_out_at_once_and_the_notify_reads_nothing():
    async def scenario() -> None:
        hub = Hub(store=None, idle=60, max_followers=2)
        reads = []

        async def read(room):   # the listener's read of a notified step
            reads.append(room)
            return 5, '{"v":1,"step":5}'

        hub.read = read
        f = hub.join("ROOMAA")
        f.raw, f.idle = Socket(), True
        hub.stepped("ROOMAA", 5, '{"v":1,"step":5}')   # this process committed step 5
        event = b'event: state\ndata: {"room":"ROOMAA","seq":5,"state":{"v":1,"step":5}}\nid: 5\n\n'
        assert f.raw.written == [chunk(event)] and f.sent == 5
        await hub.notified("ROOMAA", 5)   # its own NOTIFY comes after
        assert reads == [] and len(f.raw.written) == 1
        hub.stepped("ROOMBB", 1, '{"v":1}')   # a room nobody follows here: nothing
        assert hub.rooms.keys() == {"ROOMAA"} and "ROOMBB" not in hub.delivered

    run_async(scenario())


class Store:
    """A stand-in for LiveStore: `step` records its call and answers seq 8."""

    timeout = 5.0

    def __init__(self) -> None:
        self.steps = []

    def step(self, room, token, state, idle):
        self.steps.append((room, token, state, idle))
        return 8


class DeadConnection:
    """A psycopg AsyncConnection whose server went away."""

    async def execute(self, *args, **kwargs):
        import psycopg
        raise psycopg.OperationalError("the connection is closed")


def test_a_step_on_a_dead_listener_connection_is_committed_from_a_thread():
    async def scenario() -> None:
        hub = Hub(store=Store(), idle=60, max_followers=1)
        hub.conn = DeadConnection()
        assert await hub.step("ROOMAA", "token", '{"v":1}') == 8
        assert hub.store.steps == [("ROOMAA", "token", '{"v":1}', 60)]

    run_async(scenario())


def test_a_heartbeat_is_written_at_once_to_an_idle_follower():
    async def scenario() -> None:
        hub = Hub(store=None, idle=60, max_followers=1)
        f = hub.join("ROOMAA")
        f.raw, f.idle = Socket(), True
        hub.beat()
        assert f.raw.written == [chunk(BEAT)] and not f.wake.is_set()
        hub.beat()   # something was sent since the last sweep: no beat this time
        assert len(f.raw.written) == 1

    run_async(scenario())


def test_the_sweep_beats_only_the_followers_it_finds_quiet():
    async def scenario() -> None:
        hub = Hub(store=None, idle=60, max_followers=3)
        a, b = hub.join("ROOMAA"), hub.join("ROOMAA")
        assert not a.wake.is_set() and not b.wake.is_set()
        a.offer(0, b"state 0")
        assert a.wake.is_set() and a.next_piece() == b"state 0" and a.sent == 0
        hub.beat()
        assert not a.wake.is_set()   # a was sent a state since the last sweep: no heartbeat
        assert b.wake.is_set() and b.next_piece() == BEAT
        hub.beat()   # a has been quiet for a whole sweep now
        assert a.wake.is_set() and a.next_piece() == BEAT
        a.offer(0, b"state 0 again")   # not newer than what a has: nothing to send
        assert not a.wake.is_set()

    run_async(scenario())


def test_a_pending_state_goes_before_the_end():
    async def scenario() -> None:
        hub = Hub(store=None, idle=60, max_followers=1)
        f = hub.join("ROOMAA")
        f.offer(3, b"state 3")
        f.end()   # the room expired just after its last step
        assert f.next_piece() == b"state 3"
        assert f.wake.is_set() and f.next_piece() is None   # then the end, without waiting
        f.stop()
        assert hub.count == 0 and hub.rooms == {}

    run_async(scenario())


def test_a_quiet_stream_gets_its_heartbeats_from_the_sweep(tmp_path):
    with served(tmp_path, data_dir=tmp_path, live_heartbeat_seconds=0.2) as server:
        room, _ = run_async(_open(server.port))
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(f"GET /api/live/{room}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            got = b""
            sock.settimeout(0.2)
            deadline = time.monotonic() + 1.5
            while time.monotonic() < deadline and got.count(BEAT) < 3:
                try:
                    got += sock.recv(4096)
                except TimeoutError:
                    pass
    assert got.startswith(b"HTTP/1.1 200") and b"event: state" in got
    assert got.count(BEAT) >= 3, got   # every 0.2 s of quiet: at least 3 in 1.5 s

