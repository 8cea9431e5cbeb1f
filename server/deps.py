"""Dependency aliases for the routers.

The dependencies are `async def` on purpose: FastAPI runs a plain `def` dependency in the thread
pool, and the page and the health check must not wait for a thread.
"""
from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from gradwalk.server.settings import Settings, get_settings
from gradwalk.server.slots import TraceSlots


async def settings() -> Settings:
    """get_settings(), cached once per process."""
    return get_settings()


async def slots(request: Request) -> TraceSlots:
    """The app's trace slots (made by create_app)."""
    return request.app.state.trace_slots


SettingsDep = Annotated[Settings, Depends(settings)]
SlotsDep = Annotated[TraceSlots, Depends(slots)]
