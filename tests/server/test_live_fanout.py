"""Live rooms' streams on real `gradwalk serve` processes (issue 17, section 1): the first event
is the current state (a reconnect with Last-Event-ID too), each step reaches every follower,
the followers per process are bounded (503 past it, and a follower that left frees its place),
a phone that stops reading skips to the newest step while every other follower is written
each step at once (straight to its socket, server/protocol.py RawBody), SQLite with --workers 2
refuses rooms, and on PostgreSQL with --workers 2 twenty followers
spread over both workers all get the last step, also after the listeners' connections are
killed (they reconnect and catch up); there a step is committed on the worker's listener's
own connection, from the event loop. The small version of bench/live.py's load.

The PostgreSQL runs need GRADWALK_TEST_POSTGRES_URL (.ci/run starts one)."""
from __future__ import annotations

import asyncio
import pathlib
import sys
import time

import sqlalchemy as sa
from link_servers import fresh_postgres_database
from server_process import raw_request, served
from test_load import run_async

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from bench.live import PROGRAM, Follower, request, run  # noqa: E402
from gradwalk.server.livehub import LISTENER_NAME, READER_NAME  # noqa: E402

STATE = {"v": 1, "program": PROGRAM}
# This test's server's listeners: the test database's (other servers may share the cluster).
OURS = "WHERE application_name = :n AND datname = current_database()"


async def _open(port: int) -> tuple[str, dict]:
    status, body = await request(port, "POST", "/api/live", STATE)
    assert status == 201, body
    return body["room"], {"Authorization": f"Bearer {body['presenter_token']}"}


async def _step(port: int, room: str, auth: dict, step: int) -> int:
    status, body = await request(port, "POST", f"/api/live/{room}/state",
                                 {**STATE, "step": step}, auth)
    assert status == 200, body
    return body["seq"]


async def _next_state(follower: Follower, timeout: float = 10.0) -> tuple[int, int]:
    """(seq, step) of the follower's next `state` event."""
    async def first():
        async for kind, seq, data in follower.events():
            if kind == "state":
                return seq, data["state"].get("step", 0)
    return await asyncio.wait_for(first(), timeout)


def test_followers_get_the_current_state_then_each_step_within_the_bound(tmp_path):
    async def scenario(port: int) -> None:
        room, auth = await _open(port)
        await _step(port, room, auth, 2)
        a, b = Follower.open(port, room), Follower.open(port, room)
        a, b = await a, await b
        assert (a.status, b.status) == (200, 200)
        assert await _next_state(a) == (1, 2) and await _next_state(b) == (1, 2)
        third = await Follower.open(port, room)
        assert third.status == 503   # max_live_followers=2 in this process
        third.close()
        await _step(port, room, auth, 3)
        assert await _next_state(a) == (2, 3) and await _next_state(b) == (2, 3)
        a.close()
        await asyncio.sleep(0.5)   # the server notices the closed stream at its next write
        await _step(port, room, auth, 4)
        late = await Follower.open(port, room, last_id=1)   # a reconnect: the current state
        assert late.status == 200 and await _next_state(late) == (3, 4)
        late.close()
        b.close()

    with served(tmp_path, data_dir=tmp_path, max_live_followers=2,
                live_heartbeat_seconds=0.2) as server:
        run_async(scenario(server.port))


def test_a_reconnect_at_the_current_seq_gets_no_duplicate_an_older_one_the_state(tmp_path):
    async def scenario(port: int) -> None:
        room, auth = await _open(port)
        assert await _step(port, room, auth, 2) == 1
        older, newcomer = await Follower.open(port, room, 0), await Follower.open(port, room)
        assert await _next_state(older) == (1, 2) and await _next_state(newcomer) == (1, 2)
        current = await Follower.open(port, room, last_id=1)   # it has seq 1 already
        assert current.status == 200
        await asyncio.sleep(0.5)   # heartbeats only meanwhile: no state event to read
        assert await _step(port, room, auth, 3) == 2
        assert await _next_state(current) == (2, 3)   # the next step, not seq 1 again
        for follower in (older, newcomer, current):
            follower.close()

    with served(tmp_path, data_dir=tmp_path, live_heartbeat_seconds=0.2) as server:
        run_async(scenario(server.port))


def test_an_idle_room_ends_its_followers_streams(tmp_path):
    async def scenario(port: int) -> list:
        room, _ = await _open(port)
        follower = await Follower.open(port, room)
        assert follower.status == 200   # (opened well within the idle time)
        kinds = []
        async def read():
            async for kind, _, _ in follower.events():
                kinds.append(kind)
        await asyncio.wait_for(read(), 20)   # the stream ends by itself
        follower.close()
        return kinds

    with served(tmp_path, data_dir=tmp_path, live_idle_seconds=3,
                live_heartbeat_seconds=0.2) as server:
        assert run_async(scenario(server.port)) == ["state", "end"]


def test_sqlite_with_two_workers_refuses_live_rooms(tmp_path):
    with served(tmp_path, workers=2, data_dir=tmp_path) as server:
        status, body = run_async(request(server.port, "POST", "/api/live", STATE))
    assert status == 409 and body["error"]["kind"] == "live_needs_postgres"
    assert "2 worker processes" in body["error"]["message"]


