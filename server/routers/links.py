"""Short links: POST /api/links, GET /api/links/{id}, and the pages GET /s/{id}, /embed/s/{id}.

A link is the page state (the "v"-versioned object of static/js/state.js) stored under
the hash of its canonical JSON, within max_link_state_bytes; its fields are checked as a live
room's are (server/pagestate.py PageState: 422 naming the field), so a link never opens a page
that drops one of them. Handlers are plain `def`: the database calls run in the
thread pool. Errors keep the shape of docs/trace-format.md.

What one client can store is bounded: a new link (not one whose state is stored already) counts
against the client's rate limit (link_rate_limit: 429 with Retry-After, server/ratelimit.py) and
the database's storage cap (max_link_storage_bytes: 507 storage_full, server/storage/links.py).
"""
from __future__ import annotations

import contextlib
import logging
import re
import threading
from typing import Annotated, Any, AsyncIterator

from fastapi import APIRouter, Depends, FastAPI, Request, Response
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from gradwalk.server.deps import SettingsDep, SlotsDep
from gradwalk.server.errors import ErrorResponse, error_dict, error_response
from gradwalk.server.jsonbody import queue_share, read_body
from gradwalk.server.openapi import errors, inline_refs, page_errors
from gradwalk.server.pagestate import VERSION, PageState
from gradwalk.server.storage.canonical import MAX_SAFE_INT
from gradwalk.server.presets import presets
from gradwalk.server.ratelimit import RateLimit
from gradwalk.server.routers.pages import templates
from gradwalk.server.settings import Settings, get_settings
from gradwalk.server.storage import LinkStore, StorageUnavailable, canonical_json, link_id as state_id
from gradwalk.server.storage.links import LinkCollision, StorageFull

log = logging.getLogger("gradwalk.links")
NOT_FOUND_HINT = "check the link; short links live on the server that made them"
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{10,32}")   # what link_id makes, with room to grow
router = APIRouter(tags=["links"])
_store_lock = threading.Lock()

DISABLED = error_dict("links_disabled", "short links are turned off on this server "
                      "(GRADWALK_LINKS_ENABLED=false)", hint="share the page's own link instead")
UNAVAILABLE = error_dict("unavailable", "the short-link database is unavailable",
                         hint="try again later, or share the page's own link, which holds the "
                              "whole state")


class LinkRequest(BaseModel):
    """{"state": {...}}: the page state, a JSON object with an integer version "v"."""

    model_config = ConfigDict(extra="forbid")
    state: PageState = Field(description='the page state, e.g. {"v": 1, "program": "..."}')


def _request_schema() -> dict:
    """LinkRequest's schema as PageState checks it: the fields are version 1's when "v" is 1;
    a newer page's state (v > 1) is kept as sent, its fields not judged (server/pagestate.py),
    so the schema says so rather than refusing what the server accepts."""
    schema = inline_refs(LinkRequest.model_json_schema())
    current = schema["properties"]["state"]
    current["properties"]["v"] = {**current["properties"]["v"], "maximum": VERSION}
    newer = {"type": "object", "required": ["v"], "additionalProperties": True,
             "properties": {"v": {"type": "integer", "minimum": VERSION + 1,
                                  "maximum": MAX_SAFE_INT}}}
    schema["properties"]["state"] = {"description": current.pop("description", ""),
                                     "anyOf": [current, newer]}
    return schema


# The body is read as bytes and validated in a worker thread (server/jsonbody.py), so its
# schema goes into the OpenAPI document by hand.
REQUEST_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": _request_schema()}}}}


class RateLimited(Exception):
    def __init__(self, seconds: int) -> None:
        super().__init__(seconds)
        self.seconds = seconds


class LinkCreated(BaseModel):
    id: str = Field(description="16 URL-safe characters: base64url(sha256(canonical state))")
    url: str = Field(description='"/s/<id>", the explorer opened at that state')


class LinkState(BaseModel):
    state: dict[str, Any]


def _rate_limited(seconds: int, rate: RateLimit) -> dict:
    return error_dict("rate_limited", f"too many new short links from this address (at most "
                                      f"{rate.describe()}); try again in {seconds} s",
                      hint="share the page's own link meanwhile: it holds the whole state; "
                           "the server's GRADWALK_LINK_RATE_LIMIT sets the rate")


def _storage_full(cap: int) -> dict:
    return error_dict("storage_full", "this server has no room for more short links: they "
                                      f"fill the {cap:,} bytes it allows them",
                      hint="share the page's own link: it holds the whole state; the server's "
                           "GRADWALK_MAX_LINK_STORAGE_BYTES sets the room")


def _not_found(link_id: str) -> str:
    shown = link_id if len(link_id) <= 40 else link_id[:40] + "..."
    return f"no short link {shown!r} on this server"


def _lookup(store: LinkStore, link_id: str) -> dict[str, Any] | None:
    """The stored state; None for an unknown or malformed id. Raises StorageUnavailable."""
    return store.get(link_id) if ID_PATTERN.fullmatch(link_id) else None


def _error(status: int, kind: str, message: str, hint: str | None = None) -> ErrorResponse:
    return error_response(status, error_dict(kind, message, hint))


# ---- the store: opened at startup, or on first use when the app runs without its lifespan

