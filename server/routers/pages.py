"""The explorer page and the health check."""
from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, PlainTextResponse
from fastapi.templating import Jinja2Templates

from server.presets import presets

ROOT = Path(__file__).resolve().parents[2]
templates = Jinja2Templates(directory=ROOT / "templates")
router = APIRouter()


@router.get("/", response_class=HTMLResponse)
def explorer(request: Request) -> HTMLResponse:
    """The explorer, with the first preset (seed-tanh-fanout) loaded."""
    items = presets()
    return templates.TemplateResponse(request, "explorer.html",
                                      {"presets": items, "initial_preset": items[0]["id"]})


@router.get("/healthz", response_class=PlainTextResponse)
def healthz() -> str:
    return "ok"