def test_postgres_two_workers_twenty_followers_and_a_listener_that_dies(tmp_path):
    with fresh_postgres_database() as url, \
            served(tmp_path, workers=2, database_url=url, data_dir=tmp_path,
                   live_heartbeat_seconds=600) as server:   # no sweep: only the listeners
        engine = sa.create_engine(url)
        try:
            # The server answers its health check from the first worker up; the second may
            # still be starting (at load 20 on 2 cores, seconds later): both listening first,
            # so that the followers spread over both.
            assert _listeners(engine, until=2) == 2   # both workers' listeners, one each
            result = run_async(run(server.port, 20, 10))
            assert result["final"] == [10] * 20 and result["reconnect_step"] == 10
            assert _listeners(engine) == 2
            run_async(_after_listeners_die(server.port, engine))
        finally:
            engine.dispose()


def test_postgres_a_step_is_committed_on_the_listeners_own_connection(tmp_path):
    """One statement from the event loop (storage/live.py step_on), not a pooled connection's
    round trips from a worker thread: the reader's last statement is the step's UPDATE. (No
    follower, so that the listener has no read to make after the NOTIFY.)"""
    with fresh_postgres_database() as url, \
            served(tmp_path, database_url=url, data_dir=tmp_path,
                   live_heartbeat_seconds=600) as server:
        engine = sa.create_engine(url)
        try:
            assert _listeners(engine, until=1) == 1
            room, auth = run_async(_open(server.port))
            assert run_async(_step(server.port, room, auth, 4)) == 1
            with engine.connect() as conn:
                last = conn.scalar(sa.text(f"SELECT query FROM pg_stat_activity {OURS}"),
                                   {"n": READER_NAME})
            assert last.startswith("UPDATE live_rooms SET state="), last
        finally:
            engine.dispose()


def _listeners(engine: sa.Engine, until: int | None = None, timeout: float = 60.0) -> int:
    """This server's listener connections in pg_stat_activity; with `until`, polled (every
    0.1 s, at most `timeout` seconds) until there are that many."""
    deadline = time.monotonic() + timeout
    while True:
        with engine.connect() as conn:
            n = conn.scalar(sa.text(f"SELECT count(*) FROM pg_stat_activity {OURS}"),
                            {"n": LISTENER_NAME})
        if until is None or n == until or time.monotonic() > deadline:
            return n
        time.sleep(0.1)   # a worker still starting


