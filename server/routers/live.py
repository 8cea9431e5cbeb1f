"""Live rooms: a lecturer's page posts its step, students' pages follow it (Server-Sent Events).

  POST /api/live                 {page state}  -> 201 {room, presenter_token, url}; 422 with
                                 the located error for a program that does not parse, as
                                 POST /api/trace (a short link keeps such a draft; a room not)
  POST /api/live/{room}/state    {page state with "step"}, Authorization: Bearer <token>
                                 -> {room, seq}; 403 without the room's token, before
                                 anything is said about the body (422, 415, 413)
  DELETE /api/live/{room}        Authorization: Bearer <token> -> {room, closed}: the room is
                                 gone, its followers get `end` (on every process)
  GET  /api/live/{room}/events   text/event-stream: `state` events {room, seq, state}, id seq;
                                 the first is the current state (on every connection, but a
                                 reconnect whose Last-Event-ID is the current seq, which has
                                 it), then each new one; `end` when the room expires or closes
  GET  /live/{room}              the student page (templates/live.html): the embed following
                                 the stream; it never writes

A state is the page state of static/js/state.js (a JSON object with an integer "v", its step
in "step"), every field typed as the students' pages type it (server/pagestate.py PageState, the
short links' check too): a state they would refuse is refused here, 422 naming the field. Bounds (server/settings.py): max_live_rooms (503), max_live_followers per process
(503 with Retry-After), max_live_state_bytes (413), live_state_rate_limit per room (429),
live_idle_seconds (a room idle that long is gone: 404). Fan-out: server/livehub.py.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, AsyncIterator, Awaitable

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from gradwalk.server.deps import SettingsDep, SlotsDep
from gradwalk.server.errors import error_dict, error_response
from gradwalk.server.jsonbody import ShapeTooLarge, UnsupportedBody, queue_share, read_body
from gradwalk.server.livehub import Busy, Follower, Hub, listen, state_event
from gradwalk.server.openapi import errors, page_errors
from gradwalk.server.pagestate import VERSION, PageState
from gradwalk.server.protocol import RAW_BODY
from gradwalk.server.ratelimit import RateLimit
from gradwalk.server.routers.pages import templates
from gradwalk.server.routers.traces import EventStream
from gradwalk.server.settings import Settings, get_settings
from gradwalk.server.storage.live import (LiveStore, NoRoom, TooManyRooms, WrongToken, normal_code,
                                 token_hash)
from gradwalk.server.storage.links import StorageUnavailable
from gradwalk.server.tracing import parse_program, sse_event, without_bom

router = APIRouter(tags=["live"])
# A step's body under this size is validated on the event loop, not in a worker thread
# (server/jsonbody.py read_body): a page state is a few hundred bytes.
STEP_ON_LOOP_BYTES = 8192
# What a step's body may be refused for (422, 415, 413): answered after the token is checked.
BODY_ERRORS = (RequestValidationError, UnsupportedBody, ShapeTooLarge)
NO_ROOM_HINT = "check the code on the lecturer's screen; a room closes after a while unused"


class RoomOpened(BaseModel):
    room: str = Field(description="6 characters to type on a phone (A-Z and 2-9, no 0/O/1/I/L)")
    presenter_token: str = Field(description="the secret the presenter steps the room with "
                                             "(Authorization: Bearer); the server keeps its hash")
    url: str = Field(description='"/live/<room>", the page students open')


class Stepped(BaseModel):
    room: str
    seq: int = Field(description="the state's number in the room (the SSE id of its event)")


def _error(status: int, kind: str, message: str, hint: str | None = None, headers=None):
    return error_response(status, error_dict(kind, message, hint), headers)


# The refusals the API answers and the student page shows: (status, error object).
UNAVAILABLE = (503, error_dict("unavailable", "the live-room database is unavailable",
                               "try again in a moment"))


def _no_room(room: str) -> tuple[int, dict]:
    return 404, error_dict("not_found", f"no live room {room[:16]!r} on this server",
                           NO_ROOM_HINT)


def _refusal(settings: Settings) -> tuple[int, dict] | None:
    """Why live rooms are off here, or None when they are on."""
    if not settings.live_enabled:
        return 404, error_dict("live_disabled", "live rooms are turned off on this server "
                               "(GRADWALK_LIVE_ENABLED=false)", "share a link to the walk instead")
    if settings.serve_workers > 1 and not settings.link_database_url().startswith("postgresql"):
        return 409, error_dict("live_needs_postgres",
                      f"live rooms need PostgreSQL when the server runs {settings.serve_workers} "
                      "worker processes: with SQLite a step posted to one process would not "
                      "reach the students connected to another",
                      "serve with --workers 1, or set GRADWALK_DATABASE_URL to a PostgreSQL "
                      "database")
    return None


def _room(room: str, settings: Settings) -> tuple[str, tuple[int, dict] | None]:
    """The room's code as stored (normal_code), and why it cannot be served, or None."""
    code = normal_code(room)
    return code or "", _refusal(settings) or (None if code else _no_room(room))