@contextlib.asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Open the link store and migrate it before serving; a database that is down at startup
    is logged and retried on each link request (the rest of the app works meanwhile)."""
    store = _ensure_store(app, get_settings())
    if store is not None:
        try:
            store.open()
        except StorageUnavailable:
            pass   # already logged in one line; link requests answer 503 until it is back
    yield
    if store is not None:
        store.close()


def _ensure_store(app: FastAPI, settings: Settings) -> LinkStore | None:
    if not settings.links_enabled:
        return None
    with _store_lock:
        if getattr(app.state, "link_store", None) is None:
            app.state.link_store = LinkStore(settings.link_database_url(),
                                             settings.database_timeout_seconds)
        return app.state.link_store


async def get_link_store(request: Request, settings: SettingsDep) -> LinkStore | None:
    """The app's LinkStore, or None when short links are turned off."""
    return _ensure_store(request.app, settings)


LinkStoreDep = Annotated[LinkStore | None, Depends(get_link_store)]


# ---- the API

@router.post("/api/links", status_code=201, response_model=LinkCreated,
             openapi_extra=REQUEST_BODY,
             responses={200: {"model": LinkCreated, "description": "the link already existed"},
                        **errors(400, 404, 408, 409, 413, 415, 422, 429, 503, 507)})
async def create_link(request: Request, response: Response, store: LinkStoreDep,
                      settings: SettingsDep, slots: SlotsDep):
    """Store the state (idempotent: the same state gives the same id) -> {id, url}.
    201 when new, 200 when it existed; 413 over max_link_state_bytes; 429 past the client's
    link_rate_limit (Retry-After); 507 past max_link_storage_bytes; 503 database down."""
    async with queue_share(request, settings, slots) as wait:
        body = await read_body(request, wait, LinkRequest)
    if store is None:
        return error_response(404, DISABLED)
    canonical = body.state.canonical()
    size, limit = len(canonical), settings.max_link_state_bytes
    if size > limit:
        return _error(413, "too_large", f"the state is {size:,} bytes as canonical JSON; "
                                        f"short links hold at most {limit:,} bytes "
                                        "(GRADWALK_MAX_LINK_STATE_BYTES)",
                      "shorten the program, or share the page's own link")
    client = request.client.host if request.client else None
    rate = _rate_limit(request.app, settings)
    try:
        key, created = await run_in_threadpool(_store, store, body.state.sent(), rate, client,
                                               settings.max_link_storage_bytes)
    except StorageUnavailable:
        return error_response(503, UNAVAILABLE)
    except RateLimited as e:
        return error_response(429, _rate_limited(e.seconds, rate),
                              headers={"Retry-After": str(e.seconds)})
    except StorageFull:
        return error_response(507, _storage_full(settings.max_link_storage_bytes))
    except LinkCollision:
        log.error("two states hash to the short id %s", state_id(canonical))
        return _error(409, "conflict", "another state already has this short id",
                      "share the page's own link instead")
    response.status_code = 201 if created else 200
    return LinkCreated(id=key, url=f"/s/{key}")


def _store(store: LinkStore, state: dict[str, Any], rate: RateLimit, client: str | None,
           max_bytes: int) -> tuple[str, bool]:
    """(id, created) for a state PageState has checked: a state stored already answers
    without counting; a new one is counted against the client's rate, then stored within the
    cap. Raises RateLimited, StorageFull, StorageUnavailable, LinkCollision."""
    if store.holds(state, checked=True):
        return state_id(canonical_json(state, checked=True)), False
    wait = rate.hit(client)
    if wait is not None:
        raise RateLimited(wait)
    return store.create(state, max_bytes, checked=True)


def _rate_limit(app: FastAPI, settings: Settings) -> RateLimit:
    """The app's RateLimit for settings.link_rate_limit (made again when the setting changes)."""
    with _store_lock:
        rate = getattr(app.state, "link_rate_limit", None)
        if rate is None or rate.spec != settings.link_rate_limit:
            rate = app.state.link_rate_limit = RateLimit(settings.link_rate_limit)
        return rate


@router.get("/api/links/{link_id}", response_model=LinkState,
            responses=errors(404, 422, 503))
def read_link(link_id: str, store: LinkStoreDep):
    """{"state": {...}}; 404 not_found for an unknown id; 503 when the database is down."""
    if store is None:
        return error_response(404, DISABLED)
    try:
        state = _lookup(store, link_id)
    except StorageUnavailable:
        return error_response(503, UNAVAILABLE)
    if state is None:
        return _error(404, "not_found", _not_found(link_id), NOT_FOUND_HINT)
    return LinkState(state=state)


# ---- the pages: the explorer (or the embed) with the state or the error inlined

@router.get("/s/{link_id}", response_class=HTMLResponse,
            responses={**page_errors(404, 503), **errors(422)})
def explorer_at_link(request: Request, link_id: str, store: LinkStoreDep, settings: SettingsDep):
    """The explorer with `<script id="initial-state">`; 404/503 with `initial-error`."""
    return _page(request, "explorer.html", link_id, store, public_url=settings.public_url)


@router.get("/embed/s/{link_id}", response_class=HTMLResponse,
            responses={**page_errors(404, 503), **errors(422)})
def embed_at_link(request: Request, link_id: str, store: LinkStoreDep):
    """The embed page with the stored state inlined, like /s/{id}."""
    return _page(request, "embed.html", link_id, store)


def _page(request: Request, template: str, link_id: str, store: LinkStore | None, public_url: str = ""):
    status, state, error = 200, None, None
    if store is None:
        status, error = 404, DISABLED
    else:
        try:
            state = _lookup(store, link_id)
        except StorageUnavailable:
            status, error = 503, UNAVAILABLE
        else:
            if state is None:
                status, error = 404, error_dict("not_found", _not_found(link_id), NOT_FOUND_HINT)
    items = presets()
    context = {"presets": items, "initial_preset": items[0]["id"],
               "links_enabled": store is not None, "link_id": link_id,
               "initial_state": state, "initial_error": error, "public_url": public_url}
    return templates.TemplateResponse(request, template, context, status_code=status)