async def _after_listeners_die(port: int, engine: sa.Engine) -> None:
    room, auth = await _open(port)
    followers = [await Follower.open(port, room) for _ in range(6)]   # on both workers
    for f in followers:
        assert await _next_state(f) == (0, 0)
    with engine.connect() as conn:
        conn.execute(sa.text(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity {OURS}"),
                     {"n": LISTENER_NAME})
    await _step(port, room, auth, 7)   # while the listeners are away
    for f in followers:
        assert await _next_state(f, timeout=15) == (1, 7)
        f.close()


def _chunked_events(body: bytes) -> list[bytes]:
    """The SSE blocks of a chunked body, every chunk's framing checked (a piece written beside
    another, or cut, fails here)."""
    text = b""
    while body:
        size, sep, body = body.partition(b"\r\n")
        assert sep and size.isalnum(), body[:80]
        n = int(size, 16)
        if n == 0 or len(body) < n + 2:
            break   # the end, or the last chunk not all read yet
        assert body[n:n + 2] == b"\r\n", body[n:n + 40]
        text, body = text + body[:n], body[n + 2:]
    return text.split(b"\n\n")


def test_a_phone_that_stops_reading_skips_to_the_newest_step_the_others_get_each_at_once(
        tmp_path):
    pad = "x" * 60_000   # a state near max_live_state_bytes
    steps = 120   # 7 MB: more than the kernel's send buffer takes (tcp_wmem's 4 MB at most)

    async def scenario(port: int) -> str:
        status, body = await request(port, "POST", "/api/live", {**STATE, "pad": pad})
        room, auth = body["room"], {"Authorization": f"Bearer {body['presenter_token']}"}
        slow = raw_request(port, f"GET /api/live/{room}/events HTTP/1.1\r\nHost: x",
                           rcvbuf=4096)   # it reads nothing until the lecture is over
        fast = [await Follower.open(port, room) for _ in range(3)]
        for f in fast:
            assert await _next_state(f) == (0, 0)
        for k in range(1, steps + 1):
            status, body = await request(port, "POST", f"/api/live/{room}/state",
                                         {**STATE, "pad": pad, "step": k}, auth)
            assert status == 200, body
            for f in fast:   # every step, none skipped
                assert await _next_state(f) == (k, k)
        got = b""
        slow.settimeout(0.5)
        while b'"step":%d,' % steps not in got:   # (canonical JSON: keys sorted)
            got += slow.recv(1 << 20)
        slow.close()
        for f in fast:
            f.close()
        seqs = [int(block.rsplit(b"\nid: ", 1)[1]) for block in
                _chunked_events(got.partition(b"\r\n\r\n")[2]) if b"event: state" in block]
        assert seqs[-1] == steps and seqs == sorted(set(seqs)), seqs
        assert len(seqs) < steps, seqs   # it skipped steps: no queue grew for it
        return room

    with served(tmp_path, data_dir=tmp_path, live_timing_log=True, live_state_rate_limit="",
                live_heartbeat_seconds=600) as server:
        room = run_async(scenario(server.port))
        log = server.log.read_text()
    written = [int(line.split(" followers, ")[1].split()[0])
               for line in log.splitlines() if f"live step {room} " in line]
    assert len(written) == steps and min(written) >= 3, written   # the fast 3, each step
    assert written[-1] == 3, written   # by then the phone's socket took no more


def test_an_http_1_0_follower_gets_its_steps_unframed_the_ordinary_way(tmp_path):
    """HTTP/1.0 has no chunks: h11 ends such a body by closing, so the hub must not write
    chunk frames into it; its task sends the steps (0 written at once)."""
    async def scenario(port: int) -> tuple[str, bytes]:
        room, auth = await _open(port)
        old = raw_request(port, f"GET /api/live/{room}/events HTTP/1.0\r\nHost: x")
        modern = await Follower.open(port, room)
        assert await _next_state(modern) == (0, 0)
        await asyncio.sleep(0.3)   # both streams idle
        for k in (1, 2):
            await _step(port, room, auth, k)
            assert await _next_state(modern) == (k, k)
        got = b""
        old.settimeout(2)
        while b"id: 2\n\n" not in got:
            got += old.recv(65536)
        old.close()
        modern.close()
        return room, got

    with served(tmp_path, data_dir=tmp_path, live_timing_log=True,
                live_heartbeat_seconds=600) as server:
        room, got = run_async(scenario(server.port))
        log = server.log.read_text()
    head, _, body = got.partition(b"\r\n\r\n")
    assert b"transfer-encoding" not in head.lower()
    assert body.startswith(b"retry: 2000\n\nevent: state\n") and b"\r\n" not in body, body[:300]
    assert [block.rsplit(b"\nid: ", 1)[1] for block in body.split(b"\n\n")
            if block.startswith(b"event: state")] == [b"0", b"1", b"2"]
    written = [line.split(" followers, ")[1].split(";")[0]
               for line in log.splitlines() if f"live step {room} " in line]
    assert written == ["1 written at once"] * 2, written   # the HTTP/1.1 one only


async def _closed_ends_followers(port: int) -> tuple[list, int, int, int]:
    """A follower's event kinds after the presenter closes the room, and the statuses of a
    close without the token, with it, and of a step after it."""
    room, auth = await _open(port)
    follower = await Follower.open(port, room)
    assert await _next_state(follower) == (0, 0)
    strangers = (await request(port, "DELETE", f"/api/live/{room}", None,
                               {"Authorization": "Bearer not-the-token"}))[0]
    closed = (await request(port, "DELETE", f"/api/live/{room}", None, auth))[0]
    kinds = []
    async def read():
        async for kind, _, _ in follower.events():
            kinds.append(kind)
    await asyncio.wait_for(read(), 10)   # the stream ends at once, not at the idle time
    follower.close()
    after = (await request(port, "POST", f"/api/live/{room}/state", {**STATE, "step": 1}, auth))[0]
    return kinds, strangers, closed, after


def test_the_presenter_closes_the_room_and_its_followers_are_told(tmp_path):
    """Review of fb96ca3: "Leave the room" left the students "Following the lecturer" at the
    last step until the room expired (4 h). DELETE /api/live/{room} with the token ends them."""
    with served(tmp_path, data_dir=tmp_path, live_heartbeat_seconds=600) as server:
        kinds, strangers, closed, after = run_async(_closed_ends_followers(server.port))
    assert (strangers, closed, after) == (403, 200, 404)
    assert kinds == ["end"]


def test_postgres_a_closed_room_ends_the_followers_of_every_worker(tmp_path):
    async def scenario(port: int) -> list:
        room, auth = await _open(port)
        followers = [await Follower.open(port, room) for _ in range(6)]   # over both workers
        for follower in followers:
            assert (await _next_state(follower))[1] == 0
        assert (await request(port, "DELETE", f"/api/live/{room}", None, auth))[0] == 200
        ends = []
        async def read(follower):
            async for kind, _, _ in follower.events():
                ends.append(kind)
        await asyncio.wait_for(asyncio.gather(*(read(f) for f in followers)), 20)
        for follower in followers:
            follower.close()
        return ends

    with fresh_postgres_database() as url, \
            served(tmp_path, workers=2, database_url=url, data_dir=tmp_path,
                   live_heartbeat_seconds=600) as server:   # no sweep: only the NOTIFY
        engine = sa.create_engine(url)
        try:
            assert _listeners(engine, until=2) == 2
        finally:
            engine.dispose()
        assert run_async(scenario(server.port)) == ["end"] * 6