def _presenter(room: str, request: Request, settings: Settings, doing: str):
    """(the room's code, the presenter's bearer token), or (code, the error answer): the room
    cannot be served, or the request carries no token (a student page never does)."""
    code, problem = _room(room, settings)
    if problem is not None:
        return code, _refused(problem)
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return code, _error(403, "forbidden", f"only the room's presenter may {doing} it",
                            "send the presenter_token as Authorization: Bearer <token>")
    return code, token.strip()


async def _as_presenter(code: str, doing: str, work: Awaitable):
    """What `work` (a step or a close of room `code`) returns, or the error answer for why
    the store refused it: the database down, no such room, a token not this room's."""
    try:
        return await work
    except StorageUnavailable:
        return _refused(UNAVAILABLE)
    except NoRoom:
        return _refused(_no_room(code))
    except WrongToken:
        return _error(403, "forbidden", f"this token does not {doing} this room",
                      "open a room of your own from the Share panel")


def _refused(pair: tuple[int, dict]):
    return error_response(*pair)


def _walk_program(state: PageState) -> str:
    """The program a room's students trace: the state's (without a byte-order mark, as the
    trace reads it), or "" for a newer page's state, whose fields this server does not judge
    (server/pagestate.py)."""
    return "" if state.v > VERSION else without_bom(state.program)


def _sized(state: PageState, settings: Settings) -> str | Any:
    """The (checked) state as canonical JSON text, or a 413 error answer."""
    text = state.canonical()
    if len(text) > settings.max_live_state_bytes:
        return _error(413, "too_large", f"the state is {len(text):,} bytes as canonical JSON; a "
                      f"live room holds at most {settings.max_live_state_bytes:,} "
                      "(GRADWALK_MAX_LIVE_STATE_BYTES)", "shorten the program")
    return text.decode("utf-8")


# ---- the store and the hub: one each per process, made at startup (or on first use)

@contextlib.asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """The hub's sweep and, on PostgreSQL, its one listener: tasks of the app's lifespan,
    cancelled at its end."""
    settings = get_settings()
    tasks = []
    if settings.live_enabled:
        hub = _hub(app, settings)
        tasks.append(asyncio.create_task(hub.sweep(settings.live_heartbeat_seconds)))
        if hub.store.postgres:
            tasks.append(asyncio.create_task(listen(hub, settings.link_database_url())))
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task


def _hub(app: FastAPI, settings: Settings) -> Hub:
    hub = getattr(app.state, "live_hub", None)
    if hub is None:
        store = LiveStore(settings.link_database_url(), settings.database_timeout_seconds)
        hub = app.state.live_hub = Hub(store, settings.live_idle_seconds,
                                       settings.max_live_followers, settings.live_timing_log)
        app.state.live_rate = RateLimit(settings.live_state_rate_limit)
    return hub


