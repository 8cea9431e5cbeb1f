"""The explorer page and the health check.

Handlers here are `async def`: they never wait for a worker thread, so the page and the health
check answer while traces run (server/slots.py).
"""
from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, PlainTextResponse
from fastapi.templating import Jinja2Templates

from gradwalk.server.deps import SettingsDep
from gradwalk.server.presets import presets

ROOT = Path(__file__).resolve().parents[2]
templates = Jinja2Templates(directory=ROOT / "templates")
router = APIRouter()


@router.get("/", response_class=HTMLResponse)
async def explorer(request: Request, settings: SettingsDep) -> HTMLResponse:
    """The explorer, with the first preset (seed-tanh-fanout) loaded."""
    items = presets()
    return templates.TemplateResponse(request, "explorer.html",
                                      {"presets": items, "initial_preset": items[0]["id"],
                                       "links_enabled": settings.links_enabled,
                                       "public_url": settings.public_url})


@router.get("/embed", response_class=HTMLResponse)
async def embed(request: Request) -> HTMLResponse:
    """The embed: one walk, read-only, for slides (state in the fragment, options in the
    query string; static/js/embedding.js). Any site may frame it (server/main.py)."""
    return templates.TemplateResponse(request, "embed.html", {})


@router.get("/healthz", response_class=PlainTextResponse)
async def healthz() -> str:
    return "ok"
