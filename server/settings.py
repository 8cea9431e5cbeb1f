"""Settings from the environment (prefix GRADWALK_), read with pydantic-settings.

The fields are declared once, in `Settings`, a plain class. pydantic-settings (about 0.2 s of
imports, most of `gradwalk trace`'s start) is imported only when a GRADWALK_<FIELD> variable is
set; without one the settings are the defaults, read straight from the class.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path

from platformdirs import user_data_path

from gradwalk.engine.trace.limits import Limits, TrainLimits

PREFIX = "GRADWALK_"   # environment variables are matched without regard to case
MAX_NICE = 19   # the lowest CPU priority (nice) a process can have


class Settings:
    """The settings and their defaults. `Settings()` is the defaults; `Settings(name=value)`
    overrides some (unknown names raise TypeError); `get_settings()` is this process's.
    The engine's limits take their defaults from the engine, declared once there:
    engine/trace/limits.py's Limits (a trace's) and TrainLimits (a training run's); only the
    wall-clock budgets differ (the engine has none, a server does).

    max_inline_elements: tensors up to this many elements carry data in events (elements).
    max_elements: the largest value one node may hold (elements).
    max_nodes: the most nodes one program may make (nodes).
    max_total_elements: the sum of all values' sizes (elements); bounds memory.
    max_flops: the forward pass's floating-point operations (FLOPs); bounds time.
    max_response_bytes: the largest trace body (bytes), estimated from the graph before anything
        is serialized; a 100,000-node scalar chain makes about 70 MB. Larger: 422 too_large
        (the stream: its only event, an `error`; engine/trace/tracer.py `_fits`: a body a
        light bound shows within the limit is not estimated at all).
    max_concurrent_traces: traces computed at once (the machine has few cores; more would
        only share them and multiply the memory); also the most trace worker processes.
    trace_processes: run each trace (its parse, its walk, its serialization) in a worker
        process (server/procs.py), so the event loop never waits for a trace's GIL: true.
        false runs them in threads of the server's process, as before issue 14 (tests that
        patch the engine in their own process use it; /healthz can then wait up to ~1 s
        beside big traces).
    trace_worker_nice: how much lower each trace worker's CPU priority is than the server's
        (a nice increment, 0 to 19; the kernel caps a process's nice at 19). A trace is batch
        work and the server's event loop answers /healthz and streams, so where the workers
        and the server share the CPU's scheduling (a container, a systemd service) the server
        is given a core first: 10 is a weight of 110 against the server's 1024, and a trace
        alone on a core still runs at full speed. 0: the server's priority. (Each worker also
        runs in a session of its own: server/worker_process.py `_own_group`.)
    busy_timeout_seconds: how long a request may take, from its arrival (its head read), to
        send its body, be validated (a program of up to 8 KB also parsed) and be given a free
        slot before a 503 `busy` (seconds).
    max_queued_bytes: the bodies of all requests between their arrival and a trace slot
        (being read, validated, parsed or waiting for a slot), together (bytes, each at least
        1 KiB, a chunked body at max_body_bytes, one alone always fits); a request that finds
        it full answers 503 `busy` at once. A parsed program holds about 37 times its body
        (a 30,000-node chain: 0.67 MB of JSON, 24 MB parsed), so the default holds about six
        such programs or thousands of small ones.
    max_stream_buffer_bytes: the stream bytes made and not yet read by their clients, over
        all streams together (bytes); past it the stream holding the most is dropped: its
        trace stops and its client gets an `error` event of kind `too_slow`. The default holds
        two of the largest streams (max_response_bytes) whole.
    dropped_stream_grace_seconds: how long a dropped stream's client has to read what the
        sockets still hold and its `too_slow` event (seconds); past it its connection is cut
        (reset), so a client that never reads holds neither the connection nor the buffers.
    max_program_chars: the longest program accepted (characters); a 100,000-node chain fits.
    max_quiz_nodes: the largest program (nodes) POST /api/quiz/mistakes answers for; its table
        traces the program four times (the correct walk and three of the bug lab's engines:
        engine/mistakes.py). Larger: 422 too_large (the quiz then names no mistakes).
    max_statements: the most statements (lines) a program may have (statements).
    max_depth: how deeply an expression may nest: calls, lists and right operands count a
        level, a left-associative chain `x + x + ... + x` stays at one (levels).
    trace_timeout_seconds: the wall-clock budget of one trace once it has its slot (seconds);
        a trace past it stops and answers 422 `timeout` (an error event in the stream, exit 1
        in the CLI).
    max_train_steps: the most iterations one training request may run (iterations); more:
        422 `too_large` naming GRADWALK_MAX_TRAIN_STEPS, before the first iteration.
    max_train_elements: the values one iteration holds (all nodes' elements) times the steps
        (elements x iterations); bounds the work of a training run by its memory traffic. The
        seeds' largest network needs 1.8e8 (three spirals, 64 units, 3,000 steps: 60,688 a step).
    max_train_flops: one iteration's FLOPs, three times the forward pass's (the backward pass
        costs about twice the forward), times the steps (FLOPs x iterations); the spirals'
        3,000 steps need 2.1e9.
    train_timeout_seconds: the wall-clock budget of one training run once it has its slot
        (seconds); past it the run stops and answers 422 `timeout` (an `error` event in the
        stream).
    max_train_record: the most iterations one request may ask recorded (each one a whole
        trace body in the answer; iterations).
    max_body_bytes: the largest request body (bytes); the default fits a max_program_chars
        program even with every character JSON-escaped (`\\u00e9`, 6 bytes). Larger: 413.
    body_timeout_seconds: how long a request body may take to arrive (seconds); a body still
        incomplete after it answers 408 and the connection is closed.
    header_timeout_seconds: how long `gradwalk serve` waits for a request's line and headers
        (seconds), from the connection's opening or the request's first byte; past it 408 and
        the connection is closed (server/protocol.py).
    max_json_depth: how deeply a request body may nest objects and arrays (levels; as
        max_depth bounds a program's nesting). Deeper: 413 too_large, before it is parsed.
    max_json_keys: the most object keys in one request body, all objects together (keys);
        a body has a dozen fields, a tangent or vector one key per leaf. More: 413.
    max_json_items: the most array elements in one request body, all arrays together
        (elements; as max_total_elements bounds all of a program's values). More: 413.
    shutdown_timeout_seconds: on SIGTERM, how long `gradwalk serve` lets open connections (a
        slow stream client) finish before closing them (seconds); the process ends at most
        0.5 s after it, work still running or not (server/shutdown.py).
    data_dir: where the default SQLite database lives (created on first start).
    database_url: SQLAlchemy URL of the short-link store; empty means
        `sqlite:///<data_dir>/gradwalk.db`; PostgreSQL as `postgresql+psycopg://user:pw@host/db`.
    database_timeout_seconds: how long to wait for the database (connect, or a SQLite lock)
        before a link request answers 503 (seconds).
    links_enabled: short links on; off for a stateless deployment (the page hides the button).
    max_link_state_bytes: the largest short-link state, as canonical UTF-8 JSON (bytes).
    max_link_storage_bytes: the most bytes all short links together may take in the database
        (bytes, counted there, so across workers: each link its state plus 100 for its row);
        a new link past it answers 507 storage_full. 0: no cap.
    link_rate_limit: new short links one client (an address; an IPv6 /64) may make, in the
        `limits` library's notation: "N/second|minute|hour|day", several joined by ";". Past
        it: 429 rate_limited with Retry-After. Counted per server process. Empty: no limit.
    live_enabled: live rooms on (POST /api/live, /live/{room}; server/routers/live.py).
    public_url: the address students' phones reach this server by, e.g.
        "http://192.168.1.20:8000" or "https://gradwalk.example.edu" (an http(s) URL, a path
        allowed): a live room's address and QR code are made under it. Empty: under the
        lecturer's own page's address, which phones cannot open when it is 127.0.0.1 or
        localhost (`make serve`'s); the Share panel then says so.
    live_idle_seconds: a live room whose presenter has sent nothing for this long is gone: its
        followers get an `end` event and its code answers 404 (seconds).
    max_live_rooms: the most live rooms at once, in the database, so across workers (rooms);
        one more answers 503 busy (checked atomically with the insert: server/storage/live.py).
    max_live_followers: the most open /api/live/{room}/events streams in one server process,
        all rooms together (streams); one more answers 503 busy with Retry-After.
    max_live_state_bytes: the largest state a presenter may send or open a room with, as
        canonical UTF-8 JSON (bytes); larger: 413 too_large.
    live_state_rate_limit: the steps one room's presenter may send, in the `limits` library's
        notation (as link_rate_limit), counted per room and token in each server process (a
        held arrow key repeats about 30 times a second). Past it: 429 with Retry-After; the
        presenter's page waits as told and then sends its newest step.
    live_heartbeat_seconds: how often each process's sweep looks at its live rooms (seconds):
        it ends the streams of expired rooms and sends a comment line to every follower sent
        nothing since the last sweep, so that proxies keep the stream open and a follower that
        left is noticed (a stream is never quiet for two sweeps).
    live_timing_log: log a line for each live step in each process: when its notification came,
        when its state had been read, when it had been handed to every follower (seconds of
        the machine's monotonic clock) and how many were written at once (bench/live.py).
    notebook_fallback_bytes: the largest trace body (bytes) the notebook widget's fallback
        puts in the notebook (server/widget.py `_repr_html_`): every displayed widget stores its
        standalone page, about 0.6 MB of page plus the trace, in the .ipynb file; over it the
        fallback is a line saying to run the notebook (the widget itself is not limited by it).
    serve_workers: the number of `gradwalk serve --workers` processes; set by `gradwalk serve`
        itself (not by hand). With SQLite and more than one, live rooms are refused: their
        followers would miss steps posted to another process (use PostgreSQL, or one worker).
    """

    max_inline_elements: int = Limits.inline
    max_elements: int = Limits.max_elements
    max_nodes: int = Limits.max_nodes
    max_total_elements: int = Limits.max_total_elements
    max_flops: int = Limits.max_flops
    max_response_bytes: int = Limits.max_response_bytes
    max_concurrent_traces: int = 2
    trace_processes: bool = True
    trace_worker_nice: int = 10
    busy_timeout_seconds: float = 10.0
    max_queued_bytes: int = 4 * 1024 * 1024
    max_stream_buffer_bytes: int = 200_000_000
    dropped_stream_grace_seconds: float = 30.0
    max_program_chars: int = 2_000_000
    max_quiz_nodes: int = 2_000
    max_statements: int = Limits.max_statements
    max_depth: int = Limits.max_depth
    trace_timeout_seconds: float = 20.0
    max_train_steps: int = TrainLimits.max_steps
    max_train_elements: int = TrainLimits.max_element_steps
    max_train_flops: int = TrainLimits.max_flop_steps
    train_timeout_seconds: float = 60.0
    max_train_record: int = TrainLimits.max_recorded
    max_body_bytes: int = 16 * 1024 * 1024
    body_timeout_seconds: float = 30.0
    header_timeout_seconds: float = 10.0
    max_json_depth: int = 100
    max_json_keys: int = 10_000
    max_json_items: int = 5_000_000
    shutdown_timeout_seconds: float = 5.0
    data_dir: Path = user_data_path("gradwalk")
    database_url: str = ""
    database_timeout_seconds: float = 10.0
    links_enabled: bool = True
    max_link_state_bytes: int = 65_536
    max_link_storage_bytes: int = 1 << 30
    link_rate_limit: str = "30/minute;600/hour"
    live_enabled: bool = True
    public_url: str = ""
    live_idle_seconds: float = 4 * 3600.0
    max_live_rooms: int = 1_000
    max_live_followers: int = 5_000
    max_live_state_bytes: int = 65_536
    live_state_rate_limit: str = "30/second;20000/hour"
    live_heartbeat_seconds: float = 15.0
    live_timing_log: bool = False
    notebook_fallback_bytes: int = 4_000_000
    serve_workers: int = 1

    def __init__(self, **values) -> None:
        for name, value in values.items():
            if name not in Settings.__annotations__:
                raise TypeError(f"Settings has no field {name!r}")
            setattr(self, name, value)

    def __reduce__(self):
        """Pickled as a plain Settings with every value, for the trace workers (the
        pydantic-settings class made from the environment is local to a function)."""
        return Settings, (), {name: getattr(self, name) for name in Settings.__annotations__}

    def link_database_url(self) -> str:
        """The database_url, or the SQLite file in data_dir when it is empty."""
        return self.database_url or f"sqlite:///{self.data_dir.expanduser() / 'gradwalk.db'}"


@functools.lru_cache
def get_settings() -> Settings:
    """This process's settings, read once: from the environment when a GRADWALK_<FIELD>
    variable is set (from_environment), else the defaults. Raises SettingError for a variable
    that is not a value of its field's type."""
    variables = {PREFIX + field.upper() for field in Settings.__annotations__}
    if any(name.upper() in variables for name in os.environ):
        return from_environment()
    return Settings()


def check_public_url(url: str) -> str:
    """`url` if it is empty or an absolute http(s) URL with a host (no query, no fragment:
    a room's path goes after it). Raises ValueError saying what is wrong."""
    from urllib.parse import urlsplit

    if not url:
        return url
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("an http:// or https:// address with a host, e.g. http://192.168.1.20:8000")
    if parts.query or parts.fragment:
        raise ValueError("an address without ?query or #fragment (the room's path goes after it)")
    return url


class SettingError(ValueError):
    """A GRADWALK_ variable that is not a value of its field's type, said in one line."""


def from_environment() -> Settings:
    """The settings with every GRADWALK_<FIELD> variable of the environment applied, each
    validated as its field's type (pydantic-settings). Raises SettingError."""
    from pydantic import ValidationError

    try:
        return _environment_settings()()
    except ValidationError as e:
        first = e.errors(include_url=False)[0]
        name = PREFIX + str(first["loc"][0]).upper() if first["loc"] else PREFIX + "*"
        raise SettingError(f"{name}={first.get('input')!r}: {first['msg']}") from None


@functools.lru_cache
def _environment_settings() -> type[Settings]:
    """Settings as a pydantic-settings class: pydantic reads the fields, their types and
    defaults from the plain class (a base class's annotations are fields)."""
    from pydantic import field_validator
    from pydantic_settings import BaseSettings, SettingsConfigDict

    from gradwalk.server.ratelimit import check_spec

    class EnvironmentSettings(BaseSettings, Settings):
        model_config = SettingsConfigDict(env_prefix=PREFIX)

        @field_validator("link_rate_limit", "live_state_rate_limit")
        @classmethod
        def _rate(cls, spec: str) -> str:
            return check_spec(spec)

        @field_validator("public_url")
        @classmethod
        def _public_url(cls, url: str) -> str:
            return check_public_url(url)

        @field_validator("trace_worker_nice")
        @classmethod
        def _nice(cls, increment: int) -> int:
            if not 0 <= increment <= MAX_NICE:
                raise ValueError(f"a nice increment from 0 to {MAX_NICE} (a worker may only "
                                 "lower its own priority)")
            return increment

    return EnvironmentSettings