# ---- the API

@router.post("/api/live", status_code=201, response_model=RoomOpened,
             responses=errors(404, 409, 413, 415, 422, 503))
async def open_room(request: Request, settings: SettingsDep, slots: SlotsDep):
    """Open a room at the page state in the body -> {room, presenter_token, url}. A program
    that does not parse is refused as POST /api/trace refuses it (422, its line and column):
    every student's page would open at that error."""
    async with queue_share(request, settings, slots) as wait:
        body = await read_body(request, wait, PageState)
        refused = _refusal(settings)
        if refused is not None:
            return _refused(refused)
        text = _sized(body, settings)
        if not isinstance(text, str):
            return text
        program = _walk_program(body)
        if program.strip():   # raises ProgramError: the app's handler answers 422 with its place
            await wait.prepare(parse_program, program, settings)
    hub = _hub(request.app, settings)
    try:
        room, token = await run_in_threadpool(hub.store.create, text, settings.max_live_rooms,
                                              settings.live_idle_seconds)
    except StorageUnavailable:
        return _refused(UNAVAILABLE)
    except TooManyRooms:
        return _error(503, "busy", f"this server has {settings.max_live_rooms:,} live rooms "
                      "open, the most it allows (GRADWALK_MAX_LIVE_ROOMS)",
                      "try again later: idle rooms close after GRADWALK_LIVE_IDLE_SECONDS")
    return RoomOpened(room=room, presenter_token=token, url=f"/live/{room}")


@router.post("/api/live/{room}/state", response_model=Stepped,
             responses=errors(403, 404, 409, 413, 415, 422, 429, 503))
async def step_room(room: str, request: Request, settings: SettingsDep, slots: SlotsDep):
    """Set the room's state (Authorization: Bearer <presenter_token>) -> {room, seq}. Only
    the room's presenter hears what is wrong with a body: without its token, 403."""
    try:
        async with queue_share(request, settings, slots) as wait:
            body = await read_body(request, wait, PageState, on_loop_below=STEP_ON_LOOP_BYTES)
    except BODY_ERRORS as e:
        body, bad_body = None, e
    code, token = _presenter(room, request, settings, "step")
    if not isinstance(token, str):
        return token
    text = _sized(body, settings) if body is not None else bad_body
    hub = _hub(request.app, settings)
    # Counted per room and token: a stranger's wrong tokens use up only their own rate.
    wait_s = request.app.state.live_rate.hit(f"{code}:{token_hash(token)[:16]}")
    if wait_s is not None:
        return _error(429, "rate_limited", "too many steps in this room lately (at most "
                      f"{request.app.state.live_rate.describe()}); try again in {wait_s} s",
                      "the server's GRADWALK_LIVE_STATE_RATE_LIMIT sets the rate",
                      headers={"Retry-After": str(wait_s)})
    if not isinstance(text, str):   # a body refused: said only to the room's presenter
        refused = await _as_presenter(code, "step", run_in_threadpool(
            hub.store.check_presenter, code, token, settings.live_idle_seconds))
        if refused is not None:
            return refused
        if isinstance(text, Exception):
            raise text   # the app's handlers answer it (422, 415, 413)
        return text
    seq = await _as_presenter(code, "step", hub.step(code, token, text))
    if not isinstance(seq, int):
        return seq
    # This process's followers get it now; on PostgreSQL the other processes' by NOTIFY.
    hub.stepped(code, seq, text)
    return Stepped(room=code, seq=seq)


class Closed(BaseModel):
    room: str
    closed: bool = True


@router.delete("/api/live/{room}", response_model=Closed, responses=errors(403, 404, 409, 503))
async def close_room(room: str, request: Request, settings: SettingsDep):
    """Close the room (Authorization: Bearer <presenter_token>) -> {room, closed}: its
    followers' streams end with `end` (the student pages say the room has closed), on every
    server process; the code is free again. A student page never calls it."""
    code, token = _presenter(room, request, settings, "close")
    if not isinstance(token, str):
        return token
    hub = _hub(request.app, settings)
    refused = await _as_presenter(code, "close", run_in_threadpool(
        hub.store.close_room, code, token, settings.live_idle_seconds))
    if refused is not None:
        return refused
    hub.closed(code)
    return Closed(room=code)


@router.get("/api/live/{room}/events",
            responses={200: {"description": "Server-Sent Events: `state` events {room, seq, "
                                            "state} (id: seq), the current one first; `end`",
                             "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                       **errors(404, 409, 503)})
async def follow_room(room: str, request: Request, settings: SettingsDep):
    """Follow a room: its current state at once (not to a reconnect whose Last-Event-ID is
    that state's seq), then each new one (never a write)."""
    code, problem = _room(room, settings)
    if problem is not None:
        return _refused(problem)
    hub = _hub(request.app, settings)
    try:
        current = await run_in_threadpool(hub.store.current, code, settings.live_idle_seconds)
    except StorageUnavailable:
        return _refused(UNAVAILABLE)
    if current is None:
        return _refused(_no_room(code))
    try:
        follower = hub.join(code)
    except Busy:
        return _error(503, "busy", f"this server process follows {settings.max_live_followers:,}"
                      " live streams already, the most it allows "
                      "(GRADWALK_MAX_LIVE_FOLLOWERS)", "the page retries by itself",
                      headers={"Retry-After": "5"})
    follower.raw = request.scope.get("extensions", {}).get(RAW_BODY)
    if _last_event_id(request) != current[0]:   # a reconnect at the current step has it
        follower.offer(current[0], state_event(code, *current))
    else:
        follower.sent = current[0]
    return EventStream(_events(follower), feed=follower)


def _last_event_id(request: Request) -> int | None:
    """The seq a reconnecting EventSource saw last (its Last-Event-ID header), or None when
    absent or not a seq (then the stream starts with the current state, as for a newcomer)."""
    value = request.headers.get("last-event-id", "").strip()
    return int(value) if value.isascii() and value.isdigit() and len(value) < 19 else None


async def _events(follower: Follower) -> AsyncIterator[bytes]:
    """The follower's stream: each newest state once, a comment line when the hub's sweep
    finds it quiet (livehub.Hub.beat), `end` when the room expires. The first piece tells
    EventSource to reconnect after 2 s."""
    yield b"retry: 2000\n\n"
    while True:
        follower.idle = True   # what was yielded has been sent: the hub may write directly
        try:
            await follower.wake.wait()
        finally:
            follower.idle = False
        piece = follower.next_piece()
        if piece is None:
            yield sse_event(b"end", json.dumps({"room": follower.room}).encode())
            return
        yield piece


# ---- the student page

@router.get("/live/{room}", response_class=HTMLResponse, responses=page_errors(404, 409, 503))
async def live_page(room: str, request: Request, settings: SettingsDep):
    """The student page: the room's walk, read-only, following the lecturer's step; a refusal
    (no such room, live rooms off, the database down) is the page with the error inlined."""
    code, problem = _room(room, settings)
    state = None
    if problem is None:
        try:
            current = await run_in_threadpool(_hub(request.app, settings).store.current, code,
                                              settings.live_idle_seconds)
        except StorageUnavailable:
            current, problem = None, UNAVAILABLE
        if current is not None:
            state = json.loads(current[1])
        elif problem is None:
            problem = _no_room(code)
    # A code that cannot be one (`/live/AB-CDE`, `O0O0O0`) is still a room's page, refused as
    # such: with an empty data-live it ran as a plain embed, "This short link could not be
    # opened" under a "Following the lecturer" pill (review of fb96ca3).
    context = {"room": code or room.strip()[:16] or "?", "initial_state": state,
               "initial_error": problem[1] if problem else None}
    return templates.TemplateResponse(request, "live.html", context,
                                      status_code=problem[0] if problem else 200)
